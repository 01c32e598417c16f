// The gateway's HTTP interface: messages sent with the organization's own exchange credential
// (a broker access token: the broker decides whether it is valid, and the organization is the
// token's, never one a message names), each organization's inbox entries, acknowledgements and
// quarantine, and the gateway's health and diagnostics. Refusals are RFC 9457 problems.
import { timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { decodeJwt } from 'jose';
import type { Db } from '../core/db';
import type { GatewayConfig, ServedOrganization } from './config';
import type { Delivery } from './delivery';
import type { Follower } from './follower';
import { FORMATS, formatOf } from './formats';
import { gatewayMetrics, healthOf } from './health';
import { screen, sha256, type Intake } from './intake';
import type { ReconcileReport } from './reconcile';
import { SettingsConflict, settingsProblems, type EditableSettings, type Settings } from './settings';
import { listQuarantine, outboundFor, readEntry, readQuarantine, referencesOf, resolveQuarantine } from './store';

export interface GatewayParts {
  db: Db;
  config: GatewayConfig;
  intake: Intake;
  ready: () => Promise<boolean>;
  follower: Follower;
  delivery: Delivery;
  reconcile: (org: ServedOrganization) => Promise<ReconcileReport>;
  /** The organizations' adapter settings in force, and their changes through PUT /settings. */
  settings: Settings;
}

export const GATEWAY_VERSION = '0.1.0';

interface Caller {
  organizationId: string;
  scopes: string[];
  /** The protocol operator (config.operatorOrganizations, with exchange:admin): every organization's held messages. */
  operator: boolean;
}

type Env = { Variables: { caller: Caller } };

/** The gateway's problem codes (the broker's where they mean the same) and their titles. */
const TITLES: Readonly<Record<string, string>> = {
  UNAUTHENTICATED: 'Authentication is required',
  INVALID_TOKEN: 'The token was not accepted',
  ORGANIZATION_BINDING_VIOLATION: 'This gateway does not serve the organization',
  INSUFFICIENT_SCOPE: 'The token lacks a required scope',
  RESOURCE_NOT_FOUND: 'Not found',
  ROUTE_NOT_FOUND: 'No such endpoint',
  PAYLOAD_TOO_LARGE: 'The message is too large',
  VALIDATION_FAILED: 'The request is not valid',
  IDEMPOTENCY_CONFLICT: 'The Idempotency-Key was used for another message',
  INVALID_STATE_TRANSITION: 'Not possible in this state',
  INTERNAL_ERROR: 'The gateway could not complete the request',
  STALE_RESOURCE_VERSION: 'The settings changed since they were read',
  PRECONDITION_REQUIRED: 'If-Match is required',
};

const problem = (c: Context, status: number, code: string, detail: string) =>
  c.json({ type: `urn:exchange:protocol:error:${code.toLowerCase().replace(/_/g, '-')}`, title: TITLES[code] ?? code, status, code, detail }, status as any, { 'content-type': 'application/problem+json' });

/**
 * Asks the broker whether a token is valid and whose it is: by introspection (RFC 7662) with the
 * gateway's own credential where one is configured, otherwise by reading the caller's feed with the
 * token (GET /events?limit=1 needs no scope, only gates 1 to 3). An answer is remembered for
 * REMEMBER_MS at most (and never past the token's expiry), so a revoked token stops working here
 * within seconds. A token bound to a certificate or a DPoP key (introspection names its `cnf`) is
 * refused: the gateway cannot check the binding, and accepting it would make it a bearer token.
 */
const REMEMBER_MS = 10_000;

function brokerAuthority(brokerUrl: string, operators: readonly string[], introspection: GatewayConfig['introspection']) {
  const known = new Map<string, { caller: Caller; until: number }>();
  const callerOf = (orgId: unknown, scope: unknown): Caller => {
    const scopes = String(scope ?? '').split(' ').filter(Boolean);
    return { organizationId: String(orgId), scopes, operator: operators.includes(String(orgId)) && scopes.includes('exchange:admin') };
  };
  const ask = async (token: string): Promise<{ caller: Caller; exp?: number } | undefined> => {
    if (introspection) {
      const answer = await fetch(`${brokerUrl}/oauth2/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${encodeURIComponent(introspection.clientId)}:${encodeURIComponent(introspection.clientSecret)}`).toString('base64')}` },
        body: new URLSearchParams({ token }),
      });
      if (answer.status !== 200) throw new Error(`the broker's introspection answered ${answer.status}`);
      const state = (await answer.json()) as { active?: boolean; org_id?: string; scope?: string; exp?: number; cnf?: unknown };
      if (!state.active || state.cnf !== undefined) return undefined;
      return { caller: callerOf(state.org_id, state.scope), exp: state.exp };
    }
    const answer = await fetch(`${brokerUrl}/events?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    await answer.body?.cancel();
    if (answer.status !== 200) return undefined;
    const claims = decodeJwt(token);
    return { caller: callerOf(claims.org_id, claims.scope), exp: claims.exp };
  };
  return async (token: string): Promise<Caller | undefined> => {
    const key = sha256(token);
    const hit = known.get(key);
    if (hit && hit.until > Date.now()) return hit.caller;
    // Forget what has expired (a long-running gateway sees many tokens), then ask the broker.
    if (known.size > 1000) for (const [k, v] of known) if (v.until <= Date.now()) known.delete(k);
    const found = await ask(token);
    if (!found) return undefined;
    known.set(key, { caller: found.caller, until: Math.min(Date.now() + REMEMBER_MS, (found.exp ?? Infinity) * 1000) });
    return found.caller;
  };
}

/** The scope a message of each format needs: what its commands need at the exchange. */
// (An IFTSTA in an EDIFACT interchange records milestones, which needs execution:update as well:
// the exchange refuses each without it, and the APERAK says so.)
const SCOPE_OF: Readonly<Record<string, string>> = { edifact: 'loads:publish', epcis: 'execution:update', spreadsheet: 'capacity:publish' };

export function gatewayApp(parts: GatewayParts): Hono<Env> {
  const app = new Hono<Env>();
  const entryView = entryViewOf(parts.db);
  // In this order: what is open, then what guards the organizations' routes, then those routes.
  healthRoutes(app, parts);
  guardRoutes(app, parts.config);
  messageRoutes(app, parts, entryView);
  quarantineRoutes(app, parts, entryView);
  organizationRoutes(app, parts);
  settingsRoutes(app, parts.settings);
  app.notFound((c) => problem(c, 404, 'ROUTE_NOT_FOUND', `no endpoint ${c.req.method} ${c.req.path}`));
  app.onError((err, c) => problem(c, 500, 'INTERNAL_ERROR', `the gateway could not complete the request (${err.name})`));
  return app;
}

/** An entry as its organization sees it (entryViewOf). */
type EntryView = ReturnType<typeof entryViewOf>;

/** The gateway's health and what it is, open; every organization's health and the metrics, the operator's. */
function healthRoutes(app: Hono<Env>, { db, config, ready, follower, delivery }: GatewayParts) {
  const organizationIds = config.organizations.map((o) => o.organizationId);
  const metrics = gatewayMetrics(db, follower, delivery, organizationIds);

  app.get('/health/live', (c) => c.json({ status: 'live' }));
  app.get('/health/ready', async (c) => ((await ready()) ? c.json({ status: 'ready' }) : c.json({ status: 'not ready' }, 503)));
  // What the gateway is and reads: no organization's data.
  app.get('/diagnostics', (c) =>
    c.json({
      gateway: { version: GATEWAY_VERSION },
      formats: FORMATS.map((f) => ({ name: f.name, extensions: f.extensions, profiles: f.profiles })),
      organizations: organizationIds.length,
    }),
  );

  // The operator's views of every organization (METRICS_TOKEN, as the broker's /metrics).
  const operator = async (c: Context<Env>, next: () => Promise<void>) => {
    if (!config.metricsToken) return next();
    const given = Buffer.from(/^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '');
    const wanted = Buffer.from(config.metricsToken);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return problem(c, 401, 'UNAUTHENTICATED', 'send the METRICS_TOKEN as Authorization: Bearer');
    return next();
  };
  app.get('/health', operator, async (c) => c.json({ status: (await ready()) ? 'ready' : 'not ready', organizations: await healthOf(db, follower, delivery, organizationIds) }));
  app.get('/metrics', operator, async (c) => c.text(await metrics.metrics(), 200, { 'content-type': metrics.contentType }));
}

/** What comes before the organizations' routes: the console's origins (CORS), the caller's token, and the size of a message. */
function guardRoutes(app: Hono<Env>, config: GatewayConfig) {
  // The planner console (another origin: the broker's) reads and resolves the organization's held
  // messages with the user's own token; only the origins configured may.
  if (config.consoleOrigins.length) {
    const allowed = cors({ origin: config.consoleOrigins, allowMethods: ['GET', 'POST'], allowHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-message-name'], maxAge: 600 });
    for (const path of ['/messages/*', '/quarantine', '/quarantine/*', '/status']) app.use(path, allowed);
  }
  const authenticate = authenticatorOf(config);
  for (const path of ['/messages/*', '/quarantine', '/quarantine/*', '/status', '/reconcile', '/mappings', '/settings']) app.use(path, authenticate);
  // A body over the limit is refused while it streams in, not after it was held in memory.
  // The answer comes before the body has been read: the connection is closed after it (and says
  // so), or a client would send its next request on a socket the server then drops.
  const limited = bodyLimit({
    maxSize: config.maxMessageBytes,
    onError: (c) => {
      const refused = problem(c, 413, 'PAYLOAD_TOO_LARGE', `a message may have at most ${config.maxMessageBytes} bytes`);
      refused.headers.set('connection', 'close');
      return refused;
    },
  });
  app.use('/messages/*', limited);
  app.use('/quarantine/*', limited);
}

/** The caller is the organization of its exchange access token, which the broker vouches for, and one the gateway serves (or the operator, for held messages). */
function authenticatorOf(config: GatewayConfig) {
  const authority = brokerAuthority(config.brokerUrl, config.operatorOrganizations, config.introspection);
  return async function authenticate(c: Context<Env>, next: () => Promise<void>) {
    const header = c.req.header('authorization') ?? '';
    const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!token) return problem(c, 401, 'UNAUTHENTICATED', 'send the organization\'s exchange access token as Authorization: Bearer');
    const caller = await authority(token).catch(() => undefined);
    if (!caller) return problem(c, 401, 'INVALID_TOKEN', 'the exchange did not accept this token');
    const served = config.organizations.some((o) => o.organizationId === caller.organizationId);
    // The operator reaches the held messages of every organization, and nothing else.
    const operatorPath = caller.operator && c.req.path.startsWith('/quarantine');
    if (!served && !operatorPath) return problem(c, 403, 'ORGANIZATION_BINDING_VIOLATION', 'this gateway does not serve your organization');
    c.set('caller', caller);
    await next();
  };
}

/** A message sent over HTTP, taken as from a mailbox, and what became of it. */
function messageRoutes(app: Hono<Env>, { config, intake }: GatewayParts, entryView: EntryView) {
  app.post('/messages/:format', async (c) => {
    const format = c.req.param('format');
    if (!FORMATS.some((f) => f.name === format)) return problem(c, 404, 'ROUTE_NOT_FOUND', `no format ${format}`);
    const caller = c.get('caller');
    if (!caller.scopes.includes(SCOPE_OF[format])) return problem(c, 403, 'INSUFFICIENT_SCOPE', `a ${format} message needs scope ${SCOPE_OF[format]}`);
    const bytes = Buffer.from(await c.req.arrayBuffer());
    if (bytes.length > config.maxMessageBytes) return problem(c, 413, 'PAYLOAD_TOO_LARGE', `a message may have at most ${config.maxMessageBytes} bytes`);
    // What no format could read (a binary body) is held with its reason, as from a mailbox.
    const { content, refusal } = screen(bytes, bytes.length, formatOf(format), config.maxMessageBytes);
    if (!refusal && content.trim() === '') return problem(c, 400, 'VALIDATION_FAILED', 'the message is empty');
    // A retry with the same Idempotency-Key (or, without one, the same content) is the same entry.
    const digest = sha256(refusal ? bytes : content);
    const key = c.req.header('idempotency-key') ?? digest;
    const id = `ht-${sha256(`${caller.organizationId}\0${format}\0${key}`).slice(0, 32)}`;
    const { entry, created } = await intake.take({ id, organizationId: caller.organizationId, transport: 'http', format, name: c.req.header('x-message-name') ?? null, content, ...(refusal ? { refusal } : {}) });
    if (!created && entry.contentSha256 !== sha256(content)) return problem(c, 409, 'IDEMPOTENCY_CONFLICT', 'this Idempotency-Key was used for another message');
    const done = await intake.settled(id, 10_000);
    return c.json(await entryView(entry.organizationId, id), done ? 200 : 202, { location: `/messages/${format}/${id}` });
  });

  app.get('/messages/:format/:id', async (c) => {
    const view = await entryView(c.get('caller').organizationId, c.req.param('id'));
    return view ? c.json(view) : problem(c, 404, 'RESOURCE_NOT_FOUND', 'no such message of your organization');
  });
}

/** The organization's held messages: listed, inspected, corrected and released, or discarded. */
function quarantineRoutes(app: Hono<Env>, { db, config, intake }: GatewayParts, entryView: EntryView) {
  /** Whose held messages the caller reaches: its organization's, or for the operator any (or the one it names). */
  const holder = (c: Context<Env>) => (c.get('caller').operator ? (c.req.query('organization') ?? undefined) : c.get('caller').organizationId);

  app.get('/quarantine', async (c) => c.json({ items: await listQuarantine(db, holder(c)) }));

  // One held message inspected: its reasons with their positions and the message as received.
  app.get('/quarantine/:id', async (c) => {
    const held = await readQuarantine(db, holder(c), c.req.param('id'));
    if (!held) return problem(c, 404, 'RESOURCE_NOT_FOUND', 'no such quarantined message of your organization');
    const entry = await readEntry(db, held.inboxId);
    return c.json({ ...held, content: entry?.content ?? '' });
  });

  // Correct and release: the corrected message (the body) takes the path of a new one, in the
  // held message's format and organization; the held one is closed, pointing at it.
  app.post('/quarantine/:id/release', async (c) => {
    const held = await readQuarantine(db, holder(c), c.req.param('id'));
    if (!held) return problem(c, 404, 'RESOURCE_NOT_FOUND', 'no such quarantined message of your organization');
    if (held.state !== 'held') return problem(c, 409, 'INVALID_STATE_TRANSITION', `the message is ${held.state}`);
    const bytes = Buffer.from(await c.req.arrayBuffer());
    if (bytes.length > config.maxMessageBytes) return problem(c, 413, 'PAYLOAD_TOO_LARGE', `a message may have at most ${config.maxMessageBytes} bytes`);
    const { content, refusal } = screen(bytes, bytes.length, formatOf(held.format), config.maxMessageBytes);
    if (refusal) return problem(c, 400, 'VALIDATION_FAILED', `the corrected message cannot be read: ${refusal.message}`);
    if (content.trim() === '') return problem(c, 400, 'VALIDATION_FAILED', 'send the corrected message as the body');
    const id = `rl-${sha256(`${held.inboxId}\0${content}`).slice(0, 32)}`;
    // Processed for the organization it arrived for, whoever releases it, and answered where the
    // held message was: a message from a mailbox gets its answers (CONTRL, APERAK, result file) in out/ too.
    const original = await readEntry(db, held.inboxId);
    await intake.take({ id, organizationId: held.organizationId, transport: original?.transport ?? 'http', format: held.format, name: held.name, content });
    await resolveQuarantine(db, held.organizationId, held.inboxId, { state: 'released', as: id });
    const done = await intake.settled(id, 10_000);
    return c.json(await entryView(held.organizationId, id), done ? 200 : 202, { location: `/messages/${held.format}/${id}` });
  });

  app.post('/quarantine/:id/discard', async (c) => {
    const held = await readQuarantine(db, holder(c), c.req.param('id'));
    if (!held) return problem(c, 404, 'RESOURCE_NOT_FOUND', 'no such quarantined message of your organization');
    if (held.state !== 'held' && held.state !== 'discarded') return problem(c, 409, 'INVALID_STATE_TRANSITION', `the message is ${held.state}`);
    await resolveQuarantine(db, held.organizationId, held.inboxId, { state: 'discarded' });
    return c.json({ ...held, state: 'discarded' });
  });
}

/** The organization's own state: its health, a reconciliation with the exchange, its mapping state. */
function organizationRoutes(app: Hono<Env>, { db, follower, delivery, reconcile, settings }: GatewayParts) {
  // The organization's own health: its adapters, its feed, its dead letters, its pushes.
  app.get('/status', async (c) => c.json((await healthOf(db, follower, delivery, [c.get('caller').organizationId]))[0]));

  // Catch up and check the mapping state against the exchange now; the report says what was repaired.
  app.post('/reconcile', async (c) => {
    const org = settings.of(c.get('caller').organizationId)!;
    return c.json(await reconcile(org));
  });

  // The mapping state of one exchange resource: the organization's external references of it.
  app.get('/mappings', async (c) => {
    const resourceId = c.req.query('resourceId');
    if (!resourceId) return problem(c, 400, 'VALIDATION_FAILED', 'name the exchange resource: ?resourceId=');
    return c.json({ items: (await referencesOf(db, c.get('caller').organizationId, resourceId)).map(({ system, type, value, resourceKind, resourceId: id }) => ({ system, type, value, resourceKind, resourceId: id })) });
  });
}

/**
 * The organization's adapter settings (settings.ts): read by any of its tokens, replaced as a
 * whole by one with connectors:manage, against the version read (If-Match), in force for the
 * next message. Identities stay the operator's.
 */
function settingsRoutes(app: Hono<Env>, settings: Settings) {
  app.get('/settings', (c) => {
    const view = settings.view(c.get('caller').organizationId)!;
    return c.json(view, 200, { etag: `"${view.version}"` });
  });
  app.put('/settings', async (c) => {
    const caller = c.get('caller');
    if (!caller.scopes.includes('connectors:manage')) return problem(c, 403, 'INSUFFICIENT_SCOPE', "changing the organization's adapter settings needs scope connectors:manage");
    const ifMatch = c.req.header('if-match');
    if (!ifMatch) return problem(c, 428, 'PRECONDITION_REQUIRED', 'send the ETag of the settings you changed as If-Match (GET /settings answers it; "0" while only the operator\'s file is there)');
    const expected = /^(?:W\/)?"(\d+)"$/.exec(ifMatch.trim())?.[1];
    if (expected === undefined) return problem(c, 400, 'VALIDATION_FAILED', 'If-Match must be the ETag GET /settings answered, for example "3"');
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return problem(c, 400, 'VALIDATION_FAILED', 'the body must be the settings as JSON (what GET /settings answers under "settings")');
    }
    const problems = settingsProblems(body);
    if (problems.length) return c.json({ type: 'urn:exchange:protocol:error:validation-failed', title: TITLES.VALIDATION_FAILED, status: 400, code: 'VALIDATION_FAILED', detail: `the settings cannot be used: ${problems.map((p) => `${p.pointer} ${p.message}`).join('; ')}`, errors: problems }, 400, { 'content-type': 'application/problem+json' });
    try {
      const view = await settings.put(caller.organizationId, body as EditableSettings, Number(expected), caller.organizationId);
      return c.json(view, 200, { etag: `"${view.version}"` });
    } catch (err) {
      if (!(err instanceof SettingsConflict)) throw err;
      return problem(c, 409, 'STALE_RESOURCE_VERSION', `the settings are at version ${err.current}, not ${expected}: read them again (GET /settings) and apply your change to what is there`);
    }
  });
}

/** An entry as its organization sees it (another organization's is not found). */
function entryViewOf(db: Db) {
  return async (organizationId: string, id: string) => {
    const entry = await readEntry(db, id);
    if (!entry || entry.organizationId !== organizationId) return undefined;
    const result = entry.result as { submitted?: unknown; reasons?: unknown } | null;
    return {
      id: entry.id,
      format: entry.format,
      transport: entry.transport,
      status: entry.status,
      receivedAt: entry.receivedAt,
      ...(result?.reasons ? { quarantine: result.reasons } : {}),
      ...(result?.submitted ? { submitted: result.submitted } : {}),
      acknowledgements: (await outboundFor(db, organizationId, id)).map((m) => ({ kind: m.kind, name: m.name, content: m.content })),
    };
  };
}
