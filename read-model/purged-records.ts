// The tombstones of records the retention purge removed (read-model/retention.ts writes them;
// api/retention.ts and api/gates.ts read them).
import type { Queryable } from '../core/db';

/** The tombstone of a purged record: what readers of `/purged-records` get, and the purge event's data. */
export interface PurgedRecord {
  id: string;
  resourceKind: string;
  /** The path the record was read at. */
  subject: string;
  ownerOrganizationId: string;
  finalStatus: string;
  finalAt: string;
  retentionPolicyRef: string;
  period: string;
  dueAt: string;
  purgedAt: string;
  /** What went with it. */
  removed: { events: number; milestones: number; outcomes: number; histories: number };
}

/** The tombstone of `id` if the principal could read the record (or is an operator), else undefined. */
export async function purgedRecordFor(db: Queryable, id: string, principal: { organizationId: string; operator: boolean }): Promise<PurgedRecord | undefined> {
  const { rows } = await db.query<{ doc: PurgedRecord }>('select doc from purged_records where id = $1 and ($2::boolean or $3 = any(audience))', [id, principal.operator, principal.organizationId]);
  return rows[0]?.doc;
}

/** Whether `id` was purged (for a create whose id is derived: a purged record is never made again). */
export async function wasPurged(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query('select 1 from purged_records where id = $1', [id]);
  return rows.length > 0;
}

/**
 * A page of the tombstones the principal could read (an operator: all), newest purge first, of one
 * kind if given, after the tombstone `after` (the last of the previous page); one more than
 * `limit` tells there is a next page.
 */
export async function purgedRecordPage(db: Queryable, principal: { organizationId: string; operator: boolean }, page: { kind?: string; after?: string; limit: number }): Promise<Array<{ doc: PurgedRecord; id: string }>> {
  const { rows } = await db.query<{ doc: PurgedRecord; id: string }>(
    `select doc, id from purged_records
     where ($1::boolean or $2 = any(audience)) and ($3::text is null or resource_kind = $3)
       and ($4::uuid is null or (purged_at, id) < ((select p.purged_at from purged_records p where p.id = $4::uuid), $4::uuid))
     order by purged_at desc, id desc limit $5`,
    [principal.operator, principal.organizationId, page.kind ?? null, page.after ?? null, page.limit + 1],
  );
  return rows;
}
