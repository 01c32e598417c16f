// What an operator scrapes: one prom-client registry per process, served as GET /metrics by the
// API (api/metrics.ts) and by the worker's health port (core/worker-health.ts). Counters and
// histograms are observed where things happen (the command path, problem responses, idempotency,
// activities, flows through a workflow sink); the cluster gauges (open entity workflows, feed lag)
// are read when scraped, from Temporal and the read model, and cached briefly so that several
// scrapers cost one query. docs/deployment.md lists every metric with an example scrape config.
import { timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Client } from '@temporalio/client';
import type { Queryable } from './db';
import { RESOURCES } from '../domain/registry';

export const registry = new Registry();

let processMetrics = false;
/**
 * prom-client's process metrics (CPU, memory, event-loop lag, heap, GC), from the broker's start
 * (broker.ts), once per process. Not at import: they install a GC observer and an event-loop
 * monitor, which a test process that loads this module once per test file (jest's module
 * registries) would pile up, each keeping its file's modules alive and every GC calling them all
 * (the suite's longest process spent most of its CPU there: docs/benchmarks.md, "The suite's time").
 */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry });
}

// From a cached Update (~10 ms) to a flow's acceptance (seconds).
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const commandDuration = new Histogram({
  name: 'pcx_command_duration_seconds',
  help: 'Creates and lifecycle commands through the API, from the request to the answer (idempotent replays included), by resource kind, command and HTTP status',
  labelNames: ['kind', 'command', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const problems = new Counter({
  name: 'pcx_problems_total',
  help: 'Problem responses (RFC 9457) by code and HTTP status',
  labelNames: ['code', 'status'] as const,
  registers: [registry],
});

export const tokenAuthFailures = new Counter({
  name: 'pcx_token_auth_failures_total',
  help: 'Failed client authentications at the token, introspection and revocation endpoints, by endpoint and reason (unknown_client, secret, assertion, certificate, dpop, inactive)',
  labelNames: ['endpoint', 'reason'] as const,
  registers: [registry],
});

export const tokenAuthThrottled = new Counter({
  name: 'pcx_token_auth_throttled_total',
  help: 'Token endpoint requests answered 429 because their client id or source address failed to authenticate too often, by endpoint and by what was throttled (client, address)',
  labelNames: ['endpoint', 'by'] as const,
  registers: [registry],
});

export const tokensIssued = new Counter({
  name: 'pcx_tokens_issued_total',
  help: 'Access tokens issued by the broker\'s token endpoint, by client authentication method and token type (Bearer, DPoP)',
  labelNames: ['method', 'token_type'] as const,
  registers: [registry],
});

export const idempotencyTakeovers = new Counter({
  name: 'pcx_idempotency_takeovers_total',
  help: 'Idempotency claims taken over from a holder whose lease expired (a retry after a crashed or stuck request)',
  registers: [registry],
});

export const outboxWriteLag = new Histogram({
  name: 'pcx_outbox_write_lag_seconds',
  help: 'From a transition (its event time) to its event row written to the outbox, by resource kind',
  labelNames: ['kind'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const activityDuration = new Histogram({
  name: 'pcx_activity_duration_seconds',
  help: 'Activity executions by activity type and result (ok, failed)',
  labelNames: ['activity', 'result'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const activityFailures = new Counter({
  name: 'pcx_activity_failures_total',
  help: 'Activity attempts that threw, by activity type and error name (Temporal retries most of them)',
  labelNames: ['activity', 'error'] as const,
  registers: [registry],
});

export const flowDuration = new Histogram({
  name: 'pcx_flow_duration_seconds',
  help: 'Cross-resource flows (matching, acceptance, tenders) from start to end, by flow and outcome',
  labelNames: ['flow', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: 'pcx_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome (succeeded: a 2xx; failed: anything else, including refused targets) and path (direct: by the outbox watcher as the event arrived; workflow: by the subscription workflow, retries and what the watcher left)',
  labelNames: ['outcome', 'path'] as const,
  registers: [registry],
});

export const webhookDeliveriesEnded = new Counter({
  name: 'pcx_webhook_deliveries_ended_total',
  help: 'Webhook deliveries that ended, by status (succeeded, dead-lettered, skipped because the sharing relationship ended)',
  labelNames: ['status'] as const,
  registers: [registry],
});

export const webhookDeliveryLag = new Histogram({
  name: 'pcx_webhook_delivery_lag_seconds',
  help: 'From an event entering the outbox to its successful webhook delivery',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 600, 3600, 36000],
  registers: [registry],
});

/**
 * The answer to GET /metrics: the text exposition, or 401 when a token is configured and the
 * request does not carry it (docs/deployment.md, METRICS_TOKEN).
 */
export async function scrape(authorization: string | undefined, token: string | undefined): Promise<{ status: 200 | 401; contentType: string; body: string }> {
  if (token !== undefined && !bearerMatches(authorization, token)) {
    return { status: 401, contentType: 'text/plain; charset=utf-8', body: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>\n' };
  }
  return { status: 200, contentType: registry.contentType, body: await registry.metrics() };
}

function bearerMatches(authorization: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(authorization ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Where the cluster gauges read from; set by the process that has both (broker.ts). */
interface ClusterSource {
  db: Queryable;
  client: Client;
}
let source: ClusterSource | undefined;
const CACHE_MS = 5000;

/** Reads the cluster gauges from these until `stop()` is called. */
export function observeCluster(next: ClusterSource): { stop(): void } {
  source = next;
  openCache = undefined;
  return {
    stop() {
      if (source === next) source = undefined;
    },
  };
}

let openCache: { at: number; counts: Promise<Array<[string, number]>> } | undefined;

/** Running workflows per kind (one count query per kind: visibility groups by status only). */
function openEntityCounts(from: ClusterSource): Promise<Array<[string, number]>> {
  if (openCache && Date.now() - openCache.at < CACHE_MS) return openCache.counts;
  const counts = Promise.all(
    RESOURCES.map(async (r): Promise<[string, number]> => {
      const { count } = await from.client.workflow.count(`WorkflowType = '${r.workflowType}' AND ExecutionStatus = 'Running'`);
      return [r.kind, count];
    }),
  );
  openCache = { at: Date.now(), counts };
  counts.catch(() => (openCache = undefined));
  return counts;
}

new Gauge({
  name: 'pcx_open_entities',
  help: 'Entity workflows running in Temporal (open resources), by resource kind; cluster-wide, the same on every replica',
  labelNames: ['kind'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    if (!source) return;
    // A scrape must not fail because Temporal is slow: the gauge is then absent, not wrong.
    const counts = await openEntityCounts(source).catch(() => []);
    for (const [kind, count] of counts) this.set({ kind }, count);
  },
});

/**
 * Events committed but not yet served by the feed: a reader only sees rows older than every
 * running transaction (read-model/events.ts), so one long transaction holds back every newer event.
 */
new Gauge({
  name: 'pcx_feed_held_back_seconds',
  help: 'Age of the oldest outbox event the feed cannot serve yet because an older transaction is still running (0 when none); cluster-wide',
  registers: [registry],
  async collect() {
    this.reset();
    if (!source) return;
    const rows = await source.db
      .query<{ age: number | null }>(
        `select extract(epoch from now() - min(created_at))::float8 as age from events where tx_id >= pg_snapshot_xmin(pg_current_snapshot())`,
      )
      .then((r) => r.rows)
      .catch(() => undefined);
    if (rows) this.set(rows[0]?.age ?? 0);
  },
});

/** Webhook deliveries waiting and dead-lettered, cluster-wide (also in GET /health/ready's details). */
export async function webhookBacklog(db: Queryable): Promise<{ pending: number; deadLettered: number; oldestPendingSeconds: number; disabledSubscriptions: number }> {
  const { rows } = await db.query<{ pending: string; dead: string; oldest: number | null; disabled: string }>(
    `select (select count(*) from webhook_deliveries where status = 'pending') as pending,
            (select count(*) from webhook_deliveries where status = 'dead-lettered') as dead,
            (select extract(epoch from now() - min(event_time))::float8 from webhook_deliveries where status = 'pending') as oldest,
            (select count(*) from webhook_subscriptions where deleted_at is null and not active and disabled_reason is not null) as disabled`,
  );
  const r = rows[0];
  return { pending: Number(r.pending), deadLettered: Number(r.dead), oldestPendingSeconds: Math.max(0, r.oldest ?? 0), disabledSubscriptions: Number(r.disabled) };
}

new Gauge({
  name: 'pcx_webhook_backlog',
  help: 'Webhook deliveries pending and dead-lettered, the age of the oldest pending one, and subscriptions the broker disabled; cluster-wide',
  labelNames: ['measure'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    if (!source) return;
    const backlog = await webhookBacklog(source.db).catch(() => undefined);
    if (!backlog) return;
    this.set({ measure: 'pending' }, backlog.pending);
    this.set({ measure: 'dead_lettered' }, backlog.deadLettered);
    this.set({ measure: 'oldest_pending_seconds' }, backlog.oldestPendingSeconds);
    this.set({ measure: 'disabled_subscriptions' }, backlog.disabledSubscriptions);
  },
});
