// The request limits counted in batches per process (read-model/rate-counters.ts RequestCounter),
// on both engines: far from a limit nothing is written per request, the counts go in one statement;
// one process holds a limit exactly; two processes (replicas) sharing a database pass it in a burst
// by at most a fifth; a refusal carries Retry-After.
import type { Db } from '../../core/db';
import { openReadModel } from '../../read-model/database';
import { RequestCounter, type Bucket } from '../../read-model/rate-counters';
import { ENGINES, scratchDatabase } from './scratch-database';

const NOW = Date.parse('2026-12-07T10:00:10Z'); // 10 s into a minute's window

describe.each(ENGINES)('request limits on %s', (engine) => {
  let db: Db;
  let drop: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    ({ db, drop } = await scratchDatabase(engine, 'request-counter', openReadModel));
  }, 60000);
  afterAll(() => drop());

  const bucket = (key: string, limit: number): Bucket => ({ key: `${engine}:${key}`, limit, windowSeconds: 60 });
  const stored = async (b: Bucket) => Number((await db.query<{ n: number }>('select coalesce(sum(count), 0) as n from rate_counters where bucket = $1', [b.key])).rows[0].n);
  const outcome = (p: Promise<void>) => p.then(() => 'ok', (err) => `${err.status} ${err.code}`);

  test('far from the limit nothing is written per request; the counts go in one statement', async () => {
    const b = bucket('far', 1000);
    const counter = new RequestCounter(db, { flushMs: 60_000 });
    for (let i = 0; i < 50; i++) await counter.hit([b], NOW);
    expect(await stored(b)).toBe(0);
    await counter.flush();
    expect(await stored(b)).toBe(50);
  });

  test('one process holds a limit exactly, and refuses with Retry-After', async () => {
    const b = bucket('exact', 40);
    const counter = new RequestCounter(db, { flushMs: 60_000 });
    const outcomes: string[] = [];
    for (let i = 0; i < 45; i++) outcomes.push(await outcome(counter.hit([b], NOW)));
    expect(outcomes.slice(0, 40).every((o) => o === 'ok')).toBe(true);
    expect(outcomes.slice(40)).toEqual(Array(5).fill('429 RATE_LIMITED'));
    const refusal = await counter.hit([b], NOW).catch((err) => err);
    expect(Number(refusal.headers['retry-after'])).toBe(50);
    // Every request counted, the refused ones too.
    await counter.flush();
    expect(await stored(b)).toBe(46);
  });

  test('a replica counts what it is writing: requests arriving during the write are not a second fifth counted locally', async () => {
    const b = bucket('writing', 100);
    // Other replicas have counted 90 already.
    const others = new RequestCounter(db, { flushMs: 60_000 });
    for (let i = 0; i < 90; i++) await others.hit([b], NOW).catch(() => undefined);
    await others.flush();
    const replica = new RequestCounter(db, { flushMs: 60_000 });
    // A fifth counted locally (the stated tolerance), then one near the limit, which writes them...
    const first = await Promise.all(Array.from({ length: 20 }, () => outcome(replica.hit([b], NOW))));
    const writing = outcome(replica.hit([b], NOW));
    for (let i = 0; i < 3; i++) await Promise.resolve(); // the write has begun: its counts left `pending`
    // ... and twenty more arrive while it is in flight: decided on every replica's counts, refused.
    const during = await Promise.all(Array.from({ length: 20 }, () => outcome(replica.hit([b], NOW))));
    expect(first.every((o) => o === 'ok')).toBe(true);
    expect(await writing).toBe('429 RATE_LIMITED');
    expect(during.filter((o) => o === 'ok')).toEqual([]);
  });

  test('two replicas in a burst pass a limit by at most a fifth of it', async () => {
    const b = bucket('replicas', 100);
    const [one, two] = [new RequestCounter(db, { flushMs: 60_000 }), new RequestCounter(db, { flushMs: 60_000 })];
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => outcome((i % 2 ? one : two).hit([b], NOW))));
    const allowed = outcomes.filter((o) => o === 'ok').length;
    expect(outcomes.filter((o) => o !== 'ok').every((o) => o === '429 RATE_LIMITED')).toBe(true);
    expect(allowed).toBeGreaterThanOrEqual(100);
    expect(allowed).toBeLessThanOrEqual(120);
  });

  test('the previous window still counts, weighted by what the sliding window covers of it', async () => {
    const b = bucket('sliding', 40);
    const counter = new RequestCounter(db, { flushMs: 60_000 });
    for (let i = 0; i < 40; i++) await counter.hit([b], NOW);
    // 30 s into the next window: half of the previous 40 still counts, so 20 more pass.
    const later = NOW + 80_000;
    const outcomes: string[] = [];
    for (let i = 0; i < 22; i++) outcomes.push(await outcome(counter.hit([b], later)));
    expect(outcomes.filter((o) => o === 'ok').length).toBe(20);
  });
});
