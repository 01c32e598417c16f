// The gateway's own state, in its own database (PGlite under <DATA_DIR>/gateway by default,
// GATEWAY_DATABASE_URL for PostgreSQL): never the broker's read model, which it reaches only
// through the public API.
//
// - gateway_inbox: every message received, by mailbox or HTTP, with the organization it arrived
//   for (the mailbox's or the credential's, never a field of the message) and where it stands:
//   received -> mapped -> submitted -> acknowledged, or received -> quarantined -> acknowledged.
//   Its id names the message's Temporal workflow and derives every Idempotency-Key sent for it.
// - gateway_quarantine: why a message was not acted on (reason code, message, position).
// - gateway_mapping: the external reference (system, type, value) of each organization to the
//   exchange resource it became, both ways.
// - gateway_outbox: what the gateway sends back (acknowledgements), by organization, in order.
// - gateway_sender_reference: the sender's own reference of each transmission acted on (EDIFACT:
//   the UNB sender and interchange control reference), so that a resend is found as a duplicate.
// Messages carry contact persons and addresses: their content is erased once they are done and
// older than GATEWAY_CONTENT_RETENTION_DAYS (eraseOldContent); their digest and status stay.
import { openDb, type Db, type Queryable } from '../core/db';

export const SCHEMA: readonly string[] = [
  `create table if not exists gateway_inbox (
    id text primary key,
    organization_id text not null,
    transport text not null,
    format text not null,
    name text,
    content_sha256 text not null,
    content text not null,
    status text not null default 'received',
    received_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    result jsonb
  )`,
  `create index if not exists gateway_inbox_org on gateway_inbox (organization_id, received_at)`,
  `create table if not exists gateway_quarantine (
    inbox_id text primary key references gateway_inbox (id),
    organization_id text not null,
    reasons jsonb not null,
    state text not null default 'held',
    created_at timestamptz not null default now(),
    resolved_at timestamptz,
    released_as text
  )`,
  // Added after the first release of the table: idempotent on a database made before.
  `alter table gateway_quarantine add column if not exists resolved_at timestamptz`,
  `alter table gateway_quarantine add column if not exists released_as text`,
  `create table if not exists gateway_mapping (
    organization_id text not null,
    system text not null,
    type text not null,
    value text not null,
    resource_kind text not null,
    resource_id text not null,
    inbox_id text not null,
    primary key (organization_id, system, type, value, resource_kind)
  )`,
  `create index if not exists gateway_mapping_resource on gateway_mapping (organization_id, resource_id)`,
  `create table if not exists gateway_outbox (
    id bigserial primary key,
    organization_id text not null,
    inbox_id text not null,
    kind text not null,
    name text not null,
    content text not null,
    created_at timestamptz not null default now(),
    unique (inbox_id, kind)
  )`,
  // Delivery of what is sent to an organization of its own accord (milestone notices): into its
  // mailbox, and to its push target when it has one. Acknowledgements are written with their step.
  `alter table gateway_outbox add column if not exists delivered_at timestamptz`,
  `alter table gateway_outbox add column if not exists pushed_at timestamptz`,
  `alter table gateway_outbox add column if not exists push_attempts integer not null default 0`,
  `alter table gateway_outbox add column if not exists push_error text`,
  // When a message's content was erased for its age (eraseOldContent): '' since, the digest kept.
  `alter table gateway_inbox add column if not exists content_erased_at timestamptz`,
  `alter table gateway_outbox add column if not exists content_erased_at timestamptz`,
  // Where the gateway stands in each organization's event feed (gateway/follower.ts).
  `create table if not exists gateway_cursor (
    organization_id text primary key,
    cursor text not null,
    updated_at timestamptz not null default now()
  )`,
  // Events of a feed the gateway could not apply (a resource it may not read): kept, not retried.
  `create table if not exists gateway_dead_letter (
    organization_id text not null,
    event_id text not null,
    event_type text not null,
    subject text,
    error text not null,
    created_at timestamptz not null default now(),
    primary key (organization_id, event_id)
  )`,
  // A transmission's reference as its sender gave it, once per organization, format and sender: the
  // first message acted on with it. Only messages that were acted on (mapped) claim one: a sender
  // may resend a quarantined interchange, corrected, under its old reference.
  `create table if not exists gateway_sender_reference (
    organization_id text not null,
    format text not null,
    reference text not null,
    inbox_id text not null,
    created_at timestamptz not null default now(),
    primary key (organization_id, format, reference)
  )`,
];

/**
 * Text as the database can hold it: no NUL (PostgreSQL's text and jsonb have none) and no lone
 * UTF-16 surrogate (jsonb refuses its escape), each replaced by U+FFFD. A message's own text never
 * has either (screening refuses a NUL, decoding makes no lone surrogate), but what a mapping quotes
 * of it (a JSON string's escape, an XML part's bytes) may.
 */
export const storable = (text: string): string => text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\u0000/g, '\uFFFD');
/** A value as JSON the database can hold (storable strings all through). */
export const storableJson = (value: unknown): string => JSON.stringify(value, (_key, v) => (typeof v === 'string' ? storable(v) : v));

export type InboxStatus = 'received' | 'mapped' | 'submitted' | 'quarantined' | 'acknowledged';

export interface InboxEntry {
  id: string;
  organizationId: string;
  transport: 'mailbox' | 'http';
  format: string;
  name: string | null;
  contentSha256: string;
  content: string;
  status: InboxStatus;
  receivedAt: string;
  result: unknown;
}

/** Why a message was not acted on, and where in it (segment and element, JSON Pointer, cell). */
export interface QuarantineReason {
  code: string;
  message: string;
  position?: string;
}

export async function openGatewayDb(options: { databaseUrl?: string; dataDir: string }): Promise<Db> {
  return openDb({ databaseUrl: options.databaseUrl, dataDir: options.dataDir, poolSize: 5, schema: SCHEMA });
}

const entryOf = (r: any): InboxEntry => ({
  id: r.id,
  organizationId: r.organization_id,
  transport: r.transport,
  format: r.format,
  name: r.name,
  contentSha256: r.content_sha256,
  content: r.content,
  status: r.status,
  receivedAt: new Date(r.received_at).toISOString(),
  result: r.result,
});

/** Records a message; the same id again changes nothing and answers the entry as it stands. */
export async function receive(db: Queryable, entry: Omit<InboxEntry, 'status' | 'receivedAt' | 'result'>): Promise<{ entry: InboxEntry; created: boolean }> {
  const inserted = await db.query(
    `insert into gateway_inbox (id, organization_id, transport, format, name, content_sha256, content)
     values ($1, $2, $3, $4, $5, $6, $7) on conflict (id) do nothing returning *`,
    [entry.id, entry.organizationId, entry.transport, entry.format, entry.name, entry.contentSha256, entry.content],
  );
  if (inserted.rows[0]) return { entry: entryOf(inserted.rows[0]), created: true };
  return { entry: (await readEntry(db, entry.id))!, created: false };
}

export async function readEntry(db: Queryable, id: string): Promise<InboxEntry | undefined> {
  const r = await db.query(`select * from gateway_inbox where id = $1`, [id]);
  return r.rows[0] ? entryOf(r.rows[0]) : undefined;
}

/** Moves an entry on (only forward: a replayed activity that finds it further on changes nothing). */
export async function advance(db: Queryable, id: string, from: readonly InboxStatus[], to: InboxStatus, result?: unknown): Promise<boolean> {
  const r = await db.query(
    `update gateway_inbox set status = $3, updated_at = now(), result = coalesce($4::jsonb, result) where id = $1 and status = any($2::text[])`,
    [id, from, to, result === undefined ? null : storableJson(result)],
  );
  return r.rowCount > 0;
}

/** The entries not yet acknowledged: what a restarted gateway carries on with. */
export async function unfinished(db: Queryable): Promise<string[]> {
  const r = await db.query<{ id: string }>(`select id from gateway_inbox where status <> 'acknowledged' order by received_at`);
  return r.rows.map((row) => row.id);
}

export async function quarantine(db: Queryable, entry: InboxEntry, reasons: readonly QuarantineReason[]): Promise<void> {
  await db.query(
    `insert into gateway_quarantine (inbox_id, organization_id, reasons) values ($1, $2, $3) on conflict (inbox_id) do nothing`,
    [entry.id, entry.organizationId, storableJson(reasons)],
  );
}

/**
 * Claims a sender's reference for an entry: answers the entry that had it first, with when it was
 * received (itself when this is the first, or the same entry again after a crash).
 */
export async function claimSenderReference(db: Queryable, entry: InboxEntry, reference: string): Promise<{ inboxId: string; receivedAt: string }> {
  await db.query(
    `insert into gateway_sender_reference (organization_id, format, reference, inbox_id) values ($1, $2, $3, $4) on conflict do nothing`,
    [entry.organizationId, entry.format, reference, entry.id],
  );
  const r = await db.query<{ inbox_id: string; received_at: Date | string }>(
    `select s.inbox_id, i.received_at from gateway_sender_reference s join gateway_inbox i on i.id = s.inbox_id
      where s.organization_id = $1 and s.format = $2 and s.reference = $3`,
    [entry.organizationId, entry.format, reference],
  );
  return { inboxId: r.rows[0].inbox_id, receivedAt: new Date(r.rows[0].received_at).toISOString() };
}

/** Gives up the sender reference an entry claimed (the exchange refused what it became). */
export async function releaseSenderReference(db: Queryable, inboxId: string): Promise<void> {
  await db.query(`delete from gateway_sender_reference where inbox_id = $1`, [inboxId]);
}

export interface QuarantineItem {
  inboxId: string;
  organizationId: string;
  format: string;
  name: string | null;
  reasons: QuarantineReason[];
  /** held, released (a corrected message took its place: `releasedAs`) or discarded. */
  state: 'held' | 'released' | 'discarded';
  receivedAt: string;
  releasedAs?: string;
}

/** One organization's quarantine (every organization's, for the operator: `undefined`), newest first. */
export async function listQuarantine(db: Queryable, organizationId: string | undefined, limit = 100, inboxId?: string): Promise<QuarantineItem[]> {
  const r = await db.query(
    `select q.inbox_id, q.organization_id, q.reasons, q.state, q.released_as, i.format, i.name, i.received_at
       from gateway_quarantine q join gateway_inbox i on i.id = q.inbox_id
      where ($1::text is null or q.organization_id = $1) and ($3::text is null or q.inbox_id = $3)
      order by i.received_at desc limit $2`,
    [organizationId ?? null, limit, inboxId ?? null],
  );
  return r.rows.map((row: any) => ({
    inboxId: row.inbox_id,
    organizationId: row.organization_id,
    format: row.format,
    name: row.name,
    reasons: row.reasons,
    state: row.state,
    receivedAt: new Date(row.received_at).toISOString(),
    ...(row.released_as ? { releasedAs: row.released_as } : {}),
  }));
}

/**
 * Erases the content of messages older than `days` that are done with: received messages answered
 * (acknowledged) and not held in quarantine (a held one waits for its planner, who may release it),
 * and messages sent back once delivered to the mailbox. Their rows stay, with the content's digest
 * (a message sent again is still recognized), the status and the result. Answers how many of each.
 */
export async function eraseOldContent(db: Queryable, days: number): Promise<{ inbox: number; outbox: number }> {
  const inbox = await db.query(
    `update gateway_inbox i set content = '', content_erased_at = now()
      where i.content_erased_at is null and i.status = 'acknowledged' and i.updated_at < now() - make_interval(days => $1::int)
        and not exists (select 1 from gateway_quarantine q where q.inbox_id = i.id and q.state = 'held')`,
    [days],
  );
  const outbox = await db.query(
    `update gateway_outbox set content = '', content_erased_at = now()
      where content_erased_at is null and delivered_at is not null and created_at < now() - make_interval(days => $1::int)`,
    [days],
  );
  return { inbox: inbox.rowCount, outbox: outbox.rowCount };
}

/** Ends a held quarantine entry of the organization: released as another inbox entry, or discarded. Answers whether it was held. */
export async function resolveQuarantine(db: Queryable, organizationId: string, inboxId: string, outcome: { state: 'released'; as: string } | { state: 'discarded' }): Promise<boolean> {
  const r = await db.query(
    `update gateway_quarantine set state = $3, released_as = $4, resolved_at = now() where inbox_id = $1 and organization_id = $2 and state = 'held'`,
    [inboxId, organizationId, outcome.state, outcome.state === 'released' ? outcome.as : null],
  );
  return r.rowCount > 0;
}

/** A held (or resolved) message of the organization (of any, for the operator: `undefined`). */
export async function readQuarantine(db: Queryable, organizationId: string | undefined, inboxId: string): Promise<QuarantineItem | undefined> {
  return (await listQuarantine(db, organizationId, 1, inboxId))[0];
}

export interface Mapping {
  system: string;
  type: string;
  value: string;
  resourceKind: string;
  resourceId: string;
}

export async function recordMappings(db: Queryable, organizationId: string, inboxId: string, mappings: readonly Mapping[]): Promise<void> {
  for (const m of mappings) {
    await db.query(
      `insert into gateway_mapping (organization_id, system, type, value, resource_kind, resource_id, inbox_id)
       values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing`,
      [organizationId, m.system, m.type, m.value, m.resourceKind, m.resourceId, inboxId],
    );
  }
}

/** The exchange resource an organization's external reference became. */
export async function resolveReference(db: Queryable, organizationId: string, ref: { system: string; type: string; value: string }, resourceKind: string): Promise<string | undefined> {
  const r = await db.query<{ resource_id: string }>(
    `select resource_id from gateway_mapping where organization_id = $1 and system = $2 and type = $3 and value = $4 and resource_kind = $5`,
    [organizationId, ref.system, ref.type, ref.value, resourceKind],
  );
  return r.rows[0]?.resource_id;
}

/** The external references an organization's resource carries in the gateway's mapping. */
export async function referencesOf(db: Queryable, organizationId: string, resourceId: string): Promise<Mapping[]> {
  const r = await db.query(`select * from gateway_mapping where organization_id = $1 and resource_id = $2 order by system, type, value`, [organizationId, resourceId]);
  return r.rows.map((row: any) => ({ system: row.system, type: row.type, value: row.value, resourceKind: row.resource_kind, resourceId: row.resource_id }));
}

export interface OutboundMessage {
  id: number;
  organizationId: string;
  inboxId: string;
  kind: string;
  name: string;
  content: string;
  createdAt: string;
}

/** Adds an outbound message once per inbox entry and kind (a replayed activity adds nothing). */
export async function addOutbound(db: Queryable, message: Omit<OutboundMessage, 'id' | 'createdAt'>): Promise<OutboundMessage & { created: boolean }> {
  const inserted = await db.query(
    `insert into gateway_outbox (organization_id, inbox_id, kind, name, content) values ($1, $2, $3, $4, $5) on conflict (inbox_id, kind) do nothing returning *`,
    [message.organizationId, message.inboxId, message.kind, storable(message.name), storable(message.content)],
  );
  if (inserted.rows[0]) return { ...outboundOf(inserted.rows[0]), created: true };
  const r = await db.query(`select * from gateway_outbox where inbox_id = $1 and kind = $2`, [message.inboxId, message.kind]);
  return { ...outboundOf(r.rows[0]), created: false };
}

/** Outbound messages not yet written into their organization's mailbox, oldest first. */
export async function undelivered(db: Queryable, kind: string): Promise<OutboundMessage[]> {
  const r = await db.query(`select * from gateway_outbox where kind = $1 and delivered_at is null order by id limit 500`, [kind]);
  return r.rows.map(outboundOf);
}

export async function markDelivered(db: Queryable, id: number): Promise<void> {
  await db.query(`update gateway_outbox set delivered_at = now() where id = $1`, [id]);
}

/** Outbound messages of an organization not yet pushed to its target, oldest first (a failed one waits its turn). */
export async function unpushed(db: Queryable, organizationId: string, kind: string): Promise<Array<OutboundMessage & { attempts: number }>> {
  const r = await db.query(`select * from gateway_outbox where organization_id = $1 and kind = $2 and pushed_at is null order by id limit 100`, [organizationId, kind]);
  return r.rows.map((row: any) => ({ ...outboundOf(row), attempts: Number(row.push_attempts) }));
}

export async function markPushed(db: Queryable, id: number, error?: string): Promise<void> {
  if (error === undefined) await db.query(`update gateway_outbox set pushed_at = now(), push_error = null where id = $1`, [id]);
  else await db.query(`update gateway_outbox set push_attempts = push_attempts + 1, push_error = $2 where id = $1`, [id, error]);
}

export async function readCursor(db: Queryable, organizationId: string): Promise<string | undefined> {
  const r = await db.query<{ cursor: string }>(`select cursor from gateway_cursor where organization_id = $1`, [organizationId]);
  return r.rows[0]?.cursor;
}

export async function saveCursor(db: Queryable, organizationId: string, cursor: string): Promise<void> {
  await db.query(
    `insert into gateway_cursor (organization_id, cursor) values ($1, $2) on conflict (organization_id) do update set cursor = excluded.cursor, updated_at = now()`,
    [organizationId, cursor],
  );
}

export async function addDeadLetter(db: Queryable, organizationId: string, event: { id: string; type: string; subject?: string }, error: string): Promise<void> {
  await db.query(
    `insert into gateway_dead_letter (organization_id, event_id, event_type, subject, error) values ($1, $2, $3, $4, $5) on conflict do nothing`,
    [organizationId, event.id, event.type, event.subject ?? null, error.slice(0, 1000)],
  );
}

const outboundOf = (row: any): OutboundMessage => ({
  id: Number(row.id),
  organizationId: row.organization_id,
  inboxId: row.inbox_id,
  kind: row.kind,
  name: row.name,
  content: row.content,
  createdAt: new Date(row.created_at).toISOString(),
});

/** What the gateway sent back for one inbox entry. */
export async function outboundFor(db: Queryable, organizationId: string, inboxId: string): Promise<OutboundMessage[]> {
  const r = await db.query(`select * from gateway_outbox where organization_id = $1 and inbox_id = $2 order by id`, [organizationId, inboxId]);
  return r.rows.map(outboundOf);
}

/** Per organization and format: what waits, what is held, and when the last message came (health and metrics). */
export interface AdapterCounts {
  organizationId: string;
  format: string;
  received: number;
  waiting: number;
  quarantineHeld: number;
  /** Held messages whose reasons are about the mapping (not the syntax): a value missing, unknown or ambiguous. */
  mappingFailures: number;
  lastReceivedAt: string | null;
  /** Seconds the oldest unfinished message has waited. */
  oldestWaitingSeconds: number;
}

export async function adapterCounts(db: Queryable): Promise<AdapterCounts[]> {
  const r = await db.query(
    `select i.organization_id, i.format, count(*) as received,
            count(*) filter (where i.status <> 'acknowledged') as waiting,
            count(q.inbox_id) filter (where q.state = 'held') as held,
            count(q.inbox_id) filter (where q.state = 'held' and not (q.reasons::text like '%SYNTAX_ERROR%')) as mapping_failures,
            max(i.received_at) as last,
            min(i.received_at) filter (where i.status <> 'acknowledged') as oldest
       from gateway_inbox i left join gateway_quarantine q on q.inbox_id = i.id
      group by i.organization_id, i.format order by i.organization_id, i.format`,
  );
  return r.rows.map((row: any) => ({
    organizationId: row.organization_id,
    format: row.format,
    received: Number(row.received),
    waiting: Number(row.waiting),
    quarantineHeld: Number(row.held),
    mappingFailures: Number(row.mapping_failures),
    lastReceivedAt: row.last ? new Date(row.last).toISOString() : null,
    oldestWaitingSeconds: row.oldest ? Math.max(0, (Date.now() - new Date(row.oldest).getTime()) / 1000) : 0,
  }));
}

export async function deadLetterCounts(db: Queryable): Promise<Map<string, number>> {
  const r = await db.query(`select organization_id, count(*) as n from gateway_dead_letter group by organization_id`);
  return new Map(r.rows.map((row: any) => [row.organization_id as string, Number(row.n)]));
}
