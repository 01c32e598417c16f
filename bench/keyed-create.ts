// `npm run bench:keyed-create`: what an Idempotency-Key costs a create whose id is drawn at random
// (issue 34 part 2; api/idempotency.ts): besides the key's claim in the read model, a key's first
// use reads the key and asks Temporal's visibility for a workflow that recorded it
// (`PcxCreateKey`), so that a retry whose record a restore took away is not made twice. That is
// done only while the read model is younger than the keys' TTL (a day), which a bench's fresh
// database always is: this measures that window, the worst case; after it, nothing. Offers are
// created on one broker (PGlite, as `npm start`) with and without a key, interleaved one by one so
// that the machine's noise falls on both, at concurrency 1 and 8, BENCH_KEYED_CREATES of each
// (default 200). The reference is the same create without a key. Medians and p95; prints a
// markdown section for docs/benchmarks.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, startTemporal, writeTestRegistry } from '../test/stack';
import { offer } from '../test/market-bodies';
import { f1, median, percentile, runBench } from './common';
import { send, tokensOf, UNLIMITED } from './load';

const CREATES = Math.max(10, Number(process.env.BENCH_KEYED_CREATES ?? 200));
const LEVELS = [1, 8];
const ORGANIZATIONS = 8;
const log = (s: string) => process.stderr.write(`[bench:keyed-create] ${s}\n`);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-keyed-'));
  const temporal = await startTemporal();
  const registry = writeTestRegistry(join(dir, 'registry'));
  const broker = await startBroker({ TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: `pcx-bench-keyed-${process.pid}`, DATABASE_URL: '', ORGANIZATIONS_FILE: registry.organizationsFile, CONNECTORS_FILE: registry.connectorsFile, ...UNLIMITED, LOG_LEVEL: 'warn' }, join(dir, 'data'));
  const rows: string[] = [];
  try {
    const tokens = [...(await tokensOf(broker.baseUrl, ORGANIZATIONS)).values()];
    const create = async (i: number, keyed: boolean) => {
      const started = performance.now();
      await send(broker.baseUrl, 'POST', '/capacity-offers', tokens[i % tokens.length], offer(), keyed ? { 'idempotency-key': `bench-${randomUUID()}` } : {});
      return performance.now() - started;
    };
    // Warm-up: the first creates pay for connections, caches and the workflow bundle's first tasks.
    for (let i = 0; i < 20; i++) await create(i, i % 2 === 0);
    for (const concurrency of LEVELS) {
      const ms = { keyed: [] as number[], plain: [] as number[] };
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let i = next++; i < 2 * CREATES; i = next++) {
            const keyed = i % 2 === 0;
            (keyed ? ms.keyed : ms.plain).push(await create(i, keyed));
          }
        }),
      );
      const [k, p] = [median(ms.keyed), median(ms.plain)];
      log(`concurrency ${concurrency}: with key ${f1(k)} ms, without ${f1(p)} ms (medians)`);
      rows.push(`| ${concurrency} | ${f1(k)} | ${f1(percentile(ms.keyed, 95))} | ${f1(p)} | ${f1(percentile(ms.plain, 95))} | ${f1(k - p)} | ${(k / p).toFixed(2)} |`);
    }
  } finally {
    await broker.stop().catch(() => undefined);
    await temporal.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      '## A create with an Idempotency-Key (`npm run bench:keyed-create`)',
      '',
      `Capacity offers created on one broker (PGlite, an in-memory Temporal dev server), ${CREATES} with a fresh Idempotency-Key and ${CREATES} without (the reference), interleaved, at each concurrency; latency per create in ms. A key's first use claims it in the read model, reads it once more, and asks Temporal's visibility whether a workflow recorded it (\`PcxCreateKey\`, docs/decisions.md "Idempotency-Keys across a restore"): while the read model is younger than the keys' TTL (a day), as this fresh one is; the ratio is that window's cost, after it a key costs what it did before.`,
      '',
      '| concurrency | with key p50 | p95 | without p50 | p95 | difference p50 | ratio p50 |',
      '|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
    ].join('\n'),
  );
}

runBench(log, main, 20);
