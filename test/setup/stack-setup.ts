// Integration tests run twice, once per read-model engine (jest projects `postgres` and `pglite`
// in jest.config.js). Each project's global setup (test/setup/<engine>.ts: jest runs a setup
// module once per path, so each engine has its own) starts one broker process for that engine;
// the Temporal dev server is shared by both (one per jest run, started by whichever setup runs
// first). Tests reach the broker over HTTP; see test/helpers.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startBroker, startTemporal, writeTestRegistry } from '../stack';
import { startDnsServer } from '../dns-server';
import { testCertificates } from '../tls';
import { documents } from '../../api/app';
import { writeGatewayWorkflowBundle } from '../../gateway/bundle';
import { writeWorkflowBundle } from '../../workflows/bundle';

export const PG_ADMIN_URL = process.env.PCX_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type Engine = 'postgres' | 'pglite';

/** What every project shares: one Temporal dev server, one registry, one organization counter. */
interface Shared {
  root: string;
  temporal: Awaited<ReturnType<typeof startTemporal>>;
  registry: { organizationsFile: string; connectorsFile: string; usersFile: string };
  /** Webhook targets: a DNS server answering from a file, and the certificate authority of the test receivers. */
  webhooks: { dns: { address: string; close(): Promise<void> }; dnsFile: string; tlsDir: string; caFile: string };
  users: number;
  stacks: Array<{ broker: { stop(): Promise<void> }; schema?: string }>;
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
    const [temporal] = await Promise.all([startTemporal(), writeWorkflowBundle(bundleFile), writeGatewayWorkflowBundle(gatewayBundleFile)]);
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

export async function setUpStack(engine: Engine) {
  const s = await shared();
  s.users++;
  const dir = join(s.root, engine);
  let databaseUrl = '';
  let schema: string | undefined;
  if (engine === 'postgres') {
    schema = `pcx_test_${process.pid}_${Date.now()}`;
    const admin = new Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    databaseUrl = `${PG_ADMIN_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  }
  const taskQueue = `pcx-test-${process.pid}-${engine}`;
  const brokerEnv = {
    TEMPORAL_ADDRESS: s.temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    // Empty: the embedded PGlite under the broker's data folder, as `npm start` runs it.
    DATABASE_URL: databaseUrl,
    ORGANIZATIONS_FILE: s.registry.organizationsFile,
    CONNECTORS_FILE: s.registry.connectorsFile,
    USERS_FILE: s.registry.usersFile,
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
  };
  const broker = await startBroker(brokerEnv, join(dir, 'data'), join(dir, 'broker.log'));
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
    registry: s.registry,
    webhooks: { dnsFile: s.webhooks.dnsFile, tlsDir: s.webhooks.tlsDir },
  };
  const file = join(dir, 'env.json');
  writeFileSync(file, JSON.stringify(env, null, 2));
  process.env[`PCX_TEST_ENV_${engine.toUpperCase()}`] = file;
}
