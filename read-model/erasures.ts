// Personal data erasure (docs/retention.md; docs/decisions.md "Retention and erasure"): a
// handover's contact persons and a removed user's name, taken from a final record, from its
// events' data and from the answers kept for retried requests about it, with a new version and an
// event saying what went, when and why. Digests stay: a handover's package digest was computed over
// the delivery as it was sent. The retention purge erases what is due (activities/retention.ts);
// an erasure request does it at once (api/erasures.ts).
import type { Db, Queryable } from '../core/db';
import type { Entities } from '../core/entities';
import type { PersonalData } from '../core/personal-data';
import { OPERATOR_AUDIENCE } from '../domain/machine';
import { resourceOf } from '../domain/registry';
import { RETENTION_WORKFLOW_ID } from '../domain/retention';
import type { ProjectionSettings } from './projection';
import { heldSql, insertRetentionEvent, policyRefSql } from './retention';

export const CONTACTS_ERASED_EVENT = 'pcx.execution-handover.contacts-erased.v1';
export const USER_NAME_ERASED_EVENT = 'pcx.user.name-erased.v1';

/**
 * What one kind of erasure takes away: from which records (their kind; only final ones), what
 * (`strip`, also applied to the data of their events), under which field the record says so, and
 * the event that tells its readers.
 */
export interface ErasureKind {
  kind: 'execution-handover' | 'user';
  field: 'contactsErased' | 'nameErased';
  event: string;
  strip: (doc: any) => { doc: any; pointers: string[] };
  /** Besides the record's own organizations (a user's events go to the operator too). */
  extraAudience: string[];
}

export const HANDOVER_CONTACTS: ErasureKind = { kind: 'execution-handover', field: 'contactsErased', event: CONTACTS_ERASED_EVENT, strip: (doc) => withoutContacts(doc), extraAudience: [] };
export const USER_NAME: ErasureKind = { kind: 'user', field: 'nameErased', event: USER_NAME_ERASED_EVENT, strip: (doc) => withoutName(doc), extraAudience: [OPERATOR_AUDIENCE] };

export type ErasureOutcome = { erased: true; doc: any } | { erased: false; reason: 'missing' | 'notFinal' | 'already'; status?: string; doc?: any };

/** Why and when, as the record will say it: a request's reason and requester, or the policy that made it due. */
export interface Erasure {
  reason: string;
  at: string;
  policy?: string;
  requestedBy?: Record<string, string>;
  correlationId?: string;
}

/** Deletes a workflow's Temporal histories (core/entities.ts deleteHistories), waiting a while for a closing one. */
export type DeleteHistories = (workflowId: string) => Promise<{ deleted: number }>;

/**
 * What an erasure destroys outside the read model: the record's Temporal histories, and the key
 * its personal data was sealed under (core/personal-data.ts), which makes every copy left
 * elsewhere (old row versions, logs, freed pages, backups) unreadable.
 */
export interface Forgetting {
  deleteHistories: DeleteHistories;
  destroyKey: (kind: string, id: string) => boolean;
}

/** Deleting histories through Temporal, waiting up to 10 s for a final record's workflow to close; and the record's key. */
export const forgetting = (entities: Entities, personalData: PersonalData | undefined): Forgetting => ({
  deleteHistories: (workflowId) => entities.deleteHistories(workflowId, { waitForCloseMs: 10_000 }),
  destroyKey: (kind, id) => personalData?.shred(kind, id) ?? false,
});

/**
 * Erases `what` from the final record `id`: its row, its events' data, the kept answers about it;
 * records what went on it (`what.field`) with a new version and an event; deletes its Temporal
 * histories first, which hold the data too (only a final record's workflow has closed), so that a
 * crash between the two leaves the read model to erase on the request's retry or the purge's next round.
 */
export async function erase(db: Db, settings: ProjectionSettings, forget: Forgetting, what: ErasureKind, id: string, erasure: Erasure): Promise<ErasureOutcome> {
  const resource = resourceOf(what.kind);
  const { rows: before } = await db.query<{ status: string; erased: boolean }>(`select status, doc->$2::text is not null as erased from ${resource.table} where id = $1`, [id, what.field]);
  const final = before[0] && resource.terminalStatuses.includes(before[0].status);
  // The key first, as the histories: what a crash leaves in the row is then unreadable already,
  // and the request's retry (or the purge's next round) strips it. Again on an erased record: a
  // crash may have come between its stripping and its key.
  if (final) forget.destroyKey(what.kind, id);
  const histories = final && !before[0].erased ? (await forget.deleteHistories(resource.workflowId(id))).deleted : 0;
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ doc: any; status: string; audience: string[]; version: number }>(
      `select t.doc, t.status, array[t.owner_organization_id] || t.participants as audience, t.resource_version as version from ${resource.table} t where t.id = $1 for update`,
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
    await stripEvents(tx, what, id);
    // The answers kept for retried requests about it held the data too: a retry reads the record instead.
    await tx.query(`delete from idempotency_keys where response_body::text like $1`, [`%${id}%`]);
    const audience = [...new Set([...row.audience, ...what.extraAudience].filter(Boolean))];
    const owner = row.doc.ownerOrganizationId;
    await insertRetentionEvent(tx, settings, {
      kind: what.kind, id, version, type: what.event, subject: `${resource.collection}/${id}`, owner, audience,
      data: doc, dataschema: what.kind, time: erasure.at, correlationId: erasure.correlationId ?? `${RETENTION_WORKFLOW_ID}:${erasure.at}`,
    });
    return { erased: true as const, doc };
  });
}

/** The events that carried the record carry it without the data. */
async function stripEvents(tx: Queryable, what: ErasureKind, id: string): Promise<void> {
  const events = await tx.query<{ id: string; cloudevent: any }>('select id, cloudevent from events where resource_id = $1', [id]);
  for (const e of events.rows) {
    const data = e.cloudevent?.data;
    if (!data || typeof data !== 'object') continue;
    const { doc: clean, pointers: found } = what.strip(data);
    if (found.length) await tx.query('update events set cloudevent = jsonb_set(cloudevent, \'{data}\', $2::jsonb) where id = $1', [e.id, JSON.stringify(clean)]);
  }
}

/** Handovers final before `oldest` whose contacts are still there and whose relationship is not held, with the policy each follows. */
export async function handoversWithContacts(db: Queryable, oldest: string, limit: number) {
  const { rows } = await db.query<{ id: string; final_at: Date; policy_ref: string | null }>(
    `select t.id, t.updated_at as final_at, ${policyRefSql('execution-handover')} as policy_ref from ${resourceOf('execution-handover').table} t
     where t.status = any($1) and t.updated_at <= $2 and t.doc->'contactsErased' is null and t.doc::text like '%"contacts"%' and not ${heldSql('execution-handover')} order by t.updated_at limit $3`,
    [resourceOf('execution-handover').terminalStatuses, oldest, limit],
  );
  return rows;
}

/** Users removed before `oldest` whose names are still there. */
export async function removedUsersWithNames(db: Queryable, oldest: string, limit: number) {
  const { rows } = await db.query<{ id: string; final_at: Date }>(
    `select t.id, t.updated_at as final_at from ${resourceOf('user').table} t where t.status = any($1) and t.updated_at <= $2 and t.doc->'nameErased' is null and t.doc ? 'name' order by t.updated_at limit $3`,
    [resourceOf('user').terminalStatuses, oldest, limit],
  );
  return rows;
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
