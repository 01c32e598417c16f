// The read model's PostgreSQL lost and back, under load (issue 34 part 3): a server of this test's
// own (initdb from the binaries in /usr/local/bin; the shared one is untouched) is restarted, then
// SIGKILLed and started again, while four connectors create and publish offers as connectors do
// (an Idempotency-Key per command, retried on 503 or a lost connection). While it is away every
// answer is 503 with Retry-After, never a 500; readiness says why; afterwards every acknowledged
// command's effect is there once, the broker catches up by itself, and each feed keeps its order.
// Runs once, on PostgreSQL (jest.config.js, ENGINE_INDEPENDENT).
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startBroker, type BrokerHandle } from './stack';
import { freshOrgs, sleep, testEnv } from './helpers';
import { offerBody } from './listing-fixtures';
import { openDb } from '../core/db';
import { isDatabaseUnavailable } from '../api/http';

const BIN = '/usr/local/bin';
const asPostgres = (cmd: string, args: string[]) => {
  const run = process.getuid?.() === 0 ? spawnSync('runuser', ['-u', 'postgres', '--', join(BIN, cmd), ...args], { encoding: 'utf8', timeout: 60_000 }) : spawnSync(join(BIN, cmd), args, { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${run.status} ${run.stderr}`);
  return run.stdout;
};

const asPostgresAsync = (cmd: string, args: string[]) =>
  new Promise<string>((resolve, reject) => {
    const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', join(BIN, cmd), ...args]] : [join(BIN, cmd), args];
    execFile(file, argv, { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${args.join(' ')}: ${err.message} ${stderr}`)) : resolve(stdout)));
  });

let dir: string;
let pgData: string;
let port: number;
let broker: BrokerHandle | undefined;
/** Set when the load is to end: at its time, or when the test fails. */
let stop = false;

/** Started without blocking the event loop, so that the connectors go on meanwhile. */
async function pgStart() {
  await asPostgresAsync('pg_ctl', ['-D', pgData, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, '-l', join(dir, 'pg.log'), '-w', '-t', '30', 'start']);
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
  await pgStart();
}, 120_000);

afterAll(async () => {
  stop = true;
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

/** Every wait of this test has a deadline: a promise not settled within `ms` fails with what it was waiting for and the progress so far. */
function within<T>(ms: number, what: string, promise: Promise<T>, progress: () => string = () => ''): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms. ${progress()}`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
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

/** The postmaster's children (by parent id, read before it is killed: they outlive it and hold its shared memory). */
function childrenOf(pid: number): number[] {
  const out = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8', timeout: 5000 }).stdout ?? '';
  return out.split('\n').filter(Boolean).map(Number);
}

/** The seconds from the first to the last 503 among answers given in [from, to). */
function window503(seen: Array<{ status: number; at: number }>, from: number, to: number): number {
  const during = seen.filter((s) => s.status === 503 && s.at >= from && s.at < to).map((s) => s.at);
  return during.length ? (Math.max(...during) - Math.min(...during)) / 1000 : 0;
}

test('a connection killed under a query (its backend SIGKILLed) is the database away, in a query and in a transaction, and the pool serves again after the crash recovery', async () => {
  const db = await openDb({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, dataDir: join(dir, 'unused'), poolSize: 2 });
  try {
    const killUnder = async (run: (pidOf: (pid: number) => void) => Promise<unknown>) => {
      let backend = 0;
      const running = run((pid) => (backend = pid)).then(
        () => undefined,
        (err) => err,
      );
      for (const until = Date.now() + 10_000; !backend && Date.now() < until; ) await sleep(50);
      expect(backend).toBeGreaterThan(0);
      await sleep(300); // into pg_sleep
      try {
        process.kill(backend, 'SIGKILL');
      } catch (err) {
        // Gone already: under load the crash recovery of the kill before can end a backend it
        // handed out as it finished; the query then fails the same way, which is what is checked.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
      return within(20_000, 'the killed query', running);
    };
    const inQuery = await killUnder(async (pidOf) => {
      pidOf((await db.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid);
      // The pool of two: the next query most likely runs on the same connection; a different one is killed all the same by the crash recovery.
      await db.query('select pg_sleep(10)');
    });
    expect(String(inQuery)).not.toBe('undefined');
    expect([String(inQuery), isDatabaseUnavailable(inQuery)]).toEqual([String(inQuery), true]);
    // The postmaster restarts its backends (crash recovery); wait until it serves again.
    for (const until = Date.now() + 30_000; Date.now() < until; await sleep(250)) if (await db.query('select 1').then(() => true, () => false)) break;
    const inTransaction = await killUnder((pidOf) =>
      db.transaction(async (tx) => {
        pidOf((await tx.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid);
        await tx.query('select pg_sleep(10)');
      }),
    );
    expect([String(inTransaction), isDatabaseUnavailable(inTransaction)]).toEqual([String(inTransaction), true]);
    let served = false;
    for (const until = Date.now() + 30_000; !served && Date.now() < until; await sleep(250)) served = await db.query('select 1').then(() => true, () => false);
    expect(served).toBe(true);
  } finally {
    await within(10_000, 'closing the pool', db.close()).catch(() => undefined);
  }
}, 90_000);

test('PostgreSQL restarted and killed under four connectors: 503 with Retry-After while away, never a 500, nothing acknowledged lost or doubled, feeds in order', async () => {
  const env = testEnv();
  const orgs = freshOrgs(4);
  broker = await within(90_000, 'the broker start', startBroker({ ...env.brokerEnv, TEMPORAL_TASK_QUEUE: `${env.taskQueue}-dbchaos`, DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, RATE_LIMIT_TOKEN_PER_MINUTE: '100000', RATE_LIMIT_ORG_PER_MINUTE: '100000' }, join(dir, 'data'), join(dir, 'broker.log')));
  const base = broker.baseUrl;
  const tokens = await within(
    30_000,
    'tokens',
    Promise.all(
      orgs.map(async (o) => {
        const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: o.clientId, client_secret: o.secret }), signal: AbortSignal.timeout(10_000) });
        return ((await res.json()) as any).access_token as string;
      }),
    ),
  );

  const seen: Array<{ status: number; at: number; retryAfter: string | null; code?: string; type: string | null; what: string }> = [];
  const acknowledged = new Map<string, { org: number; id: string; version: number }>();
  const progress = () => `${seen.length} answers so far, ${acknowledged.size} offers acknowledged; the last: ${JSON.stringify(seen.slice(-5))}`;
  const note = (what: string, reply: Reply) => seen.push({ status: reply.status, at: Date.now(), retryAfter: reply.headers.get('retry-after'), code: reply.body?.code, type: reply.headers.get('content-type'), what });
  /** One command as a connector sends it: the same key until answered, once a second on 503 or a lost connection, for at most 60 s. */
  const command = async (token: string, method: string, path: string, body: unknown, key: string, headers: Record<string, string> = {}) => {
    const until = Date.now() + 60_000;
    for (;;) {
      const reply = await call(base, token, method, path, body, { 'idempotency-key': key, ...headers }).catch(() => ({ status: 0, headers: new Headers(), body: undefined }) as Reply);
      note(`${method} ${path}`, reply);
      const retry = reply.status === 0 || reply.status === 503 || (reply.status === 409 && reply.body?.code === 'IDEMPOTENCY_IN_PROGRESS');
      if (!retry) return reply;
      if (Date.now() > until) throw new Error(`${method} ${path} not answered within 60 s (last ${reply.status})`);
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
  /** Its reader, polling the feed as a connector does (four times a second here): 200, or 503 while the database is away. */
  const reader = async (i: number) => {
    while (!stop) {
      const read = await call(base, tokens[i], 'GET', '/events?limit=5').catch(() => ({ status: 0, headers: new Headers(), body: undefined }) as Reply);
      note('GET /events', read);
      await sleep(250);
    }
  };
  const load = Promise.all([...orgs.map((_, i) => connector(i)), ...orgs.map((_, i) => reader(i))]);
  load.catch(() => undefined); // awaited below, with a deadline
  const readiness = async () =>
    await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(10_000) })
      .then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
      .catch((err) => ({ status: 0, body: { error: String(err) } as any }));
  try {
    // 1. A restart (fast shutdown): the API answers 503 while the server is away.
    await sleep(3000);
    const restartAt = Date.now();
    await asPostgresAsync('pg_ctl', ['-D', pgData, '-m', 'fast', 'stop']);
    await sleep(1500);
    const down = await readiness();
    expect(down?.body).toMatchObject({ status: 'not-ready' });
    expect(down?.status).toBe(503);
    expect(down?.body).toMatchObject({ status: 'not-ready', checks: { database: 'down' }, reasons: { database: expect.stringMatching(/ECONNREFUSED|08006|connect/) } });
    await sleep(1500);
    await pgStart();

    // 2. A kill of the postmaster and its children (SIGKILL, by their ids), then a start: crash recovery.
    await sleep(6000);
    const killAt = Date.now();
    const postmaster = postmasterPid();
    const children = childrenOf(postmaster);
    process.kill(postmaster, 'SIGKILL');
    for (const pid of children) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await sleep(2000);
    await pgStart();
    await sleep(6000);
    stop = true;
    await within(70_000, 'the connectors finishing their last commands', load, progress);
    const endAt = Date.now();

    // Never a 500; every 503 said when to retry, as a problem with a stable code.
    expect(seen.filter((s) => s.status >= 500 && s.status !== 503)).toEqual([]);
    const unavailable = seen.filter((s) => s.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    expect(unavailable.filter((s) => !s.retryAfter || s.code !== 'SERVICE_UNAVAILABLE' || !s.type?.startsWith('application/problem+json'))).toEqual([]);
    // Reads, too, were 503 while the database was away (not only commands).
    expect(unavailable.some((s) => s.what === 'GET /events')).toBe(true);
    const restartSeconds = window503(seen, restartAt, killAt);
    const killSeconds = window503(seen, killAt, endAt);
    console.log(`database chaos: ${seen.length} answers, ${unavailable.length} of them 503; 503s over ${restartSeconds.toFixed(1)} s around the restart, ${killSeconds.toFixed(1)} s around the kill; ${acknowledged.size} offers acknowledged`);
    expect(restartSeconds).toBeGreaterThan(0);
    expect(killSeconds).toBeGreaterThan(0);

    // Ready again, and persistence caught up by itself: no command taken is left without its answer written.
    let ready = await readiness();
    for (const until = Date.now() + 40_000; Date.now() < until; await sleep(1000)) {
      ready = await readiness();
      if (ready?.status === 200 && (ready.body.commandIntents?.pending ?? 0) === 0) break;
    }
    expect([ready?.status, ready?.body?.commandIntents?.pending ?? 0, ready?.body?.reasons]).toEqual([200, 0, undefined]);
    const pages = async (token: string, path: string) => {
      const items: any[] = [];
      for (let cursor: string | undefined, page = 0; ; page++) {
        if (page > 50) throw new Error(`${path}: more than 50 pages`);
        const reply = await call(base, token, 'GET', `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(reply.status).toBe(200);
        items.push(...reply.body.items);
        if (!reply.body.nextCursor || reply.body.items.length === 0) return items;
        cursor = reply.body.nextCursor;
      }
    };
    for (const [i, token] of tokens.entries()) {
      const mine = [...acknowledged.values()].filter((a) => a.org === i);
      const listed = await within(30_000, 'the list', pages(token, `/capacity-offers?owner=${orgs[i].id}&limit=200`));
      // One offer per acknowledged create: a create retried across the outage made none twice.
      expect(listed.map((o) => o.id).sort()).toEqual(mine.map((a) => a.id).sort());
      for (const a of mine) expect(listed.find((o) => o.id === a.id).resourceVersion).toBeGreaterThanOrEqual(a.version);
      // The feed: each event once, in cursor order, each subject's versions rising.
      const events = await within(30_000, 'the feed', pages(token, '/events?limit=200'));
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
      const last = new Map<string, number>();
      for (const e of events) {
        expect(e.resourceversion).toBeGreaterThan(last.get(e.subject) ?? 0);
        last.set(e.subject, e.resourceversion);
      }
      for (const a of mine) expect(last.get(`capacity-offers/${a.id}`)).toBeGreaterThanOrEqual(a.version);
    }
  } finally {
    // Whatever failed, the connectors stop (a loop left running would keep jest from exiting).
    stop = true;
  }
}, 240_000);

// The writing activities retry a failed write (workflows/entity.ts, SIDE_EFFECT_OPTIONS). A command
// whose write is under way when the database goes away for longer than a few retries must still be
// applied once when it comes back, and its retries (the same Idempotency-Key, so the same Update id)
// answered 503 meanwhile, then with its outcome. Made certain here: the events table is locked, so
// the publish's write (its transition and its matching flow, one activity) waits in its Update when
// the server is stopped, for 45 s.
test('a command whose write is under way when PostgreSQL goes away for 45 s is applied once when it is back, and its retry then answered', async () => {
  const env = testEnv();
  const [org] = freshOrgs(1);
  broker ??= await within(90_000, 'the broker start', startBroker({ ...env.brokerEnv, TEMPORAL_TASK_QUEUE: `${env.taskQueue}-dbchaos`, DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres` }, join(dir, 'data'), join(dir, 'broker.log')));
  const base = broker.baseUrl;
  const token = ((await (await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.secret }) })).json()) as any).access_token as string;
  const created = await call(base, token, 'POST', '/capacity-offers', offerBody(), { 'idempotency-key': 'long-outage-create' });
  expect(created.status).toBe(201);
  const publish = () => call(base, token, 'POST', `/capacity-offers/${created.body.id}/publish`, {}, { 'idempotency-key': 'long-outage-publish', 'if-match': '"1"' }).catch(() => ({ status: 0, headers: new Headers(), body: undefined }) as Reply);

  const locker = await openDb({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres`, dataDir: join(dir, 'unused'), poolSize: 1 });
  const held = locker.transaction(async (tx) => {
    await tx.query('lock table events in exclusive mode');
    await sleep(60_000); // ended by the server's stop
  }).catch(() => undefined);
  await sleep(500);
  const first = publish();
  await sleep(2000); // the API has claimed the key and sent the Update; its write waits on the lock
  const stoppedAt = Date.now();
  await asPostgresAsync('pg_ctl', ['-D', pgData, '-m', 'fast', 'stop']);
  await held;
  await locker.close().catch(() => undefined);
  const answers: number[] = [(await first).status];
  while (Date.now() - stoppedAt < 45_000) {
    answers.push((await publish()).status);
    await sleep(2000);
  }
  await pgStart();
  // The connector's retries, once a second, until answered (at most 60 s once the database is back).
  let last: Reply = await publish();
  for (const until = Date.now() + 60_000; (last.status === 503 || last.status === 0 || (last.status === 409 && last.body?.code === 'IDEMPOTENCY_IN_PROGRESS')) && Date.now() < until; last = await publish()) {
    answers.push(last.status);
    await sleep(1000);
  }
  // Never a 500 while away; then the publish's outcome: applied once, at version 2.
  expect(answers.filter((s) => s >= 500 && s !== 503)).toEqual([]);
  expect({ status: last.status, version: last.body?.resourceVersion, state: last.body?.status, code: last.body?.code }).toEqual({ status: 200, version: 2, state: 'published', code: undefined });
  const read = await call(base, token, 'GET', `/capacity-offers/${created.body.id}`);
  expect({ version: read.body.resourceVersion, status: read.body.status }).toEqual({ version: 2, status: 'published' });
  const events = (await call(base, token, 'GET', '/events?limit=200')).body.items.filter((e: any) => e.subject === `capacity-offers/${created.body.id}`);
  // Its publication in the feed once (a draft's creation is not an event of the feed).
  expect(events.map((e: any) => e.resourceversion)).toEqual([2]);
}, 180_000);
