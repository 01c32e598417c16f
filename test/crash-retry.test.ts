// A broker killed in the middle of a command: the connector's retry (same Idempotency-Key) is
// answered within seconds of the broker being ready again, with exactly one effect. The in-flight
// window is held open deterministically: the API-only broker sends the command to a task queue
// no worker polls yet, and is killed (SIGKILL) while it waits for the answer. Then a broker with
// a worker for that queue starts and the connector retries once a second, as connectors do.
// Runs once, on PostgreSQL (jest.config.js, ENGINE_INDEPENDENT): separate API and worker processes
// need a shared database (PGlite lives inside one process).
import { join } from 'node:path';
import { startBroker, type BrokerHandle } from './stack';
import { freshOrgs, sleep, testEnv } from './helpers';

async function token(base: string, org: { clientId: string; secret: string }) {
  const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.secret }) });
  return ((await res.json()) as any).access_token as string;
}

interface Sent {
  status: number;
  body: any;
}

async function send(base: string, tokenValue: string, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Sent> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokenValue}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

/** Retries like a connector: once a second while the answer is 409 in progress, 503 or a network error. */
async function retryUntilAnswered(send: () => Promise<Sent>, deadlineMs: number): Promise<Sent & { tries: number }> {
  const stop = Date.now() + deadlineMs;
  for (let tries = 1; ; tries++) {
    const reply = await send().catch(() => ({ status: 0, body: undefined }));
    const retryable = reply.status === 0 || reply.status === 503 || (reply.status === 409 && reply.body?.code === 'IDEMPOTENCY_IN_PROGRESS');
    if (!retryable || Date.now() > stop) return { ...reply, tries };
    await sleep(1000);
  }
}

let brokers: BrokerHandle[] = [];
afterEach(async () => {
  for (const b of brokers) await b.stop();
  brokers = [];
});

test('a command in flight when the broker is killed: the retry is answered within 10 s of restart, exactly once', async () => {
  const env = testEnv();
  const [a, b] = freshOrgs(2);
  const queue = `${env.taskQueue}-crash-${Date.now()}`;
  const brokerEnv = { ...env.brokerEnv, TEMPORAL_TASK_QUEUE: queue };
  const dataDir = join(env.dir, `crash-${Date.now()}`);

  // 1. A create, in flight when its API process dies.
  let api = await startBroker({ ...brokerEnv, PCX_ROLE: 'api' }, dataDir);
  const invite = { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'] };
  const first = send(api.baseUrl, await token(api.baseUrl, a), 'POST', '/partner-relationships', invite, { 'idempotency-key': 'crash-create' }).catch(() => undefined);
  await sleep(1500);
  api.process.kill('SIGKILL');
  expect(await first).toBeUndefined(); // the connection died without an answer

  let all = await startBroker(brokerEnv, dataDir);
  brokers.push(all);
  const ready = Date.now();
  let ta = await token(all.baseUrl, a);
  const created = await retryUntilAnswered(() => send(all.baseUrl, ta, 'POST', '/partner-relationships', invite, { 'idempotency-key': 'crash-create' }), 30000);
  const createdAfter = Date.now() - ready;
  expect(created.status).toBe(201);
  expect(createdAfter).toBeLessThan(10000);
  const list = await send(all.baseUrl, ta, 'GET', '/partner-relationships?limit=200', undefined, {});
  expect(list.body.items.filter((r: any) => r.requestingOrganizationId === a.id).map((r: any) => r.id)).toEqual([created.body.id]);

  // 2. A lifecycle command, in flight when its API process dies.
  await all.stop();
  brokers = [];
  api = await startBroker({ ...brokerEnv, PCX_ROLE: 'api' }, dataDir);
  const id = created.body.id;
  const second = send(api.baseUrl, await token(api.baseUrl, a), 'POST', `/partner-relationships/${id}/request`, undefined, { 'idempotency-key': 'crash-request', 'if-match': '"1"' }).catch(() => undefined);
  await sleep(1500);
  api.process.kill('SIGKILL');
  expect(await second).toBeUndefined();

  all = await startBroker(brokerEnv, dataDir);
  brokers.push(all);
  const readyAgain = Date.now();
  ta = await token(all.baseUrl, a);
  const requested = await retryUntilAnswered(
    () => send(all.baseUrl, ta, 'POST', `/partner-relationships/${id}/request`, undefined, { 'idempotency-key': 'crash-request', 'if-match': '"1"' }),
    30000,
  );
  expect(requested.status).toBe(200);
  expect(Date.now() - readyAgain).toBeLessThan(10000);
  expect(requested.body).toMatchObject({ id, status: 'requested', resourceVersion: 2 });
  // Exactly one effect: one requested event, version 2.
  const events = await send(all.baseUrl, ta, 'GET', '/events?limit=200', undefined, {});
  expect(events.body.items.filter((e: any) => e.data.id === id).map((e: any) => e.type)).toEqual(['pcx.partner-relationship.requested.v1']);
  // And a replay now answers from the stored outcome.
  const replay = await send(all.baseUrl, ta, 'POST', `/partner-relationships/${id}/request`, undefined, { 'idempotency-key': 'crash-request', 'if-match': '"1"' });
  expect(replay.body).toEqual(requested.body);
}, 180000);
