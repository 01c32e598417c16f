// The retention purge's SQL (docs/retention.md; activities/retention.ts runs it on the retention
// workflow's clock). What a kind's records follow comes from its definition's `retention`
// (domain/resource.ts): its class of record, where it names its relationship (whose policy and hold
// apply), whether it carries its own policy ref. This module turns those into SQL over a row `t` of
// the kind's table, finds the due records and removes one at a time, leaving a tombstone.
import { randomUUID } from 'node:crypto';
import { CloudEvent } from 'cloudevents';
import type { Db, Queryable } from '../core/db';
import { resourceOf, RESOURCES } from '../domain/registry';
import type { Resource } from '../domain/resource';
import { dueAt, oldestDue, policyOf, purgeOrder, PURGED_RECORD_KIND, RETENTION_WORKFLOW_ID, type RecordClass, type RelationshipLink, type RetentionPolicies } from '../domain/retention';
import type { ProjectionSettings } from './projection';
import type { PurgedRecord } from './purged-records';

export const PURGED_EVENT = 'pcx.purged-record.recorded.v1';

/** A kind the purge removes: its definition and its class of record. */
export interface PurgedKind {
  resource: Resource<any, any>;
  period: RecordClass;
}

/** The kind's retention decision when it is purged; throws for a kept kind (a programming error). */
export function purgedKind(kind: string): PurgedKind & { link?: RelationshipLink; ownPolicyRef: boolean } {
  const resource = resourceOf(kind);
  const retention = resource.retention;
  if (!('purged' in retention)) throw new Error(`${kind} is kept, never purged: ${retention.kept}`);
  return { resource, period: retention.purged, link: retention.relationship, ownPolicyRef: retention.ownPolicyRef === true };
}

const jsonText = (row: string, path: readonly string[]) => `${row}.doc${path.slice(0, -1).map((p) => `->${literal(p)}`).join('')}->>${literal(path[path.length - 1])}`;
const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * The id (text) of the relationship a row of `kind` (aliased `row`) is linked to; null for a kind
 * of none. A link `through` another kind reads that kind's own link on the record it names.
 */
export function relationshipSql(kind: string, row = 't'): string {
  const { link } = purgedKind(kind);
  if (!link) return 'null';
  if ('self' in link) return `${row}.id::text`;
  if ('field' in link) return jsonText(row, link.field);
  const inner = `${row}_${link.through.replace(/-/g, '_')}`;
  return `(select ${relationshipSql(link.through, inner)} from ${resourceOf(link.through).table} ${inner} where ${inner}.id::text = ${jsonText(row, link.by)})`;
}

/** The policy ref a row `t` of `kind` follows: its own, or its relationship's; null: the default. */
export function policyRefSql(kind: string): string {
  const { link, ownPolicyRef } = purgedKind(kind);
  if (ownPolicyRef) return `t.doc->>'retentionPolicyRef'`;
  if (!link) return 'null';
  return `(select r.doc->>'retentionPolicyRef' from ${resourceOf('partner-relationship').table} r where r.id::text = ${relationshipSql(kind)})`;
}

/** Whether the row `t`'s relationship is under a retention hold (read-model/retention-holds.ts). */
export function heldSql(kind: string): string {
  return purgedKind(kind).link ? `exists (select 1 from retention_holds h where h.relationship_id::text = ${relationshipSql(kind)})` : 'false';
}

/** Who could read a record of the kind, as SQL over its row `t`. */
function audienceSql(kind: string): string {
  if (kind === 'partner-relationship') return 'array[t.requesting_organization_id, t.accepting_organization_id]';
  if ((resourceOf(kind).readModel ?? 'standard') === 'standard') return 'array[t.owner_organization_id] || t.participants';
  return 'array[t.owner_organization_id]';
}

/**
 * Whether records that follow relationship $1's policy are still there: those that name it in a
 * field (records linked through them go before them, in the purge's order).
 */
function linkedToRelationshipSql(kinds: readonly string[]): string {
  const direct = kinds.filter((k) => k !== 'partner-relationship').map(purgedKind).filter((k) => k.link && 'field' in k.link);
  return `select 1 where ${direct.map((k) => `exists (select 1 from ${k.resource.table} t where ${jsonText('t', (k.link as { field: readonly string[] }).field)} = $1::text)`).join(' or ') || 'false'}`;
}

/**
 * The period of `period` under a row's policy (its ref as SQL; none: the default), as a PostgreSQL
 * interval; null under a hold. A filter for candidates only, a day looser than the calendar rule
 * where it is applied (PostgreSQL's month arithmetic may differ from luxon's at a month's end):
 * `purgeRecord` decides by domain/retention.ts `dueAt`.
 */
function periodSql(policies: RetentionPolicies, period: string, policyRef: string): string {
  const all = Object.values(policies.policies);
  const intervalOf = (p: (typeof all)[number]) => (p.hold || !p.periods[period as keyof typeof p.periods] ? 'null' : `interval ${literal(p.periods[period as keyof typeof p.periods]!)}`);
  const fallback = policies.policies[policies.default];
  return `(case coalesce(${policyRef}, ${literal(policies.default)}) ${all.map((p) => `when ${literal(p.ref)} then ${intervalOf(p)}`).join(' ')} else ${intervalOf(fallback)} end)`;
}

/** A page of records of `kind` that may be due at `now`: final before `oldest`, not held, past their policy's period (a day loose); after the cursor. */
export async function dueCandidates(db: Queryable, kind: string, policies: RetentionPolicies, at: { now: string; oldest: string; after?: { at: Date; id: string }; limit: number }) {
  const { resource, period } = purgedKind(kind);
  const { rows } = await db.query<{ id: string; at: Date }>(
    `select t.id, t.updated_at as at from ${resource.table} t
     where t.status = any($1) and t.updated_at <= $2 and not ${heldSql(kind)}
       and t.updated_at <= $6::timestamptz - ${periodSql(policies, period, policyRefSql(kind))} + interval '1 day'
       and ($3::timestamptz is null or (t.updated_at, t.id) > ($3::timestamptz, $4::uuid))
     order by t.updated_at, t.id limit $5`,
    [resource.terminalStatuses, at.oldest, at.after?.at ?? null, at.after?.id ?? null, at.limit, at.now],
  );
  return rows;
}

/** A CloudEvent the retention writes (a purge's tombstone, an erasure), with its row in the feed. */
export async function insertRetentionEvent(
  tx: Queryable,
  settings: ProjectionSettings,
  event: { kind: string; id: string; version: number; type: string; subject: string; owner: string; audience: string[]; data: unknown; dataschema: string; time: string; correlationId: string },
): Promise<void> {
  const cloudEvent = new CloudEvent({
    correlationid: event.correlationId,
    id: randomUUID(),
    source: settings.eventSource,
    type: event.type,
    subject: event.subject,
    time: event.time,
    dataschema: `${settings.schemaBase}/v0/${event.dataschema}`,
    datacontenttype: 'application/json',
    data: event.data,
    organizationid: event.owner,
    resourceversion: event.version,
  });
  await tx.query(
    `insert into events (id, resource_kind, resource_id, resource_version, type, owner_organization_id, audience, share_scope, cloudevent)
     values ($1, $2, $3, $4, $5, $6, $7, null, $8)`,
    [cloudEvent.id, event.kind, event.id, event.version, event.type, event.owner, event.audience, JSON.stringify(cloudEvent.toJSON())],
  );
}

/** The rows that go with a record besides its own and its events: an execution's milestones and outcomes, a relationship's pair. */
async function deleteDependents(tx: Queryable, kind: string, id: string): Promise<{ milestones: number; outcomes: number }> {
  if (kind === 'partner-relationship') await tx.query('delete from relationship_pairs where relationship_id = $1', [id]);
  if (kind !== 'execution-reference') return { milestones: 0, outcomes: 0 };
  const milestones = (await tx.query('delete from execution_updates where execution_reference_id = $1', [id])).rowCount ?? 0;
  const outcomes = (await tx.query('delete from execution_outcomes where execution_reference_id = $1', [id])).rowCount ?? 0;
  return { milestones, outcomes };
}

/** Why a record is due at `now`, as the purge decides it: its row's facts, its policy and when it fell due. */
interface DueRecord {
  owner: string;
  audience: string[];
  status: string;
  finalAt: string;
  policy: ReturnType<typeof policyOf>;
  dueAt: string;
  /** A relationship whose chain's records are still there: purged after them, not in this step. */
  waitsForItsRecords: boolean;
}

/** The purge's decision on one record at `now` (`lock`: in the purge's transaction, the row locked); undefined if it is not due. */
async function decideDue(tx: Queryable, policies: RetentionPolicies, kind: string, id: string, now: string, lock: boolean): Promise<DueRecord | undefined> {
  const { resource, period } = purgedKind(kind);
  const { rows } = await tx.query<{ owner: string; audience: string[]; status: string; final_at: Date; policy_ref: string | null; held: boolean }>(
    `select ${kind === 'partner-relationship' ? 't.requesting_organization_id' : 't.owner_organization_id'} as owner, ${audienceSql(kind)} as audience, t.status, t.updated_at as final_at, ${policyRefSql(kind)} as policy_ref, ${heldSql(kind)} as held
     from ${resource.table} t where t.id = $1${lock ? ' for update' : ''}`,
    [id],
  );
  const row = rows[0];
  // An operator's hold on its relationship keeps it, whatever the policy.
  if (!row || row.held) return undefined;
  const policy = policyOf(policies, row.policy_ref);
  const finalAt = new Date(row.final_at).toISOString();
  const due = dueAt(policy, period, finalAt);
  if (!due || Date.parse(due) > Date.parse(now) || !resource.terminalStatuses.includes(row.status)) return undefined;
  // A relationship goes after the records of its chain, which follow its policy (invariant 10).
  const waitsForItsRecords = kind === 'partner-relationship' && (await tx.query(linkedToRelationshipSql(purgedKinds()), [id])).rows.length > 0;
  return { owner: row.owner, audience: row.audience, status: row.status, finalAt, policy, dueAt: due, waitsForItsRecords };
}

/** A record the purge would remove at a given instant (GET /retention-preview): what its tombstone would say, less what the purge itself adds. */
export type DueRecordPreview = Pick<PurgedRecord, 'resourceKind' | 'id' | 'ownerOrganizationId' | 'finalStatus' | 'finalAt' | 'retentionPolicyRef' | 'period' | 'dueAt'> & {
  /** A relationship purged once the records of its chain are gone (in the same run when they are due too). */
  afterItsRecords?: true;
};

/**
 * What a purge at `now` would remove, in the purge's order (executions first, relationships last),
 * decided as the purge decides (holds, policies, periods, final statuses), at most `limit` (of
 * `owner`'s records, when given); nothing is changed. `truncated`: more would be due.
 */
export async function previewDue(db: Queryable, policies: RetentionPolicies, now: string, limit: number, owner?: string): Promise<{ items: DueRecordPreview[]; truncated: boolean }> {
  const items: DueRecordPreview[] = [];
  for (const kind of purgedKinds()) {
    const { period } = purgedKind(kind);
    const oldest = oldestDue(policies, period, now);
    let after: { at: Date; id: string } | undefined;
    for (;;) {
      const rows = await dueCandidates(db, kind, policies, { now, oldest, after, limit: 500 });
      for (const { id } of rows) {
        const due = await decideDue(db, policies, kind, id, now, false);
        if (!due || (owner !== undefined && due.owner !== owner)) continue;
        if (items.length === limit) return { items, truncated: true };
        items.push({
          resourceKind: kind, id, ownerOrganizationId: due.owner, finalStatus: due.status, finalAt: due.finalAt,
          retentionPolicyRef: due.policy.ref, period: due.policy.periods[period]!, dueAt: due.dueAt, ...(due.waitsForItsRecords ? { afterItsRecords: true as const } : {}),
        });
      }
      if (rows.length < 500) break;
      after = rows[rows.length - 1];
    }
  }
  return { items, truncated: false };
}

/**
 * Purges one record if it is due at `now`, in one transaction: its row, events and dependents
 * gone, the tombstone and its event written. Undefined if it is not due (a hold, a longer policy,
 * records of its chain still there) or went meanwhile.
 */
export async function purgeRecord(db: Db, settings: ProjectionSettings, policies: RetentionPolicies, kind: string, id: string, now: string): Promise<PurgedRecord | undefined> {
  const { resource, period } = purgedKind(kind);
  return db.transaction(async (tx) => {
    const decided = await decideDue(tx, policies, kind, id, now, true);
    if (!decided || decided.waitsForItsRecords) return undefined;
    const { policy, finalAt, dueAt: due } = decided;
    const row = { owner: decided.owner, audience: decided.audience, status: decided.status };
    const events = await tx.query('delete from events where resource_id = $1', [id]);
    const { milestones, outcomes } = await deleteDependents(tx, kind, id);
    await tx.query(`delete from ${resource.table} where id = $1`, [id]);
    const audience = [...new Set(row.audience.filter(Boolean))];
    const record: PurgedRecord = {
      id,
      resourceKind: kind,
      subject: `${resource.collection}/${id}`,
      ownerOrganizationId: row.owner,
      finalStatus: row.status,
      finalAt,
      retentionPolicyRef: policy.ref,
      period: policy.periods[period]!,
      dueAt: due,
      purgedAt: now,
      removed: { events: events.rowCount ?? 0, milestones, outcomes, histories: 0 },
    };
    await tx.query('insert into purged_records (id, resource_kind, owner_organization_id, audience, purged_at, doc) values ($1, $2, $3, $4, $5, $6) on conflict (id) do nothing', [
      id, kind, row.owner, audience, now, JSON.stringify(record),
    ]);
    await insertRetentionEvent(tx, settings, {
      kind: PURGED_RECORD_KIND, id, version: 1, type: PURGED_EVENT, subject: `purged-records/${id}`, owner: row.owner, audience,
      data: record, dataschema: PURGED_RECORD_KIND, time: now, correlationId: `${RETENTION_WORKFLOW_ID}:${now}`,
    });
    return record;
  });
}

/** Tombstones whose Temporal histories are not deleted yet (this purge's, or one a crash interrupted), oldest first. */
export async function tombstonesWithHistories(db: Queryable, limit: number): Promise<Array<{ id: string; resource_kind: string }>> {
  const { rows } = await db.query<{ id: string; resource_kind: string }>('select id, resource_kind from purged_records where histories_deleted_at is null order by purged_at limit $1', [limit]);
  return rows;
}

/** Records on the tombstone that its histories went (how many). */
export async function markHistoriesDeleted(db: Queryable, id: string, deleted: number): Promise<void> {
  await db.query(
    `update purged_records set histories_deleted_at = now(), doc = jsonb_set(doc, '{removed,histories}', to_jsonb(coalesce((doc->'removed'->>'histories')::int, 0) + $2::int)) where id = $1`,
    [id, deleted],
  );
}

/** The kinds the purge removes, in its order (domain/retention.ts purgeOrder over the registry). */
let order: string[] | undefined;
export function purgedKinds(): string[] {
  return (order ??= purgeOrder(RESOURCES));
}
