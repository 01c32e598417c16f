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

/** One history of the feed (schema.sql, feed_histories): the first, or one a restore started. */
export interface FeedHistory {
  ordinal: number;
  id: string;
  startedAt: string;
  /** The newest position the restored database kept (the restore point); none for the first. */
  floor?: { tx: string; seq: number };
}

/** The feed's histories, oldest first: the last is the current one. */
export async function feedHistories(db: Queryable): Promise<FeedHistory[]> {
  const { rows } = await db.query<{ ordinal: number; id: string; started_at: string | Date; floor_tx: string | null; floor_seq: string | number | null }>(
    'select ordinal, id::text, started_at, floor_tx::text, floor_seq from feed_histories order by ordinal',
  );
  return rows.map((r) => ({
    ordinal: r.ordinal,
    id: r.id,
    startedAt: new Date(r.started_at).toISOString(),
    ...(r.floor_tx !== null ? { floor: { tx: r.floor_tx, seq: Number(r.floor_seq) } } : {}),
  }));
}

/**
 * When the current feed history started: the database's creation, a rebuild's, or the last
 * restore's (`npm run restored`). Idempotency-Keys used before it may be missing from this read model.
 */
export async function currentFeedHistoryStart(db: Queryable): Promise<Date> {
  const { rows } = await db.query<{ started_at: string | Date }>('select started_at from feed_histories order by ordinal desc limit 1');
  return rows[0] ? new Date(rows[0].started_at) : new Date();
}

/**
 * Starts a new history after a restore to an earlier point (the operator's `npm run restored`): its
 * floor is the newest event the restored database holds. Cursors of the earlier history up to the
 * floor stay valid (those events are the same); past it they are refused, never served silently.
 */
export async function startFeedHistory(db: Queryable): Promise<FeedHistory> {
  const { rows } = await db.query<{ tx: string | null; seq: string | null }>('select tx_id::text as tx, seq::text as seq from events order by tx_id desc, seq desc limit 1');
  await db.query(
    `insert into feed_histories (ordinal, id, floor_tx, floor_seq)
     select coalesce(max(ordinal), 0) + 1, gen_random_uuid(), $1::text::xid8, $2::bigint from feed_histories`,
    [rows[0]?.tx ?? '0', rows[0]?.seq ?? '0'],
  );
  const all = await feedHistories(db);
  return all[all.length - 1];
}

