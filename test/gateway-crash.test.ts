// The adapter gateway killed (SIGKILL) while messages are in flight, as its own process on its
// default engine (PGlite): after a restart every message ends answered, each became exactly one
// load request, and a sender's HTTP retry after the crash is answered within seconds. Then the
// broker under it killed and restarted while the gateway submits: the gateway waits, carries on,
// and every message still ends answered, once.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asInterchange, BARGE, fixture, moved } from './edifact-fixtures';
import { Connector, freshOrgs, listAll, sleep, testEnv } from './helpers';
import { freePort, ROOT, startBroker, type BrokerHandle } from './stack';

jest.setTimeout(180_000);

const [shipper] = freshOrgs(1);
const dir = mkdtempSync(join(tmpdir(), 'pcx-gateway-crash-'));
const organizationsFile = join(dir, 'gateway.json');
writeFileSync(
  organizationsFile,
  JSON.stringify([
    {
      organizationId: shipper.id,
      clientId: shipper.clientId,
      clientSecret: shipper.secret,
      edifact: { senderIds: ['ICT'] },
      loadRequests: { publish: true, visibility: { mode: 'open' }, bodyTypes: ['curtainsider'], goodsCategory: 'chemicals', timeZone: 'Europe/Amsterdam', pointTimeMinutes: 120 },
    },
  ]),
);
const days = Math.ceil((Date.now() - Date.UTC(2019, 8, 20)) / 86_400_000) + 10;
const instruction = (reference: string) => asInterchange(moved(fixture(BARGE), days, [/DTM\+63:[^']*'\n?/]).replace('BGM+340+467332+9', `BGM+340+${reference}+9`), reference);
const mailbox = join(dir, 'mailboxes', shipper.id);

let port: number;
let gateway: ChildProcess | undefined;
let brokerUrl = testEnv().baseUrl;
async function start(): Promise<void> {
  port ??= await freePort();
  gateway = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'gateway', 'main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dir,
      GATEWAY_PORT: String(port),
      GATEWAY_BROKER_URL: brokerUrl,
      GATEWAY_ORGANIZATIONS_FILE: organizationsFile,
      GATEWAY_TASK_QUEUE: `gateway-crash-${process.pid}`,
      GATEWAY_MAILBOX_POLL_MS: '50',
      TEMPORAL_ADDRESS: testEnv().temporalAddress,
      GATEWAY_DATABASE_URL: '',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let log = '';
  gateway.stderr!.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  for (let i = 0; i < 600; i++) {
    if (await fetch(`http://127.0.0.1:${port}/health/live`).then((r) => r.ok, () => false)) return;
    if (gateway.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`the gateway did not start:\n${log}`);
}
function kill(): Promise<void> {
  const child = gateway!;
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGKILL');
  });
}
let broker: BrokerHandle | undefined;
afterAll(async () => {
  if (gateway && gateway.exitCode === null) await kill();
  await broker?.stop();
});

/** Drops the instructions of `references` into the mailbox (written under a dot name, renamed). */
function dropAll(references: string[], prefix: string) {
  mkdirSync(join(mailbox, 'in'), { recursive: true });
  for (const [i, reference] of references.entries()) {
    writeFileSync(join(mailbox, 'in', `.${prefix}${i}.edi`), instruction(reference), 'latin1');
    renameSync(join(mailbox, 'in', `.${prefix}${i}.edi`), join(mailbox, 'in', `${prefix}${i}.edi`));
  }
}

/** Every dropped message answered "accepted", and each one load request, exactly. */
async function answeredOnce(a: Connector, references: string[], prefix: string) {
  for (const i of references.keys()) {
    const aperak = join(mailbox, 'out', `${prefix}${i}.aperak.edi`);
    for (let t = 0; t < 900 && !existsSync(aperak); t++) await sleep(100);
    expect(readFileSync(aperak, 'utf8')).toMatch(/BGM\+313\+[^']*\+29'/);
  }
  for (const r of references) {
    for (let t = 0; t < 100 && (await requestsOf(a, r)).length === 0; t++) await sleep(200);
    expect(await requestsOf(a, r)).toHaveLength(1);
  }
}

const requestsOf = async (c: Connector, reference: string) =>
  (await listAll(c, '/load-requests')).filter((r: any) => (r.externalReferences ?? []).some((x: any) => x.type === 'BGM+340' && x.value === reference));

test('killed with messages in flight, restarted: every message answered once, each one load request', async () => {
  await start();
  const a = await Connector.of(shipper);
  const references = Array.from({ length: 8 }, (_, i) => `CR${Date.now()}-${i}`);
  dropAll(references, 'm');
  // And over HTTP at the same time: the connection is cut by the crash.
  const reference = `CRH${Date.now()}`;
  const send = () => fetch(`http://127.0.0.1:${port}/messages/edifact`, { method: 'POST', body: Buffer.from(instruction(reference), 'latin1'), headers: { authorization: `Bearer ${a.token}`, 'idempotency-key': reference } });
  const first = send().catch(() => undefined);
  // Killed while it takes the files in and processes them (some taken, some submitted, some not yet).
  await sleep(700);
  await kill();
  await first;
  await start();
  // The sender's retry with its key is answered, and acted on once.
  const retry = await send();
  expect([200, 202]).toContain(retry.status);
  await answeredOnce(a, [...references], 'm');
  for (let t = 0; t < 100 && (await requestsOf(a, reference)).length === 0; t++) await sleep(200);
  expect(await requestsOf(a, reference)).toHaveLength(1);
});

test('the broker killed and restarted under the gateway while it submits: every message answered once, each one load request', async () => {
  // A broker of this test's own (on the shared database and Temporal), on a port that survives its restart.
  const env = testEnv();
  const brokerPort = await freePort();
  const brokerEnv = { ...env.brokerEnv, TEMPORAL_TASK_QUEUE: `${env.taskQueue}-gateway-crash-${Date.now()}` };
  const dataDir = join(dir, 'broker');
  broker = await startBroker(brokerEnv, dataDir, undefined, brokerPort);
  if (gateway && gateway.exitCode === null) await kill();
  brokerUrl = broker.baseUrl;
  await start();
  const a = await Connector.of(shipper);
  const references = Array.from({ length: 6 }, (_, i) => `BR${Date.now()}-${i}`);
  dropAll(references, 'b');
  // Killed while the gateway takes the files in and submits them; back three seconds later.
  await sleep(500);
  broker.process.kill('SIGKILL');
  await new Promise((resolve) => broker!.process.once('exit', resolve));
  await sleep(3000);
  broker = await startBroker(brokerEnv, dataDir, undefined, brokerPort);
  await answeredOnce(a, references, 'b');
});
