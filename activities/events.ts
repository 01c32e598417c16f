// Read-model queries of the outbox (the `events` table that activities/projection.ts writes).
import type { Queryable } from '../core/db';
import { betweenSql, inForceSql, nowParam } from '../core/sharing';

export interface FeedRow {
  seq: number;
  tx: string;
  kind: string;
  cloudevent: any;
}

/**
 * The events an organization may read after a cursor (transaction id, sequence), of the given
 * kinds: those whose audience names it; an event shared with partners only while their
 * relationship still grants the event's share scope. Only rows of transactions older than every
 * running one are served, so a cursor never skips a row that commits late.
 */
export async function readFeed(
  db: Queryable,
  organizationId: string,
  kinds: string[],
  after: { tx: string; seq: number },
  limit: number,
): Promise<FeedRow[]> {
  const { rows } = await db.query<FeedRow>(
    `select seq, tx_id::text as tx, resource_kind as kind, cloudevent from events e
      where audience @> array[$1]::text[]
        and e.resource_kind = any($5::text[])
        and (e.share_scope is null or e.owner_organization_id = $1 or exists (
              select 1 from partner_relationships r
               where ${inForceSql('r', '$6')} and ${betweenSql('r', 'e.owner_organization_id', '$1')} and r.doc->'scopes' ? e.share_scope))
        and (tx_id, seq) > ($2::text::xid8, $3::bigint)
        and tx_id < pg_snapshot_xmin(pg_current_snapshot())
      order by tx_id, seq limit $4`,
    [organizationId, after.tx, after.seq, limit, kinds, nowParam()],
  );
  return rows;
}
