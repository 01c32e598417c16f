// `npm test` after setup (scripts/setup.mjs runs this on the project's Node): the type check, then
// every jest project. Arguments go to jest (`npm test -- --selectProjects unit`), which then runs
// once, in band, as asked.
//
// Without arguments the whole suite runs as three jest processes at once, each with one worker
// (Temporal's native runtime wants one jest worker per process; ONE_RECYCLED_WORKER below), the first and
// the third with a stack of its own (its global setup starts its Temporal dev server and brokers): the postgres project without the files that
// run against `npm start`; those files (the README walkthrough, the console, the connector
// profiles, the Python and Java clients, npm start's own test) in the postgres project of a
// process of their own, whose setup starts the shared npm start; and the pglite project with the projects that need no shared stack
// (unit, workflows, the time-skipping harness, which starts its own test servers). Integration
// tests mostly wait on their servers, so the three fill the machine's two cores (a clean-clone
// run on a quiet machine: 899 s with two processes, 682 s with these three). The first one's
// output streams; the others' is kept and printed once it is done, so none interleaves.
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

const INTEGRATION = ['postgres'];
const STANDALONE = ['pglite', 'unit', 'workflows', 'timeskip-pglite', 'timeskip-postgres'];
// The files that run against `npm start` (or start it), engine-independent, in the postgres project: jest.config.js selects them, or leaves them out, by
// PCX_TEST_FILES.
const SECOND_FILES = 'walkthrough, console, conformance-connectors, clients, oauth-clients, start against npm start';

// One jest worker, as in band (Temporal's native runtime wants one per process), but a process of
// its own that jest replaces once its heap passes the limit after a test file: each file loads the
// app's modules anew (jest's module registries), and what a file's modules leave registered with
// the process (Temporal's native runtime; prom-client's GC observer until it moved to the broker's start) keeps them alive. In one process the
// heap grew past 1.2 GB over a run and its garbage collection took most of the process's CPU
// (docs/benchmarks.md, "The suite's time").
const ONE_RECYCLED_WORKER = ['--maxWorkers=1', '--workerIdleMemoryLimit=600MB'];

/** One jest process over the given projects (and test path patterns); resolves with its exit code. `logFile`: its output there instead of this terminal. */
function jest(projects, logFile, ports, files) {
  return new Promise((resolve) => {
    // Each process picks its servers' ports from a range of its own (test/stack.ts freePort).
    const env = { ...jestEnv, PCX_TEST_PORTS: ports, ...(files ? { PCX_TEST_FILES: files } : {}), ...(logFile ? { FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } : {}) };
    const child = spawn(bin('jest'), [...ONE_RECYCLED_WORKER, '--selectProjects', ...projects], { cwd: root, env, stdio: logFile ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (logFile) {
      const out = createWriteStream(logFile);
      child.stdout.pipe(out);
      child.stderr.pipe(out);
    }
    // Ctrl-C reaches both (one process group); a termination of this process is passed on.
    for (const signal of ['SIGTERM', 'SIGHUP']) process.once(signal, () => child.kill(signal));
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const logs = mkdtempSync(join(tmpdir(), 'pcx-jest-'));
const started = Date.now();
const beside = [
  { name: `${STANDALONE.join(', ')}`, log: join(logs, 'standalone.log'), run: (log) => jest(STANDALONE, log, '27000-32767') },
  { name: `postgres: ${SECOND_FILES}`, log: join(logs, 'second.log'), run: (log) => jest(INTEGRATION, log, '24000-26999', 'second') },
].map((p) => ({ ...p, done: p.run(p.log).then((code) => ({ code, seconds: (Date.now() - started) / 1000 })) }));
const integration = await jest(INTEGRATION, undefined, '20000-23999', 'others');
const results = [];
for (const p of beside) {
  const result = await p.done;
  results.push({ ...p, ...result });
  process.stdout.write(`\n--- ${p.name} (ran beside the above, ${result.seconds.toFixed(0)} s; ${p.log}) ---\n`);
  process.stdout.write(readFileSync(p.log, 'utf8'));
}
const verdict = (code) => (code === 0 ? 'passed' : `failed (exit ${code})`);
process.stdout.write(`\nnpm test: ${INTEGRATION.join(', ')} ${verdict(integration)}; ${results.map((r) => `${r.name} ${verdict(r.code)}`).join('; ')}; ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
process.exit(integration !== 0 ? integration : results.find((r) => r.code !== 0)?.code ?? 0);
