// The sandbox (development mode only; docs/conformance.md): the record of each connector's requests
// and the faults the broker is told to answer a connector with, for the conformance kit's
// connector profiles. Only a protocol operator reads and sets them. Mounted by app.ts when the
// development authorization server is on; a production broker has no such routes.
import { Hono, type MiddlewareHandler } from 'hono';
import { operation } from './operations';
import { Problem } from '../domain/problems';
import type { AppEnv, Principal } from './context';
import { problemResponse, querySingle } from './http';

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
  if (c.req.method === 'POST' || c.req.method === 'PATCH') {
    try {
      const body = JSON.parse(await c.req.text());
      if (body && typeof body === 'object' && !Array.isArray(body)) bodyFields = Object.keys(body).sort();
    } catch {
      /* not JSON: the route answers that */
    }
  }
  const fault = sandbox.takeFault(principal.clientId, c.req.method, c.req.path);
  let response: Response | undefined;
  if (fault) {
    const code = ({ 409: 'STALE_RESOURCE_VERSION', 429: 'RATE_LIMITED', 503: 'SERVICE_UNAVAILABLE' } as const)[fault.status];
    const headers: Record<string, string> = fault.status === 409 ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
    response = problemResponse(c, new Problem(code, `injected by the sandbox (${fault.id})`, {}, headers));
  } else {
    await next();
  }
  sandbox.record({
    at: new Date().toISOString(),
    clientId: principal.clientId,
    organizationId: principal.organizationId,
    method: c.req.method,
    path: c.req.path,
    status: response?.status ?? c.res.status,
    idempotencyKey: c.req.header('idempotency-key') ?? null,
    ifMatch: c.req.header('if-match') ?? null,
    correlationId: c.get('correlationId'),
    ms: Math.round(performance.now() - started),
    bodyFields,
    injectedFault: fault !== undefined,
  });
  return response;
};

export const sandbox = new Hono<AppEnv>();

operation(sandbox, { method: 'GET', path: '/connector-requests', access: { scope: OPERATOR_SCOPE }, answers: [200] }, async ({ c, principal }) => {
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

operation(sandbox, { method: 'POST', path: '/faults', access: { scope: OPERATOR_SCOPE }, body: 'SandboxFaultRequest', answers: [200] }, async ({ c, principal, body }) => {
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

operation(sandbox, { method: 'POST', path: '/event-disorder', access: { scope: OPERATOR_SCOPE }, body: 'SandboxEventDisorderRequest', answers: [200] }, async ({ c, principal, body }) => {
  requireOperator(principal);
  return c.json(sandboxOf(c).setDisorder(body.clientId, body.holdSeconds ?? 2, body.pages ?? 100), 200);
});

operation(sandbox, { method: 'POST', path: '/reset', access: { scope: OPERATOR_SCOPE }, body: 'SandboxResetRequest', answers: [200] }, async ({ c, principal, body }) => {
  requireOperator(principal);
  return c.json(sandboxOf(c).reset(body.clientId), 200);
});
