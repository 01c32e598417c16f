// `npm run bench:rate-limit`: what counting a request's rate limits costs (issue 53, "rate-limit
// counters batched per process"): `hit` writes both buckets of every request in one statement
// (the path before), RequestCounter counts far from a limit in the process and writes every
// bucket's counts in one statement per 200 ms (read-model/rate-counters.ts). Both on a scratch
// PGlite (as `npm start`) and on the PostgreSQL at 127.0.0.1:5432, interleaved in blocks of 100
// requests so that the machine's noise falls on both; BENCH_RATE_REQUESTS of each (default 4000),
// spread over 20 tokens of 4 organizations. Per-request medians and p95 in µs; prints a markdown
// section for docs/benchmarks.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Db } from '../core/db';
import { openReadModel } from '../read-model/database';
import { hit, RequestCounter, type Bucket } from '../read-model/rate-counters';
import { f1, median, percentile, runBench } from './common';

const REQUESTS = Math.max(200, Number(process.env.BENCH_RATE_REQUESTS ?? 4000));
const PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';
const log = (s: string) => process.stderr.write(`[bench:rate-limit] ${s}\n`);

const bucketsOf = (i: number): Bucket[] => [
  { key: `org:bench-${i % 4}`, limit: 1_000_000, windowSeconds: 60 },
  { key: `token:bench-${i % 20}`, limit: 1_000_000, windowSeconds: 60 },
];

async function measure(db: Db): Promise<Record<'perRequest' | 'batched', number[]>> {
  const counter = new RequestCounter(db);
  const times = { perRequest: [] as number[], batched: [] as number[] };
  const timed = async (fn: () => Promise<void>) => {
    const t0 = performance.now();
    await fn();
    return (performance.now() - t0) * 1000;
  };
  for (let i = 0; i < 200; i++) await (i % 2 ? hit(db, bucketsOf(i)) : counter.hit(bucketsOf(i))); // warm-up
  // Blocks of 100 requests, the two ways taking turns.
  for (let block = 0; block < (2 * REQUESTS) / 100; block++) {
    for (let i = 0; i < 100; i++) {
      const n = block * 100 + i;
      if (block % 2) times.perRequest.push(await timed(() => hit(db, bucketsOf(n))));
      else times.batched.push(await timed(() => counter.hit(bucketsOf(n))));
    }
  }
  await counter.flush();
  return times;
}

async function main() {
  const rows: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-rate-'));
  const schema = `pcx_bench_rate_${process.pid}`;
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  try {
    for (const engine of ['PGlite', 'PostgreSQL'] as const) {
      const db = engine === 'PGlite' ? await openReadModel({ dataDir: join(dir, 'pglite') }) : await openReadModel({ databaseUrl: `${PG_ADMIN_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`, dataDir: '' });
      try {
        log(`${engine}: ${REQUESTS} requests each way`);
        const t = await measure(db);
        const ratio = median(t.perRequest) / median(t.batched);
        rows.push(`| ${engine} | ${f1(median(t.perRequest))} | ${f1(percentile(t.perRequest, 95))} | ${f1(median(t.batched))} | ${f1(percentile(t.batched, 95))} | ${f1(ratio)}× |`);
      } finally {
        await db.close();
      }
    }
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      '| engine | per request: p50 µs | p95 µs | batched: p50 µs | p95 µs | p50 ratio |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
      `${REQUESTS} requests each way, two buckets each (organization, token), interleaved in blocks of 100; far from the limits.`,
    ].join('\n') + '\n',
  );
}

runBench(log, main);
