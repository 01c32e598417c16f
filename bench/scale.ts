// `npm run bench:scale`: one machine holding N open offers and requests as live entity workflows
// (N = BENCH_SCALE_N, default 100,000), on the embedded set-up (`npm start`'s: one broker process,
// role all, PGlite, a Temporal dev server).
//
// Seeding: through Temporal, not the API (200,000 commands through the API would take hours here):
// one offer and one request are created and published through the API; their published snapshots
// become the state that N workflows of the same types start with (as a continued-as-new run
// does), with fresh ids, served by the broker's own worker, which upserts their search attributes.
// Their read-model rows are not written, so they are invisible to the API; what is measured is
// the cost of holding them:
//   1. the broker's resident memory (process tree; role all, so API and PGlite included, an upper
//      bound of the worker's) and Temporal's, before and after;
//   2. a command's latency beside an empty system and beside N: relationship commands (create,
//      request, accept) at concurrency 1, and `request` on a relationship drafted before the
//      seeding, whose workflow is no longer in the worker's cache (it replays its history);
//   3. the broker's restart with N open workflows: time to ready and to the first answered command.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { loadConfig } from '../core/config';
import { capacityOffer } from '../domain/capacity-offer';
import { loadRequest } from '../domain/load-request';
import type { Resource } from '../domain/resource';
import { f1, median, percentile, publishReport, runBench, treeRssMiB } from './common';
import { offer, request } from '../test/market-bodies';
import { commandFlow, organizationPairs, runLevel, send, SCOPES, tokensOf, type Run, UNLIMITED } from './load';
import { ROOT, startBroker, startTemporal, BENCH_ORGANIZATION_COUNT, writeTestRegistry, type BrokerHandle } from '../test/stack';

const N = Math.max(2, Number(process.env.BENCH_SCALE_N ?? 100000));
const SEED_CONCURRENCY = 48;
/** Seeding stops here if N is not reached (BENCH_SCALE_SEED_SECONDS); the report says how many were seeded. */
const SEED_BUDGET_MS = Number(process.env.BENCH_SCALE_SEED_SECONDS ?? 3600) * 1000;
/** How long the worker may take to run every seeded workflow's first task before the measurements. */
const DRAIN_BUDGET_MS = Number(process.env.BENCH_SCALE_DRAIN_SECONDS ?? 1200) * 1000;
const log = (msg: string) => process.stderr.write(`[bench:scale] ${msg}\n`);

/**
 * A start the dev server refuses for a moment under this load (a deadline, resource exhaustion) is
 * tried again; a retry that finds the workflow started by the first try counts as started.
 */
async function startRetrying(start: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      return;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return;
      if (attempt >= 8) throw err;
      log(`start failed (${String((err as Error).cause ?? err)}), retrying`);
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  }
}

/** What every phase uses: the stack (the broker is replaced on restart), tokens and organization pairs. */
interface Scale {
  dir: string;
  env: Record<string, string>;
  temporal: Awaited<ReturnType<typeof startTemporal>>;
  broker: BrokerHandle;
  tokens: Map<string, string>;
  pairs: Generator<[string, string]>;
  cleanups: Array<() => Promise<unknown>>;
}
type Drafted = Array<{ id: string; token: string }>;
type Rss = { broker: number; temporal: number };

async function setUp(dir: string, cleanups: Array<() => Promise<unknown>>): Promise<Scale> {
  // In memory: on a SQLite file (as `npm start` runs it) the dev server seeds at 19-40 starts per
  // second here, too slow for 100,000 in a session. The in-memory one died twice past 80,000
  // open workflows (2026-11-25, docs/benchmarks.md); its log says why if it does again.
  const temporal = await startTemporal({ logFile: join(ROOT, '.data', 'bench-scale-temporal.log') });
  cleanups.push(() => temporal.stop());
  const registry = writeTestRegistry(join(dir, 'registry'));
  const env = {
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `pcx-scale-${process.pid}`,
    DATABASE_URL: '',
    ORGANIZATIONS_FILE: registry.organizationsFile,
    CONNECTORS_FILE: registry.connectorsFile,
    PUBLIC_BASE_URL: 'http://pcx-bench.test',
    ...UNLIMITED,
    LOG_LEVEL: 'warn',
  };
  const broker: BrokerHandle = await startBroker(env, join(dir, 'data'));
  const scale: Scale = { dir, env, temporal, broker, tokens: new Map(), pairs: organizationPairs(BENCH_ORGANIZATION_COUNT), cleanups };
  // Through `scale`: the restart replaces the broker, and the cleanup must stop the one running then.
  cleanups.push(() => scale.broker.stop());
  scale.tokens = await tokensOf(broker.baseUrl, BENCH_ORGANIZATION_COUNT);
  return scale;
}

const flows = (x: Scale) => commandFlow(() => x.broker.baseUrl, x.tokens, x.pairs, []);
const measure = (x: Scale, label: string) => runLevel(label, 1, 40, flows(x), () => ({}));
const rss = (x: Scale): Rss => ({ broker: treeRssMiB(x.broker.process.pid!), temporal: treeRssMiB(x.temporal.process.pid!) });

/** Drafted relationships whose `request` is measured later, cold. */
async function drafts(x: Scale, n: number): Promise<Drafted> {
  const out: Drafted = [];
  for (let i = 0; i < n; i++) {
    const [a, b] = x.pairs.next().value as [string, string];
    const r = await send(x.broker.baseUrl, 'POST', '/partner-relationships', x.tokens.get(a), { requestingOrganizationId: `org-${a}`, acceptingOrganizationId: `org-${b}`, scopes: SCOPES });
    out.push({ id: r.id, token: x.tokens.get(a)! });
  }
  return out;
}

async function requestEach(x: Scale, items: Drafted): Promise<number[]> {
  const ms: number[] = [];
  for (const d of items) {
    const t0 = performance.now();
    await send(x.broker.baseUrl, 'POST', `/partner-relationships/${d.id}/request`, d.token, undefined, { 'if-match': '"1"' });
    ms.push(performance.now() - t0);
  }
  return ms;
}

/** The empty system's figures; also drafts the relationships whose `request` is measured cold beside N. */
async function measureEmpty(x: Scale) {
  log('warm-up and the empty system');
  await runLevel('warm-up', 4, 20, flows(x), () => ({}));
  const emptyRss = rss(x);
  const emptyRuns: Run[] = [await measure(x, 'empty')];
  const warmDrafts = await drafts(x, 30);
  const emptyWarmRequest = await requestEach(x, warmDrafts);
  const coldDrafts = await drafts(x, 30);
  return { emptyRss, emptyRuns, emptyWarmRequest, coldDrafts };
}

/** The templates: a published offer and a published request, through the API, as their workflows hold them. */
async function templatesOf(x: Scale): Promise<{ client: Client; templates: Array<[Resource<any, any>, any]> }> {
  const [carrier, shipper] = ['001', '002'];
  const base = x.broker.baseUrl;
  const o = await send(base, 'POST', '/capacity-offers', x.tokens.get(carrier), offer());
  const publishedOffer = await send(base, 'POST', `/capacity-offers/${o.id}/publish`, x.tokens.get(carrier), undefined, { 'if-match': `"${o.resourceVersion}"` });
  const r = await send(base, 'POST', '/load-requests', x.tokens.get(shipper), request({ vehicleRequirements: { bodyTypes: ['box'] } })); // no match: both stay published
  const publishedRequest = await send(base, 'POST', `/load-requests/${r.id}/publish`, x.tokens.get(shipper), undefined, { 'if-match': `"${r.resourceVersion}"` });
  // The workflow's own snapshot (the API shows the owner's view of it).
  const connection = await Connection.connect({ address: x.temporal.address });
  x.cleanups.push(() => connection.close());
  const client = new Client({ connection });
  const templates: Array<[Resource<any, any>, any]> = [
    [capacityOffer, await client.workflow.getHandle(capacityOffer.workflowId(publishedOffer.id)).query<any>('snapshot').catch(() => publishedOffer)],
    [loadRequest, await client.workflow.getHandle(loadRequest.workflowId(publishedRequest.id)).query<any>('snapshot').catch(() => publishedRequest)],
  ];
  return { client, templates };
}

/** Starts up to N workflows from the templates, SEED_CONCURRENCY at a time, within SEED_BUDGET_MS. */
async function seed(x: Scale, client: Client, templates: Array<[Resource<any, any>, any]>) {
  log(`seeding ${N} open offers and requests through Temporal`);
  const settings = loadConfig({}).workflow;
  const seedStarted = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < N && performance.now() - seedStarted < SEED_BUDGET_MS) {
      const i = next++;
      const [resource, template] = templates[i % 2];
      const id = randomUUID();
      await startRetrying(() =>
        client.workflow.start(resource.workflowType, {
          workflowId: resource.workflowId(id),
          taskQueue: x.env.TEMPORAL_TASK_QUEUE,
          args: [{ kind: resource.kind, settings, state: { ...template, id }, recent: [] }],
        }),
      );
      if ((i + 1) % 10000 === 0) log(`  ${i + 1} started, ${((i + 1) / ((performance.now() - seedStarted) / 1000)).toFixed(0)}/s`);
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, lane));
  return { seedSeconds: (performance.now() - seedStarted) / 1000, seeded: Math.min(next, N) };
}

/**
 * A seeded workflow is counted once its first task has run (it upserts its search attributes).
 * The worker may lag behind the starts (each seeded workflow's first task waits in the task
 * queue, and a command would queue behind them): wait until it has caught up, at most
 * BENCH_SCALE_DRAIN_SECONDS (default 20 minutes), reporting the pace; then measure.
 */
async function drain(client: Client, seeded: number) {
  const open = async () => (await client.workflow.count(`WorkflowType IN ('${capacityOffer.workflowType}', '${loadRequest.workflowType}') AND ExecutionStatus = 'Running' AND PcxStatus = 'published'`)).count;
  const drainStarted = performance.now();
  let openCount = await open();
  while (openCount < seeded && performance.now() - drainStarted < DRAIN_BUDGET_MS) {
    await new Promise((res) => setTimeout(res, 10000));
    openCount = await open();
    log(`  ${openCount} of ${seeded} open and visible`);
  }
  return { openCount, drainSeconds: (performance.now() - drainStarted) / 1000 };
}

/** Restarts the broker beside the N open workflows: time to ready, and to its first answered command. */
async function restart(x: Scale) {
  log('restart with N open workflows');
  await x.broker.stop();
  const restartStarted = performance.now();
  x.broker = await startBroker(x.env, join(x.dir, 'data'));
  const readyMs = performance.now() - restartStarted;
  // The issuer is the fixed PUBLIC_BASE_URL and the signing key lives in the data folder: tokens stay good.
  const t0 = performance.now();
  const [a, b] = x.pairs.next().value as [string, string];
  await send(x.broker.baseUrl, 'POST', '/partner-relationships', x.tokens.get(a), { requestingOrganizationId: `org-${a}`, acceptingOrganizationId: `org-${b}`, scopes: SCOPES });
  const firstCommandMs = readyMs + (performance.now() - t0);
  return { readyMs, firstCommandMs, restartRss: rss(x) };
}

type Figures = Awaited<ReturnType<typeof measureEmpty>> &
  Awaited<ReturnType<typeof seed>> &
  Awaited<ReturnType<typeof drain>> &
  Awaited<ReturnType<typeof restart>> & { fullRss: Rss; fullRuns: Run[]; fullColdRequest: number[] };

function report(f: Figures): string {
  const { seeded, seedSeconds, openCount, drainSeconds, emptyRss, fullRss, restartRss, emptyRuns, fullRuns, emptyWarmRequest, fullColdRequest } = f;
  const p = (runs: Run[], q: number) => percentile(runs.flatMap((x) => x.samples.map((s) => s.ms)), q);
  const lines = [
    `- Date: ${new Date().toISOString()}; nproc ${cpus().length}; load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' / ')}`,
    `- The embedded set-up (one broker process, role all, PGlite; Temporal dev server, in-memory SQLite). Seeded through Temporal, not the API: ${seeded.toLocaleString('en')} workflows${seeded < N ? ` (of ${N.toLocaleString('en')} asked; the seeding budget of ${SEED_BUDGET_MS / 1000} s ran out)` : ''} started with a published offer's or request's snapshot (as a continued-as-new run), at ${SEED_CONCURRENCY} in flight: ${seedSeconds.toFixed(0)} s (${(seeded / seedSeconds).toFixed(0)} per second); ${openCount.toLocaleString('en')} counted open and published by Temporal visibility ${drainSeconds.toFixed(0)} s after the last start (the worker running each one's first task). Their read-model rows are not written.`,
    '',
    '```sh',
    `npm run bench:scale${process.env.BENCH_SCALE_N ? `  # with BENCH_SCALE_N=${process.env.BENCH_SCALE_N}` : ''}`,
    '```',
    '',
    '| | empty system | beside N open workflows | after a restart with them |',
    '|---|---:|---:|---:|',
    `| broker resident memory (MiB, process tree, role all) | ${f1(emptyRss.broker)} | ${f1(fullRss.broker)} | ${f1(restartRss.broker)} |`,
    `| Temporal dev server resident memory (MiB) | ${f1(emptyRss.temporal)} | ${f1(fullRss.temporal)} | ${f1(restartRss.temporal)} |`,
    `| relationship command, c = 1: p50 / p95 ms (${emptyRuns[0].samples.length} and ${fullRuns[0].samples.length} commands) | ${f1(p(emptyRuns, 50))} / ${f1(p(emptyRuns, 95))} | ${f1(p(fullRuns, 50))} / ${f1(p(fullRuns, 95))} | |`,
    `| \`request\` on a relationship drafted earlier: p50 / p95 ms (30 each; beside N, its workflow is out of the worker's cache) | ${f1(median(emptyWarmRequest))} / ${f1(percentile(emptyWarmRequest, 95))} | ${f1(median(fullColdRequest))} / ${f1(percentile(fullColdRequest, 95))} | |`,
    `| broker start to ready (ms) | | | ${f1(f.readyMs)} |`,
    `| broker start to its first command answered (ms) | | | ${f1(f.firstCommandMs)} |`,
  ];
  return lines.join('\n');
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-scale-'));
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    const x = await setUp(dir, cleanups);
    const empty = await measureEmpty(x);
    const { client, templates } = await templatesOf(x);

    const seeding = await seed(x, client, templates);
    const drained = await drain(client, seeding.seeded);
    log(`seeded in ${seeding.seedSeconds.toFixed(0)} s; ${drained.openCount} open and visible ${drained.drainSeconds.toFixed(0)} s later`);
    const fullRss = rss(x);

    log('commands beside N');
    const fullRuns: Run[] = [await measure(x, 'full')];
    const fullColdRequest = await requestEach(x, empty.coldDrafts);
    const restarted = await restart(x);

    const generated = report({ ...empty, ...seeding, ...drained, ...restarted, fullRss, fullRuns, fullColdRequest });
    publishReport('bench:scale', '## Scale of one machine', generated, log);
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(log, main);
