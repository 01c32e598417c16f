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

/**
 * Refuses a database whose transaction counter lies behind its outbox. The feed orders events by
 * the transaction that wrote them (readFeed): a database restored from a logical dump (pg_dump)
 * keeps the events' transaction ids but starts its counter afresh, so every new event would sort
 * before those connectors have read and no feed would ever show it, silently. A physical copy
 * (pg_basebackup, the stopped data folder of PGlite) keeps the counter (docs/deployment.md, "Backup and restore").
 */
export async function assertFeedCanGrow(db: Queryable): Promise<void> {
  const { rows } = await db.query<{ newest: string | null; next: string }>(
    'select (select max(tx_id) from events)::text as newest, pg_snapshot_xmax(pg_current_snapshot())::text as next',
  );
  const { newest, next } = rows[0];
  if (newest !== null && BigInt(newest) >= BigInt(next)) {
    throw new Error(
      `the database's transaction counter (${next}) is behind its outbox (the newest event was written by transaction ${newest}): ` +
        'it was restored from a logical dump, and the event feed would hide every new event from connectors. Restore a physical ' +
        'backup instead (pg_basebackup, or a copy of the stopped data folder), or move the counter past the outbox with ' +
        "`pg_resetwal -x` on the stopped server (docs/deployment.md, 'Backup and restore')",
    );
  }
}

