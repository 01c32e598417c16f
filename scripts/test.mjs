// `npm test` after setup (scripts/setup.mjs runs this on the project's Node): the type check, then
// every jest project. Arguments go to jest (`npm test -- --selectProjects unit`), which then runs
// once, in band, as asked.
//
// Without arguments the whole suite runs as six jest processes at once (PROCESSES below), each
// with one worker (Temporal's native runtime wants one jest worker per process; ONE_RECYCLED_WORKER
// below). Integration tests mostly wait on their servers (Temporal's tasks, brokers' polls, the
// browser, the clients' processes), not on the CPU: a clean-clone run with a second full load on
// the machine (two busy loops on its two cores) took as long as a quiet one (docs/benchmarks.md,
// "The suite's time"). So the run takes as long as its longest chain of files, and the files are
// spread over processes of similar length:
//   - the postgres project without the files that run against `npm start`, in two shards, each
//     with a stack of its own (its global setup starts a Temporal dev server and a broker);
//   - the pglite project, with its stack;
//   - the projects that need no shared stack (unit, workflows, the time-skipping harness, which
//     starts its own test servers);
//   - the files that run against `npm start` (the README walkthrough, the console, the connector
//     profiles, the Python and Java clients, npm start's own test) in the postgres project, in two
//     processes whose setups start one shared npm start each: jest.config.js selects them by
//     PCX_TEST_FILES, a pattern picks each process's.
// The first one's output streams; the others' is kept and printed once it is done, so none
// interleaves.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const jestEnv = { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules'].filter(Boolean).join(' ') };

const typecheck = spawnSync(bin('tsc'), ['--noEmit', '-p', '.'], { cwd: root, stdio: 'inherit' }).status ?? 1;
if (typecheck !== 0) process.exit(typecheck);

const args = process.argv.slice(2);
if (args.length > 0) process.exit(spawnSync(bin('jest'), ['--runInBand', ...args], { cwd: root, stdio: 'inherit', env: jestEnv }).status ?? 1);

/** Files that run against `npm start` (jest.config.js NPM_START_FILES, by PCX_TEST_FILES=second), these of them. */
const npmStartFiles = (names) => ({ projects: ['postgres'], files: 'second', args: ['--testPathPatterns', `/test/(${names.join('|')})\\.test\\.ts$`] });

/** npm test's jest processes: what each runs and the ports its servers take (test/stack.ts freePort). */
const PROCESSES = [
  { name: 'postgres (shard 1/2)', ports: '20000-21999', projects: ['postgres'], files: 'others', args: ['--shard=1/2'] },
  { name: 'postgres (shard 2/2)', ports: '22000-23999', projects: ['postgres'], files: 'others', args: ['--shard=2/2'] },
  { name: 'pglite', ports: '24000-25999', projects: ['pglite'] },
  { name: 'unit, workflows, timeskip-pglite, timeskip-postgres', ports: '26000-27999', projects: ['unit', 'workflows', 'timeskip-pglite', 'timeskip-postgres'] },
  { name: 'postgres: console, walkthrough against npm start', ports: '28000-29999', ...npmStartFiles(['console', 'walkthrough']) },
  { name: 'postgres: clients, start, conformance-connectors, oauth-clients against npm start', ports: '30000-32767', ...npmStartFiles(['clients', 'start', 'conformance-connectors', 'oauth-clients']) },
];

// One jest worker, as in band (Temporal's native runtime wants one per process), but a process of
// its own that jest replaces once its heap passes the limit after a test file: each file loads the
// app's modules anew (jest's module registries), and what a file's modules leave registered with
// the process (Temporal's native runtime; prom-client's GC observer until it moved to the broker's start) keeps them alive. In one process the
// heap grew past 1.2 GB over a run and its garbage collection took most of the process's CPU
// (docs/benchmarks.md, "The suite's time").
const ONE_RECYCLED_WORKER = ['--maxWorkers=1', '--workerIdleMemoryLimit=600MB'];

/** One jest process of PROCESSES; resolves with its exit code. `logFile`: its output there instead of this terminal. */
function jest({ projects, files, ports, args = [] }, logFile) {
  return new Promise((resolve) => {
    // Each process picks its servers' ports from a range of its own (test/stack.ts freePort).
    const env = { ...jestEnv, PCX_TEST_PORTS: ports, ...(files ? { PCX_TEST_FILES: files } : {}), ...(logFile ? { FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } : {}) };
    const child = spawn(bin('jest'), [...ONE_RECYCLED_WORKER, ...args, '--selectProjects', ...projects], { cwd: root, env, stdio: logFile ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (logFile) {
      const out = createWriteStream(logFile);
      child.stdout.pipe(out);
      child.stderr.pipe(out);
    }
    // Ctrl-C reaches them all (one process group); a termination of this process is passed on.
    for (const signal of ['SIGTERM', 'SIGHUP']) process.once(signal, () => child.kill(signal));
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const logs = mkdtempSync(join(tmpdir(), 'pcx-jest-'));
const started = Date.now();
const [first, ...rest] = PROCESSES;
const beside = rest
  .map((p, i) => ({ ...p, log: join(logs, `${i + 2}.log`) }))
  .map((p) => ({ ...p, done: jest(p, p.log).then((code) => ({ code, seconds: (Date.now() - started) / 1000 })) }));
const firstCode = await jest(first);
const results = [];
for (const p of beside) {
  const result = await p.done;
  results.push({ ...p, ...result });
  process.stdout.write(`\n--- ${p.name} (ran beside the above, ${result.seconds.toFixed(0)} s; ${p.log}) ---\n`);
  process.stdout.write(readFileSync(p.log, 'utf8'));
}
const verdict = (code) => (code === 0 ? 'passed' : `failed (exit ${code})`);
process.stdout.write(`\nnpm test: ${first.name} ${verdict(firstCode)}; ${results.map((r) => `${r.name} ${verdict(r.code)}`).join('; ')}; ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
process.exit(firstCode !== 0 ? firstCode : results.find((r) => r.code !== 0)?.code ?? 0);
