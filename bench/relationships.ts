// `npm run bench`: throughput and latency of the relationship command path (create -> request ->
// accept over HTTP, read models in PGlite as in the embedded set-up), next to references measured
// in the same run on the same machine: a bare Temporal Workflow Update on a no-op workflow (and the
// same with the local activity and search-attribute upsert every entity command makes), the read
// path of the broker, and a plain Hono handler inserting one row into PostgreSQL and into PGlite.
// Also records the CPU time of each process per operation. Prints a markdown report and writes it
// into docs/benchmarks.md between the bench markers (the hand-written analysis outside them is
// kept). BENCH_REPEATS sets the runs per level (default 3). Everything runs on 127.0.0.1 and
// stops by itself.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { exitGuard, f1, f2, machine, median, percentile, publishReport, runBench, treeCpuMs, type Cleanups } from './common';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { Hono } from 'hono';
import { Pool } from 'pg';
import { createProjectionActivities } from '../activities/projection';
import { hit } from '../read-model/rate-counters';
import { createTokenVerifier } from '../core/auth';
import { loadConfig } from '../core/config';
import type { Db, Queryable } from '../core/db';
import { openReadModel } from '../read-model/database';
import { startBroker, startTemporal, BENCH_ORGANIZATION_COUNT, writeTestRegistry, type BrokerHandle } from '../test/stack';
import { commandFlow, organizationPairs, runLevel as runLevelWith, SCOPES, send, tokensOf, type Created, type Flow, type Run as RunOf, UNLIMITED } from './load';
import { benchActivities, entityActivityWorkflow, entityShapedWorkflow, noopUpdate, noopWorkflow } from './noop-workflow';

const CONCURRENCY = [1, 8, 32];
/** Flows per run at each concurrency: enough for a stable p95 and a few seconds per run. */
const FLOWS: Record<number, number> = { 1: 60, 8: 240, 32: 480 };
/** Runs per level; the machine is shared and noisy, so we quote the median run. */
const REPEATS = Math.max(1, Math.floor(Number(process.env.BENCH_REPEATS ?? 3)) || 3);
const WARMUP_FLOWS = 24;
/** Hard stop for the whole script: nothing may hang a CI job or a terminal. */
const WATCHDOG_MINUTES = 30;
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

// ---------------------------------------------------------------------------------------------
// CPU time and the load levels (the load generation itself is bench/load.ts).

/**
 * CPU time per process, from /proc. On a 2-core machine every system here is CPU-bound, and other
 * sessions' processes disturb wall-clock figures far more than the CPU time our processes use, so
 * CPU per operation is the steadier measure of where the time goes.
 */
type Cpu = Record<'temporal' | 'broker' | 'bench', number>;
let cpuRoots: { temporal: number; broker: number } | undefined;

type Run = RunOf<Cpu>;
const runLevel = (system: string, concurrency: number, flows: number, flow: Flow) => runLevelWith(system, concurrency, flows, flow, cpuNow);

function cpuNow(): Cpu {
  const self = process.cpuUsage(); // this process alone (all threads), not its children
  return {
    temporal: cpuRoots ? treeCpuMs(cpuRoots.temporal) : 0,
    broker: cpuRoots ? treeCpuMs(cpuRoots.broker) : 0,
    bench: (self.user + self.system) / 1000,
  };
}

// ---------------------------------------------------------------------------------------------
// The four systems under load. Each flow is three operations, so that flows/s compare directly.

/** Everything of the command path except the Update and idempotency: auth, rate limit, gate 4, JSON. */
function readFlow(base: string, created: Created[]): Flow {
  return async (i, time) => {
    const { id, requester } = created[i % created.length];
    await time('GET one', () => send(base, 'GET', `/partner-relationships/${id}`, requester));
  };
}

/** The Temporal references, shaped like a relationship flow: update-with-start, then two Updates. */
function updateFlow(client: Client, taskQueue: string, workflow: typeof noopWorkflow): Flow {
  const arg = { requestingOrganizationId: 'org-a', acceptingOrganizationId: 'org-b', scopes: SCOPES };
  return async (_i, time) => {
    const workflowId = `bench-noop-${randomUUID()}`;
    const startWorkflowOperation = new WithStartWorkflowOperation(workflow, { workflowId, taskQueue, workflowIdConflictPolicy: 'USE_EXISTING' });
    await time('update-with-start', () => client.workflow.executeUpdateWithStart(noopUpdate, { args: [arg], startWorkflowOperation }));
    const handle = client.workflow.getHandle(workflowId);
    await time('update', () => handle.executeUpdate(noopUpdate, { args: [arg] }));
    await time('update', () => handle.executeUpdate(noopUpdate, { args: [arg] }));
  };
}

/** The plain-HTTP reference: three POSTs, each inserting one row. */
function insertFlow(base: string, path: string): Flow {
  const body = { requestingOrganizationId: 'org-a', acceptingOrganizationId: 'org-b', scopes: SCOPES };
  return async (_i, time) => {
    for (let k = 0; k < 3; k++) await time('insert row', () => send(base, 'POST', path, undefined, body));
  };
}

/** A Hono app like the broker's, minus everything but parsing the body and one INSERT. */
async function startInsertServer(dbs: Record<string, Queryable>, table: string) {
  const app = new Hono();
  for (const [name, db] of Object.entries(dbs)) {
    app.post(`/${name}`, async (c) => {
      const doc = await c.req.json();
      const id = randomUUID();
      await db.query(`insert into ${table} (id, doc) values ($1, $2)`, [id, JSON.stringify(doc)]);
      return c.json({ id, ...doc }, 201);
    });
  }
  let server: ReturnType<typeof serve> | undefined;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
  });
  return { base: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server!.close(() => resolve())) };
}

// ---------------------------------------------------------------------------------------------
// Breakdown: single steps of the command path, one at a time, in this process on a scratch PGlite
// with the product schema. Uncontended, so a lower bound of what each step costs in the broker.

async function stepBreakdown(scratch: Db, broker: BrokerHandle, token: string, snapshot: any): Promise<Array<[string, number[]]>> {
  const config = loadConfig({ PUBLIC_BASE_URL: broker.baseUrl, DATA_DIR: broker.dataDir });
  const verify = createTokenVerifier(config, JSON.parse(readFileSync(join(broker.dataDir, 'dev-auth-key.json'), 'utf8')));
  const { persistTransitions } = createProjectionActivities(scratch, { schemaBase: config.schemaBase, eventSource: `${broker.baseUrl}/events` });
  const out: Array<[string, number[]]> = [];
  const measure = async (name: string, fn: (i: number) => Promise<unknown>) => {
    const xs: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t0 = performance.now();
      await fn(i);
      xs.push(performance.now() - t0);
    }
    out.push([name, xs]);
  };
  await measure('JWT verification (ES256, jose)', () => verify(token));
  await measure('rate-limit upsert (org + token buckets)', () =>
    hit(scratch, [{ key: 'org:bench', limit: 1e9, windowSeconds: 60 }, { key: 'token:bench', limit: 1e9, windowSeconds: 60 }]));
  const id = randomUUID();
  await measure('persistTransitions of one (projection + 1 outbox event, 1 transaction)', (i) =>
    persistTransitions({
      transitions: [{
        kind: 'partner-relationship',
        snapshot: { ...snapshot, id, resourceVersion: i + 1 },
        events: [{ type: 'pcx.partner-relationship.requested.v1', audience: ['org-a', 'org-b'], id: randomUUID(), time: new Date().toISOString() }],
        correlationId: randomUUID(),
        causationId: randomUUID(),
      }],
    }));
  // The statement of load() in api/partner-relationships.ts (gate 4).
  await measure('gate-4 read (select doc by id)', () => scratch.query('select doc from partner_relationships where id = $1', [id]));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Statistics and the report.


const NAMES: Record<string, string> = {
  command: 'command path',
  read: 'read path',
  update: 'bare Update',
  'entity-shaped': 'Update + LA + SA',
  'entity-activity': 'Update + activity + SA',
  'http-pg': 'HTTP + PostgreSQL',
  'http-pglite': 'HTTP + PGlite',
};
const opsPerSecond = (r: Run) => r.samples.length / r.seconds;
const flowsPerSecond = (r: Run) => r.flows / r.seconds;

function report(runs: Run[], breakdown: Array<[string, number[]]>, machineLines: string[]): string {
  const of = (system: string, c: number) => runs.filter((r) => r.system === system && r.concurrency === c);
  const range = (xs: number[]) => `${f1(median(xs))} (${f1(Math.min(...xs))}–${f1(Math.max(...xs))})`;
  const lines = [
    '## Machine',
    '',
    ...machineLines,
    '',
    '## Reproduce',
    '',
    '```sh',
    `npm run bench${process.env.BENCH_REPEATS ? `  # with BENCH_REPEATS=${REPEATS}` : ''}`,
    '```',
    '',
    `Each level ran ${REPEATS} times, the systems interleaved (${Object.values(NAMES).join(', ')}) so that`,
    'background noise spreads over all of them; throughput is the median run (min–max in brackets), latency percentiles pool all runs.',
    'Read path: GET of one relationship (JWT, rate-limit upsert, gate-4 read, JSON; no Update). Update + LA + SA: the bare Update',
    'plus a no-op local activity and a search-attribute upsert per Update, the Temporal-side shape of workflows/entity.ts until',
    'side effects moved to regular activities; Update + activity + SA: the same with a regular activity, its shape since.',
    `Flows per run: ${CONCURRENCY.map((c) => `${FLOWS[c]} at concurrency ${c}`).join(', ')}; each system warmed up with ${WARMUP_FLOWS} flows first.`,
    'A flow is three operations: create, request, accept (command path); update-with-start and two Updates (Temporal references);',
    'three single-row INSERTs behind HTTP (plain handler). Idempotency-Key is sent on every other flow (on all three of its commands).',
    '',
    '## Throughput (operations per second; median run, min–max)',
    '',
    '| concurrency | command path cmd/s | command path flows/s | bare Update upd/s | **ratio** | Update + LA + SA upd/s | ratio | Update + activity + SA upd/s | ratio | read path GET/s | HTTP + PostgreSQL req/s | HTTP + PGlite req/s |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const ratios: string[] = [];
  for (const c of CONCURRENCY) {
    const cmd = of('command', c).map(opsPerSecond);
    const upd = of('update', c).map(opsPerSecond);
    const shaped = of('entity-shaped', c).map(opsPerSecond);
    const activity = of('entity-activity', c).map(opsPerSecond);
    const percent = (x: number) => `${(x * 100).toFixed(0)} %`;
    const ratio = median(cmd) / median(upd);
    ratios.push(`${c}: ${percent(ratio)}`);
    lines.push(
      `| ${c} | ${range(cmd)} | ${range(of('command', c).map(flowsPerSecond))} | ${range(upd)} | **${percent(ratio)}** | ${range(shaped)} | ${percent(median(cmd) / median(shaped))} | ${range(activity)} | ${percent(median(cmd) / median(activity))} | ${range(of('read', c).map(opsPerSecond))} | ${range(of('http-pg', c).map(opsPerSecond))} | ${range(of('http-pglite', c).map(opsPerSecond))} |`,
    );
  }
  lines.push('', `Ratio of command-path throughput to bare-Update throughput (target ≥ 70 %): ${ratios.join('; ')}.`, '');

  lines.push(
    '## CPU time per operation (ms; median over runs)',
    '',
    'CPU time of each process during the runs, divided by operations. 2 cores give 2000 CPU-ms per second at most, so',
    '2000 / total is the throughput ceiling of a system on this machine if nothing else ran. The bench process holds the load',
    'generator, the no-op worker and the plain HTTP handler; PostgreSQL server processes are not counted.',
    '',
    '| system | concurrency | Temporal server | broker | bench process | total | ceiling ops/s |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const system of Object.keys(NAMES)) {
    for (const c of CONCURRENCY) {
      const per = (k: keyof Cpu) => median(of(system, c).map((r) => r.cpu[k] / r.samples.length));
      const total = median(of(system, c).map((r) => (r.cpu.temporal + r.cpu.broker + r.cpu.bench) / r.samples.length));
      lines.push(`| ${NAMES[system]} | ${c} | ${f2(per('temporal'))} | ${f2(per('broker'))} | ${f2(per('bench'))} | ${f2(total)} | ${f1(2000 / total)} |`);
    }
  }
  lines.push('');

  lines.push('## Latency per operation (ms, all runs pooled)', '', '| system | concurrency | operation | p50 | p95 | p99 | n |', '|---|---:|---|---:|---:|---:|---:|');
  for (const system of Object.keys(NAMES)) {
    for (const c of CONCURRENCY) {
      const samples = of(system, c).flatMap((r) => r.samples);
      for (const step of [...new Set(samples.map((s) => s.step))]) {
        const xs = samples.filter((s) => s.step === step).map((s) => s.ms);
        lines.push(`| ${NAMES[system]} | ${c} | ${step} | ${f1(percentile(xs, 50))} | ${f1(percentile(xs, 95))} | ${f1(percentile(xs, 99))} | ${xs.length} |`);
      }
    }
  }

  lines.push('', '## Idempotency-Key: p50 latency with and without (ms)', '', '| concurrency | command | with key | without | difference |', '|---:|---|---:|---:|---:|');
  for (const c of CONCURRENCY) {
    const samples = of('command', c).flatMap((r) => r.samples);
    for (const step of ['create', 'request', 'accept']) {
      const p = (keyed: boolean) => median(samples.filter((s) => s.step === step && s.keyed === keyed).map((s) => s.ms));
      lines.push(`| ${c} | ${step} | ${f1(p(true))} | ${f1(p(false))} | ${f1(p(true) - p(false))} |`);
    }
  }

  lines.push('', '## Single steps, one at a time in the bench process (scratch PGlite with the product schema; ms)', '', '| step | p50 | p95 | mean |', '|---|---:|---:|---:|');
  for (const [name, xs] of breakdown) lines.push(`| ${name} | ${f2(median(xs))} | ${f2(percentile(xs, 95))} | ${f2(xs.reduce((a, b) => a + b, 0) / xs.length)} |`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** Temporal and the broker under test (read models in PGlite), whose process trees the CPU figures follow. */
async function startStack(dir: string, cleanups: Cleanups) {
  const temporal = await startTemporal();
  cleanups.push(() => temporal.stop());
  const registry = writeTestRegistry(join(dir, 'registry'));
  const broker = await startBroker(
    {
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: `pcx-bench-${process.pid}`,
      DATABASE_URL: '', // read models in PGlite, as in the embedded set-up
      ORGANIZATIONS_FILE: registry.organizationsFile,
      CONNECTORS_FILE: registry.connectorsFile,
      ...UNLIMITED,
    },
    join(dir, 'broker-data'),
    join(dir, 'broker.log'),
  );
  cleanups.push(() => broker.stop());
  cpuRoots = { temporal: temporal.process.pid!, broker: broker.process.pid! };
  log(`broker on ${broker.baseUrl}, Temporal on ${temporal.address}`);
  return { temporal, broker };
}

/** The no-op workflow's worker, in this process, on its own task queue of the same server; and a client for it. */
async function startNoopWorker(address: string, cleanups: Cleanups) {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const noopQueue = `bench-noop-${process.pid}`;
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    taskQueue: noopQueue,
    workflowsPath: require.resolve('./noop-workflow'),
    activities: benchActivities,
  });
  const workerRun = worker.run();
  cleanups.push(async () => {
    worker.shutdown();
    await workerRun;
  });
  const connection = await Connection.connect({ address });
  cleanups.push(() => connection.close());
  return { noopQueue, client: new Client({ connection }) };
}

/** The plain-HTTP reference: a throwaway table in the real PostgreSQL and in a scratch PGlite (also the breakdown's). */
async function startInsertReference(dir: string, cleanups: Cleanups) {
  const table = `pcx_bench_rows_${process.pid}`;
  const ddl = `create table ${table} (id uuid primary key, doc jsonb not null, created_at timestamptz not null default now())`;
  const pool = new Pool({ connectionString: PG_URL, max: 20 }); // the broker's pool size (core/db.ts)
  cleanups.push(() => pool.end());
  await pool.query(ddl);
  cleanups.push(() => pool.query(`drop table if exists ${table}`));
  const scratch = await openReadModel({ dataDir: join(dir, 'scratch') }); // PGlite behind the product's mutex
  cleanups.push(() => scratch.close());
  await scratch.query(ddl);
  const inserts = await startInsertServer({ pg: pool, pglite: scratch }, table);
  cleanups.push(() => inserts.close());
  return { inserts, scratch };
}

/**
 * Every system at every level, REPEATS times, the systems interleaved within a level; returns the
 * runs and what the last level's command runs created (the breakdown reads one of them).
 */
async function measureSystems(broker: BrokerHandle, tokens: Map<string, string>, client: Client, noopQueue: string, insertBase: string) {
  const pairs = organizationPairs(BENCH_ORGANIZATION_COUNT);
  // A `let`: the closures below read it when a flow is made, so each level's flows share that level's array.
  let created: Created[] = [];
  const systems: Array<[string, () => Flow]> = [
    ['command', () => commandFlow(() => broker.baseUrl, tokens, pairs, created)],
    ['read', () => readFlow(broker.baseUrl, created)],
    ['update', () => updateFlow(client, noopQueue, noopWorkflow)],
    ['entity-shaped', () => updateFlow(client, noopQueue, entityShapedWorkflow)],
    ['entity-activity', () => updateFlow(client, noopQueue, entityActivityWorkflow)],
    ['http-pg', () => insertFlow(insertBase, '/pg')],
    ['http-pglite', () => insertFlow(insertBase, '/pglite')],
  ];

  log('warm-up');
  for (const [system, flow] of systems) await runLevel(system, 8, WARMUP_FLOWS, flow());

  const runs: Run[] = [];
  for (let rep = 1; rep <= REPEATS; rep++) {
    for (const c of CONCURRENCY) {
      created = []; // the read path reads what this level's command run created
      for (const [system, flow] of systems) {
        const run = await runLevel(system, c, FLOWS[c], flow());
        runs.push(run);
        const cpuPerOp = (run.cpu.temporal + run.cpu.broker + run.cpu.bench) / run.samples.length;
        log(`run ${rep}/${REPEATS} c=${c} ${system}: ${opsPerSecond(run).toFixed(1)} ops/s, p50 ${median(run.samples.map((s) => s.ms)).toFixed(1)} ms, ${cpuPerOp.toFixed(2)} CPU-ms/op ${JSON.stringify(run.cpu)}`);
      }
    }
  }
  return { runs, created };
}

async function main() {
  const machineLines = machine('(`server start-dev`, in-memory SQLite); PostgreSQL at 127.0.0.1:5432 for the HTTP reference only');
  const dir = mkdtempSync(join(tmpdir(), 'pcx-bench-'));
  const guard = exitGuard(dir, log, { minutes: WATCHDOG_MINUTES, kept: 'broker.log' });
  const { cleanups } = guard;
  try {
    log(`temp dir ${dir}`);
    const { temporal, broker } = await startStack(dir, cleanups);
    // One token per organization, fetched up front: token issuance is not part of the command path.
    const tokens = await tokensOf(broker.baseUrl, BENCH_ORGANIZATION_COUNT);
    const { noopQueue, client } = await startNoopWorker(temporal.address, cleanups);
    const { inserts, scratch } = await startInsertReference(dir, cleanups);

    const { runs, created } = await measureSystems(broker, tokens, client, noopQueue, inserts.base);

    log('single-step breakdown');
    const last = created[created.length - 1];
    const snapshot = await send(broker.baseUrl, 'GET', `/partner-relationships/${last.id}`, last.requester);
    const breakdown = await stepBreakdown(scratch, broker, last.requester, snapshot);

    publishReport('bench', '## The relationship command path', report(runs, breakdown, machineLines), log);
    guard.succeed();
  } finally {
    await guard.cleanup();
  }
}

runBench(log, main);
