// Starts the real parts the integration tests talk to: a Temporal dev server (in memory) and a
// broker process (worker + API) on PostgreSQL or PGlite. Used by the jest global setup and by the
// PGlite smoke test; no mocks anywhere.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { devServerArgs, temporalCli } from '../scripts/start';
import type * as Sdk from '../sdk/src';
import { generateConnectorKey, publicOf } from '../sdk/src/keys';

export const ROOT = join(__dirname, '..');

/**
 * A port for a server of the tests, free now. Chosen at random below the kernel's ephemeral range
 * (32768-60999 on Linux), so that no process's outgoing connection can take it between this
 * answer and the server's listen (a port the kernel handed out here could be; it was, under two
 * jest processes: EADDRINUSE at a start), and from this process's share of 20000-32767
 * (PCX_TEST_PORTS, which scripts/test.mjs sets apart for each of its jest processes).
 */
export async function freePort(): Promise<number> {
  const [low, high] = (process.env.PCX_TEST_PORTS ?? '20000-32767').split('-').map(Number);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${low}-${high} after 50 tries`);
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs: number, child?: ChildProcess) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`${what}: process exited with ${child.exitCode}`);
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not become ready in ${timeoutMs} ms`);
}

/**
 * A Temporal dev server on a free port: in-memory by default; with `dbFile`, on a SQLite file as
 * `npm start` runs it. Its logs go to `logFile` when given (a benchmark that must know why it
 * died), else nowhere (they stay out of the test output).
 */
export async function startTemporal(options: { dbFile?: string; logFile?: string; metricsPort?: number } = {}): Promise<{ address: string; process: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const out = options.logFile ? openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(temporalCli(), devServerArgs({ port, dbFile: options.dbFile, metricsPort: options.metricsPort }), { stdio: ['ignore', out, out] });
  child.once('exit', (code, signal) => {
    if (options.logFile) appendFileSync(options.logFile, `\n[temporal dev server exited: code ${code}, signal ${signal}]\n`);
  });
  const address = `127.0.0.1:${port}`;
  const { Connection } = await import('@temporalio/client');
  await waitFor(
    async () => {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return true;
    },
    'Temporal dev server',
    30000,
    child,
  );
  return { address, process: child, stop: () => stopChild(child) };
}

export interface BrokerHandle {
  baseUrl: string;
  dataDir: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** A broker process on `port` (default a free one: a restart on the same port keeps a client's base URL). */
export async function startBroker(env: Record<string, string>, dataDir: string, logFile?: string, port?: number): Promise<BrokerHandle> {
  port ??= await freePort();
  mkdirSync(dataDir, { recursive: true });
  const baseUrl = `http://127.0.0.1:${port}`;
  // `node --import tsx`, not the tsx CLI: one process, so that a test's SIGKILL kills the broker
  // itself and not only a wrapper that would leave the broker running as an orphan.
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'broker.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), PUBLIC_BASE_URL: baseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    if (log.length < 200) log.push(chunk.toString());
    if (logFile) appendFileSync(logFile, chunk);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  try {
    await waitFor(async () => (await fetch(`${baseUrl}/health/ready`)).status === 200, 'broker', 60000, child);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${log.join('').slice(-3000)}`);
  }
  return {
    baseUrl,
    dataDir,
    process: child,
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10000).unref();
  });
}

/** The organizations and connectors of the test registry (written to files for the broker). */
// Every test takes fresh organizations (freshOrgs); the last RESERVED_ORGANIZATIONS are for tests that start
// brokers of their own (the PGlite smoke run).
export const TEST_ORGANIZATION_COUNT = 2000;
/** The benchmarks' workloads (bench/): their first 1,000 organizations, as when they were measured. */
export const BENCH_ORGANIZATION_COUNT = 1000;
export const RESERVED_ORGANIZATIONS = 10;
const orgName = (n: number) => `org-${String(n).padStart(3, '0')}`;
/** Two reserved organizations whose users test/users.test.ts signs in (a planner, a viewer and a disabled user of the first; a planner of the second). */
export const USER_ORGANIZATIONS = [orgName(TEST_ORGANIZATION_COUNT - 3), orgName(TEST_ORGANIZATION_COUNT - 2)] as const;

export function writeTestRegistry(dir: string): { organizationsFile: string; connectorsFile: string; usersFile: string } {
  const all = [
    'relationships:manage', 'capacity:publish', 'capacity:read', 'loads:publish', 'loads:read', 'matches:read', 'matches:decide',
    'tenders:publish', 'tenders:read', 'tenders:decide', 'commitments:read', 'handovers:write', 'handovers:read', 'handovers:acknowledge',
    'execution:update', 'outcomes:write', 'outcomes:review', 'connectors:manage',
  ];
  const sharing = all.filter((s) => s !== 'relationships:manage' && s !== 'connectors:manage');
  const ed25519 = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const keys = { es256: generateConnectorKey().privateJwk, ed25519: { ...ed25519, kid: 'ed-1' }, other: generateConnectorKey().privateJwk };
  const organizations: any[] = [];
  const connectors: any[] = [];
  for (let i = 1; i <= TEST_ORGANIZATION_COUNT; i++) {
    const n = String(i).padStart(3, '0');
    organizations.push({ organizationId: `org-${n}`, name: `Test organization ${n}`, status: 'active', partneringPolicy: { grantedScopes: sharing } });
    connectors.push({ organizationId: `org-${n}`, name: `connector ${n}`, clientId: `client-${n}`, clientSecret: `secret-${n}`, scopes: all });
  }
  organizations.push(
    { organizationId: 'org-inactive', name: 'Inactive organization', status: 'inactive', partneringPolicy: { grantedScopes: sharing } },
    { organizationId: 'org-restricted', name: 'Grants only capacity:read', status: 'active', partneringPolicy: { grantedScopes: ['capacity:read'] } },
    { organizationId: 'org-special', name: 'Owner of odd connectors', status: 'active', partneringPolicy: { grantedScopes: sharing } },
    { organizationId: 'org-operator', name: 'Protocol operator', status: 'active', role: 'operator', partneringPolicy: { grantedScopes: [] } },
  );
  connectors.push(
    { organizationId: 'org-inactive', clientId: 'client-inactive-org', clientSecret: 'secret-x', scopes: all },
    { organizationId: 'org-restricted', clientId: 'client-restricted', clientSecret: 'secret-r', scopes: all },
    { organizationId: 'org-special', clientId: 'client-inactive', clientSecret: 'secret-i', scopes: all, status: 'inactive' },
    { organizationId: 'org-special', clientId: 'client-other-env', clientSecret: 'secret-e', scopes: all, environment: 'production' },
    { organizationId: 'org-operator', clientId: 'client-operator', clientSecret: 'secret-o', scopes: ['exchange:admin', 'capacity:publish', 'capacity:read', 'loads:read'] },
    // A participant holding the admin scope is still no operator.
    { organizationId: 'org-special', clientId: 'client-pretender', clientSecret: 'secret-p', scopes: [...all, 'exchange:admin'] },
    // private_key_jwt (test/client-assertions.test.ts): keys only, no secret; their private halves in connector-keys.json.
    { organizationId: 'org-special', clientId: 'client-keys', scopes: all, jwks: { keys: [publicOf(keys.es256), publicOf(keys.ed25519)] } },
    { organizationId: 'org-special', clientId: 'client-keys-other', scopes: all, jwks: { keys: [publicOf(keys.other)] } },
  );
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'connector-keys.json'), JSON.stringify(keys), { mode: 0o600 });
  const organizationsFile = join(dir, 'organizations.json');
  const connectorsFile = join(dir, 'connectors.json');
  writeFileSync(organizationsFile, JSON.stringify(organizations, null, 2));
  writeFileSync(connectorsFile, JSON.stringify(connectors, null, 2));
  // Interactive users of reserved organizations (test/users.test.ts).
  const usersFile = join(dir, 'users.json');
  writeFileSync(
    usersFile,
    JSON.stringify([
      { userId: 'planner-a', organizationId: USER_ORGANIZATIONS[0], roles: ['planner'], password: 'pw-planner' },
      { userId: 'viewer-a', organizationId: USER_ORGANIZATIONS[0], roles: ['viewer'], password: 'pw-viewer' },
      { userId: 'disabled-a', organizationId: USER_ORGANIZATIONS[0], roles: ['planner'], status: 'inactive', password: 'pw-disabled' },
      { userId: 'planner-b', organizationId: USER_ORGANIZATIONS[1], roles: ['planner'], password: 'pw-planner' },
      { userId: 'admin-a', organizationId: USER_ORGANIZATIONS[0], roles: ['admin'], password: 'pw-admin' },
    ]),
  );
  return { organizationsFile, connectorsFile, usersFile };
}

/**
 * `npm start` as a newcomer runs it (scripts/start.ts: its own Temporal dev server and PGlite,
 * whatever the test run uses), with the given ports and data folder; resolves once
 * /health/ready answers 200. `detached`: in a process group of its own (the suite's shared start,
 * test/setup/stack-setup.ts), stopped with stopEmbedded; else in the test process's group, which
 * a Ctrl-C in the terminal reaches too. `onSpawn` is told the process as soon as it exists.
 */
export async function startEmbedded(env: Record<string, string>, options: { detached?: boolean; onSpawn?: (child: ChildProcess) => void } = {}): Promise<ChildProcess & { output(): string }> {
  // The adapter gateway of each start on a port of its own, unless the test says.
  const gatewayPort = env.GATEWAY_PORT ?? String(await freePort());
  // `node --import tsx`, as npm start runs it: the tsx CLI relays Ctrl-C and SIGKILLs its child when
  // the child has not confirmed the signal within 30 ms, which a busy machine misses (exit 130).
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'start.ts')], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: '', DATABASE_URL: '', LOG_LEVEL: 'warn', GATEWAY_PORT: gatewayPort, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: options.detached ?? false,
  });
  options.onSpawn?.(child);
  let stderr = '';
  let announced = false;
  child.stderr!.on('data', (chunk) => {
    stderr = (stderr + chunk.toString()).slice(-8000);
    announced ||= stderr.includes('[start] ready in ');
  });
  const withOutput = Object.assign(child, { output: () => stderr });
  // Generous: on a loaded machine the start compiles and boots two servers.
  const deadline = Date.now() + 120000;
  while (Date.now() < deadline) {
    // Ready as a newcomer learns it: the start's own announcement, and /health/ready answering 200.
    const ready = announced && (await fetch(`http://127.0.0.1:${env.PORT}/health/ready`).then((r) => r.status === 200, () => false));
    if (ready) return withOutput;
    if (child.exitCode !== null) throw new Error(`start exited with ${child.exitCode}:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  if (options.detached) await stopEmbedded(child);
  else child.kill('SIGKILL');
  throw new Error(`npm start did not become ready:\n${stderr}`);
}

/** Where an `npm start` of the tests answers: its base URL (the broker), its adapter gateway's URL (with `gateway`) and its data folder. */
export interface EmbeddedPlace {
  base: string;
  gatewayUrl?: string;
  /** Its mutual-TLS address (with `mtlsDir`): the test authority's server certificate, and its CA as CLIENT_CA_FILE. */
  mtlsBaseUrl?: string;
  dataDir: string;
  /** What startEmbedded is given: the ports and the folder. */
  env: Record<string, string>;
}

/**
 * Free ports and a data folder for an `npm start`; its base URL names the port as localhost,
 * which PUBLIC_BASE_URL (the token issuer) must match; so does the gateway's URL, as the console
 * calls it (CONSOLE_GATEWAY_URL). The adapter gateway only where the test uses it
 * (test/start.test.ts starts npm start with it, as does the suite's shared start;
 * test/gateway*.test.ts a gateway of their own): one process less per start on a two-core machine.
 */
export async function embeddedOnFreePorts(dataDir: string, options: { gateway?: boolean; mtlsDir?: string } = {}): Promise<EmbeddedPlace> {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const gatewayPort = String(await freePort());
  const env: Record<string, string> = { PORT: String(port), PUBLIC_BASE_URL: base, TEMPORAL_PORT: String(await freePort()), TEMPORAL_UI_PORT: String(await freePort()), DATA_DIR: dataDir, ...(options.gateway ? { GATEWAY_PORT: gatewayPort } : { GATEWAY: 'off' }) };
  let mtlsBaseUrl: string | undefined;
  if (options.mtlsDir) {
    // The mutual-TLS address an operator adds to npm start (RFC 8705): the third-party clients' test uses it.
    const mtlsPort = await freePort();
    mtlsBaseUrl = `https://localhost:${mtlsPort}`;
    Object.assign(env, { MTLS_PORT: String(mtlsPort), MTLS_CERT_FILE: join(options.mtlsDir, 'server.pem'), MTLS_KEY_FILE: join(options.mtlsDir, 'server.key'), MTLS_BASE_URL: mtlsBaseUrl, CLIENT_CA_FILE: join(options.mtlsDir, 'ca.pem') });
  }
  return { base, dataDir, env, ...(options.gateway ? { gatewayUrl: `http://localhost:${gatewayPort}` } : {}), ...(mtlsBaseUrl ? { mtlsBaseUrl } : {}) };
}

/** `npm start` on free ports with a data folder of its own (embeddedOnFreePorts), started. */
export async function startEmbeddedOnFreePorts(dataDir: string, options: { gateway?: boolean; mtlsDir?: string } = {}): Promise<{ child: ChildProcess & { output(): string }; base: string; gatewayUrl?: string; mtlsBaseUrl?: string; dataDir: string }> {
  const { env, ...place } = await embeddedOnFreePorts(dataDir, options);
  return { child: await startEmbedded(env), ...place };
}

/** Ctrl-C: resolves with the exit code. */
export function interrupt(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGINT');
  });
}

/**
 * A detached start (a process group of its own) stopped as Ctrl-C would stop it: SIGINT to the
 * group (scripts/start.ts, which stops Temporal, the broker and the gateway
 * in order; `interrupted`: sent already, not again); SIGKILL to the group if it has not exited
 * after `ms`. Resolves with its exit code (null if it had to be killed).
 */
export function stopEmbedded(child: ChildProcess, ms = 30000, options: { interrupted?: boolean } = {}): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    if (!options.interrupted) signalGroup(child, 'SIGINT');
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Gone already (or never started): nothing to stop.
  }
}

/** The `npm start` a test file runs against, and how it is left when the file is done. */
export interface NpmStartForFile {
  base: string;
  gatewayUrl: string;
  /** Its mutual-TLS address, and the folder of the test authority whose CA it trusts for client certificates. */
  mtlsBaseUrl: string;
  tlsDir: string;
  dataDir: string;
  /** Nothing for the shared start (the global teardown stops it); a start of the file's own is interrupted: its exit code. */
  stop(): Promise<number | null>;
}

/**
 * The `npm start` of a test file that runs against one (test/setup/stack-setup.ts NPM_START_FILES):
 * the run's shared start, once it is ready (it boots while the run goes on), or, when the run has
 * none (a file run in a way the global setup did not foresee), one of its own under
 * `<dir>/<name>`. Either way, what other files left among the demo organizations is ended first
 * (endDemoLeftovers): the files may run in any order.
 */
export async function npmStartFor(env: { dir: string; npmStart?: SharedStartValues; webhooks: { tlsDir: string } }, name: string): Promise<NpmStartForFile> {
  const shared = env.npmStart;
  let start: NpmStartForFile;
  if (shared) {
    const { pid } = await sharedStartReady(shared);
    const testPath = expect.getState().testPath ?? name;
    start = { base: shared.baseUrl, gatewayUrl: shared.gatewayUrl, mtlsBaseUrl: shared.mtlsBaseUrl, tlsDir: shared.tlsDir, dataDir: shared.dataDir, stop: async () => (doneWithSharedStart(shared, testPath, pid), 0) };
  } else {
    const own = await startEmbeddedOnFreePorts(join(env.dir, name), { gateway: true, mtlsDir: env.webhooks.tlsDir });
    start = { base: own.base, gatewayUrl: own.gatewayUrl!, mtlsBaseUrl: own.mtlsBaseUrl!, tlsDir: env.webhooks.tlsDir, dataDir: own.dataDir, stop: () => interrupt(own.child) };
  }
  try {
    await endDemoLeftovers(start.base);
  } catch (err) {
    await start.stop();
    throw err;
  }
  return start;
}

/** The shared start as the global setup passes it to the test files (TestEnv.npmStart in test/helpers.ts). */
export interface SharedStartValues {
  baseUrl: string;
  gatewayUrl: string;
  /** Its mutual-TLS address, and the test authority's folder (its server certificate, and its CA trusted for client certificates). */
  mtlsBaseUrl: string;
  tlsDir: string;
  dataDir: string;
  /** Written by the setup once the start is ready ({"ready":true,"pid":...}) or has failed ({"error":...}). */
  statusFile: string;
  /** The test files of this run that may use it (NPM_START_FILES the run's paths select): an upper bound of those that will. */
  files: string[];
  /** Each of those files appends its path when it is done with the start (doneWithSharedStart). */
  doneFile: string;
}

/** Waits for the shared start's status file: resolves once it is ready (with the id of its process group), throws why it did not start. */
async function sharedStartReady(shared: SharedStartValues): Promise<{ pid: number }> {
  // startEmbedded gives up after 120 s and then writes why.
  for (const deadline = Date.now() + 180000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    if (!existsSync(shared.statusFile)) continue;
    const status = JSON.parse(readFileSync(shared.statusFile, 'utf8')) as { ready?: boolean; pid?: number; error?: string };
    if (status.ready) return { pid: status.pid! };
    throw new Error(`the shared npm start (test/setup/stack-setup.ts) did not start: ${status.error}`);
  }
  throw new Error(`the shared npm start (test/setup/stack-setup.ts) said nothing in ${shared.statusFile} for 180 s`);
}

/** Whether every file that may use the shared start has said it is done with it. */
export function allDoneWithSharedStart(shared: SharedStartValues): boolean {
  const done = new Set(existsSync(shared.doneFile) ? readFileSync(shared.doneFile, 'utf8').split('\n') : []);
  return shared.files.every((file) => done.has(file));
}

/**
 * A file is done with the shared start. When it is the last of the files that may use it, the
 * start is interrupted now (SIGINT to its process group), not waited for: it stops (some
 * seconds) and leaves the machine's two cores to the rest of the run, and the global teardown
 * only collects its exit code. (An appended line is written whole, whichever process writes it.)
 */
function doneWithSharedStart(shared: SharedStartValues, testPath: string, pid: number): void {
  appendFileSync(shared.doneFile, `${testPath}\n`);
  if (!allDoneWithSharedStart(shared)) return;
  try {
    process.kill(-pid, 'SIGINT');
  } catch {
    // gone already
  }
}

/** The demo connectors of config/demo-clients.json (the organizations the walkthroughs, the console and the kit use). */
const DEMO = {
  alpine: { clientId: 'alpine-tms', clientSecret: 'alpine-demo-secret', organizationId: 'org-alpine-freight' },
  baltic: { clientId: 'baltic-erp', clientSecret: 'baltic-demo-secret', organizationId: 'org-baltic-shippers' },
  cargo: { clientId: 'cargo-coop-planner', clientSecret: 'cargo-coop-demo-secret', organizationId: 'org-cargo-coop' },
  operator: { clientId: 'pcx-operator', clientSecret: 'operator-demo-secret' },
} as const;

/**
 * What earlier test files left on a shared `npm start` among the demo organizations, ended, so
 * that a file starts from the market a fresh start shows: every open relationship among Alpine,
 * Baltic and Cargo Co-op ended; their published offers and requests withdrawn (which withdraws
 * their open proposals; the gateway's spreadsheet offers and IFTMIN requests, which everyone may
 * see, among them); the sandbox's faults and event disorder for their connectors ended. Tenders,
 * commitments and execution references stay: each test follows its own by id. Answers what it
 * ended.
 */
export async function endDemoLeftovers(base: string): Promise<string[]> {
  // Loaded here, not with this module: the global setup and most test files never need it.
  const { PcxClient, isProblem } = require('../sdk/src') as typeof Sdk;
  const client = (c: { clientId: string; clientSecret: string }) => new PcxClient({ baseUrl: base, clientId: c.clientId, clientSecret: c.clientSecret });
  const orgs = [DEMO.alpine, DEMO.baltic, DEMO.cargo].map((d) => ({ ...d, pcx: client(d) }));
  const reason = { reason: 'left by an earlier test file' };
  const ended: string[] = [];
  /** One ending; a resource that ended or moved on meanwhile (matched, expired) is out of the way either way. */
  const end = async (what: string, command: () => Promise<unknown>) => {
    try {
      await command();
      ended.push(what);
    } catch (err) {
      if (!(['INVALID_STATE_TRANSITION', 'STALE_RESOURCE_VERSION', 'RESOURCE_NOT_FOUND'] as const).some((code) => isProblem(err, code))) throw err;
    }
  };
  const all = async <T>(items: AsyncIterable<T>) => {
    const list: T[] = [];
    for await (const item of items) list.push(item);
    return list;
  };
  const operator = client(DEMO.operator);
  await Promise.all(orgs.map(({ clientId }) => operator.request('POST', '/sandbox/reset', { body: { clientId } })));
  // Each pair once, as the first of the two; the three pairs at a time.
  const pairs = orgs.flatMap((x, i) => orgs.slice(i + 1).map((y) => [x, y] as const));
  await Promise.all(
    pairs.map(async ([x, y]) => {
      for (const r of await all(x.pcx.relationships.list({ counterpart: y.organizationId, status: ['draft', 'requested', 'active', 'suspended'] }))) {
        const command = r.status === 'active' || r.status === 'suspended' ? 'terminate' : r.requestingOrganizationId === x.organizationId ? 'withdraw' : 'reject';
        await end(`relationship ${r.id} (${command})`, () => x.pcx.relationships.command(command, r, reason, { redecideOnStale: true }));
      }
    }),
  );
  // Series first: one left active would list its dates again after their withdrawal.
  await Promise.all(
    orgs.map(async (x) => {
      for (const series of await all(x.pcx.series.list({ status: ['active', 'paused'] }))) {
        await end(`series ${series.id}`, () => x.pcx.series.command('end', series, reason, { redecideOnStale: true }));
      }
    }),
  );
  // Read whole before the first withdrawal (the lists change under it); each organization's at a time.
  await Promise.all(
    orgs.map(async (x) => {
      const offers = await all(x.pcx.offers.list({ owner: x.organizationId, status: ['published', 'partiallyMatched'] }));
      const requests = await all(x.pcx.requests.list({ owner: x.organizationId, status: ['published', 'proposed'] }));
      for (const o of offers) await end(`offer ${o.id}`, () => x.pcx.offers.withdraw(o, reason, { redecideOnStale: true }));
      for (const r of requests) await end(`request ${r.id}`, () => x.pcx.requests.withdraw(r, reason, { redecideOnStale: true }));
    }),
  );
  return ended;
}
