// `npm run bench:topology`: the relationship command path (create -> request -> accept, the flow of
// bench/relationships.ts) on the deployment's topology, two API processes (PCX_ROLE=api) and two
// workers (PCX_ROLE=worker) behind a round-robin balancer, beside one broker process (role all)
// in the same run, both on PostgreSQL (PGlite serves one process only) and one Temporal dev
// server, each system with its own schema and task queue. Levels interleaved, BENCH_REPEATS runs
// each (default 3); the median run is quoted. CPU time per command is summed over every broker
// process. The report goes into docs/benchmarks.md between the bench-topology markers.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { f1, f2, median, percentile, publishReport, treeCpuMs } from './common';
import { commandFlow, organizationPairs, runLevel, tokensOf, type Created, type Run, UNLIMITED } from './load';
import { temporalCli } from '../scripts/start';
import { startBroker, startTemporal, BENCH_ORGANIZATION_COUNT, writeTestRegistry } from '../test/stack';
import { startWorkerProcess } from '../test/worker-process';

const CONCURRENCY = [8, 32];
const FLOWS: Record<number, number> = { 8: 120, 32: 240 };
const REPEATS = Math.max(1, Math.floor(Number(process.env.BENCH_REPEATS ?? 3)) || 3);
const PG_URL = process.env.PCX_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PUBLIC_BASE_URL = 'http://pcx-bench.test'; // one issuer for every replica (docs/decisions.md)
const WATCHDOG_MS = 30 * 60 * 1000;

type Cpu = { temporal: number; brokers: number };

async function main() {
  const log = (msg: string) => process.stderr.write(`[bench:topology] ${msg}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'pcx-topology-'));
  const cleanups: Array<() => Promise<unknown>> = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  setTimeout(() => cleanup().finally(() => process.exit(1)), WATCHDOG_MS).unref();
  try {
    const temporal = await startTemporal();
    cleanups.push(() => temporal.stop());
    const registry = writeTestRegistry(join(dir, 'registry'));
    const admin = new Pool({ connectionString: PG_URL, max: 2 });
    cleanups.push(() => admin.end());
    const envOf = async (name: string) => {
      const schema = `pcx_bench_${name}_${process.pid}`;
      await admin.query(`create schema ${schema}`);
      cleanups.push(() => admin.query(`drop schema if exists ${schema} cascade`));
      return {
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: `pcx-bench-${name}-${process.pid}`,
        DATABASE_URL: `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
        ORGANIZATIONS_FILE: registry.organizationsFile,
        CONNECTORS_FILE: registry.connectorsFile,
        PUBLIC_BASE_URL,
        ...UNLIMITED,
        LOG_LEVEL: 'warn',
      };
    };

    // One process.
    const singleEnv = await envOf('single');
    const single = await startBroker(singleEnv, join(dir, 'single'));
    cleanups.push(() => single.stop());
    // Two APIs and two workers; the APIs share a data folder, hence the development signing key.
    const clusterEnv = await envOf('cluster');
    const workers = await Promise.all([0, 1].map(() => startWorkerProcess({ ...clusterEnv, LOG_LEVEL: 'warn' }, join(dir, 'cluster'))));
    for (const w of workers) cleanups.push(() => w.stop());
    const apis = await Promise.all([0, 1].map(() => startBroker({ ...clusterEnv, PCX_ROLE: 'api' }, join(dir, 'cluster'))));
    for (const a of apis) cleanups.push(() => a.stop());
    log(`single ${single.baseUrl}; cluster ${apis.map((a) => a.baseUrl).join(', ')}`);

    const systems = [
      { name: 'one process', pids: [single.process.pid!], base: () => single.baseUrl, tokens: await tokensOf(single.baseUrl, BENCH_ORGANIZATION_COUNT) },
      {
        name: '2 APIs + 2 workers',
        pids: [...apis, ...workers].map((p) => p.process.pid!),
        base: ((n = 0) => () => apis[n++ % apis.length].baseUrl)(),
        tokens: await tokensOf(apis[0].baseUrl, BENCH_ORGANIZATION_COUNT),
      },
    ].map((s) => ({ ...s, pairs: organizationPairs(BENCH_ORGANIZATION_COUNT), cpu: (): Cpu => ({ temporal: treeCpuMs(temporal.process.pid!), brokers: s.pids.reduce((sum, pid) => sum + treeCpuMs(pid), 0) }) }));

    log('warm-up');
    for (const s of systems) await runLevel(s.name, 8, 24, commandFlow(s.base, s.tokens, s.pairs, []), s.cpu);
    const runs: Run<Cpu>[] = [];
    for (let rep = 1; rep <= REPEATS; rep++) {
      for (const c of CONCURRENCY) {
        for (const s of systems) {
          const created: Created[] = [];
          const run = await runLevel(s.name, c, FLOWS[c], commandFlow(s.base, s.tokens, s.pairs, created), s.cpu);
          runs.push(run);
          log(`run ${rep}/${REPEATS} c=${c} ${s.name}: ${(run.samples.length / run.seconds).toFixed(1)} cmd/s, p50 ${median(run.samples.map((x) => x.ms)).toFixed(1)} ms`);
        }
      }
    }
    const generated = report(runs, systems.map((s) => s.name));
    publishReport('bench:topology', '## The command path across processes', generated, log);
  } finally {
    await cleanup();
  }
}

function report(runs: Run<Cpu>[], systems: string[]): string {
  const version = (() => {
    try {
      return execFileSync(temporalCli(), ['--version'], { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const lines = [
    `- Date: ${new Date().toISOString()}; nproc ${cpus().length}; load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' / ')}`,
    `- ${version}; PostgreSQL at 127.0.0.1:5432 (a schema per system); ${REPEATS} runs per level, systems interleaved; flows per run: ${CONCURRENCY.map((c) => `${FLOWS[c]} at c = ${c}`).join(', ')}`,
    '',
    '```sh',
    'npm run bench:topology',
    '```',
    '',
    '| concurrency | system | cmd/s (median run, min–max) | ratio to one process | p50 ms | p95 ms | CPU-ms per command: Temporal | brokers | total |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const c of CONCURRENCY) {
    const of = (system: string) => runs.filter((r) => r.concurrency === c && r.system === system);
    const rate = (r: Run<Cpu>) => r.samples.length / r.seconds;
    const base = median(of(systems[0]).map(rate));
    for (const system of systems) {
      const rs = of(system);
      const rates = rs.map(rate);
      const ms = rs.flatMap((r) => r.samples.map((s) => s.ms));
      const perCmd = (k: keyof Cpu) => median(rs.map((r) => r.cpu[k] / r.samples.length));
      lines.push(
        `| ${c} | ${system} | ${f1(median(rates))} (${f1(Math.min(...rates))}–${f1(Math.max(...rates))}) | ${Math.round((100 * median(rates)) / base)} % | ${f1(median(ms))} | ${f1(percentile(ms, 95))} | ${f2(perCmd('temporal'))} | ${f2(perCmd('brokers'))} | ${f2(perCmd('temporal') + perCmd('brokers'))} |`,
      );
    }
  }
  return lines.join('\n');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`[bench:topology] failed: ${(err as Error)?.stack ?? err}\n`);
    process.exit(1);
  },
);
