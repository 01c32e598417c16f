// The read model's PostgreSQL lost and back, under load (issue 34 part 3): a server of this test's
// own (initdb from the binaries in /usr/local/bin; the shared one is untouched) is restarted, then
// SIGKILLed and started again, while four connectors create and publish offers as connectors do
// (an Idempotency-Key per command, retried on 503 or a lost connection). While it is away every
// answer is 503 with Retry-After, never a 500; readiness says why; afterwards every acknowledged
// command's effect is there once, the broker catches up by itself, and each feed keeps its order.
// Runs once, on PostgreSQL (jest.config.js, ENGINE_INDEPENDENT).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startBroker, type BrokerHandle } from './stack';
import { freshOrgs, sleep, testEnv } from './helpers';
import { offerBody } from './listing-fixtures';

const BIN = '/usr/local/bin';
const asPostgres = (cmd: string, args: string[]) => {
  const run = process.getuid?.() === 0 ? spawnSync('runuser', ['-u', 'postgres', '--', join(BIN, cmd), ...args], { encoding: 'utf8', timeout: 60_000 }) : spawnSync(join(BIN, cmd), args, { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${run.status} ${run.stderr}`);
  return run.stdout;
};

let dir: string;
let pgData: string;
let port: number;
let broker: BrokerHandle | undefined;

function pgStart() {
  asPostgres('pg_ctl', ['-D', pgData, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, '-l', join(dir, 'pg.log'), '-w', '-t', '30', 'start']);
}
const postmasterPid = () => Number(readFileSync(join(pgData, 'postmaster.pid'), 'utf8').split('\n')[0]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pcx-dbchaos-'));
  chmodSync(dir, 0o777);
  pgData = join(dir, 'pg');
  mkdirSync(pgData);
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', pgData]);
  asPostgres('initdb', ['-D', pgData, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  port = await freePort();
  pgStart();
}, 120_000);

afterAll(async () => {
  await broker?.stop();
  try {
    asPostgres('pg_ctl', ['-D', pgData, '-m', 'immediate', 'stop']);
  } catch {
    // already stopped
  }
  rmSync(dir, { recursive: true, force: true });
});

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

async function call(base: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, headers: res.headers, body: await res.json().catch(() => undefined) };
}

test('PostgreSQL restarted and killed under four connectors: 503 with Retry-After while away, never a 500, nothing acknowledged lost or doubled, feeds in order', async () => {
  const env = testEnv();
  const orgs = freshOrgs(4);
  broker = await startBroker({ ...env.brokerEnv, TEMPORAL_TASK_QUEUE: `${env.taskQueue}-dbchaos`, DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, RATE_LIMIT_TOKEN_PER_MINUTE: '100000', RATE_LIMIT_ORG_PER_MINUTE: '100000' }, join(dir, 'data'), join(dir, 'broker.log'));
  const base = broker.baseUrl;
  const tokens = await Promise.all(
    orgs.map(async (o) => {
      const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: o.clientId, client_secret: o.secret }) });
      return ((await res.json()) as any).access_token as string;
    }),
  );

  const seen: Array<{ status: number; at: number; retryAfter: string | null; code?: string }> = [];
  const acknowledged = new Map<string, { org: number; id: string; version: number }>();
  let stop = false;
  /** One command as a connector sends it: the same key until answered, once a second on 503 or a lost connection, for at most 90 s. */
  const command = async (token: string, method: string, path: string, body: unknown, key: string, headers: Record<string, string> = {}) => {
    const until = Date.now() + 90_000;
    for (;;) {
      const reply = await call(base, token, method, path, body, { 'idempotency-key': key, ...headers }).catch(() => ({ status: 0, headers: new Headers(), body: undefined }) as Reply);
      seen.push({ status: reply.status, at: Date.now(), retryAfter: reply.headers.get('retry-after'), code: reply.body?.code });
      const retry = reply.status === 0 || reply.status === 503 || (reply.status === 409 && reply.body?.code === 'IDEMPOTENCY_IN_PROGRESS');
      if (!retry) return reply;
      if (Date.now() > until) throw new Error(`${method} ${path} not answered within 90 s (last ${reply.status})`);
      await sleep(1000);
    }
  };
  const connector = async (i: number) => {
    for (let n = 0; !stop; n++) {
      const created = await command(tokens[i], 'POST', '/capacity-offers', offerBody(), `chaos-${i}-${n}-create`);
      expect([created.status, created.body?.code]).toEqual([201, undefined]);
      acknowledged.set(`${i}-${n}-create`, { org: i, id: created.body.id, version: 1 });
      const published = await command(tokens[i], 'POST', `/capacity-offers/${created.body.id}/publish`, {}, `chaos-${i}-${n}-publish`, { 'if-match': '"1"' });
      expect([published.status, published.body?.code]).toEqual([200, undefined]);
      acknowledged.set(`${i}-${n}-create`, { org: i, id: created.body.id, version: published.body.resourceVersion });
    }
  };
  const load = Promise.all(orgs.map((_, i) => connector(i)));
  const readiness = async () => (await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.json().then((b) => ({ status: r.status, body: b as any }))).catch(() => undefined));

  // 1. A restart (fast shutdown): the API answers 503 while the server is away.
  await sleep(3000);
  const restartAt = Date.now();
  asPostgres('pg_ctl', ['-D', pgData, '-m', 'fast', 'stop']);
  await sleep(1500);
  const down = await readiness();
  expect(down?.status).toBe(503);
  expect(down?.body).toMatchObject({ status: 'not-ready', checks: { database: 'down' }, reasons: { database: expect.stringMatching(/ECONNREFUSED|08006|connect/) } });
  await sleep(1500);
  pgStart();
  const restartedAt = Date.now();

  // 2. A kill of the postmaster and its children (SIGKILL), then a start: crash recovery.
  await sleep(4000);
  process.kill(postmasterPid(), 'SIGKILL');
  spawnSync('pkill', ['-9', '-f', `postgres.*${pgData}`]);
  await sleep(2000);
  pgStart();
  await sleep(4000);
  stop = true;
  await load;

  // Never a 500; every 503 said when to retry.
  expect(seen.filter((s) => s.status >= 500 && s.status !== 503)).toEqual([]);
  const unavailable = seen.filter((s) => s.status === 503);
  expect(unavailable.length).toBeGreaterThan(0);
  expect(unavailable.filter((s) => !s.retryAfter)).toEqual([]);
  const during = unavailable.filter((s) => s.at >= restartAt && s.at <= restartedAt + 10_000);
  const seconds = during.length ? (Math.max(...during.map((s) => s.at)) - Math.min(...during.map((s) => s.at))) / 1000 : 0;
  console.log(`database chaos: ${seen.length} answers, ${unavailable.length} of them 503; 503s during the restart over ${seconds.toFixed(1)} s; ${acknowledged.size} offers acknowledged`);

  // Ready again; everything acknowledged is there, once, at its version at least.
  for (let i = 0; i < 60 && (await readiness())?.status !== 200; i++) await sleep(500);
  expect((await readiness())?.status).toBe(200);
  for (const [i, token] of tokens.entries()) {
    const mine = [...acknowledged.values()].filter((a) => a.org === i);
    const listed: any[] = [];
    for (let cursor: string | undefined; ; ) {
      const page = await call(base, token, 'GET', `/capacity-offers?owner=${orgs[i].id}&limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      listed.push(...page.body.items);
      if (!page.body.nextCursor) break;
      cursor = page.body.nextCursor;
    }
    // One offer per acknowledged create: a create retried across the outage made none twice.
    expect(listed.map((o) => o.id).sort()).toEqual(mine.map((a) => a.id).sort());
    for (const a of mine) expect(listed.find((o) => o.id === a.id).resourceVersion).toBeGreaterThanOrEqual(a.version);
    // The feed: each event once, each subject's versions rising.
    const events: any[] = [];
    for (let cursor: string | undefined; ; ) {
      const page = await call(base, token, 'GET', `/events?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      events.push(...page.body.items);
      if (!page.body.nextCursor || page.body.items.length === 0) break;
      cursor = page.body.nextCursor;
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const last = new Map<string, number>();
    for (const e of events) {
      expect(e.resourceversion).toBeGreaterThan(last.get(e.subject) ?? 0);
      last.set(e.subject, e.resourceversion);
    }
    for (const a of mine) expect(last.get(`capacity-offers/${a.id}`)).toBeGreaterThanOrEqual(a.version);
  }
}, 240_000);
