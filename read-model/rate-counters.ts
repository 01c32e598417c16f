// Rate limits counted in the database, so they hold across API replicas. Each bucket is one row per
// fixed window; the limit applies to a sliding window estimated from the current and the previous
// window (the previous count weighted by how much of it the sliding window still covers), so a
// burst that straddles a window boundary is limited like any other. One statement counts all
// buckets of a request.
import type { Db } from '../core/db';
import { Problem } from '../domain/problems';

export interface Bucket {
  key: string;
  limit: number;
  windowSeconds: number;
}

export async function hit(db: Db, buckets: Bucket[], nowMs = Date.now()): Promise<void> {
  for (const { bucket, estimate, retryAfter } of await countIn(db, buckets, nowMs)) {
    if (estimate > bucket.limit) {
      throw new Problem('RATE_LIMITED', `limit of ${bucket.limit} per ${bucket.windowSeconds} s reached (${bucket.key.split(':')[0]})`, {}, { 'retry-after': String(retryAfter) });
    }
  }
}

export interface Estimate {
  bucket: Bucket;
  /** This window's count and the previous window's. */
  count: number;
  previous: number;
  /** The fraction of this window gone by. */
  elapsed: number;
  /** The sliding window's count: this window's, plus the previous one's weighted by how much of it the window still covers. */
  estimate: number;
  /** Seconds until this window ends. */
  retryAfter: number;
}

/** Counts one event in each bucket; answers each bucket's estimate after it. */
export async function countIn(db: Db, buckets: Bucket[], nowMs = Date.now()): Promise<Estimate[]> {
  const now = nowMs / 1000;
  const starts = buckets.map((b) => Math.floor(now / b.windowSeconds) * b.windowSeconds);
  const values = buckets.map((_, i) => `($${3 * i + 1}, to_timestamp($${3 * i + 2}), 1)`).join(', ');
  const previous = buckets.map((_, i) => `($${3 * i + 1}, to_timestamp($${3 * i + 3}))`).join(', ');
  const params = buckets.flatMap((b, i) => [b.key, starts[i], starts[i] - b.windowSeconds]);
  const { rows } = await db.query<{ bucket: string; count: number; previous: number }>(
    `with hit as (
       insert into rate_counters (bucket, window_start, count) values ${values}
       on conflict (bucket, window_start) do update set count = rate_counters.count + 1
       returning bucket, count)
     select hit.bucket, hit.count, coalesce(p.count, 0) as previous
       from hit join (values ${previous}) as w(bucket, start) on w.bucket = hit.bucket
       left join rate_counters p on p.bucket = w.bucket and p.window_start = w.start`,
    params,
  );
  return estimatesOf(buckets, starts, now, rows);
}

/** Each bucket's estimate now, without counting (a throttle that asks before it decides to count). */
export async function peek(db: Db, buckets: Bucket[], nowMs = Date.now()): Promise<Estimate[]> {
  const now = nowMs / 1000;
  const starts = buckets.map((b) => Math.floor(now / b.windowSeconds) * b.windowSeconds);
  const windows = buckets.map((_, i) => `($${3 * i + 1}, to_timestamp($${3 * i + 2}), to_timestamp($${3 * i + 3}))`).join(', ');
  const params = buckets.flatMap((b, i) => [b.key, starts[i], starts[i] - b.windowSeconds]);
  const { rows } = await db.query<{ bucket: string; count: number; previous: number }>(
    `select w.bucket, coalesce(c.count, 0) as count, coalesce(p.count, 0) as previous
       from (values ${windows}) as w(bucket, start, before)
       left join rate_counters c on c.bucket = w.bucket and c.window_start = w.start
       left join rate_counters p on p.bucket = w.bucket and p.window_start = w.before`,
    params,
  );
  return estimatesOf(buckets, starts, now, rows);
}

function estimatesOf(buckets: Bucket[], starts: number[], now: number, rows: Array<{ bucket: string; count: number; previous: number }>): Estimate[] {
  return rows.map((row) => {
    const i = buckets.findIndex((b) => b.key === row.bucket);
    const bucket = buckets[i];
    const elapsed = (now - starts[i]) / bucket.windowSeconds;
    const count = Number(row.count);
    const previous = Number(row.previous);
    return { bucket, count, previous, elapsed, estimate: count + previous * (1 - elapsed), retryAfter: Math.max(1, Math.ceil(starts[i] + bucket.windowSeconds - now)) };
  });
}

export async function purgeOldRateCounters(db: Db) {
  await db.query(`delete from rate_counters where window_start < now() - interval '2 hours'`);
}
