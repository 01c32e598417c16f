// The README walkthrough works verbatim, twice: scripts/walkthrough.sh (the README's curl blocks,
// see test/unit/readme-walkthrough.test.ts) against a fresh `npm start` (scripts/start.ts with its
// own data folder and ports), run twice on the same stack; then a run interrupted halfway, after
// which the next run still succeeds.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, interrupt, ROOT, startEmbedded } from './stack';
import { testEnv } from './helpers';

const SCRIPT = join(ROOT, 'scripts', 'walkthrough.sh');
const PCX_SCRIPT = join(ROOT, 'scripts', 'walkthrough-pcx.sh');

interface Run {
  code: number | null;
  output: string;
  seconds: number;
}

/** Runs a bash script with B pointing at the stack; stdout and stderr interleaved as printed. */
function bash(script: string, base: string, env: Record<string, string> = {}): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script], { cwd: ROOT, env: { ...process.env, B: base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, seconds: (Date.now() - started) / 1000 });
    });
  });
}

function succeeded(run: Run, name: string) {
  if (run.code !== 0) throw new Error(`${name} exited with ${run.code} after ${run.seconds} s:\n${run.output}`);
  expect(run.code).toBe(0);
}

describe('scripts/walkthrough.sh against npm start', () => {
  let child: ChildProcess | undefined;
  let base = '';

  beforeAll(async () => {
    const port = await freePort();
    // PUBLIC_BASE_URL (the token issuer) must name the port the script calls.
    base = `http://localhost:${port}`;
    child = await startEmbedded({
      PORT: String(port),
      PUBLIC_BASE_URL: base,
      TEMPORAL_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      DATA_DIR: join(testEnv().dir, 'walkthrough'),
    });
  }, 150000);

  afterAll(async () => {
    if (child) expect(await interrupt(child)).toBe(0);
  }, 30000);

  test('runs twice on the same stack', async () => {
    const first = await bash(SCRIPT, base);
    succeeded(first, 'the first run');
    expect(first.output).toContain('open relationships between Alpine and Baltic: []');
    // The whole path: match, tender, commitment, handover, execution, outcome.
    expect(first.output).toMatch(/proposal \S+: accepted, COMMITTED/);
    expect(first.output).toMatch(/tender \S+: accepted; commitment \S+: active, digest [0-9a-f]{64}/);
    expect(first.output).toMatch(/handover \S+: imported as TR-/);
    expect(first.output).toMatch(/execution reference \S+: completed; commitment [0-9a-f-]{36}, handover [0-9a-f-]{36}/);
    expect(first.output).toMatch(/records: S-\S+ at Baltic, TR-\S+ at Alpine; last milestone delivered/);

    const second = await bash(SCRIPT, base);
    succeeded(second, 'the second run');
    // The first run left nothing open for the second to clean up.
    expect(second.output).not.toContain('left over');
    expect(second.output).toContain('open relationships between Alpine and Baltic: []');
  }, 240000);

  test('a run interrupted after the accept leaves nothing the next run cannot end', async () => {
    // The script cut just after Baltic accepts: an active relationship stays open.
    const lines = readFileSync(SCRIPT, 'utf8').split('\n');
    const accept = lines.findIndex((line) => line.includes('/accept"'));
    expect(accept).toBeGreaterThan(0);
    const partial = join(testEnv().dir, 'walkthrough-interrupted.sh');
    writeFileSync(partial, lines.slice(0, accept + 1).join('\n') + '\n');
    succeeded(await bash(partial, base), 'the interrupted run');

    const next = await bash(SCRIPT, base);
    succeeded(next, 'the run after the interrupted one');
    expect(next.output).toMatch(/ended the relationship \S+ left over from an earlier run \(terminate\)/);
  }, 150000);

  test('the pcx walkthrough runs twice on the same stack, its profiles readable by their owner only', async () => {
    const config = join(testEnv().dir, 'pcx-walkthrough-config');
    const first = await bash(PCX_SCRIPT, base, { PCX_CONFIG_DIR: config, NO_COLOR: '1' });
    succeeded(first, 'the first pcx run');
    expect(first.output).toMatch(/logged in to \S+ as alpine-tms: profile "alpine"/);
    expect(first.output).toMatch(/relationship \S+: active/);
    expect(first.output).toMatch(/proposal \S+: COMMITTED/);
    expect(first.output).toMatch(/pcx\.execution-reference\.created\.v1/);
    expect(first.output).toMatch(/relationship \S+ terminated/);
    // No colour when not on a terminal.
    expect(first.output).not.toContain('\x1b[');
    expect(statSync(join(config, 'profiles.json')).mode & 0o777).toBe(0o600);
    const second = await bash(PCX_SCRIPT, base, { PCX_CONFIG_DIR: config });
    succeeded(second, 'the second pcx run');
    expect(second.output).not.toContain('ended relationship');
    expect(second.output).toMatch(/proposal \S+: COMMITTED/);
  }, 240000);
});
