// Webhook delivery (docs/webhooks.md): the pump, run by two paths, and the watcher.
//
// A pump (1) collects the events after the subscription's cursor that its organization's feed
// holds, of the kinds its connector may read and the types it asked for, into deliveries, and
// moves the cursor, in one transaction; (2) attempts every delivery that is due and is the
// earliest pending one of its subject (causal order per subject: a later event waits until the
// earlier ones succeeded, were dead-lettered or skipped), subjects in parallel; (3) records each
// attempt as it ends. A pump cut short by a crash repeats at most the attempts in flight
// (at least once).
//
// Two paths run pumps. Direct: the outbox watcher of each worker pumps the subscriptions its new
// events are for as they arrive, in its own process, with no workflow task or activity between the
// event and its first attempt. Workflow: each subscription's workflow (workflows/webhooks.ts) pumps
// on its timers (retries, with the workflow's clock, so a time-skipping test runs the schedule)
// and when the watcher pokes it: for whatever the direct path left (a retry scheduled, a budget
// spent, a crash). A delivery is claimed before it is attempted, so the two paths, and the
// watchers of several workers, never attempt the same delivery at once.
//
// This file: the pump. delivery/webhook-watcher.ts runs the direct path, activities/webhooks.ts
// is the workflow path's activity.
import type { WebhookSettings } from '../core/config';
import type { Db } from '../core/db';
import { webhookAttempts, webhookDeliveriesEnded, webhookDeliveryLag } from '../core/metrics';
import type { Registry } from '../core/registry';
import type { KeyRing } from '../core/secrets';
import type { PersonalData } from '../core/personal-data';
import { betweenSql, inForceSql } from '../read-model/sharing';
import { eventView } from '../domain/views';
import { checkTarget, createResolver, type Resolve } from '../core/webhooks/target';
import { hostLimiter, sendWebhook, type SendResult } from '../core/webhooks/send';
import { signedHeaders } from '../core/webhooks/sign';
import { uuid7 } from '../domain/ids';
import { deliverableKinds, feedAudiences, nextAttemptDelayMs, typeMatches, type PumpInput, type PumpResult } from '../domain/webhooks';
import { disableSubscription, loadSubscription, openSigningSecrets, outboxTail, type Attempt, type DeliveryRow, type SubscriptionRow } from '../read-model/webhook-subscriptions';

export interface WebhookDeliverySettings {
  webhooks: WebhookSettings;
  registry: Registry;
  eventSource: string;
  schemaBase: string;
  /** Opens the subscriptions' sealed signing secrets (core/secrets.ts). */
  secrets: KeyRing;
  /** Opens the personal data of the events it delivers (core/personal-data.ts). */
  personalData: PersonalData;
}

/** An event of the outbox as a delivery sends it. */
interface OutboxEvent {
  cloudevent: any;
  resource_kind: string;
  owner_organization_id: string;
  share_scope: string | null;
}

/** Events collected per pump; a full batch pumps again at once. */
const COLLECT_BATCH = 500;
/** A pump starts no attempt after this long (each attempt lasts at most 15 s). */
const PUMP_BUDGET_MS = 20_000;
/** How many subject heads one round of a pump looks at. */
const HEADS_PER_ROUND = 500;
/**
 * How long a claim keeps other pumps off a delivery: longer than an attempt (15 s) and its record.
 * A claim left by a process that died expires after it, and its subscription's workflow retries.
 */
const CLAIM_MS = 20_000;

export interface PumpOptions {
  path: 'direct' | 'workflow';
  /** A pump starts no attempt after this long (default 20 s). */
  budgetMs?: number;
}

/** The pump of both paths, with the limits one worker process shares (per target host, per subscription). */
class WebhookPump {
  private readonly resolve: Resolve;
  private readonly perHost: ReturnType<typeof hostLimiter>;
  private readonly perSubscription: ReturnType<typeof hostLimiter>;

  constructor(
    private readonly db: Db,
    private readonly settings: WebhookDeliverySettings,
  ) {
    this.resolve = createResolver({ servers: settings.webhooks.dnsServers, minTtlSeconds: settings.webhooks.dnsMinTtlSeconds });
    this.perHost = hostLimiter(settings.webhooks.maxPerHost);
    this.perSubscription = hostLimiter(settings.webhooks.maxPerSubscription);
  }

  /** Events after the cursor into deliveries; the number of events read. */
  private async collect(sub: SubscriptionRow, audiences: string[], kinds: string[], now: number): Promise<number> {
    const tail = await outboxTail(this.db);
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ seq: string; tx: string; id: string; type: string; subject: string; resource_version: number; created_at: Date }>(
        `select seq::text as seq, tx_id::text as tx, id, type, cloudevent->>'subject' as subject, resource_version, created_at from events
          where audience && $1::text[] and resource_kind = any($2::text[])
            and (tx_id, seq) > ($3::text::xid8, $4::bigint) and tx_id < $5::text::xid8
          order by tx_id, seq limit $6`,
        [audiences, kinds, sub.cursor_tx, sub.cursor_seq, tail.xmin, COLLECT_BATCH],
      );
      const at = new Date(now).toISOString();
      for (const e of rows) {
        if (!typeMatches(sub.event_types, e.type)) continue;
        await tx.query(
          `insert into webhook_deliveries (id, subscription_id, event_id, event_tx, event_seq, event_type, event_time, subject, resource_version, status, next_attempt_at, created_at, updated_at)
           values ($1, $2, $3, $4::text::xid8, $5, $6, $7, $8, $9, 'pending', $10, $10, $10) on conflict (subscription_id, event_id) do nothing`,
          [uuid7(), sub.id, e.id, e.tx, e.seq, e.type, e.created_at, e.subject, e.resource_version, at],
        );
      }
      // A short batch read everything visible: the cursor moves to the visible end, past the rows
      // of other organizations, so the next pump does not scan them again.
      const last = rows[rows.length - 1];
      const next = rows.length < COLLECT_BATCH && tail.tx !== null ? { tx: tail.tx, seq: tail.seq! } : last ? { tx: last.tx, seq: last.seq } : undefined;
      if (next) {
        await tx.query(
          `update webhook_subscriptions set cursor_tx = $2::text::xid8, cursor_seq = $3::bigint
            where id = $1 and (cursor_tx, cursor_seq) < ($2::text::xid8, $3::bigint)`,
          [sub.id, next.tx, next.seq],
        );
      }
      return rows.length;
    });
  }

  /** The earliest pending delivery of each subject. */
  private async heads(subscriptionId: string): Promise<DeliveryRow[]> {
    const { rows } = await this.db.query<DeliveryRow>(
      `select distinct on (subject) * from webhook_deliveries where subscription_id = $1 and status = 'pending'
        order by subject, event_tx, event_seq limit $2`,
      [subscriptionId, HEADS_PER_ROUND],
    );
    return rows;
  }

  /** Whether an event shared with the organization by a partner may still reach it: the relationship is in force now. */
  private async stillShared(organizationId: string, event: { owner_organization_id: string; share_scope: string | null }, now: number): Promise<boolean> {
    if (event.owner_organization_id === organizationId || event.share_scope === null) return true;
    const { rows } = await this.db.query(
      `select 1 from partner_relationships r where ${inForceSql('r', '$3')} and ${betweenSql('r', '$1', '$2')} and r.doc->'scopes' ? $4 limit 1`,
      [organizationId, event.owner_organization_id, new Date(now).toISOString(), event.share_scope],
    );
    return rows.length > 0;
  }

  /**
   * Claims the delivery for this pump and reads its event, in one statement: undefined when another
   * pump holds the delivery; `event` undefined when the outbox no longer holds the event.
   */
  private async claim(delivery: DeliveryRow, now: number): Promise<{ event?: OutboxEvent } | undefined> {
    const { rows } = await this.db.query<{ [K in keyof OutboxEvent]: OutboxEvent[K] | null }>(
      `with claimed as (
         update webhook_deliveries set claimed_until = $3
          where id = $1 and subscription_id = $2 and status = 'pending' and (claimed_until is null or claimed_until <= $4)
          returning event_id)
       select e.cloudevent, e.resource_kind, e.owner_organization_id, e.share_scope from claimed left join events e on e.id = claimed.event_id`,
      [delivery.id, delivery.subscription_id, new Date(now + CLAIM_MS).toISOString(), new Date(now).toISOString()],
    );
    if (rows.length === 0) return undefined;
    const row = rows[0];
    return row.resource_kind === null ? {} : { event: row as OutboxEvent };
  }

  private async record(delivery: DeliveryRow, status: DeliveryRow['status'], attempt: Attempt | undefined, nextAttemptAt: number | undefined, at: number): Promise<void> {
    await this.db.query(
      `update webhook_deliveries set status = $3, attempts = attempts || $4::jsonb, attempt_count = attempt_count + $5,
          next_attempt_at = $6, updated_at = $7, claimed_until = null
        where id = $1 and subscription_id = $2 and status = 'pending'`,
      [
        delivery.id,
        delivery.subscription_id,
        status,
        JSON.stringify(attempt ? [attempt] : []),
        attempt ? 1 : 0,
        nextAttemptAt !== undefined ? new Date(nextAttemptAt).toISOString() : null,
        new Date(at).toISOString(),
      ],
    );
  }

  /** One attempt of one delivery (unless another pump holds it); whether the subject may go on to its next event. */
  private async attempt(sub: SubscriptionRow, kinds: string[], delivery: DeliveryRow, clock: () => number, path: PumpOptions['path']): Promise<boolean> {
    const claimed = await this.claim(delivery, clock());
    if (!claimed) return false;
    const { event } = claimed;
    // Not sent: an event the outbox no longer holds, of a kind the connector may no longer read,
    // or shared by a relationship that is no longer in force (nothing from it after its end).
    if (!event || !kinds.includes(event.resource_kind) || !(await this.stillShared(sub.organization_id, event, clock()))) {
      await this.record(delivery, 'skipped', undefined, undefined, clock());
      webhookDeliveriesEnded.inc({ status: 'skipped' });
      return true;
    }
    const started = clock();
    const result = await this.send(sub, event, clock);
    const at = clock();
    const attemptRecord: Attempt = {
      attemptedAt: new Date(started).toISOString(),
      outcome: result.ok ? 'succeeded' : 'failed',
      ...(result.status !== undefined ? { statusCode: result.status } : {}),
      latencyMs: Math.max(0, Math.round(result.latencyMs)),
      ...(result.error ? { error: result.error } : {}),
      ...(result.retryAfterSeconds !== undefined ? { retryAfterSeconds: result.retryAfterSeconds } : {}),
    };
    if (result.ok) {
      await this.record(delivery, 'succeeded', attemptRecord, undefined, at);
      if (sub.failing_since !== null) await this.db.query('update webhook_subscriptions set failing_since = null where id = $1 and failing_since is not null', [sub.id]);
      webhookAttempts.inc({ outcome: 'succeeded', path });
      webhookDeliveriesEnded.inc({ status: 'succeeded' });
      webhookDeliveryLag.observe(Math.max(0, (Date.now() - new Date(delivery.event_time).getTime()) / 1000));
      return true;
    }
    webhookAttempts.inc({ outcome: 'failed', path });
    if (result.status === 410) {
      await this.record(delivery, 'dead-lettered', attemptRecord, undefined, at);
      webhookDeliveriesEnded.inc({ status: 'dead-lettered' });
      await disableSubscription(this.db, sub.id, 'target-gone', at, this.settings);
      return false;
    }
    const delay = nextAttemptDelayMs(delivery.attempt_count + 1, Math.random(), result.status === 429 || result.status === 503 ? result.retryAfterSeconds : undefined);
    if (delay === undefined) {
      await this.record(delivery, 'dead-lettered', attemptRecord, undefined, at);
      webhookDeliveriesEnded.inc({ status: 'dead-lettered' });
    } else {
      await this.record(delivery, 'pending', attemptRecord, at + delay, at);
    }
    const { rows: failing } = await this.db.query<{ failing_since: Date }>(
      'update webhook_subscriptions set failing_since = coalesce(failing_since, $2) where id = $1 returning failing_since',
      [sub.id, new Date(started).toISOString()],
    );
    if (failing[0] && at - new Date(failing[0].failing_since).getTime() >= this.settings.webhooks.disableAfterHours * 3_600_000) {
      await disableSubscription(this.db, sub.id, 'failing', at, this.settings);
    }
    // A dead-lettered delivery lets its subject go on; a pending retry holds it.
    return delay === undefined;
  }

  private async send(sub: SubscriptionRow, event: { cloudevent: any; resource_kind: string }, clock: () => number): Promise<SendResult> {
    const checked = await checkTarget(sub.url, { allowCidrs: this.settings.webhooks.allowCidrs, resolve: this.resolve });
    if (!checked.ok) return { ok: false, latencyMs: 0, error: 'target-refused' };
    // Personal data opened (core/personal-data.ts): the subscriber is one of the record's organizations.
    const body = this.settings.personalData.openText(JSON.stringify(eventView(event.resource_kind, event.cloudevent, { organizationId: sub.organization_id })));
    const secrets = openSigningSecrets(sub, clock(), this.settings.secrets);
    const headers = signedHeaders(secrets, event.cloudevent.id, new Date(clock()), body);
    return this.perHost(checked.target.url.host, () => sendWebhook({ target: checked.target, headers, body, ca: this.settings.webhooks.ca }));
  }

  /** Collects the subscription's new events and attempts what is due, until nothing is or the budget is spent. */
  async pump(input: PumpInput, options: PumpOptions): Promise<PumpResult> {
    const startedAt = Date.now();
    const budgetMs = options.budgetMs ?? PUMP_BUDGET_MS;
    const clock = () => input.now + (Date.now() - startedAt);
    let sub = await loadSubscription(this.db, input.subscriptionId);
    if (!sub) return { state: 'deleted', more: false };
    if (!sub.active) return { state: 'inactive', more: false };
    const connector = this.settings.registry.connector(sub.client_id);
    const organization = this.settings.registry.organization(sub.organization_id);
    // A suspended organization's subscriptions wait (nothing is delivered; reinstated, they go on
    // from their cursor); an ended organization's or a gone connector's are disabled.
    if (organization?.status === 'suspended' || organization?.status === 'pending') return { state: 'inactive', more: false };
    if (!connector || connector.status !== 'active' || connector.organizationId !== sub.organization_id || organization?.status !== 'active') {
      await disableSubscription(this.db, sub.id, 'connector-inactive', clock(), this.settings);
      return { state: 'inactive', more: false };
    }
    const kinds = deliverableKinds(connector.scopes);
    const audiences = feedAudiences(sub.organization_id, organization.role === 'operator' && connector.scopes.includes('exchange:admin'));
    const collected = await this.collect(sub, audiences, kinds, clock());
    let nextDueAt: number | undefined;
    let more = collected === COLLECT_BATCH;
    for (let round = 0; ; round++) {
      // The first round works from the row read above; later ones see a disabling or deletion.
      if (round > 0) sub = await loadSubscription(this.db, input.subscriptionId);
      if (!sub?.active) break;
      const now = clock();
      const pending = await this.heads(sub.id);
      // Not due: a retry's time has not come, or another pump holds the head (it goes on with the subject).
      const dueAt = (d: DeliveryRow) =>
        Math.max(d.next_attempt_at ? new Date(d.next_attempt_at).getTime() : 0, d.claimed_until ? new Date(d.claimed_until).getTime() : 0);
      const due = pending.filter((d) => dueAt(d) <= now);
      nextDueAt = pending.filter((d) => dueAt(d) > now).reduce<number | undefined>((min, d) => Math.min(min ?? Infinity, dueAt(d)), undefined);
      if (due.length === 0) break;
      if (Date.now() - startedAt > budgetMs) {
        more = true;
        break;
      }
      const current = sub;
      // Subjects in parallel, at most maxPerSubscription at once across this process's pumps; a
      // subject's next event only in the next round, once this one has ended.
      await Promise.all(due.map((d) => this.perSubscription(current.id, () => this.attempt(current, kinds, d, clock, options.path))));
    }
    // `sub` is as the last round read it, after every attempt before it (an attempt that disabled
    // the subscription shows there); a change made in the last milliseconds shows to the next pump.
    if (!sub) return { state: 'deleted', more: false };
    return { state: sub.active ? 'active' : 'inactive', more, ...(nextDueAt !== undefined ? { nextDueAt } : {}) };
  }
}

/** The pump of one worker process, shared by the activity and the outbox watcher's direct path. */
export function createWebhookDelivery(db: Db, settings: WebhookDeliverySettings): { pump(input: PumpInput, options: PumpOptions): Promise<PumpResult> } {
  const pump = new WebhookPump(db, settings);
  return { pump: (input, options) => pump.pump(input, options) };
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;
