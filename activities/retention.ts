// The retention purge and personal data erasure (issue 34 part 4; docs/retention.md). The
// retention workflow (workflows/retention.ts) calls `purgeDue` on its clock: every record whose
// final status is older than its policy's period (domain/retention.ts) is removed from the read
// model with its events, leaving a tombstone (`purged_records`) and an event
// `pcx.purged-record.recorded.v1` to those who could read it; its Temporal histories are deleted, so
// that neither Temporal nor a rebuild from it (read-model/rebuild.ts) keeps it longer. Contact
// details in handovers are erased after the policy's personalData period, or on request
// (`eraseHandoverContacts`), without touching the digests (docs/decisions.md, "Retention and erasure").
import { randomUUID } from 'node:crypto';
import { CloudEvent } from 'cloudevents';
import type { Db, Queryable } from '../core/db';
import type { Entities } from '../core/entities';
import { resourceOf } from '../domain/registry';
import { OPERATOR_AUDIENCE } from '../domain/machine';
import { dueAt, oldestDue, policyOf, PURGED_KINDS, PURGED_RECORD_KIND, recordClassOf, RETENTION_WORKFLOW_ID, type RetentionPolicies } from '../domain/retention';
import type { ProjectionSettings } from '../read-model/projection';
import type { PurgedRecord } from '../read-model/purged-records';

export const PURGED_EVENT = 'pcx.purged-record.recorded.v1';
export const CONTACTS_ERASED_EVENT = 'pcx.execution-handover.contacts-erased.v1';
export const USER_NAME_ERASED_EVENT = 'pcx.user.name-erased.v1';

/**
 * What one kind of erasure takes away: from which records (their kind; only final ones), what
 * (`strip`, also applied to the data of their events), under which field the record says so, and
 * the event that tells its readers.
 */
interface ErasureKind {
  kind: 'execution-handover' | 'user';
  field: 'contactsErased' | 'nameErased';
  event: string;
  strip: (doc: any) => { doc: any; pointers: string[] };
  /** Besides the record's own organizations (a user's events go to the operator too). */
  extraAudience: string[];
}

const HANDOVER_CONTACTS: ErasureKind = { kind: 'execution-handover', field: 'contactsErased', event: CONTACTS_ERASED_EVENT, strip: (doc) => withoutContacts(doc), extraAudience: [] };
const USER_NAME: ErasureKind = { kind: 'user', field: 'nameErased', event: USER_NAME_ERASED_EVENT, strip: (doc) => withoutName(doc), extraAudience: [OPERATOR_AUDIENCE] };

/** The policy ref a record follows, as SQL over its row `t`: its own, its relationship's, its commitment's relationship's. */
const POLICY_REF: Record<string, string> = {
  'partner-relationship': `t.doc->>'retentionPolicyRef'`,
  'execution-reference': `t.doc->>'retentionPolicyRef'`,
  'match-proposal': `(select r.doc->>'retentionPolicyRef' from partner_relationships r where r.id::text = t.doc->'requiredDecisionPolicy'->>'relationshipId')`,
  'transport-commitment': `(select r.doc->>'retentionPolicyRef' from partner_relationships r where r.id::text = t.doc->>'relationshipId')`,
  'transport-tender': `(select r.doc->>'retentionPolicyRef' from partner_relationships r where r.id::text = t.doc->'requiredDecisionPolicy'->>'relationshipId')`,
  'execution-handover': `(select r.doc->>'retentionPolicyRef' from transport_commitments c join partner_relationships r on r.id::text = c.doc->>'relationshipId' where c.id::text = t.doc->>'commitmentId')`,
};

/** The relationship a record is linked to, as SQL over its row `t` (text; null for records of none): where a retention hold applies. */
const RELATIONSHIP_OF: Record<string, string> = {
  'partner-relationship': `t.id::text`,
  'match-proposal': `t.doc->'requiredDecisionPolicy'->>'relationshipId'`,
  'transport-tender': `t.doc->'requiredDecisionPolicy'->>'relationshipId'`,
  'transport-commitment': `t.doc->>'relationshipId'`,
  'execution-handover': `(select c.doc->>'relationshipId' from transport_commitments c where c.id::text = t.doc->>'commitmentId')`,
  'execution-reference': `(select p.doc->'requiredDecisionPolicy'->>'relationshipId' from match_proposals p where p.id::text = t.doc->>'acceptedProposalId')`,
};

/** Whether the record's relationship is under a retention hold (read-model/retention-holds.ts), as SQL over its row `t`. */
const heldSql = (kind: string) => (RELATIONSHIP_OF[kind] ? `exists (select 1 from retention_holds h where h.relationship_id::text = ${RELATIONSHIP_OF[kind]})` : 'false');

const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * The period of `period` under a row's policy (its ref as SQL; none: the default), as a PostgreSQL
 * interval; null under a hold. A filter for candidates only, a day looser than the calendar rule
 * where it is applied (PostgreSQL's month arithmetic may differ from luxon's at a month's end):
 * `purgeOne` decides by domain/retention.ts `dueAt`.
 */
function periodSql(policies: RetentionPolicies, period: string, policyRefSql: string): string {
  const all = Object.values(policies.policies);
  const intervalOf = (p: (typeof all)[number]) => (p.hold || !p.periods[period as keyof typeof p.periods] ? 'null' : `interval ${literal(p.periods[period as keyof typeof p.periods]!)}`);
  const fallback = policies.policies[policies.default];
  return `(case coalesce(${policyRefSql}, ${literal(policies.default)}) ${all.map((p) => `when ${literal(p.ref)} then ${intervalOf(p)}`).join(' ')} else ${intervalOf(fallback)} end)`;
}

/** Records that follow a relationship's policy and are still there. */
const LINKED_TO_RELATIONSHIP = `select 1 where exists (select 1 from match_proposals where doc->'requiredDecisionPolicy'->>'relationshipId' = $1::text)
  or exists (select 1 from transport_commitments where doc->>'relationshipId' = $1::text)
  or exists (select 1 from transport_tenders where doc->'requiredDecisionPolicy'->>'relationshipId' = $1::text)`;

/** Who could read a record of the kind, as SQL over its row `t`. */
function audienceSql(kind: string): string {
  if (kind === 'partner-relationship') return 'array[t.requesting_organization_id, t.accepting_organization_id]';
  if ((resourceOf(kind).readModel ?? 'standard') === 'standard') return 'array[t.owner_organization_id] || t.participants';
  return 'array[t.owner_organization_id]';
}

/** How many records one call purges at most: the workflow calls again at once while there are more. */
const BATCH = 200;
/** How many candidate rows one query reads while looking for due ones. */
const SCAN_PAGE = 500;

export interface PurgeResult {
  purged: number;
  erased: number;
  /** More were due than one call purges. */
  more: boolean;
}

export function createRetentionActivities(db: Db, entities: Entities, settings: ProjectionSettings & { retention?: RetentionPolicies }) {
  const policies = settings.retention;

  function cloudEvent(type: string, subject: string, data: unknown, owner: string, version: number, dataschema: string, time: string, correlationId: string) {
    return new CloudEvent({
      correlationid: correlationId,
      id: randomUUID(),
      source: settings.eventSource,
      type,
      subject,
      time,
      dataschema: `${settings.schemaBase}/v0/${dataschema}`,
      datacontenttype: 'application/json',
      data,
      organizationid: owner,
      resourceversion: version,
    });
  }

  async function insertEvent(tx: Queryable, kind: string, id: string, version: number, type: string, owner: string, audience: string[], event: CloudEvent<unknown>) {
    await tx.query(
      `insert into events (id, resource_kind, resource_id, resource_version, type, owner_organization_id, audience, share_scope, cloudevent)
       values ($1, $2, $3, $4, $5, $6, $7, null, $8)`,
      [event.id, kind, id, version, type, owner, audience, JSON.stringify(event.toJSON())],
    );
  }

  /** One record, in one transaction: the tombstone, its rows and events gone, the purge event. Undefined if it went meanwhile. */
  async function purgeOne(kind: string, id: string, now: string): Promise<PurgedRecord | undefined> {
    const resource = resourceOf(kind);
    return db.transaction(async (tx) => {
      const { rows } = await tx.query<{ owner: string; audience: string[]; status: string; final_at: Date; policy_ref: string | null; held: boolean }>(
        `select ${kind === 'partner-relationship' ? 't.requesting_organization_id' : 't.owner_organization_id'} as owner, ${audienceSql(kind)} as audience, t.status, t.updated_at as final_at, ${POLICY_REF[kind] ?? 'null'} as policy_ref, ${heldSql(kind)} as held
         from ${resource.table} t where t.id = $1 for update`,
        [id],
      );
      const row = rows[0];
      // An operator's hold on its relationship keeps it, whatever the policy.
      if (!row || row.held) return undefined;
      const policy = policyOf(policies!, row.policy_ref);
      const period = recordClassOf(kind)!;
      const finalAt = new Date(row.final_at).toISOString();
      const due = dueAt(policy, period, finalAt);
      if (!due || Date.parse(due) > Date.parse(now) || !resource.terminalStatuses.includes(row.status)) return undefined;
      // A relationship goes after the records of its chain, which follow its policy (invariant 10).
      if (kind === 'partner-relationship' && (await tx.query(LINKED_TO_RELATIONSHIP, [id])).rows.length) return undefined;
      const events = await tx.query('delete from events where resource_id = $1', [id]);
      let milestones = 0;
      let outcomes = 0;
      if (kind === 'execution-reference') {
        milestones = (await tx.query('delete from execution_updates where execution_reference_id = $1', [id])).rowCount ?? 0;
        outcomes = (await tx.query('delete from execution_outcomes where execution_reference_id = $1', [id])).rowCount ?? 0;
      }
      if (kind === 'partner-relationship') await tx.query('delete from relationship_pairs where relationship_id = $1', [id]);
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
      await insertEvent(tx, PURGED_RECORD_KIND, id, 1, PURGED_EVENT, row.owner, audience, cloudEvent(PURGED_EVENT, `purged-records/${id}`, record, row.owner, 1, PURGED_RECORD_KIND, now, `${RETENTION_WORKFLOW_ID}:${now}`));
      return record;
    });
  }

  /** Deletes the Temporal histories of purged records that still have them (this purge's, or one a crash interrupted). */
  async function deletePurgedHistories(): Promise<void> {
    const { rows } = await db.query<{ id: string; resource_kind: string }>('select id, resource_kind from purged_records where histories_deleted_at is null order by purged_at limit $1', [BATCH]);
    for (const r of rows) {
      const { deleted, running } = await entities.deleteHistories(resourceOf(r.resource_kind).workflowId(r.id));
      if (running) continue; // a final record's workflow is closing: the next round takes it
      await db.query(
        `update purged_records set histories_deleted_at = now(), doc = jsonb_set(doc, '{removed,histories}', to_jsonb(coalesce((doc->'removed'->>'histories')::int, 0) + $2::int)) where id = $1`,
        [r.id, deleted],
      );
    }
  }

  return {
    /** Purges what is due at `now` (the workflow's clock), at most a batch, and erases the contact details that are due. */
    async purgeDue({ now }: { now: string }): Promise<PurgeResult> {
      if (!policies) return { purged: 0, erased: 0, more: false };
      await deletePurgedHistories();
      let purged = 0;
      for (const kind of PURGED_KINDS) {
        const resource = resourceOf(kind);
        const period = recordClassOf(kind)!;
        // Only rows final before the shortest period of any policy can be due: the index on status
        // and time bounds the scan. Page on past the rows that are not due (a longer policy's, a
        // held relationship's): a page of them must not hide due rows behind it, round after round.
        let after: { at: Date; id: string } | undefined;
        for (;;) {
          const { rows } = await db.query<{ id: string; at: Date }>(
            `select t.id, t.updated_at as at from ${resource.table} t
             where t.status = any($1) and t.updated_at <= $2 and not ${heldSql(kind)}
               and t.updated_at <= $6::timestamptz - ${periodSql(policies, period, POLICY_REF[kind] ?? 'null')} + interval '1 day'
               and ($3::timestamptz is null or (t.updated_at, t.id) > ($3::timestamptz, $4::uuid))
             order by t.updated_at, t.id limit $5`,
            [resource.terminalStatuses, oldestDue(policies, period, now), after?.at ?? null, after?.id ?? null, SCAN_PAGE, now],
          );
          for (const { id } of rows) {
            if (purged >= BATCH) return { purged, erased: 0, more: true };
            if (await purgeOne(kind, id, now)) purged++;
          }
          if (rows.length < SCAN_PAGE) break;
          after = rows[rows.length - 1];
        }
      }
      await deletePurgedHistories();
      const erased = (await eraseDueContacts(now)) + (await eraseDueNames(now));
      return { purged, erased, more: false };
    },

    async eraseHandoverContacts(input: ErasureRequest & { handoverId: string }): Promise<ErasureOutcome> {
      return erase(HANDOVER_CONTACTS, input.handoverId, requested(input));
    },

    async eraseUserName(input: ErasureRequest & { userId: string }): Promise<ErasureOutcome> {
      return erase(USER_NAME, input.userId, requested(input));
    },
  };

  function requested(input: ErasureRequest) {
    return { reason: input.reason, at: input.now, ...(input.by ? { requestedBy: input.by } : {}), ...(input.correlationId ? { correlationId: input.correlationId } : {}) };
  }

  /**
   * Users removed for longer than the default policy's personalData period whose names are still
   * there (a user belongs to no relationship, so the default policy is theirs).
   */
  async function eraseDueNames(now: string): Promise<number> {
    const policy = policyOf(policies!, null);
    const { rows } = await db.query<{ id: string; final_at: Date }>(
      `select t.id, t.updated_at as final_at from users t where t.status = any($1) and t.updated_at <= $2 and t.doc->'nameErased' is null and t.doc ? 'name' order by t.updated_at limit $3`,
      [resourceOf('user').terminalStatuses, oldestDue(policies!, 'personalData', now), BATCH],
    );
    let erased = 0;
    for (const r of rows) {
      const due = dueAt(policy, 'personalData', new Date(r.final_at).toISOString());
      if (!due || Date.parse(due) > Date.parse(now)) continue;
      const outcome = await erase(USER_NAME, r.id, { reason: `retention policy ${policy.ref}: a removed user's name is kept ${policy.periods.personalData}`, at: now, policy: policy.ref });
      if (outcome.erased) erased++;
    }
    return erased;
  }

  /** Handovers final for longer than their policy's personalData period whose contacts are still there. */
  async function eraseDueContacts(now: string): Promise<number> {
    const { rows } = await db.query<{ id: string; final_at: Date; policy_ref: string | null }>(
      `select t.id, t.updated_at as final_at, ${POLICY_REF['execution-handover']} as policy_ref from execution_handovers t
       where t.status = any($1) and t.updated_at <= $2 and t.doc->'contactsErased' is null and t.doc::text like '%"contacts"%' and not ${heldSql('execution-handover')} order by t.updated_at limit $3`,
      [resourceOf('execution-handover').terminalStatuses, oldestDue(policies!, 'personalData', now), BATCH],
    );
    let erased = 0;
    for (const r of rows) {
      const policy = policyOf(policies!, r.policy_ref);
      const due = dueAt(policy, 'personalData', new Date(r.final_at).toISOString());
      if (!due || Date.parse(due) > Date.parse(now)) continue;
      const outcome = await erase(HANDOVER_CONTACTS, r.id, { reason: `retention policy ${policy.ref}: contact details are kept ${policy.periods.personalData} after the handover`, at: now, policy: policy.ref });
      if (outcome.erased) erased++;
    }
    return erased;
  }

  /**
   * Erases personal data from a final record (a handover's contact persons, a removed user's name):
   * from its row, its events' data and the kept answers of requests about it; records what went,
   * when and why on it (`what.field`) with a new version and an event; deletes its Temporal
   * histories, which hold the data too (only a final record's workflow has closed). Digests stay:
   * a handover's package digest was computed over the delivery as it was sent (docs/decisions.md).
   */
  async function erase(what: ErasureKind, id: string, erasure: { reason: string; at: string; policy?: string; requestedBy?: Record<string, string>; correlationId?: string }): Promise<ErasureOutcome> {
    const resource = resourceOf(what.kind);
    // Temporal's histories first: a crash after this and before the write below leaves the read
    // model to erase on the request's retry (or the purge's next round).
    const { rows: before } = await db.query<{ status: string; erased: boolean }>(`select status, doc->$2::text is not null as erased from ${resource.table} where id = $1`, [id, what.field]);
    const histories = before[0] && resource.terminalStatuses.includes(before[0].status) && !before[0].erased ? (await entities.deleteHistories(resource.workflowId(id), { waitForCloseMs: 10_000 })).deleted : 0;
    return db.transaction(async (tx) => {
      const { rows } = await tx.query<{ doc: any; status: string; audience: string[]; version: number }>(
        `select t.doc, t.status, ${audienceSql(what.kind)} as audience, t.resource_version as version from ${resource.table} t where t.id = $1 for update`,
        [id],
      );
      const row = rows[0];
      if (!row) return { erased: false as const, reason: 'missing' as const };
      if (!resource.terminalStatuses.includes(row.status)) return { erased: false as const, reason: 'notFinal' as const, status: row.status };
      if (row.doc[what.field]) return { erased: false as const, reason: 'already' as const, doc: row.doc };
      const { doc: stripped, pointers } = what.strip(row.doc);
      const version = row.version + 1;
      const record = { at: erasure.at, reason: erasure.reason, pointers, historiesDeleted: histories, ...(erasure.policy ? { retentionPolicyRef: erasure.policy } : {}), ...(erasure.requestedBy ? { requestedBy: erasure.requestedBy } : {}) };
      const doc = { ...stripped, resourceVersion: version, updatedAt: erasure.at, [what.field]: record };
      await tx.query(`update ${resource.table} set doc = $2, resource_version = $3, updated_at = $4 where id = $1`, [id, JSON.stringify(doc), version, erasure.at]);
      // The events that carried the record carry it without the data.
      const events = await tx.query<{ id: string; cloudevent: any }>('select id, cloudevent from events where resource_id = $1', [id]);
      for (const e of events.rows) {
        const data = e.cloudevent?.data;
        if (!data || typeof data !== 'object') continue;
        const { doc: clean, pointers: found } = what.strip(data);
        if (found.length) await tx.query('update events set cloudevent = jsonb_set(cloudevent, \'{data}\', $2::jsonb) where id = $1', [e.id, JSON.stringify(clean)]);
      }
      // The answers kept for retried requests about it held the data too: a retry reads the record instead.
      await tx.query(`delete from idempotency_keys where response_body::text like $1`, [`%${id}%`]);
      const audience = [...new Set([...row.audience, ...what.extraAudience].filter(Boolean))];
      const owner = row.doc.ownerOrganizationId;
      await insertEvent(tx, what.kind, id, version, what.event, owner, audience, cloudEvent(what.event, `${resource.collection}/${id}`, doc, owner, version, what.kind, erasure.at, erasure.correlationId ?? `${RETENTION_WORKFLOW_ID}:${erasure.at}`));
      return { erased: true as const, doc };
    });
  }
}

export type ErasureOutcome = { erased: true; doc: any } | { erased: false; reason: 'missing' | 'notFinal' | 'already'; status?: string; doc?: any };

export interface ErasureRequest {
  reason: string;
  now: string;
  by?: Record<string, string>;
  correlationId?: string;
}

/** A user document (or event data holding one) without its name, and the pointer of what went. */
export function withoutName(doc: any): { doc: any; pointers: string[] } {
  if (!doc || typeof doc !== 'object' || !('name' in doc)) return { doc, pointers: [] };
  const { name: _name, ...rest } = doc;
  return { doc: rest, pointers: ['/name'] };
}

/** A handover document (or event data holding one) without its contact persons, and the pointers of what went. */
export function withoutContacts(doc: any): { doc: any; pointers: string[] } {
  const pointers: string[] = [];
  const pkg = doc?.package;
  if (!pkg || typeof pkg !== 'object') return { doc, pointers };
  const next = { ...pkg };
  if (Array.isArray(pkg.contacts)) {
    pointers.push('/package/contacts');
    delete next.contacts;
  }
  if (Array.isArray(pkg.stops)) {
    next.stops = pkg.stops.map((stop: any, i: number) => {
      if (!stop || !Array.isArray(stop.contacts)) return stop;
      pointers.push(`/package/stops/${i}/contacts`);
      const { contacts: _c, ...rest } = stop;
      return rest;
    });
  }
  return { doc: pointers.length ? { ...doc, package: next } : doc, pointers };
}
