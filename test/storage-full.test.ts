// The embedded read model (PGlite, `npm start`'s default) on a full disk (issue 34 part 3): its data
// folder on a small filesystem of this test's own (a tmpfs of 160 MB), filled to the last block
// while a connector works. Writes are refused clearly (503 SERVICE_UNAVAILABLE, reason
// STORAGE_FULL, Retry-After; never a 500), reads go on; once space returns the same commands,
// retried with their keys, succeed without a restart, each once (one Temporal had taken before its
// write failed is answered with what it made), and after a restart everything acknowledged is
// there (no corruption). Needs root for the mount, as the machines here run tests (it fails otherwise).
// Runs once (jest.config.js, ENGINE_INDEPENDENT): the broker is its own, on PGlite.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type BrokerHandle } from './stack';
import { freshOrgs, testEnv } from './helpers';
import { offerBody } from './listing-fixtures';

let dir: string;
let mnt: string;
let broker: BrokerHandle | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pcx-diskfull-'));
  mnt = join(dir, 'mnt');
  mkdirSync(mnt);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160m', 'tmpfs', mnt]);
});

afterAll(async () => {
  await broker?.stop();
  spawnSync('umount', [mnt]);
  rmSync(dir, { recursive: true, force: true });
});

async function call(base: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, headers: res.headers, body: (await res.json().catch(() => undefined)) as any };
}

const fill = () => {
  const avail = Number(execFileSync('df', ['-k', '--output=avail', mnt], { encoding: 'utf8' }).trim().split('\n').pop());
  execFileSync('fallocate', ['-l', `${Math.max(0, avail - 16)}k`, join(mnt, 'filler')]);
};

test('PGlite on a full disk: writes refused with 503 STORAGE_FULL and Retry-After, reads go on; space back, the same commands succeed; a restart finds all', async () => {
  const env = testEnv();
  const [org] = freshOrgs(1);
  const brokerEnv = { ...env.brokerEnv, TEMPORAL_TASK_QUEUE: `${env.taskQueue}-diskfull`, DATABASE_URL: '', RATE_LIMIT_TOKEN_PER_MINUTE: '100000', RATE_LIMIT_ORG_PER_MINUTE: '100000' };
  const dataDir = join(mnt, 'data');
  broker = await startBroker(brokerEnv, dataDir, join(dir, 'broker.log'));
  const tokenOf = async (base: string) => {
    const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.secret }) });
    return ((await res.json()) as any).access_token as string;
  };
  let token = await tokenOf(broker.baseUrl);
  const acknowledged: string[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await call(broker.baseUrl, token, 'POST', '/capacity-offers', offerBody(), { 'idempotency-key': `before-${i}` });
    expect(created.status).toBe(201);
    acknowledged.push(created.body.id);
  }

  // The disk is full: creates are refused clearly and change nothing; reads go on.
  fill();
  const bodies = Array.from({ length: 4 }, () => offerBody());
  for (const [i, body] of bodies.entries()) {
    const refused = await call(broker.baseUrl, token, 'POST', '/capacity-offers', body, { 'idempotency-key': `full-${i}` });
    expect([refused.status, refused.body?.code, refused.body?.reason]).toEqual([503, 'SERVICE_UNAVAILABLE', 'STORAGE_FULL']);
    expect(refused.headers.get('retry-after')).toBe('30');
  }
  const listed = await call(broker.baseUrl, token, 'GET', `/capacity-offers?owner=${org.id}`);
  expect(listed.status).toBe(200);
  expect(listed.body.items.map((o: any) => o.id)).toEqual(expect.arrayContaining(acknowledged));
  expect((await call(broker.baseUrl, token, 'GET', `/capacity-offers/${acknowledged[0]}`)).status).toBe(200);

  // Space returns: the same commands, retried with their keys, succeed without a restart.
  rmSync(join(mnt, 'filler'));
  for (const [i, body] of bodies.entries()) {
    const created = await call(broker.baseUrl, token, 'POST', '/capacity-offers', body, { 'idempotency-key': `full-${i}` });
    expect(created.status).toBe(201);
    acknowledged.push(created.body.id);
    const published = await call(broker.baseUrl, token, 'POST', `/capacity-offers/${created.body.id}/publish`, {}, { 'if-match': '"1"', 'idempotency-key': `publish-${i}` });
    expect(published.status).toBe(200);
  }

  // A restart on the same folder: nothing lost, nothing doubled, the feed in order.
  await broker.stop();
  broker = await startBroker(brokerEnv, dataDir, join(dir, 'broker.log'));
  token = await tokenOf(broker.baseUrl);
  const after = await call(broker.baseUrl, token, 'GET', `/capacity-offers?owner=${org.id}&limit=200`);
  expect(after.body.items.map((o: any) => o.id).sort()).toEqual([...acknowledged].sort());
  expect(new Set(acknowledged).size).toBe(3 + bodies.length);
  const events = (await call(broker.baseUrl, token, 'GET', '/events?limit=200')).body.items;
  expect(new Set(events.map((e: any) => e.id)).size).toBe(events.length);
  expect(events.filter((e: any) => e.type === 'pcx.capacity-offer.published.v1')).toHaveLength(bodies.length);
}, 180_000);
