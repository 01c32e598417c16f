// The Hono application: cross-cutting middleware (correlation id, logging, problem rendering),
// the public infrastructure routes, and one router per resource joined with app.route().
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { uuid7 } from '../domain/ids';
import { Problem } from '../domain/problems';
import type { AppEnv, Services } from './context';
import { authenticate } from './gates';
import { openPersonalData } from './personal-data';
import { rateLimit } from './rate-limit';
import { isDatabaseUnavailable, problemResponse } from './http';
import { operationsOf, type Declared } from './operations';
import { RESOURCES } from '../domain/registry';
import { health } from './health';
import { metrics } from './metrics';
import { codec } from './codec';
import { openapi } from './openapi';
import { Documents } from './documents';
import { asyncapi } from './asyncapi';
import { docs } from './docs';
import { consoleApp } from './console';
import { oauth } from './token';
import { tokenLifecycle } from './token-lifecycle';
import { oauthMetadata } from './oauth-metadata';
import { transparencyLog, transparencyLogWellKnown } from './transparency-log';

/** The broker's authorization server for connectors (present unless its token endpoint is off). */
const OAUTH_ROUTERS: Array<Hono<AppEnv>> = [oauth, tokenLifecycle, oauthMetadata];
import { webhookSubscriptions } from './webhook-subscriptions';
import { connectors } from './connectors';
import { organizations } from './organizations';
import { partners } from './partners';
import { directory } from './directory';
import { reports } from './reports';
import { purgedRecords, retentionPolicies, retentionPreview, retentionRuns } from './retention';
import { users } from './users';
import { events } from './events';
import { partnerRelationships } from './partner-relationships';
import { capacityOffers } from './capacity-offers';
import { loadRequests } from './load-requests';
import { listingSeriesRouter as listingSeries } from './listing-series';
import { matchProposals } from './match-proposals';
import { matchEvaluations } from './match-evaluations';
import { transportTenders } from './transport-tenders';
import { transportCommitments } from './transport-commitments';
import { executionOutcomes, executionReferences, executionUpdates } from './execution-references';
import { executionHandovers } from './execution-handovers';
import { recordConnectorRequest, sandbox } from './sandbox';
import { SandboxRecord } from '../core/sandbox';

type LimitKey = 'maxBodyBytes' | 'maxRelationshipBodyBytes';

/**
 * One router per resource (and the feed, the evaluations, the webhooks), mounted at the path its
 * name gives (`capacityOffers` at /capacity-offers: one name in every layer), with the body limit of
 * its payloads (relationship payloads have their own).
 */
const ROUTERS = mountedAt(
  { partnerRelationships, capacityOffers, loadRequests, listingSeries, matchProposals, matchEvaluations, transportTenders, transportCommitments },
  { executionReferences, executionUpdates, executionOutcomes, executionHandovers, events, webhookSubscriptions },
  { organizations, connectors, users, partners, directory, reports },
  { retentionPolicies, purgedRecords, retentionPreview, retentionRuns },
  { transparencyLog },
);

function mountedAt(...groups: Array<Record<string, Hono<AppEnv>>>): Array<[path: string, router: Hono<AppEnv>, limit: LimitKey]> {
  return groups.flatMap((group) =>
    Object.entries(group).map(([name, router]): [string, Hono<AppEnv>, LimitKey] => {
      const path = `/${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
      return [path, router, router === partnerRelationships ? 'maxRelationshipBodyBytes' : 'maxBodyBytes'];
    }),
  );
}

/** Routers mounted in development mode only. */
const DEV_ROUTERS: Array<[path: string, router: Hono<AppEnv>, limit: LimitKey]> = [['/sandbox', sandbox, 'maxBodyBytes']];

/** The public routes (no token: health, metrics, the documents, the reference, the console's files), at their full paths. */
const PUBLIC_ROUTERS: Array<Hono<AppEnv>> = [health, metrics, codec, openapi, asyncapi, docs, consoleApp, transparencyLogWellKnown];

/** 413 before the body is parsed, chunked bodies included. */
function limitBody(key: LimitKey): MiddlewareHandler<AppEnv> {
  return (c, next) =>
    bodyLimit({
      maxSize: c.get('services').config.limits[key],
      onError: () => {
        throw new Problem('PAYLOAD_TOO_LARGE', `the body exceeds ${c.get('services').config.limits[key]} bytes`);
      },
    })(c, next);
}

/**
 * Every resource router: personal data opened in its answers (around everything else), gates 1-3,
 * rate limits, the body limit of that resource, then the sandbox's record (development mode).
 */
function protectedRouter(router: Hono<AppEnv>, limit: LimitKey): Hono<AppEnv> {
  return new Hono<AppEnv>().use('*', openPersonalData, authenticate, rateLimit, limitBody(limit), recordConnectorRequest).route('/', router);
}

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The methods the app routes for a path (middleware entries, method ALL, excluded). */
function allowedMethods(app: Hono<AppEnv>, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue;
    const pattern = new RegExp(`^${route.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}/?$`);
    if (pattern.test(path)) methods.add(route.method);
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

function safeDecode(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return '\u0000'; // undecodable percent-escapes count as malformed
  }
}

/**
 * Every operation the resource routers declare (api/operations.ts), with its full path in the
 * document's form (`/capacity-offers/{id}/publish`): what the document's paths are generated from
 * (api/openapi-paths.ts).
 */
/** The collections whose records the retention purge removes (their definitions' `retention`): `/capacity-offers`, … */
const PURGEABLE_COLLECTIONS = new Set(RESOURCES.filter((r) => 'purged' in r.retention).map((r) => `/${r.collection}`));

export function declaredOperations(): Array<Declared & { documentPath: string }> {
  // The document's order: the public routes, the development token endpoint, then the resources.
  const mounted: Array<[string, Hono<AppEnv>]> = [...[...PUBLIC_ROUTERS, ...OAUTH_ROUTERS].map((r): [string, Hono<AppEnv>] => ['', r]), ...[...ROUTERS, ...DEV_ROUTERS].map(([path, router]): [string, Hono<AppEnv>] => [path, router])];
  // A router's operations are listed under its collection's tag unless their doc names another.
  const tagOf = (mount: string) => mount.split(/[/-]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
  return mounted.flatMap(([mount, router]) =>
    operationsOf(router).map((op) => ({
      ...op,
      // A record of a purged kind, named by the path, answers 410 RECORD_PURGED once purged (api/gates.ts).
      ...(PURGEABLE_COLLECTIONS.has(mount) && op.path.startsWith('/:id') ? { loadsPurgeable: true } : {}),
      documentPath: `${mount}${op.path === '/' && mount ? '' : op.path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
      doc: { ...op.doc, tag: op.doc.tag ?? (mount ? tagOf(mount) : undefined) },
    })),
  );
}

/** The documents of the operations declared above (GET /openapi.json, /openapi.bundled.json, /asyncapi.json). */
export const documents = new Documents(declaredOperations);

export function createApp(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    const given = c.req.header('x-correlation-id');
    const correlationId = given && CORRELATION_ID.test(given) ? given : uuid7();
    c.set('services', services);
    c.set('documents', documents);
    c.set('correlationId', correlationId);
    const started = performance.now();
    // Control characters have no place in a path or query; PostgreSQL cannot even store U+0000.
    if (/[\u0000-\u001f]/.test(safeDecode(c.req.url))) {
      return problemResponse(c, new Problem('MALFORMED_REQUEST', 'the URL contains control characters'));
    }
    await next();
    c.res.headers.set('x-correlation-id', correlationId);
    // Answered reads are debug: feeds, consoles and the adapter gateway poll every second or so,
    // and a line per poll would bury the commands and the refusals an operator reads the log for.
    const read = (c.req.method === 'GET' || c.req.method === 'HEAD') && c.res.status < 400;
    services.log[read ? 'debug' : 'info'](
      {
        correlationId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        organizationId: c.get('principal')?.organizationId,
        ms: Math.round(performance.now() - started),
      },
      'request',
    );
  });

  app.onError((err, c) => {
    if (err instanceof Problem) return problemResponse(c, err);
    if ((err as { code?: unknown })?.code === '53100') {
      // disk_full: the read model cannot grow (PGlite's data folder, PostgreSQL's volume). Reads
      // still work; a command Temporal took before its write failed is answered to its retry (the
      // Idempotency-Key) once space is freed, and the workflow writes it then (docs/deployment.md).
      services.log.error({ correlationId: c.get('correlationId'), error: String(err) }, 'storage full: writes refused');
      return problemResponse(c, new Problem('SERVICE_UNAVAILABLE', "the broker's storage is full: retry later with the same Idempotency-Key, which answers the command once whether or not it was taken (reads still work)", { reason: 'STORAGE_FULL' }, { 'retry-after': '30' }));
    }
    if (isDatabaseUnavailable(err)) {
      services.log.warn({ correlationId: c.get('correlationId'), error: String(err) }, 'database unavailable');
      return problemResponse(c, new Problem('SERVICE_UNAVAILABLE', 'the database is unavailable; retry later', {}, { 'retry-after': '1' }));
    }
    // Anything else is our fault: log it with the correlation id, answer without internals.
    services.log.error({ correlationId: c.get('correlationId'), error: String((err as Error)?.stack ?? err) }, 'unhandled error');
    return problemResponse(c, new Problem('INTERNAL_ERROR', 'the broker could not complete the request; quote the correlation id when reporting it'));
  });
  app.notFound((c) => {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length) {
      return problemResponse(c, new Problem('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${c.req.path}`, {}, { allow: allowed.join(', ') }));
    }
    return problemResponse(c, new Problem('ROUTE_NOT_FOUND', `no endpoint ${c.req.method} ${c.req.path}`));
  });

  app.route('/', health);
  app.route('/', metrics);
  app.route('/', codec);
  // The bundled document is built now, from the declarations and the schema files: one that cannot
  // be bundled stops the start.
  documents.bundled(services.config.publicBaseUrl);
  app.route('/', openapi);
  app.route('/', asyncapi);
  // The interactive reference of that document (Swagger UI), public like the document.
  app.route('/', docs);
  // The planner console for interactive users (its pages answer 404 when no users are configured).
  app.route('/', consoleApp);
  app.route('/', transparencyLogWellKnown);
  // The broker's token endpoint, in every mode unless turned off (an external identity provider only).
  if (services.config.auth.tokenEndpoint) {
    app.use('/oauth2/*', limitBody('maxRelationshipBodyBytes'));
    for (const router of OAUTH_ROUTERS) app.route('/', router);
  }
  if (services.config.auth.devServer) {
    // The sandbox: what each connector sent, and faults to answer it with (the conformance kit's).
    services.sandbox ??= new SandboxRecord();
    for (const [path, router, limit] of DEV_ROUTERS) app.route(path, protectedRouter(router, limit));
  }
  for (const [path, router, limit] of ROUTERS) app.route(path, protectedRouter(router, limit));
  return app;
}
