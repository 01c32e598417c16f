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
  const over = (await countIn(db, buckets, nowMs)).find((e) => e.estimate > e.bucket.limit);
  if (over) throw limited(over);
}

/** 429 RATE_LIMITED for a bucket over its limit, with Retry-After. */
function limited({ bucket, retryAfter }: Estimate): Problem {
  return new Problem('RATE_LIMITED', `limit of ${bucket.limit} per ${bucket.windowSeconds} s reached (${bucket.key.split(':')[0]})`, {}, { 'retry-after': String(retryAfter) });
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

/**
 * The request limits' counter of one process (api/rate-limit.ts; issue 53, "rate-limit counters
 * batched per process"). Far from its limit a bucket is counted here and its counts written to
 * the database in one statement for all buckets every `flushMs`; the statement answers every
 * replica's counts, which the next decisions add this process's new counts to. Once this
 * process's view of a bucket reaches `localShare` of its limit (a fifth by default), each request
 * of it is counted in the database at once (its pending counts with it), as `hit` does: the
 * decisions near a limit are made on the database's counts. One process holds a limit exactly;
 * across R replicas a burst may pass it by what the other replicas counted but had not written
 * yet, at most (R − 1) × localShare × limit (a fifth per other replica), and by nothing once they
 * have written (within `flushMs`). A process that stops loses at most one interval's counts,
 * which can only make a later request pass, never refuse one.
 */
export class RequestCounter {
  /** Counts not yet in the database, by bucket and window start. */
  private pending = new Map<string, { bucket: Bucket; start: number; count: number }>();
  /**
   * Counts being written, by bucket and window start: still this process's own until the write's
   * answer is learned, so that a request arriving meanwhile is decided on them too (without them it
   * saw neither the pending counts, cleared, nor the database's, not yet learned, and a replica
   * could count another fifth of a limit locally during every write).
   */
  private writingCounts = new Map<string, number>();
  /** The database's counts as of the last write or read, by bucket. */
  private known = new Map<string, { start: number; count: number; previous: number }>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly options: { flushMs?: number; localShare?: number } = {},
  ) {}

  /** Counts one request in each bucket; throws 429 RATE_LIMITED when one is over its limit. */
  async hit(buckets: Bucket[], nowMs = Date.now()): Promise<void> {
    const now = nowMs / 1000;
    const share = this.options.localShare ?? 0.2;
    const views = buckets.map((bucket) => this.view(bucket, now));
    if (views.some((v) => v.estimate + 1 > share * v.bucket.limit)) {
      // Near a limit: this request and everything pending counted in the database now, decided on every replica's counts.
      await this.flush();
      const estimates = await countIn(this.db, buckets, nowMs);
      for (const e of estimates) this.learn(e.bucket.key, Math.floor(now / e.bucket.windowSeconds) * e.bucket.windowSeconds, e.count, e.previous);
      const over = estimates.find((e) => e.estimate > e.bucket.limit);
      if (over) throw limited(over);
      return;
    }
    for (const v of views) {
      const key = `${v.bucket.key}@${v.start}`;
      const entry = this.pending.get(key) ?? { bucket: v.bucket, start: v.start, count: 0 };
      entry.count += 1;
      this.pending.set(key, entry);
    }
    this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), this.options.flushMs ?? 200).unref();
  }

  /** This process's estimate of a bucket's sliding window, its pending counts included. */
  private view(bucket: Bucket, now: number) {
    const start = Math.floor(now / bucket.windowSeconds) * bucket.windowSeconds;
    const before = start - bucket.windowSeconds;
    const known = this.known.get(bucket.key);
    let count = known?.start === start ? known.count : 0;
    let previous = known?.start === start ? known.previous : known?.start === before ? known.count : 0;
    count += (this.pending.get(`${bucket.key}@${start}`)?.count ?? 0) + (this.writingCounts.get(`${bucket.key}@${start}`) ?? 0);
    previous += (this.pending.get(`${bucket.key}@${before}`)?.count ?? 0) + (this.writingCounts.get(`${bucket.key}@${before}`) ?? 0);
    return { bucket, start, estimate: count + previous * (1 - (now - start) / bucket.windowSeconds) };
  }

  /** The database's counts of a bucket's window, unless newer ones are known. */
  private learn(bucket: string, start: number, count: number, previous: number): void {
    const known = this.known.get(bucket);
    if (!known || known.start < start || (known.start === start && known.count <= count)) this.known.set(bucket, { start, count, previous });
  }

  /** Writes the pending counts in one statement and learns every replica's; one write at a time. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  private async write(): Promise<void> {
    const batch = [...this.pending.values()];
    if (!batch.length) return;
    this.pending.clear();
    const keyOf = (e: { bucket: Bucket; start: number }) => `${e.bucket.key}@${e.start}`;
    const moveWriting = (sign: 1 | -1) => {
      for (const e of batch) {
        const n = (this.writingCounts.get(keyOf(e)) ?? 0) + sign * e.count;
        if (n) this.writingCounts.set(keyOf(e), n);
        else this.writingCounts.delete(keyOf(e));
      }
    };
    moveWriting(1);
    const values = batch.map((_, i) => `($${3 * i + 1}::text, to_timestamp($${3 * i + 2}::float8), $${3 * i + 3}::int, to_timestamp($${3 * i + 2}::float8) - make_interval(secs => $${3 * batch.length + i + 1}::float8))`).join(', ');
    const params = [...batch.flatMap((e) => [e.bucket.key, e.start, e.count]), ...batch.map((e) => e.bucket.windowSeconds)];
    try {
      const { rows } = await this.db.query<{ bucket: string; start: number; count: number; previous: number }>(
        `with w(bucket, start, n, before) as (values ${values}),
         hit as (
           insert into rate_counters (bucket, window_start, count) select bucket, start, n from w
           on conflict (bucket, window_start) do update set count = rate_counters.count + excluded.count
           returning bucket, window_start, count)
         select hit.bucket, extract(epoch from hit.window_start)::float8 as start, hit.count, coalesce(p.count, 0) as previous
           from hit join w on w.bucket = hit.bucket and w.start = hit.window_start
           left join rate_counters p on p.bucket = w.bucket and p.window_start = w.before`,
        params,
      );
      // Learned and no longer counted as being written, in one step: never both, never neither.
      moveWriting(-1);
      for (const r of rows) this.learn(r.bucket, Number(r.start), Number(r.count), Number(r.previous));
      // Buckets not counted for two windows are forgotten (a token that expired).
      const oldest = Date.now() / 1000 - 2 * Math.max(...batch.map((e) => e.bucket.windowSeconds));
      for (const [key, k] of this.known) if (k.start < oldest) this.known.delete(key);
    } catch (err) {
      // The database did not answer: the counts wait for the next write.
      moveWriting(-1);
      for (const e of batch) {
        const key = `${e.bucket.key}@${e.start}`;
        const entry = this.pending.get(key) ?? { ...e, count: 0 };
        entry.count += e.count;
        this.pending.set(key, entry);
      }
      throw err;
    }
  }
}
