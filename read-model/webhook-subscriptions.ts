// Webhook subscriptions and deliveries in the read-model database: the one place that knows their
// tables (read-model/schema.sql). The API manages subscriptions through these; the delivery activity
// (delivery/webhook-pump.ts) reads and records through them. A subscription is not an entity
// workflow: its signing secrets must never enter a workflow history or a read-model document.
// The secrets are stored sealed (core/secrets.ts): only the pump and the ping open them.
import { randomBytes } from 'node:crypto';
import { CloudEvent } from 'cloudevents';
import type { Db, Queryable } from '../core/db';
import { KeyRing, SecretsError } from '../core/secrets';
import { uuid7 } from '../domain/ids';
import { WEBHOOK_COLLECTION, WEBHOOK_KIND } from '../domain/webhooks';

export interface StoredSecret {
  /** The secret sealed under a key of the ring (core/secrets.ts), bound to its subscription. */
  sealed?: string;
  /** A secret stored in clear before secrets were sealed: read as it is, sealed by the next re-sealing (resealSecrets). */
  secret?: string;
  createdAt: string;
  expiresAt?: string;
}

/** What a subscription's sealed secrets are bound to: a secret copied to another row does not open there. */
const sealContext = (subscriptionId: string) => `webhook-subscription:${subscriptionId}`;

/** The signing secrets of `row` at `now`, opened: for the signature of one message, never kept. */
export function openSigningSecrets(row: Pick<SubscriptionRow, 'id' | 'secrets'>, now: number, ring: KeyRing): string[] {
  return signingSecrets(row, now).map((s) => (s.sealed !== undefined ? ring.open(s.sealed, sealContext(row.id)) : s.secret!));
}

/** One stored secret sealed under the ring's primary key (a clear one from before, or one under an older key). */
function resealed(subscriptionId: string, stored: StoredSecret, ring: KeyRing): StoredSecret {
  const secret = stored.sealed !== undefined ? ring.open(stored.sealed, sealContext(subscriptionId)) : stored.secret!;
  return { sealed: ring.seal(secret, sealContext(subscriptionId)), createdAt: stored.createdAt, ...(stored.expiresAt ? { expiresAt: stored.expiresAt } : {}) };
}

function openable<T>(open: () => T): T | undefined {
  try {
    return open();
  } catch (err) {
    if (err instanceof SecretsError) return undefined;
    throw err;
  }
}

const needsResealing = (stored: StoredSecret, primary: string) => stored.sealed === undefined || KeyRing.keyOf(stored.sealed) !== primary;

/**
 * Seals every stored secret that is in clear (from before sealing) or under a key other than the
 * ring's primary, one subscription per transaction (its row locked, read again inside): safe while
 * the broker runs, and idempotent (a second run finds nothing to do). Deleted subscriptions too:
 * their rows keep their secrets. Expired secrets are dropped on the way. Answers the counts.
 */
export async function resealSecrets(db: Db, ring: KeyRing, options: { batch?: number } = {}): Promise<{ subscriptions: number; resealed: number; checked: number; unopened: number }> {
  const primary = ring.primary;
  let after = '00000000-0000-0000-0000-000000000000';
  let subscriptions = 0;
  let resealedCount = 0;
  let checked = 0;
  // Rows sealed under a key this ring does not hold (a replica with another key file): left as they are.
  let unopened = 0;
  for (;;) {
    const { rows } = await db.query<{ id: string; secrets: StoredSecret[] }>('select id, secrets from webhook_subscriptions where id > $1 order by id limit $2', [after, options.batch ?? 200]);
    if (rows.length === 0) break;
    for (const candidate of rows) {
      checked++;
      after = candidate.id;
      if (!candidate.secrets.some((s) => needsResealing(s, primary))) continue;
      const count = await db.transaction(async (tx): Promise<number | 'unopened'> => {
        const { rows: locked } = await tx.query<{ secrets: StoredSecret[] }>('select secrets from webhook_subscriptions where id = $1 for update', [candidate.id]);
        const stored = locked[0]?.secrets;
        if (!stored || !stored.some((s) => needsResealing(s, primary))) return 0;
        const now = Date.now();
        const kept = stored.filter((s, i) => i === 0 || (s.expiresAt !== undefined && Date.parse(s.expiresAt) > now));
        let next: StoredSecret[];
        try {
          next = kept.map((s) => (needsResealing(s, primary) ? resealed(candidate.id, s, ring) : s));
        } catch (err) {
          if (err instanceof SecretsError) return 'unopened';
          throw err;
        }
        // Not a change of the subscription as its organization sees it: no new version, no event.
        await tx.query('update webhook_subscriptions set secrets = $2 where id = $1', [candidate.id, JSON.stringify(next)]);
        return stored.filter((s) => needsResealing(s, primary)).length;
      });
      if (count === 'unopened') unopened++;
      else if (count > 0) {
        subscriptions++;
        resealedCount += count;
      }
    }
  }
  return { subscriptions, resealed: resealedCount, checked, unopened };
}

export interface SubscriptionRow {
  id: string;
  organization_id: string;
  client_id: string;
  url: string;
  event_types: string[];
  description: string | null;
  active: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  secrets: StoredSecret[];
  version: number;
  cursor_tx: string;
  cursor_seq: string;
  failing_since: Date | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type DisabledReason = 'target-gone' | 'failing' | 'connector-inactive';

const iso = (d: Date | string): string => new Date(d).toISOString();

/** The secrets that sign at `now`: the newest always, older ones until they expire. */
export function signingSecrets(row: Pick<SubscriptionRow, 'secrets'>, now: number): StoredSecret[] {
  return row.secrets.filter((s, i) => i === 0 || (s.expiresAt !== undefined && Date.parse(s.expiresAt) > now));
}

/** A Standard Webhooks secret: whsec_ and 32 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The subscription as its organization reads it (schemas/webhook-subscription.json): never a secret. */
export function subscriptionView(row: SubscriptionRow, now = Date.now()): Record<string, unknown> {
  return {
    id: row.id,
    resourceVersion: row.version,
    ownerOrganizationId: row.organization_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    url: row.url,
    eventTypes: row.event_types,
    ...(row.description !== null ? { description: row.description } : {}),
    active: row.active,
    ...(row.disabled_reason ? { disabledReason: row.disabled_reason } : {}),
    ...(row.disabled_at ? { disabledAt: iso(row.disabled_at) } : {}),
    createdBy: { kind: 'connector', clientId: row.client_id },
    signingSecrets: signingSecrets(row, now).map((s) => ({ createdAt: s.createdAt, ...(s.expiresAt ? { expiresAt: s.expiresAt } : {}) })),
  };
}

export async function loadSubscription(db: Queryable, id: string): Promise<SubscriptionRow | undefined> {
  const { rows } = await db.query<SubscriptionRow>('select * from webhook_subscriptions where id = $1 and deleted_at is null', [id]);
  return rows[0];
}

export async function listSubscriptions(db: Queryable, organizationId: string, page: { after?: string; limit: number }): Promise<SubscriptionRow[]> {
  const { rows } = await db.query<SubscriptionRow>(
    `select * from webhook_subscriptions where organization_id = $1 and deleted_at is null and ($2::uuid is null or id > $2::uuid)
      order by id limit $3`,
    [organizationId, page.after ?? null, page.limit],
  );
  return rows;
}

export interface NewSubscription {
  organizationId: string;
  clientId: string;
  url: string;
  eventTypes: string[];
  description?: string;
  active: boolean;
}

/**
 * Stores a new subscription. Its cursor starts at the oldest transaction still running: it
 * receives the events emitted from its creation on (and those of transactions running at that
 * moment), none from before.
 */
export async function insertSubscription(db: Queryable, input: NewSubscription, ring: KeyRing): Promise<{ row: SubscriptionRow; secret: string }> {
  const secret = newSecret();
  const id = uuid7();
  const now = new Date().toISOString();
  const { rows } = await db.query<SubscriptionRow>(
    `insert into webhook_subscriptions (id, organization_id, client_id, url, event_types, description, active, secrets, version, cursor_tx, cursor_seq, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, 1, pg_snapshot_xmin(pg_current_snapshot()), 0, $9, $9) returning *`,
    [id, input.organizationId, input.clientId, input.url, input.eventTypes, input.description ?? null, input.active, JSON.stringify([{ sealed: ring.seal(secret, sealContext(id)), createdAt: now }]), now],
  );
  return { row: rows[0], secret };
}

export interface SubscriptionChange {
  url?: string;
  eventTypes?: string[];
  description?: string;
  active?: boolean;
}

/**
 * Applies a change if the subscription is still at `expectedVersion`; undefined when it is not
 * (or no longer exists). Setting active to true clears the reason the broker disabled it for.
 */
export async function updateSubscription(db: Queryable, id: string, expectedVersion: number, change: SubscriptionChange): Promise<SubscriptionRow | undefined> {
  const { rows } = await db.query<SubscriptionRow>(
    `update webhook_subscriptions set
        url = coalesce($3, url), event_types = coalesce($4, event_types), description = coalesce($5, description),
        active = coalesce($6, active),
        disabled_reason = case when $6 is null then disabled_reason else null end,
        disabled_at = case when $6 is null then disabled_at else null end,
        failing_since = case when $6 then null else failing_since end,
        version = version + 1, updated_at = $7
      where id = $1 and version = $2 and deleted_at is null returning *`,
    [id, expectedVersion, change.url ?? null, change.eventTypes ?? null, change.description ?? null, change.active ?? null, new Date().toISOString()],
  );
  return rows[0];
}

export async function deleteSubscription(db: Queryable, id: string, expectedVersion: number): Promise<SubscriptionRow | undefined> {
  const now = new Date().toISOString();
  const { rows } = await db.query<SubscriptionRow>(
    `update webhook_subscriptions set deleted_at = $3, active = false, version = version + 1, updated_at = $3
      where id = $1 and version = $2 and deleted_at is null returning *`,
    [id, expectedVersion, now],
  );
  return rows[0];
}

/** A new secret signs from now on; the previous one beside it for `overlapSeconds`. */
export async function rotateSecret(db: Db, id: string, overlapSeconds: number, ring: KeyRing): Promise<{ row: SubscriptionRow; secret: string } | undefined> {
  const secret = newSecret();
  const now = Date.now();
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<SubscriptionRow>('select * from webhook_subscriptions where id = $1 and deleted_at is null for update', [id]);
    const row = rows[0];
    if (!row) return undefined;
    const previous = signingSecrets(row, now)[0];
    const secrets: StoredSecret[] = [{ sealed: ring.seal(secret, sealContext(id)), createdAt: new Date(now).toISOString() }];
    if (previous && overlapSeconds > 0) {
      // A previous secret sealed under a key gone from the ring signs no more anyway: the new one alone.
      const kept = openable(() => resealed(id, previous, ring));
      if (kept) secrets.push({ ...kept, expiresAt: new Date(now + overlapSeconds * 1000).toISOString() });
    }
    const updated = await tx.query<SubscriptionRow>('update webhook_subscriptions set secrets = $2, version = version + 1, updated_at = $3 where id = $1 returning *', [
      id,
      JSON.stringify(secrets),
      new Date(now).toISOString(),
    ]);
    return { row: updated.rows[0], secret };
  });
}

/**
 * The broker turns a subscription off (the target answered 410, every attempt failed for days,
 * its connector is gone) and tells its organization with the event
 * pcx.webhook-subscription.disabled.v1, in the same transaction. Nothing when it is off already.
 */
export async function disableSubscription(
  db: Db,
  id: string,
  reason: DisabledReason,
  at: number,
  settings: { eventSource: string; schemaBase: string },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<SubscriptionRow>(
      `update webhook_subscriptions set active = false, disabled_reason = $2, disabled_at = $3, version = version + 1, updated_at = $3
        where id = $1 and active and deleted_at is null returning *`,
      [id, reason, new Date(at).toISOString()],
    );
    const row = rows[0];
    if (!row) return false;
    const eventId = uuid7();
    const event = new CloudEvent({
      id: eventId,
      source: settings.eventSource,
      type: `pcx.${WEBHOOK_KIND}.disabled.v1`,
      subject: `${WEBHOOK_COLLECTION}/${row.id}`,
      time: new Date(at).toISOString(),
      dataschema: `${settings.schemaBase}/v0/${WEBHOOK_KIND}`,
      datacontenttype: 'application/json',
      data: subscriptionView(row, at),
      organizationid: row.organization_id,
      resourceversion: row.version,
      correlationid: eventId,
    });
    await tx.query(
      `insert into events (id, resource_kind, resource_id, resource_version, type, owner_organization_id, audience, share_scope, cloudevent)
       values ($1, $2, $3, $4, $5, $6, $7, null, $8)`,
      [eventId, WEBHOOK_KIND, row.id, row.version, event.type, row.organization_id, [row.organization_id], JSON.stringify(event.toJSON())],
    );
    return true;
  });
}

export interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string;
  event_tx: string;
  event_seq: string;
  event_type: string;
  event_time: Date;
  subject: string;
  resource_version: number | null;
  status: 'pending' | 'succeeded' | 'dead-lettered' | 'skipped';
  attempts: Attempt[];
  attempt_count: number;
  next_attempt_at: Date | null;
  /** While a pump attempts it (delivery/webhook-pump.ts, claims). */
  claimed_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface Attempt {
  attemptedAt: string;
  outcome: 'succeeded' | 'failed';
  statusCode?: number;
  latencyMs: number;
  error?: string;
  retryAfterSeconds?: number;
}

export function deliveryView(row: DeliveryRow): Record<string, unknown> {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    eventId: row.event_id,
    eventType: row.event_type,
    subject: row.subject,
    ...(row.resource_version !== null ? { resourceVersion: row.resource_version } : {}),
    status: row.status,
    attempts: row.attempts,
    ...(row.status === 'pending' && row.next_attempt_at ? { nextAttemptAt: iso(row.next_attempt_at) } : {}),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'dead-lettered', 'skipped'] as const;

export async function listDeliveries(
  db: Queryable,
  subscriptionId: string,
  filter: { statuses?: string[]; after?: string; limit: number },
): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `select * from webhook_deliveries where subscription_id = $1 and ($2::text[] is null or status = any($2::text[])) and ($3::uuid is null or id > $3::uuid)
      order by id limit $4`,
    [subscriptionId, filter.statuses ?? null, filter.after ?? null, filter.limit],
  );
  return rows;
}

export async function loadDelivery(db: Queryable, subscriptionId: string, id: string): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>('select * from webhook_deliveries where subscription_id = $1 and id = $2', [subscriptionId, id]);
  return rows[0];
}

/**
 * Schedules one delivery again at once, whatever it ended as (a succeeded one is sent again: the
 * receiver deduplicates by event id). Its earlier attempts stay in its record; the schedule starts over.
 */
export async function redeliver(db: Queryable, subscriptionId: string, id: string): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `update webhook_deliveries set status = 'pending', attempt_count = 0, next_attempt_at = $3, updated_at = $3
      where subscription_id = $1 and id = $2 returning *`,
    [subscriptionId, id, new Date().toISOString()],
  );
  return rows[0];
}

/** Every dead-lettered delivery of an event emitted at or after `since` is scheduled again. */
export async function recoverDeliveries(db: Queryable, subscriptionId: string, since: string): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `update webhook_deliveries set status = 'pending', attempt_count = 0, next_attempt_at = $3, updated_at = $3
      where subscription_id = $1 and status = 'dead-lettered' and event_time >= $2 returning id`,
    [subscriptionId, since, new Date().toISOString()],
  );
  return rows.length;
}

/** The visible end of the outbox: rows of transactions older than every running one (as the feed). */
export async function outboxTail(db: Queryable): Promise<{ xmin: string; tx: string | null; seq: string | null }> {
  const { rows } = await db.query<{ xmin: string; tx: string | null; seq: string | null }>(
    `select s.xmin::text as xmin, t.tx_id::text as tx, t.seq::text as seq
       from (select pg_snapshot_xmin(pg_current_snapshot()) as xmin) s
       left join lateral (select tx_id, seq from events where tx_id < s.xmin order by tx_id desc, seq desc limit 1) t on true`,
  );
  return rows[0];
}

/** Subscriptions a watcher that died may have left work for: pending deliveries, or events after their cursor. */
export async function subscriptionsLeftBehind(db: Queryable, xmin: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select s.id from webhook_subscriptions s where s.active and s.deleted_at is null and (
        exists (select 1 from webhook_deliveries d where d.subscription_id = s.id and d.status = 'pending')
        or exists (select 1 from events e where e.audience @> array[s.organization_id]
                     and (e.tx_id, e.seq) > (s.cursor_tx, s.cursor_seq) and e.tx_id < $1::text::xid8))`,
    [xmin],
  );
  return rows.map((r) => r.id);
}

/**
 * The active subscriptions of the organizations that events after `from` (and visible below
 * `xmin`) are for: two index reads, not a scan of the new events per subscription (1,000
 * subscriptions made that the worker's main cost).
 */
export async function subscriptionsOfNewEvents(db: Queryable, from: { tx: string; seq: string }, xmin: string): Promise<string[]> {
  const { rows: audience } = await db.query<{ organization: string }>(
    `select distinct unnest(audience) as organization from events
      where (tx_id, seq) > ($1::text::xid8, $2::bigint) and tx_id < $3::text::xid8`,
    [from.tx, from.seq, xmin],
  );
  if (audience.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    'select id from webhook_subscriptions where organization_id = any($1::text[]) and active and deleted_at is null',
    [audience.map((a) => a.organization)],
  );
  return rows.map((r) => r.id);
}
