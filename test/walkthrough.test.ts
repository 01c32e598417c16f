// What a newcomer runs against `npm start` (scripts/start.ts with its own data folder and ports:
// the run's shared start, test/setup/stack-setup.ts, with what other files left among the demo
// organizations ended first): the README walkthrough verbatim, twice (scripts/walkthrough.sh, the
// README's curl blocks, see test/unit/readme-walkthrough.test.ts), then a run interrupted halfway,
// after which the next run still succeeds; the pcx walkthrough twice; the example carrier
// connector (examples/carrier/) from its offer to a completed execution reference, killed and
// restarted on the way; and the adapter gateway's round trip (examples/adapters/round-trip.ts),
// twice.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { npmStartFor, ROOT, type NpmStartForFile } from './stack';
import { sleep, testEnv } from './helpers';
import { PcxClient } from '../sdk/src';
import { partnership, shipTheLoad } from '../examples/carrier/shipper';

const SCRIPT = join(ROOT, 'scripts', 'walkthrough.sh');
const PCX_SCRIPT = join(ROOT, 'scripts', 'walkthrough-pcx.sh');
const ONBOARD_SCRIPT = join(ROOT, 'scripts', 'onboard-connector.sh');
const ONBOARD_ORGANIZATION_SCRIPT = join(ROOT, 'scripts', 'onboard-organization.sh');
const SERIES_SCRIPT = join(ROOT, 'scripts', 'walkthrough-series.sh');

interface Run {
  code: number | null;
  output: string;
  seconds: number;
}

/** One script's cap: far above its usual 10–30 s, since on a busy two-core machine a full walkthrough has taken over 60 s (a cap is there to end a hang, not to time the script). */
const RUN_CAP_MS = 180000;

/** Runs a bash script with B pointing at the stack; stdout and stderr interleaved as printed. */
function bash(script: string, base: string, env: Record<string, string> = {}): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script], { cwd: ROOT, env: { ...process.env, B: base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_CAP_MS);
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

describe('against npm start: the walkthroughs and the example connector', () => {
  let start: NpmStartForFile | undefined;
  let base = '';

  beforeAll(async () => {
    start = await npmStartFor(testEnv(), 'walkthrough');
    base = start.base;
  }, 150000);

  afterAll(async () => {
    if (start) expect(await start.stop()).toBe(0);
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
  }, 2 * RUN_CAP_MS);

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
    expect(next.output).toMatch(/ended the relationship \S+ that was open \(terminate\)/);
    // They were partners when the run began: they are partners again when it ends (the console's planners still trade).
    expect(next.output).toMatch(/Alpine and Baltic are partners again, as the walkthrough found them: relationship \S+ active/);
    const third = await bash(SCRIPT, base);
    succeeded(third, 'the run after that');
    expect(third.output).toMatch(/Alpine and Baltic are partners again, as the walkthrough found them: relationship \S+ active/);
  }, 4 * RUN_CAP_MS);

  test('the pcx walkthrough runs twice on the same stack, its profiles readable by their owner only, and the curl walkthrough runs after it', async () => {
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
    // The curl runs before left Alpine and Baltic partners: each pcx run ends that partnership to open its own and restores it.
    expect(second.output).toMatch(/ended relationship \S+ \(terminate\)/);
    expect(second.output).toMatch(/partners again, as found: relationship \S+ active/);
    expect(second.output).toMatch(/proposal \S+: COMMITTED/);
    // Each leaves no truck behind (what is left of its offer withdrawn): the curl walkthrough after it finds only its own.
    expect(second.output).toMatch(/offer \S+: withdrawn/);
    succeeded(await bash(SCRIPT, base), 'the curl walkthrough after the pcx walkthrough');
  }, 3 * RUN_CAP_MS);

  test('the example carrier connector takes its truck from offer to a completed execution reference, across a kill and restart, doing nothing twice', async () => {
    const alpine = new PcxClient({ baseUrl: base, clientId: 'alpine-tms', clientSecret: 'alpine-demo-secret' });
    const baltic = new PcxClient({ baseUrl: base, clientId: 'baltic-erp', clientSecret: 'baltic-demo-secret' });
    await partnership(alpine, baltic);
    const statePath = join(testEnv().dir, `carrier-state-${Date.now()}.json`);
    const readState = () => (existsSync(statePath) ? JSON.parse(readFileSync(statePath, 'utf8')) : undefined);
    let output = '';
    const children: ChildProcess[] = [];
    const connector = () => {
      // One process (node --import tsx, not the tsx wrapper, whose child a SIGKILL would leave running).
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', 'carrier', 'connector.ts'), '--base-url', base, '--state', statePath, '--exit-after-outcomes', '1'], {
        cwd: ROOT,
        env: { ...process.env, PCX_CLIENT_SECRET: 'alpine-demo-secret' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      child.stdout!.on('data', (chunk) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk) => (output += chunk.toString()));
      return { child, exited: new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))) };
    };
    const waitFor = async <T>(what: string, probe: () => T | undefined, ms = 60_000): Promise<T> => {
      for (const deadline = Date.now() + ms; ; await sleep(200)) {
        const value = probe();
        if (value !== undefined) return value;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the connector said:\n${output}`);
      }
    };

    const first = connector();
    try {
      await waitFor('the connector offering its truck', () => readState()?.offers['T-101'] as string | undefined);
      const shipped = shipTheLoad(baltic);
      shipped.catch(() => undefined);
      // Killed once it has accepted the proposal; the tender, the handover and the trip come after.
      await waitFor('the connector accepting the proposal', () => (Object.keys(readState()?.accepted ?? {}).length ? true : undefined));
      first.child.kill('SIGKILL');
      await first.exited;
      const second = connector();
      const { proposal, reference } = await shipped.catch((err) => {
        throw new Error(`${err.message}; the connector said:\n${output}`);
      });
      const code = await second.exited;
      if (code !== 0) throw new Error(`the restarted connector exited with ${code}:\n${output}`);

      expect(output).toMatch(/truck T-101 \(HH-AF 101\) offered as \S+: published/);
      expect(output).toMatch(/accepted proposal \S+ for truck T-101: score [\d.]+ >= 0.5, org-baltic-shippers is a partner we take loads from; broker: Compatible/);
      expect(output).toContain('following the feed from where it stopped');
      expect(output).toMatch(/accepted tender \S+ revision 1/);
      expect(output).toMatch(/imported handover \S+ as trip TRIP-/);
      expect(output).toMatch(/outcome \S+ completed for execution reference/);
      expect(output).toMatch(/withdrew what was left of offer \S+: truck T-101 left on trip TRIP-/);
      expect(reference.status).toBe('completed');
      // One offer, one decision of Alpine's, one outcome: the restart repeated nothing.
      expect(output.match(/offered as/g)).toHaveLength(1);
      const state = readState();
      // The trip is done: the truck is free, to be offered again on the next start.
      expect(state.offers).toEqual({});
      const decided = ((await baltic.proposals.get(proposal)) as any).decisions.filter((d: any) => d.organizationId === 'org-alpine-freight');
      expect(decided).toHaveLength(1);
      const outcomes = await alpine.request<{ items: unknown[] }>('GET', '/execution-outcomes', { query: { executionReferenceId: reference.id } });
      expect(outcomes.data.items).toHaveLength(1);
      expect(state.outcomes[reference.id]).toBeTruthy();
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 240000);

  test('the conformance kit passes npm start with the demo organizations, through its command line', async () => {
    const reportDir = join(testEnv().dir, 'conformance-npm-start');
    const run = await new Promise<Run>((resolve, reject) => {
      const started = Date.now();
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'conformance', 'src', 'cli.ts'), 'broker', '--base-url', base, '--clients', join(ROOT, 'conformance', 'demo-clients.json'), '--report', reportDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (chunk) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk) => (output += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, output, seconds: (Date.now() - started) / 1000 }));
    });
    succeeded(run, 'pcx-conformance broker');
    expect(run.output).toMatch(/^broker profile: (conformant|partial); \d+ checks: \d+ conformant, 0 non-conformant, 1 no traffic; mandatory failing: none$/m);
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8'));
    expect(report.failedMandatory).toEqual([]);
    expect(readFileSync(join(reportDir, 'report.md'), 'utf8')).toContain('# Conformance report: broker profile');
  }, 180000);

  test('a connector of its own, with its own key (the README onboarding), twice on the same stack: created, private_key_jwt, rolled, revoked, retired', async () => {
    const config = join(testEnv().dir, 'onboard-config');
    for (const name of ['the first onboarding', 'the second onboarding']) {
      const run = await bash(ONBOARD_SCRIPT, base, { PCX_CONFIG_DIR: config, NO_COLOR: '1' });
      succeeded(run, name);
      expect(run.output).toMatch(/^connector alpine-yard-\d+-\d+ created: \S+$/m);
      expect(run.output).toMatch(/^alpine-yard-\d+-\d+ reads offers with its own key$/m);
      expect(run.output).toMatch(/^alpine-yard-\d+-\d+ is refused: its key was revoked$/m);
      expect(run.output).toMatch(/^retired$/m);
    }
    // The private keys stayed in their files, readable by their owner only; the profiles name them, never hold them.
    const keys = readdirSync(join(config, 'keys')).filter((f) => !f.endsWith('.public.json'));
    expect(keys.length).toBe(4);
    for (const key of keys) expect(statSync(join(config, 'keys', key)).mode & 0o777).toBe(0o600);
    const profiles = readFileSync(join(config, 'profiles.json'), 'utf8');
    for (const key of keys) expect(profiles).not.toContain(JSON.parse(readFileSync(join(config, 'keys', key), 'utf8')).d);
  }, 2 * RUN_CAP_MS);

  test('a recurring corridor (the README series), twice on the same stack: dates listed ahead as offers, a date skipped, paused and resumed, ended with its offers withdrawn', async () => {
    const config = join(testEnv().dir, 'series-config');
    for (const name of ['the first series', 'the second series']) {
      const run = await bash(SERIES_SCRIPT, base, { PCX_CONFIG_DIR: config, NO_COLOR: '1' });
      succeeded(run, name);
      expect(run.output).toMatch(/^series \S+: active$/m);
      expect(run.output).toMatch(/^listed: \d{4}-\d{2}-\d{2}( \d{4}-\d{2}-\d{2})*$/m);
      expect(run.output).toMatch(/^skipped \d{4}-\d{2}-\d{2}$/m);
      expect(run.output).toMatch(/^series \S+: active again$/m);
      expect(run.output).toMatch(/^series \S+ ended: 0 of its offers still listed$/m);
    }
  }, 2 * RUN_CAP_MS);

  test('a new organization (the README onboarding), twice on the same stack: registered by its LEI, pending, its admin connector from the operator, verified, its own connector publishes', async () => {
    const config = join(testEnv().dir, 'onboard-organization-config');
    for (const name of ['the first organization', 'the second organization']) {
      const run = await bash(ONBOARD_ORGANIZATION_SCRIPT, base, { PCX_CONFIG_DIR: config, NO_COLOR: '1' });
      succeeded(run, name);
      expect(run.output).toMatch(/^org-nordic-\d+-\d+ registered: pending$/m);
      expect(run.output).toMatch(/^org-nordic-\d+-\d+ is not verified yet: it may only manage itself$/m);
      expect(run.output).toMatch(/^org-nordic-\d+-\d+: active$/m);
      expect(run.output).toMatch(/^org-nordic-\d+-\d+ published offer \S+: published$/m);
    }
    // Two admins' and two connectors' keys, readable by their owner only.
    const keys = readdirSync(join(config, 'keys')).filter((f) => !f.endsWith('.public.json'));
    expect(keys.length).toBe(4);
    for (const key of keys) expect(statSync(join(config, 'keys', key)).mode & 0o777).toBe(0o600);
  }, 2 * RUN_CAP_MS);

  test("the adapter gateway's round trip, as the README runs it, twice on the same stack: IFTMIN and a spreadsheet in, the movement completed, IFTSTA out", async () => {
    const roundTrip = () =>
      new Promise<Run>((resolve, reject) => {
        const started = Date.now();
        // `npx tsx examples/adapters/round-trip.ts` as one process (node --import tsx), as above.
        const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', 'adapters', 'round-trip.ts'), '--base-url', base, '--gateway-url', start!.gatewayUrl, '--data-dir', start!.dataDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout!.on('data', (chunk) => (output += chunk.toString()));
        child.stderr!.on('data', (chunk) => (output += chunk.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 150000);
        child.once('error', reject);
        child.once('close', (code) => {
          clearTimeout(timer);
          resolve({ code, output, seconds: (Date.now() - started) / 1000 });
        });
      });
    for (const name of ['the first round trip', 'the second round trip']) {
      const run = await roundTrip();
      succeeded(run, name);
      expect(run.output).toMatch(/^\[round trip\] Baltic's IFTMIN BS-\S+: APERAK "accepted", load request \S+ published$/m);
      expect(run.output).toMatch(/^\[round trip\] Baltic's mailbox: \S+\.iftsta\.edi: /m);
      expect(run.output).toMatch(/^\[round trip\] execution reference \S+: completed/m);
    }
  }, 320000);
});
