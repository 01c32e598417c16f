// The sandbox (development mode only; docs/conformance.md): the record of each connector's requests
// and the faults the broker is told to answer a connector with, for the conformance kit's
// connector profiles. Only a protocol operator reads and sets them. Mounted by app.ts when the
// development authorization server is on; a production broker has no such routes.
import { Hono, type MiddlewareHandler } from 'hono';
import { operation } from './operations';
import { Problem } from '../domain/problems';
import type { AppEnv, Principal } from './context';
import { isDatabaseUnavailable, problemResponse, querySingle } from './http';

const OPERATOR_SCOPE = 'exchange:admin';

function requireOperator(principal: Principal): void {
  if (!principal.operator) throw new Problem('ACTOR_NOT_PERMITTED', 'only a protocol operator reads or sets the sandbox');
}

function sandboxOf(c: Parameters<MiddlewareHandler<AppEnv>>[0]) {
  const sandbox = c.get('services').sandbox;
  if (!sandbox) throw new Problem('ROUTE_NOT_FOUND', `no endpoint ${c.req.method} ${c.req.path}`);
  return sandbox;
}

/**
 * After gates 1-3 on every resource route: answers with a fault set for this connector, if one is
 * due, and records the request as the connector sent it and the status it got.
 */
export const recordConnectorRequest: MiddlewareHandler<AppEnv> = async (c, next) => {
  const sandbox = c.get('services').sandbox;
  const principal = c.get('principal');
  if (!sandbox || !principal) return next();
  const started = performance.now();
  let bodyFields: string[] = [];
  let deduplicationKey: string | null = null;
  if (c.req.method === 'POST' || c.req.method === 'PATCH') {
    try {
      const body = JSON.parse(await c.req.text());
      if (body && typeof body === 'object' && !Array.isArray(body)) {
        bodyFields = Object.keys(body).sort();
        if (typeof body.deduplicationKey === 'string') deduplicationKey = body.deduplicationKey;
      }
    } catch {
      /* not JSON: the route answers that */
    }
  }
  const fault = sandbox.takeFault(principal.clientId, c.req.method, c.req.path);
  const record = (status: number): void =>
    sandbox.record({
      at: new Date().toISOString(),
      clientId: principal.clientId,
      organizationId: principal.organizationId,
      method: c.req.method,
      path: c.req.path,
      status,
      idempotencyKey: c.req.header('idempotency-key') ?? null,
      ifMatch: c.req.header('if-match') ?? null,
      correlationId: c.get('correlationId'),
      ms: Math.round(performance.now() - started),
      bodyFields,
      deduplicationKey,
      injectedFault: fault !== undefined,
    });
  if (fault) {
    const code = ({ 409: 'STALE_RESOURCE_VERSION', 429: 'RATE_LIMITED', 503: 'SERVICE_UNAVAILABLE' } as const)[fault.status];
    const headers: Record<string, string> = fault.status === 409 ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
    const response = problemResponse(c, new Problem(code, `injected by the sandbox (${fault.id})`, {}, headers));
    record(response.status);
    return response;
  }
  try {
    await next();
  } catch (err) {
    // A handler that throws (a schema or domain refusal) leaves c.res unset here and the app's
    // onError answers later: record the status that answer will carry, then let it answer.
    record(err instanceof Problem ? err.status : isDatabaseUnavailable(err) ? 503 : 500);
    throw err;
  }
  record(c.res.status);
};

export const sandbox = new Hono<AppEnv>();

operation(sandbox, {
  method: 'GET', path: '/connector-requests', access: { scope: OPERATOR_SCOPE }, answers: [200],
  returns: 'SandboxConnectorRequestPage',
  doc: {
    id: 'listConnectorRequests',
    summary: "A connector's requests as the sandbox recorded them (development mode only)",
    description:
      'For a protocol operator (`exchange:admin`; 403 `ACTOR_NOT_PERMITTED` for anyone else). Every ' +
      'request a connector made to a resource route after authentication, oldest first: method, ' +
      'path, status, the Idempotency-Key and If-Match headers as sent, timing, the top-level body ' +
      "fields, the body's deduplicationKey (execution reports), and whether the answer was an " +
      "injected fault. Kept in the broker process's memory (the last 10,000). " +
      'Present only when the development authorization server is on.',
    parameters: [
      {
        name: 'clientId',
        in: 'query',
        required: true,
        description: "The connector's client id. One value.",
        schema: { type: 'string', minLength: 1, maxLength: 128 },
      },
      {
        name: 'after',
        in: 'query',
        required: false,
        description: 'Only requests recorded after this sequence number (default 0). One value.',
        schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
      },
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: 'At most this many (default 200). One value.',
        schema: { type: 'integer', minimum: 1, maximum: 1000 },
      },
    ],
    responses: { '200': 'The requests, and the sequence to ask after next time.' },
  },
}, async ({ c, principal }) => {
  requireOperator(principal);
  const clientId = querySingle(c, 'clientId');
  if (!clientId) throw new Problem('VALIDATION_FAILED', 'clientId is required', { errors: [{ pointer: '/query/clientId', message: 'is required' }] });
  const afterText = querySingle(c, 'after') ?? '0';
  const limitText = querySingle(c, 'limit') ?? '200';
  if (!/^\d{1,15}$/.test(afterText)) throw new Problem('VALIDATION_FAILED', 'after must be a sequence number', { errors: [{ pointer: '/query/after', message: 'is not valid' }] });
  if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 1000) throw new Problem('VALIDATION_FAILED', 'limit must be an integer from 1 to 1000', { errors: [{ pointer: '/query/limit', message: 'is out of range' }] });
  const items = sandboxOf(c).list(clientId, Number(afterText), Number(limitText));
  return c.json({ items, after: items.length ? items[items.length - 1].sequence : Number(afterText) });
});

operation(sandbox, {
  method: 'POST', path: '/faults', access: { scope: OPERATOR_SCOPE }, body: 'SandboxFaultRequest', answers: [200],
  returns: 'SandboxFault',
  doc: {
    id: 'injectSandboxFault',
    summary: "Answer a connector's next requests with 409, 429 or 503 (development mode only)",
    description:
      'For a protocol operator (`exchange:admin`; 403 `ACTOR_NOT_PERMITTED` for anyone else). The ' +
      "connector's next `count` requests (of `method`, under `pathPrefix`, ending in `pathSuffix`, " +
      'when given) are answered `409 STALE_RESOURCE_VERSION` (as if the resource had just changed), ' +
      'or `429 RATE_LIMITED` or `503 SERVICE_UNAVAILABLE` with `Retry-After`, without reaching the ' +
      'broker; the record marks them. Present only when the development authorization server is on.',
    responses: { '200': "The fault, now waiting for the connector's requests.", '413': false },
  },
}, async ({ c, principal, body }) => {
  requireOperator(principal);
  const fault = sandboxOf(c).addFault({
    clientId: body.clientId,
    status: body.status,
    retryAfterSeconds: body.retryAfterSeconds ?? 1,
    remaining: body.count ?? 1,
    ...(body.method ? { method: body.method } : {}),
    ...(body.pathPrefix ? { pathPrefix: body.pathPrefix } : {}),
    ...(body.pathSuffix ? { pathSuffix: body.pathSuffix } : {}),
  });
  return c.json(fault, 200);
});

operation(sandbox, {
  method: 'POST', path: '/event-disorder', access: { scope: OPERATOR_SCOPE }, body: 'SandboxEventDisorderRequest', answers: [200],
  returns: 'SandboxEventDisorder',
  doc: {
    id: 'setSandboxEventDisorder',
    summary: "Serve a connector's event feed late, reversed and twice (development mode only)",
    description:
      'For a protocol operator (`exchange:admin`; 403 `ACTOR_NOT_PERMITTED` for anyone else). The ' +
      'next `pages` pages of `GET /events` the connector reads end only where the feed has been ' +
      'quiet for `holdSeconds` (changes made in quick succession arrive together, never split), ' +
      'hold their events in reverse order (a newer version of a resource before an older one), and ' +
      'come again at the next read: a connector that applies events once and in version order acts ' +
      'as if the feed were in order. `pages` 0 ends it. Present only when the development ' +
      'authorization server is on.',
    responses: { '200': 'The disorder now in force.', '413': false },
  },
}, async ({ c, principal, body }) => {
  requireOperator(principal);
  return c.json(sandboxOf(c).setDisorder(body.clientId, body.holdSeconds ?? 2, body.pages ?? 100), 200);
});

operation(sandbox, {
  method: 'POST', path: '/reset', access: { scope: OPERATOR_SCOPE }, body: 'SandboxResetRequest', answers: [200],
  returns: 'SandboxReset',
  doc: {
    id: 'resetSandbox',
    summary: 'End every fault and the event disorder set for a connector (development mode only)',
    description:
      'For a protocol operator (`exchange:admin`; 403 `ACTOR_NOT_PERMITTED` for anyone else). ' +
      "Faults still waiting for the connector's requests are dropped and its event disorder ends: " +
      'the conformance kit resets a connector before and after a run, so that what one run set and ' +
      'the connector never met does not answer the next. Present only when the development ' +
      'authorization server is on.',
    responses: { '200': 'What was ended.', '413': false },
  },
}, async ({ c, principal, body }) => {
  requireOperator(principal);
  return c.json(sandboxOf(c).reset(body.clientId), 200);
});
