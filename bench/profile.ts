// `npm run bench:profile`: where the time of one command goes. The relationship flow (create,
// request, accept over HTTP, read models in PGlite as `npm start` keeps them) at concurrency 8
// against a broker that runs under V8's CPU profiler (`--cpu-prof`, every thread) and a Temporal
// dev server that exports its Prometheus metrics. Reports, per command of the measured window:
// the broker's CPU by the project code that spent it (the nearest project function on the stack,
// so a pg or PGlite call counts to the store that made it), its CPU by package, Temporal's CPU, and
// the server's own latencies per gRPC operation and persistence call. Written into
// docs/benchmarks.md between its markers. PROFILE_FLOWS sets the flows measured (default 240);
// PROFILE_KEEP=1 keeps the profiles.
import { readdirSync, readFileSync, mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { exitGuard, f1, f2, machine, publishReport, runBench, treeCpuMs } from './common';
import { commandFlow, organizationPairs, runLevel, tokensOf, UNLIMITED, type Created } from './load';
import { BENCH_ORGANIZATION_COUNT, freePort, ROOT, startBroker, startTemporal, writeTestRegistry } from '../test/stack';

const FLOWS = Math.max(24, Number(process.env.PROFILE_FLOWS ?? 240) || 240);
const CONCURRENCY = 8;
const WARMUP_FLOWS = 48;
const COMMANDS_PER_FLOW = 3;

const log = (msg: string) => process.stderr.write(`[profile] ${msg}\n`);

// ---------------------------------------------------------------------------------------------
// V8 CPU profiles (.cpuprofile: a call tree of nodes, and samples with their time deltas).

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame; children?: number[] }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a project file (relative path), a package, Node itself, or V8's own pseudo-frames. */
function placeOf(frame: CallFrame): { kind: 'project' | 'package' | 'node' | 'v8'; name: string } {
  const url = frame.url.replace(/^file:\/\//, '');
  if (!url) return { kind: 'v8', name: frame.functionName || '(anonymous)' };
  if (url.startsWith('node:')) return { kind: 'node', name: 'Node.js core' };
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return { kind: 'package', name: inPackage[1] };
  // The workflow bundle runs in the worker's sandbox under a name of its own.
  if (!url.startsWith('/')) return { kind: 'package', name: 'workflow bundle' };
  return { kind: 'project', name: relative(ROOT, url) };
}

/**
 * CPU milliseconds of the samples taken between `from` and `to` (µs on the monotonic clock every
 * process shares), by the nearest project function on each sample's stack and by the place of the
 * innermost frame. Idle samples are left out.
 */
function attribute(profile: CpuProfile, from: number, to: number, byCaller: Map<string, number>, byPlace: Map<string, number>, byCause: Map<string, number>): number {
  const parent = new Map<number, number>();
  const node = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const workflowThread = profile.nodes.some((n) => n.callFrame.url.includes('workflow-worker-thread'));
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    // A sample's time is the gap to the next one (V8's convention), roughly the sampling interval.
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (t < from || t > to || ms <= 0) continue;
    const leaf = node.get(profile.samples[i])!;
    if (leaf.callFrame.functionName === '(idle)') continue;
    total += ms;
    const place = placeOf(leaf.callFrame);
    const placeName = place.kind === 'v8' ? place.name : place.kind === 'project' ? 'project code' : place.name;
    byPlace.set(placeName, (byPlace.get(placeName) ?? 0) + ms);
    let caller = 'no project code on the stack';
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = node.get(id)!.callFrame;
      if (placeOf(frame).kind === 'project') {
        caller = `${placeOf(frame).name} ${frame.functionName || '(anonymous)'}`;
        break;
      }
    }
    if (place.kind === 'v8' && caller === 'no project code on the stack') caller = place.name;
    byCaller.set(caller, (byCaller.get(caller) ?? 0) + ms);
    const cause = causeOf(workflowThread, leaf.callFrame, stackOf(leaf.id, parent, node), place);
    byCause.set(cause, (byCause.get(cause) ?? 0) + ms);
  }
  return total;
}

function stackOf(leaf: number, parent: Map<number, number>, node: Map<number, { callFrame: CallFrame }>): CallFrame[] {
  const frames: CallFrame[] = [];
  for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) frames.push(node.get(id)!.callFrame);
  return frames;
}

/** The causes the report names, in its order: each sample falls under the first that matches. */
const CAUSES = [
  'workflow thread: the SDK\'s deadlock watchdog (a thread per call into the workflow context)',
  'workflow thread: the SDK\'s stack-trace promise hook (an Error and its source-mapped stack per promise)',
  'workflow thread: module evaluation per workflow',
  'workflow thread: workflow code and the SDK\'s activations',
  'main thread: PGlite (the embedded read model)',
  'main thread: Temporal worker and client (Core bridge, gRPC, protobuf, the SDK)',
  'main thread: HTTP (Hono, the Node server, Node core)',
  'main thread: project code (API, activities, stores)',
  'main thread: other packages',
  'garbage collection and V8 itself',
] as const;

function causeOf(workflowThread: boolean, leaf: CallFrame, stack: CallFrame[], place: ReturnType<typeof placeOf>): string {
  if (place.kind === 'v8' && /^\((garbage collector|program)\)$/.test(leaf.functionName)) return CAUSES[9];
  const has = (test: (f: CallFrame) => boolean) => stack.some(test);
  if (workflowThread) {
    // runInContext's own time is the call into the context; with a timeout, Node starts a watchdog thread for each.
    if (leaf.functionName === 'runInContext' && !leaf.url) return CAUSES[0];
    if (has((f) => f.url.endsWith('vm-shared.js') && (f.functionName === 'init' || f.functionName === 'Error.prepareStackTrace'))) return CAUSES[1];
    if (has((f) => f.functionName === 'importWorkflows')) return CAUSES[2];
    return CAUSES[3];
  }
  if (has((f) => f.url.includes('@electric-sql/pglite'))) return CAUSES[4];
  if (place.kind === 'package' && /^(@temporalio\/|@grpc\/|protobufjs|rxjs|long)/.test(place.name)) return CAUSES[5];
  if (place.kind === 'v8' || place.kind === 'node' || (place.kind === 'package' && /^(hono|@hono\/)/.test(place.name))) return CAUSES[6];
  if (place.kind === 'project') return CAUSES[7];
  return CAUSES[8];
}

// ---------------------------------------------------------------------------------------------
// Temporal's Prometheus metrics: sums and counts of its latency histograms, by operation.

type Histograms = Map<string, { sum: number; count: number }>;

async function scrape(port: number): Promise<Histograms> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out: Histograms = new Map();
  for (const line of text.split('\n')) {
    const m = /^(service_latency|persistence_latency|task_latency_processing|task_latency_queue|task_latency|task_latency_userlatency|workflow_task_schedule_to_start_latency|task_schedule_to_start_latency)_(sum|count)\{(.*)\} ([0-9.e+-]+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[3].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    const key = `${m[1]} ${labels.operation ?? ''}${labels.task_type ? ` ${labels.task_type}` : ''}`.trim();
    const h = out.get(key) ?? { sum: 0, count: 0 };
    h[m[2] as 'sum' | 'count'] += Number(m[4]);
    out.set(key, h);
  }
  return out;
}

function difference(after: Histograms, before: Histograms): Histograms {
  const out: Histograms = new Map();
  for (const [k, a] of after) {
    const b = before.get(k) ?? { sum: 0, count: 0 };
    if (a.count - b.count > 0) out.set(k, { sum: a.sum - b.sum, count: a.count - b.count });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

const top = (m: Map<string, number>, n: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);

function report(o: {
  machineLines: string[];
  commands: number;
  seconds: number;
  brokerCpu: number;
  temporalCpu: number;
  sampled: number;
  byCaller: Map<string, number>;
  byPlace: Map<string, number>;
  byCause: Map<string, number>;
  temporal: Histograms;
}): string {
  const per = (ms: number) => ms / o.commands;
  const lines = [
    ...o.machineLines,
    '',
    '```sh',
    `npm run bench:profile${process.env.PROFILE_FLOWS ? `  # with PROFILE_FLOWS=${FLOWS}` : ''}`,
    '```',
    '',
    `${o.commands} commands (${o.commands / COMMANDS_PER_FLOW} relationship flows of create, request, accept; every other flow with an`,
    `Idempotency-Key) at concurrency ${CONCURRENCY} in ${f1(o.seconds)} s: ${f1(o.commands / o.seconds)} commands/s.`,
    `CPU per command: broker ${f2(per(o.brokerCpu))} ms (the profiler's samples: ${f2(per(o.sampled))} ms; the profiler itself costs`,
    `a few per cent), Temporal dev server ${f2(per(o.temporalCpu))} ms.`,
    '',
    '### Broker CPU per command, by cause',
    '',
    'Each sample of every thread counts to the first cause its stack matches (bench/profile.ts `CAUSES`).',
    '',
    '| cause | ms per command | share |',
    '|---|---:|---:|',
    ...CAUSES.map((cause) => `| ${cause} | ${f2(per(o.byCause.get(cause) ?? 0))} | ${f1((100 * (o.byCause.get(cause) ?? 0)) / o.sampled)} % |`),
    '',
    '### Broker CPU per command, by the project code that spent it',
    '',
    'Each sample counts to the nearest project function on its stack: a pg or PGlite call counts to the store that made it,',
    "Hono's routing to the route that ran. Work that an await or a callback hands on has no project caller on its stack. The top 20; the rest in the last row.",
    '',
    '| project function (or V8 pseudo-frame) | ms per command | share |',
    '|---|---:|---:|',
  ];
  const callers = top(o.byCaller, 20);
  for (const [name, ms] of callers) lines.push(`| ${name.replace(/\|/g, '\\|')} | ${f2(per(ms))} | ${f1((100 * ms) / o.sampled)} % |`);
  const rest = o.sampled - callers.reduce((s, [, ms]) => s + ms, 0);
  lines.push(`| (the rest) | ${f2(per(rest))} | ${f1((100 * rest) / o.sampled)} % |`, '');
  lines.push('### Broker CPU per command, by where the innermost frame lives', '', '| place | ms per command | share |', '|---|---:|---:|');
  for (const [name, ms] of top(o.byPlace, 20)) lines.push(`| ${name.length > 60 ? `${name.slice(0, 57)}…` : name} | ${f2(per(ms))} | ${f1((100 * ms) / o.sampled)} % |`);
  lines.push(
    '',
    "### Temporal's latencies (its own Prometheus histograms over the window)",
    '',
    'Calls per command and mean milliseconds per call; persistence is the dev server\'s SQLite.',
    '',
    '| histogram operation | calls per command | mean ms | ms per command |',
    '|---|---:|---:|---:|',
  );
  const rows = [...o.temporal.entries()].filter(([, h]) => h.count / o.commands >= 0.05).sort((a, b) => b[1].sum - a[1].sum);
  // Temporal's histograms are in seconds.
  for (const [name, h] of rows.slice(0, 30)) lines.push(`| ${name} | ${f2(h.count / o.commands)} | ${f2((1000 * h.sum) / h.count)} | ${f2((1000 * h.sum) / o.commands)} |`);
  return lines.join('\n');
}

async function main() {
  const machineLines = machine('(`server start-dev`, in-memory SQLite, `--metrics-port`); read models in PGlite');
  const dir = mkdtempSync(join(tmpdir(), 'pcx-profile-'));
  const guard = exitGuard(dir, log, { minutes: 20, kept: 'broker.log' });
  const { cleanups } = guard;
  try {
    const metricsPort = await freePort();
    const temporal = await startTemporal({ metricsPort });
    cleanups.push(() => temporal.stop());
    const profiles = join(dir, 'profiles');
    mkdirSync(profiles);
    const registry = writeTestRegistry(join(dir, 'registry'));
    const broker = await startBroker(
      {
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: `pcx-profile-${process.pid}`,
        DATABASE_URL: '',
        ORGANIZATIONS_FILE: registry.organizationsFile,
        CONNECTORS_FILE: registry.connectorsFile,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${profiles}`.trim(),
        ...UNLIMITED,
      },
      join(dir, 'broker-data'),
      join(dir, 'broker.log'),
    );
    let stopped = false;
    cleanups.push(() => (stopped ? Promise.resolve() : broker.stop()));
    const tokens = await tokensOf(broker.baseUrl, BENCH_ORGANIZATION_COUNT);
    const pairs = organizationPairs(BENCH_ORGANIZATION_COUNT);
    const created: Created[] = [];
    log('warm-up');
    await runLevel('command', CONCURRENCY, WARMUP_FLOWS, commandFlow(() => broker.baseUrl, tokens, pairs, created), () => ({}));

    const cpu = () => ({ broker: treeCpuMs(broker.process.pid!), temporal: treeCpuMs(temporal.process.pid!) });
    const metricsBefore = await scrape(metricsPort);
    const from = Number(process.hrtime.bigint() / 1000n);
    log(`measuring ${FLOWS} flows at concurrency ${CONCURRENCY}`);
    const run = await runLevel('command', CONCURRENCY, FLOWS, commandFlow(() => broker.baseUrl, tokens, pairs, created), cpu);
    const to = Number(process.hrtime.bigint() / 1000n);
    const temporalHistograms = difference(await scrape(metricsPort), metricsBefore);

    log('stopping the broker (it writes its profiles on exit)');
    await broker.stop();
    stopped = true;
    const byCaller = new Map<string, number>();
    const byPlace = new Map<string, number>();
    const byCause = new Map<string, number>();
    let sampled = 0;
    for (const file of readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile'))) {
      sampled += attribute(JSON.parse(readFileSync(join(profiles, file), 'utf8')) as CpuProfile, from, to, byCaller, byPlace, byCause);
    }
    if (sampled === 0) throw new Error(`no profile samples in the window (profiles: ${readdirSync(profiles).join(', ') || 'none'})`);
    const generated = report({
      machineLines,
      commands: run.samples.length,
      seconds: run.seconds,
      brokerCpu: run.cpu.broker,
      temporalCpu: run.cpu.temporal,
      sampled,
      byCaller,
      byPlace,
      byCause,
      temporal: temporalHistograms,
    });
    publishReport('bench:profile', '## A profile of one command', generated, log);
    // PROFILE_KEEP=1 keeps the .cpuprofile files (Chrome DevTools or speedscope open them).
    if (process.env.PROFILE_KEEP) log(`profiles kept in ${profiles}`);
    else guard.succeed();
  } finally {
    await guard.cleanup();
  }
}

runBench(log, main);
