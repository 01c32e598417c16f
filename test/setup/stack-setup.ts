// Integration tests run twice, once per read-model engine (jest projects `postgres` and `pglite`
// in jest.config.js). Each project's global setup (test/setup/<engine>.ts: jest runs a setup
// module once per path, so each engine has its own) starts one broker process for that engine;
// the Temporal dev server is shared by both (one per jest run, started by whichever setup runs
// first). Tests reach the broker over HTTP; see test/helpers.ts.
//
// The test files that run against `npm start` as a newcomer runs it (NPM_START_FILES) share one,
// started here when the run includes one of them; it boots while the run goes on.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedOnFreePorts, freePort, ROOT, startBroker, startEmbedded, startTemporal, writeTestRegistry, type SharedStartValues } from '../stack';
import { startDnsServer } from '../dns-server';
import { testCertificates } from '../tls';
import { documents } from '../../api/app';
import { writeGatewayWorkflowBundle } from '../../gateway/bundle';
import { writeWorkflowBundle } from '../../workflows/bundle';
import { newKeyFile } from '../../core/secrets';
import { noteSigner } from '../../core/transparency-log-key';

import { adminQuery, schemaUrl } from '../pg-admin';

export type Engine = 'postgres' | 'pglite';

/** What every project shares: one Temporal dev server, one registry, one organization counter. */
interface Shared {
  root: string;
  /** Absent in a run of the npm-start files alone (npmStartOnly). */
  temporal?: Awaited<ReturnType<typeof startTemporal>>;
  registry: { organizationsFile: string; connectorsFile: string; usersFile: string };
  /** Webhook targets: a DNS server answering from a file, and the certificate authority of the test receivers. */
  webhooks: { dns: { address: string; close(): Promise<void> }; dnsFile: string; tlsDir: string; caFile: string };
  users: number;
  stacks: Array<{ broker: { stop(): Promise<void> }; schema?: string }>;
  /** The shared `npm start` (NPM_START_FILES), once a project that runs one of those files has started it. */
  npmStart?: SharedStart;
}

/**
 * The test files that run against `npm start` (scripts/start.ts: its own Temporal dev server, the
 * broker on PGlite, the adapter gateway), the README's set-up: they share one, started by the
 * global setup of the project that runs them (the postgres project; jest.config.js
 * ENGINE_INDEPENDENT) and stopped by the last teardown. Each begins by ending what the others left
 * among the demo organizations (endDemoLeftovers in test/stack.ts), so their order does not matter.
 */
export const NPM_START_FILES = ['walkthrough', 'conformance-connectors', 'clients', 'console', 'oauth-clients'].map((name) => join(ROOT, 'test', `${name}.test.ts`));

/** What a global setup is given of jest's configuration (the parts read here). */
export interface JestConfigs {
  globalConfig?: {
    rootDir?: string;
    testPathPatterns?: { patterns?: string[]; toExecutor?(options: { rootDir: string }): { isMatch(path: string): boolean } };
    onlyChanged?: boolean;
    changedSince?: string;
    findRelatedTests?: boolean;
    lastCommit?: boolean;
    filter?: string | null;
  };
  projectConfig?: { testPathIgnorePatterns?: string[] };
}

/**
 * Which of NPM_START_FILES this project may run in this run: none when the project ignores them
 * (pglite) or when the paths named on the command line match none (`jest test/gateway.test.ts`
 * pays for no npm start). When jest picks the files itself (--onlyChanged, --findRelatedTests, a
 * --filter module), all it does not ignore. An upper bound, never less: the start stops early once
 * all of these are done with it (doneWithSharedStart in test/stack.ts), else at the teardown; and
 * a file that finds no shared start starts its own (npmStartFor), so a wrong answer costs time,
 * never a failure.
 */
export function npmStartFilesToRun({ globalConfig, projectConfig }: JestConfigs): string[] {
  const ignored = (projectConfig?.testPathIgnorePatterns ?? []).map((p) => new RegExp(p));
  const candidates = NPM_START_FILES.filter((file) => !ignored.some((re) => re.test(file)));
  if (candidates.length === 0 || !globalConfig) return candidates;
  if (globalConfig.onlyChanged || globalConfig.changedSince || globalConfig.findRelatedTests || globalConfig.lastCommit || globalConfig.filter) return candidates;
  const patterns = globalConfig.testPathPatterns;
  if (!patterns?.patterns?.length || typeof patterns.toExecutor !== 'function') return candidates;
  const executor = patterns.toExecutor({ rootDir: globalConfig.rootDir ?? ROOT });
  return candidates.filter((file) => executor.isMatch(file));
}

/** The shared start as the setup and the teardown hold it. */
export interface SharedStart {
  values: SharedStartValues;
  /** The process (the tsx wrapper of scripts/start.ts), from the moment it is spawned. */
  child?: ChildProcess & { output?(): string };
  /** Settles when it is ready or has failed (then written to values.statusFile). */
  booting: Promise<void>;
}

/**
 * The shared `npm start`: free ports, a data folder of its own, the adapter gateway on, the run's
 * prebuilt workflow bundles (WORKFLOW_BUNDLE_FILE and GATEWAY_WORKFLOW_BUNDLE_FILE, inherited
 * from this process), in a process group of its own. It boots (10-20 s) while the setup and the
 * first test files go on: the files that need it wait for its status file (npmStartFor in
 * test/stack.ts). A start that fails is reported by those files, not by the setup: the rest of
 * the run goes on.
 */
async function startSharedNpmStart(root: string, tlsDir: string, files: string[]): Promise<SharedStart> {
  const { env, base, gatewayUrl, mtlsBaseUrl, dataDir } = await embeddedOnFreePorts(join(root, 'npm-start'), { gateway: true, mtlsDir: tlsDir });
  const values: SharedStartValues = { baseUrl: base, gatewayUrl: gatewayUrl!, mtlsBaseUrl: mtlsBaseUrl!, tlsDir, dataDir, statusFile: join(root, 'npm-start.status.json'), files, doneFile: join(root, 'npm-start.done') };
  const shared: SharedStart = { values, booting: Promise.resolve() };
  shared.booting = startEmbedded(env, { detached: true, onSpawn: (child) => ((shared.child = child), stopWithThisProcess(child)) }).then(
    (child) => {
      shared.child = child;
      writeFileSync(values.statusFile, JSON.stringify({ ready: true, pid: child.pid }));
    },
    (err) => writeFileSync(values.statusFile, JSON.stringify({ error: (err as Error).message })),
  );
  return shared;
}

/**
 * The shared start lives in its own process group, which a Ctrl-C in the terminal does not reach:
 * should this process end without its global teardown (an interrupt, an exit on a fatal error),
 * the start is interrupted with it. A signal is then handled as it would have been without us.
 */
function stopWithThisProcess(child: ChildProcess): void {
  const interruptGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGINT');
    } catch {
      // gone already
    }
  };
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => {
    const handler = () => {
      interruptGroup();
      // Nobody else listens: the signal's default action (the end of this process), as without us.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.once(signal, handler);
    return [signal, handler] as const;
  });
  process.once('exit', interruptGroup);
  child.once('exit', () => {
    process.off('exit', interruptGroup);
    for (const [signal, handler] of handlers) process.off(signal, handler);
  });
}

async function shared(): Promise<Shared> {
  const g = globalThis as any;
  if (!g.__pcx) {
    const root = mkdtempSync(join(tmpdir(), 'pcx-test-'));
    const dnsFile = join(root, 'dns.json');
    writeFileSync(dnsFile, '{}');
    // The receivers of the tests read their key and certificate from the same folder (testCertificates(tlsDir)).
    const tlsDir = join(root, 'webhook-tls');
    testCertificates(tlsDir);
    const webhooks = { dns: await startDnsServer(dnsFile), dnsFile, tlsDir, caFile: join(tlsDir, 'ca.pem') };
    // The workflow bundle, built once before any test file runs: every broker, \`npm start\` and
    // in-process worker of the run starts from it (they inherit the variable) instead of running
    // webpack itself, in the jest process or beside brokers other files are talking to.
    const bundleFile = join(root, 'workflow-bundle.js');
    // The adapter gateway's, likewise (the npm starts that run one, and test/gateway*.test.ts).
    const gatewayBundleFile = join(root, 'gateway-workflow-bundle.js');
    // Temporal's dev server starts while webpack works (it mostly waits).
    const [temporal] = await Promise.all([npmStartOnly() ? undefined : startTemporal(), writeWorkflowBundle(bundleFile), writeGatewayWorkflowBundle(gatewayBundleFile)]);
    process.env.WORKFLOW_BUNDLE_FILE = bundleFile;
    process.env.GATEWAY_WORKFLOW_BUNDLE_FILE = gatewayBundleFile;
    // The OpenAPI document every test file checks answers against (test/contract.ts), made once
    // from the declarations: loading the whole app in each test file's process cost a second each.
    const openapiFile = join(root, 'openapi-source.json');
    writeFileSync(openapiFile, JSON.stringify(documents.source));
    process.env.PCX_TEST_OPENAPI_SOURCE = openapiFile;
    g.__pcx = { root, temporal, registry: writeTestRegistry(root), webhooks, users: 0, stacks: [] } satisfies Shared;
  }
  return g.__pcx;
}

/**
 * `npm test`'s processes of the npm-start files (PCX_TEST_FILES=second, scripts/test.mjs) run only files that talk
 * to an `npm start` (the shared one, or their own): a broker and a Temporal dev server of the
 * stack's would idle beside them for the whole run (about 2 % of the suite's CPU), so it has none.
 */
export const npmStartOnly = () => process.env.PCX_TEST_FILES === 'second';

export async function setUpStack(engine: Engine, configs: JestConfigs = {}) {
  const s = await shared();
  s.users++;
  // The shared npm start boots (10-20 s) while this project's broker does, and after.
  const npmStartFiles = s.npmStart ? [] : npmStartFilesToRun(configs);
  const npmStart = npmStartFiles.length ? (s.npmStart = await startSharedNpmStart(s.root, s.webhooks.tlsDir, npmStartFiles)) : undefined;
  const dir = join(s.root, engine);
  if (!s.temporal) {
    // No stack (npmStartOnly): the files find their folder and the shared start here.
    mkdirSync(dir, { recursive: true });
    return writeTestEnv(engine, { engine, root: s.root, dir, registry: s.registry, webhooks: { dnsFile: s.webhooks.dnsFile, tlsDir: s.webhooks.tlsDir }, ...(npmStart ? { npmStart: npmStart.values } : {}) });
  }
  let databaseUrl = '';
  let schema: string | undefined;
  if (engine === 'postgres') {
    schema = `pcx_test_${process.pid}_${Date.now()}`;
    await adminQuery(`create schema ${schema}`);
    databaseUrl = schemaUrl(schema);
  }
  const taskQueue = `pcx-test-${process.pid}-${engine}`;
  const mtlsPort = await freePort();
  // The key ring that seals webhook secrets (core/secrets.ts), mounted outside the data folder as
  // in production, so that every replica a test starts beside the stack's broker shares it.
  mkdirSync(dir, { recursive: true });
  const secretsKeyFile = join(dir, 'secrets-key.json');
  if (!existsSync(secretsKeyFile)) writeFileSync(secretsKeyFile, newKeyFile('test-k1'), { mode: 0o600 });
  const brokerEnv = {
    TEMPORAL_ADDRESS: s.temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    // Empty: the embedded PGlite under the broker's data folder, as `npm start` runs it.
    DATABASE_URL: databaseUrl,
    ORGANIZATIONS_FILE: s.registry.organizationsFile,
    CONNECTORS_FILE: s.registry.connectorsFile,
    USERS_FILE: s.registry.usersFile,
    // Two thousand organizations are not imported as records at every start: the file answers for
    // them; test/organizations.test.ts imports a seed of its own, and npm start imports its own.
    REGISTRY_SEED: 'false',
    // Small enough that the tests exercise continue-as-new and the limits.
    WORKFLOW_CONTINUE_AS_NEW_COMMANDS: '6',
    RATE_LIMIT_TOKEN_PER_MINUTE: '100',
    RATE_LIMIT_ORG_PER_MINUTE: '300',
    MAX_PENDING_OUTBOUND: '5',
    // Proposals expire within the test run (test/matching.test.ts, expiry); decisions take a second.
    MATCH_PROPOSAL_VALIDITY_SECONDS: '15',
    // Webhook receivers of the tests listen on 127.0.0.1 with certificates of a test authority;
    // target names resolve through the tests' DNS server, whose answers may change every second.
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    WEBHOOK_CA_FILE: s.webhooks.caFile,
    WEBHOOK_DNS_SERVERS: s.webhooks.dns.address,
    WEBHOOK_DNS_MIN_TTL_SECONDS: '1',
    LOG_LEVEL: 'info',
    SECRETS_KEY_FILE: secretsKeyFile,
    PERSONAL_DATA_KEYS_DIR: join(dir, 'personal-data-keys'),
    // The token endpoint's throttle (api/token-throttle.ts) in a short window, so that its tests
    // see a lock end; per address well above what the suite's failures from 127.0.0.1 add up to
    // (test/oauth-abuse.test.ts throttles an address of its own).
    TOKEN_THROTTLE_WINDOW_SECONDS: '10',
    TOKEN_THROTTLE_CLIENT_FAILURES: '25',
    TOKEN_THROTTLE_ADDRESS_FAILURES: '200',
    // tls_client_auth: certificates issued by the test authority (test/tls.ts) are CA-issued ones.
    CLIENT_CA_FILE: s.webhooks.caFile,
    // The transparency log's one witness, whose signer key test/transparency-log.test.ts holds.
    TRANSPARENCY_LOG_WITNESS_KEYS: noteSigner(readFileSync(join(ROOT, 'test', 'fixtures', 'transparency', 'witness-key.txt'), 'utf8')).verifierKey,
  };
  // The mutual-TLS listener (RFC 8705), its server certificate the test authority's: the stack's
  // broker only (not in brokerEnv, so that a second replica a test starts does not take its port).
  const mtlsEnv = {
    MTLS_PORT: String(mtlsPort),
    MTLS_CERT_FILE: join(s.webhooks.tlsDir, 'server.pem'),
    MTLS_KEY_FILE: join(s.webhooks.tlsDir, 'server.key'),
    MTLS_BASE_URL: `https://127.0.0.1:${mtlsPort}`,
  };
  const broker = await startBroker({ ...brokerEnv, ...mtlsEnv }, join(dir, 'data'), join(dir, 'broker.log'));
  s.stacks.push({ broker, schema });

  const env = {
    engine,
    root: s.root,
    dir,
    schema,
    databaseUrl,
    baseUrl: broker.baseUrl,
    dataDir: broker.dataDir,
    temporalAddress: s.temporal.address,
    taskQueue,
    brokerEnv,
    mtls: { baseUrl: mtlsEnv.MTLS_BASE_URL, env: mtlsEnv },
    registry: s.registry,
    webhooks: { dnsFile: s.webhooks.dnsFile, tlsDir: s.webhooks.tlsDir },
    // The shared npm start, for the project that started it (test/stack.ts npmStartFor).
    ...(npmStart ? { npmStart: npmStart.values } : {}),
  };
  writeTestEnv(engine, env);
}

/** What test/helpers.ts testEnv() reads in every test file of the project. */
function writeTestEnv(engine: Engine, env: Record<string, unknown> & { dir: string }): void {
  const file = join(env.dir, 'env.json');
  writeFileSync(file, JSON.stringify(env, null, 2));
  process.env[`PCX_TEST_ENV_${engine.toUpperCase()}`] = file;
}
