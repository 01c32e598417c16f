// The gateway's health per adapter (format) and organization, for its operator (GET /health and
// the Prometheus GET /metrics, guarded by METRICS_TOKEN like the broker's) and for each
// organization about itself (GET /status with its own token): the last message, what waits and
// for how long, what is held in quarantine and how much of it is mapping failures, how far the
// gateway lags behind the organization's event feed, feed events it could not apply (dead
// letters), and push deliveries waiting.
import { Gauge, Registry } from 'prom-client';
import type { Db } from '../core/db';
import type { Delivery, PushState } from './delivery';
import type { Follower, FollowerState } from './follower';
import { adapterCounts, deadLetterCounts, type AdapterCounts } from './store';

export interface OrganizationHealth {
  organizationId: string;
  adapters: Array<Omit<AdapterCounts, 'organizationId'>>;
  feed?: Omit<FollowerState, 'organizationId'>;
  deadLetters: number;
  push?: Omit<PushState, 'organizationId'>;
}

export async function healthOf(db: Db, follower: Follower, delivery: Delivery, organizationIds: readonly string[]): Promise<OrganizationHealth[]> {
  const counts = await adapterCounts(db);
  const dead = await deadLetterCounts(db);
  const feeds = follower.states();
  const pushes = await delivery.pushStates();
  return organizationIds.map((organizationId) => {
    const feed = feeds.find((f) => f.organizationId === organizationId);
    const push = pushes.find((p) => p.organizationId === organizationId);
    return {
      organizationId,
      adapters: counts.filter((c) => c.organizationId === organizationId).map(({ organizationId: _, ...rest }) => rest),
      ...(feed ? { feed: (({ organizationId: _, ...rest }) => rest)(feed) } : {}),
      deadLetters: dead.get(organizationId) ?? 0,
      ...(push ? { push: (({ organizationId: _, ...rest }) => rest)(push) } : {}),
    };
  });
}

/** The Prometheus registry of one gateway process: gauges read from the state at each scrape. */
export function gatewayMetrics(db: Db, follower: Follower, delivery: Delivery, organizationIds: readonly string[]): Registry {
  const registry = new Registry();
  const byAdapter = ['organization', 'format'] as const;
  const gauges = {
    received: new Gauge({ name: 'pcx_gateway_messages_received', help: 'Messages received, by organization and format', labelNames: byAdapter, registers: [registry] }),
    waiting: new Gauge({ name: 'pcx_gateway_inbox_backlog', help: 'Messages received and not yet finished', labelNames: byAdapter, registers: [registry] }),
    oldest: new Gauge({ name: 'pcx_gateway_inbox_oldest_waiting_seconds', help: 'Age of the oldest unfinished message', labelNames: byAdapter, registers: [registry] }),
    held: new Gauge({ name: 'pcx_gateway_quarantine_held', help: 'Messages held in quarantine', labelNames: byAdapter, registers: [registry] }),
    mapping: new Gauge({ name: 'pcx_gateway_mapping_failures', help: 'Held messages whose reasons are about the mapping, not the syntax', labelNames: byAdapter, registers: [registry] }),
    last: new Gauge({ name: 'pcx_gateway_last_message_timestamp_seconds', help: 'When the last message was received', labelNames: byAdapter, registers: [registry] }),
    lag: new Gauge({ name: 'pcx_gateway_feed_lag_seconds', help: 'How far the gateway is behind the organization’s event feed (0 when caught up)', labelNames: ['organization'], registers: [registry] }),
    feedError: new Gauge({ name: 'pcx_gateway_feed_up', help: '1 when the last reading of the organization’s feed succeeded', labelNames: ['organization'], registers: [registry] }),
    dead: new Gauge({ name: 'pcx_gateway_dead_letters', help: 'Feed events the gateway could not apply', labelNames: ['organization'], registers: [registry] }),
    notices: new Gauge({ name: 'pcx_gateway_notices_written', help: 'Milestone notices written since start', labelNames: ['organization'], registers: [registry] }),
    push: new Gauge({ name: 'pcx_gateway_push_pending', help: 'Notices waiting to be pushed to the organization’s target', labelNames: ['organization'], registers: [registry] }),
  };
  // Read once per scrape, before the registry renders.
  const collect = registry.metrics.bind(registry);
  registry.metrics = async () => {
    for (const gauge of Object.values(gauges)) gauge.reset();
    for (const h of await healthOf(db, follower, delivery, organizationIds)) {
      const organization = h.organizationId;
      for (const a of h.adapters) {
        const labels = { organization, format: a.format };
        gauges.received.set(labels, a.received);
        gauges.waiting.set(labels, a.waiting);
        gauges.oldest.set(labels, a.oldestWaitingSeconds);
        gauges.held.set(labels, a.quarantineHeld);
        gauges.mapping.set(labels, a.mappingFailures);
        if (a.lastReceivedAt) gauges.last.set(labels, Date.parse(a.lastReceivedAt) / 1000);
      }
      if (h.feed) {
        gauges.lag.set({ organization }, h.feed.lagSeconds);
        gauges.feedError.set({ organization }, h.feed.error ? 0 : 1);
        gauges.notices.set({ organization }, h.feed.noticesWritten);
      }
      gauges.dead.set({ organization }, h.deadLetters);
      if (h.push) gauges.push.set({ organization }, h.push.pending);
    }
    return collect();
  };
  return registry;
}
