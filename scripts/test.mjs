// `npm test` after setup (scripts/setup.mjs runs this on the project's Node): the type check, then
// every jest project. Arguments go to jest (`npm test -- --selectProjects unit`), which then runs
// once, in band, as asked.
//
// Without arguments the whole suite runs as two jest processes at once, each in band (Temporal's
// native runtime wants one jest worker per process), each with a stack of its own (its global
// setup starts its Temporal dev server and brokers): the postgres project, and beside it the pglite
// project with the projects that need no shared stack (unit, workflows, the time-skipping harness,
// which starts its own test servers). Integration tests mostly wait on their servers, so the two
// fill the machine's two cores. The first one's output streams; the second's is kept and printed
// once the first is done, so neither interleaves with the other.
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

/** One jest process over the given projects; resolves with its exit code. `logFile`: its output there instead of this terminal. */
function jest(projects, logFile, ports) {
  return new Promise((resolve) => {
    // Each process picks its servers' ports from a range of its own (test/stack.ts freePort).
    const env = { ...jestEnv, PCX_TEST_PORTS: ports, ...(logFile ? { FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } : {}) };
    const child = spawn(bin('jest'), ['--runInBand', '--selectProjects', ...projects], { cwd: root, env, stdio: logFile ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
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

const standaloneLog = join(mkdtempSync(join(tmpdir(), 'pcx-jest-')), 'standalone.log');
const started = Date.now();
const standalone = jest(STANDALONE, standaloneLog, '27000-32767').then((code) => ({ code, seconds: (Date.now() - started) / 1000 }));
const integration = await jest(INTEGRATION, undefined, '20000-26999');
const other = await standalone;
process.stdout.write(`\n--- ${STANDALONE.join(', ')} (ran beside the above, ${other.seconds.toFixed(0)} s; ${standaloneLog}) ---\n`);
process.stdout.write(readFileSync(standaloneLog, 'utf8'));
process.stdout.write(`\nnpm test: ${INTEGRATION.join(', ')} ${integration === 0 ? 'passed' : `failed (exit ${integration})`}; ${STANDALONE.join(', ')} ${other.code === 0 ? 'passed' : `failed (exit ${other.code})`}; ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
process.exit(integration !== 0 ? integration : other.code);
