// Read-model queries of the outbox (the `events` table that activities/projection.ts writes).
import type { Queryable } from '../core/db';

export interface FeedRow {
  seq: number;
  tx: string;
  kind: string;
  cloudevent: any;
}

/**
 * The events an organization may read after a cursor (transaction id, sequence), of the given
 * kinds: those whose audience names it (or, for a protocol operator, the operator's entry: feedAudiences). The audience is fixed when the event is emitted (the
 * partners a listing was shared with then, activities/projection.ts): ending a relationship stops
 * future sharing only, and a feed read again from its start is the same feed (docs/decisions.md,
 * "An event's audience is fixed at emission"). Only rows of transactions older than every running
 * one are served, so a cursor never skips a row that commits late.
 */
export async function readFeed(
  db: Queryable,
  audiences: string[],
  kinds: string[],
  after: { tx: string; seq: number },
  limit: number,
): Promise<FeedRow[]> {
  const { rows } = await db.query<FeedRow>(
    `select seq, tx_id::text as tx, resource_kind as kind, cloudevent from events e
      where audience && $1::text[]
        and e.resource_kind = any($5::text[])
        and (tx_id, seq) > ($2::text::xid8, $3::bigint)
        and tx_id < pg_snapshot_xmin(pg_current_snapshot())
      order by tx_id, seq limit $4`,
    [audiences, after.tx, after.seq, limit, kinds],
  );
  return rows;
}
