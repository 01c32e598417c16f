// Read-model queries of ExecutionHandover (standard table shape). A handover is listed to its two
// organizations only: the issuing organization (owner) and the executing one (participants hold both).
import type { Queryable } from '../core/db';
import type { ExecutionHandover } from '../workflows/execution-handover';

export async function listHandovers(db: Queryable, organizationId: string, filter: { statuses?: string[]; commitmentId?: string; after?: string; limit: number }): Promise<ExecutionHandover[]> {
  const { rows } = await db.query<{ doc: ExecutionHandover }>(
    `select doc from execution_handovers
      where participants @> array[$1]::text[]
        and ($2::text[] is null or status = any($2::text[]))
        and ($3::text is null or doc->>'commitmentId' = $3)
        and ($4::uuid is null or id > $4::uuid)
      order by id limit $5`,
    [organizationId, filter.statuses ?? null, filter.commitmentId ?? null, filter.after ?? null, filter.limit + 1],
  );
  return rows.map((r) => r.doc);
}
