// The audit of the purge rounds operators asked for at once (schema.sql `retention_runs`;
// POST and GET /retention-runs, api/retention.ts).
import type { Queryable } from '../core/db';

export interface RetentionRun {
  id: string;
  requestedAt: string;
  requestedBy: { organizationId: string; clientId?: string; userId?: string };
  reason: string;
  correlationId?: string;
}

export async function recordRetentionRun(db: Queryable, run: RetentionRun): Promise<void> {
  await db.query('insert into retention_runs (id, requested_at, doc) values ($1, $2, $3)', [run.id, run.requestedAt, JSON.stringify(run)]);
}

/** The runs asked for, newest first, after the run `after` (an id of the previous page), one more than `limit`. */
export async function retentionRunPage(db: Queryable, after: string | undefined, limit: number): Promise<RetentionRun[]> {
  const { rows } = await db.query<{ doc: RetentionRun }>(
    `select doc from retention_runs
      where $1::uuid is null or (requested_at, id) < (select requested_at, id from retention_runs where id = $1::uuid)
      order by requested_at desc, id desc limit $2`,
    [after ?? null, limit + 1],
  );
  return rows.map((r) => r.doc);
}
