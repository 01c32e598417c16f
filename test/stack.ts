// Starts the real parts the integration tests talk to: a Temporal dev server (in memory) and a
// broker process (worker + API) on PostgreSQL or PGlite. Used by the jest global setup and by the
// PGlite smoke test; no mocks anywhere.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { devServerArgs, temporalCli } from '../scripts/start';

export const ROOT = join(__dirname, '..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
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
export async function startTemporal(options: { dbFile?: string; logFile?: string } = {}): Promise<{ address: string; process: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const out = options.logFile ? openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(temporalCli(), devServerArgs({ port, dbFile: options.dbFile }), { stdio: ['ignore', out, out] });
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
  );
  mkdirSync(dir, { recursive: true });
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
    ]),
  );
  return { organizationsFile, connectorsFile, usersFile };
}

/**
 * `npm start` as a newcomer runs it (scripts/start.ts: its own Temporal dev server and PGlite,
 * whatever the test run uses), with the given ports and data folder; resolves once
 * /health/ready answers 200.
 */
export async function startEmbedded(env: Record<string, string>): Promise<ChildProcess & { output(): string }> {
  // The adapter gateway of each start on a port of its own, unless the test says.
  const gatewayPort = env.GATEWAY_PORT ?? String(await freePort());
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), join(ROOT, 'scripts', 'start.ts')], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: '', DATABASE_URL: '', LOG_LEVEL: 'warn', GATEWAY_PORT: gatewayPort, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let announced = false;
  child.stderr!.on('data', (chunk) => {
    stderr = (stderr + chunk.toString()).slice(-8000);
    announced ||= stderr.includes('[start] ready in ');
  });
  // Generous: on a loaded machine the start compiles and boots two servers.
  const deadline = Date.now() + 120000;
  while (Date.now() < deadline) {
    // Ready as a newcomer learns it: the start's own announcement, and /health/ready answering 200.
    const ready = announced && (await fetch(`http://127.0.0.1:${env.PORT}/health/ready`).then((r) => r.status === 200, () => false));
    if (ready) return Object.assign(child, { output: () => stderr });
    if (child.exitCode !== null) throw new Error(`start exited with ${child.exitCode}:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`npm start did not become ready:\n${stderr}`);
}

/**
 * `npm start` on free ports with a data folder of its own; its base URL names the port as
 * localhost, which PUBLIC_BASE_URL (the token issuer) must match.
 */
export async function startEmbeddedOnFreePorts(dataDir: string, options: { gateway?: boolean } = {}): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const base = `http://localhost:${port}`;
  // The adapter gateway only where the test uses it (test/start.test.ts starts npm start with it,
  // test/gateway*.test.ts a gateway of their own): one process less per start on a two-core machine.
  const child = await startEmbedded({ PORT: String(port), PUBLIC_BASE_URL: base, TEMPORAL_PORT: String(await freePort()), TEMPORAL_UI_PORT: String(await freePort()), DATA_DIR: dataDir, ...(options.gateway ? {} : { GATEWAY: 'off' }) });
  return { child, base };
}

/** Ctrl-C: resolves with the exit code. */
export function interrupt(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGINT');
  });
}
