// The tombstones of records the retention purge removed (activities/retention.ts writes them;
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
