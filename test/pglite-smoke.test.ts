// The embedded set-up: the same flows on a broker whose read models live in PGlite under its data
// folder, including a restart that keeps them.
import { join } from 'node:path';
import { startBroker, TEST_ORGANIZATION_COUNT, type BrokerHandle } from './stack';
import { testEnv } from './helpers';

let broker: BrokerHandle;
const env = () => ({
  TEMPORAL_ADDRESS: testEnv().temporalAddress,
  TEMPORAL_TASK_QUEUE: `${testEnv().taskQueue}-pglite`,
  DATABASE_URL: '',
  ORGANIZATIONS_FILE: testEnv().registry.organizationsFile,
  CONNECTORS_FILE: testEnv().registry.connectorsFile,
});
const dataDir = () => join(testEnv().dir, 'pglite-broker');

async function token(base: string, client: string, secret: string) {
  const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client, client_secret: secret }) });
  return ((await res.json()) as any).access_token as string;
}

async function send(base: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any, etag: res.headers.get('etag') };
}

beforeAll(async () => {
  broker = await startBroker(env(), dataDir());
});

afterAll(async () => {
  await broker?.stop();
});

test('relationship lifecycle, idempotency and events on PGlite, surviving a restart', async () => {
  // Organizations from the reserved end of the registry, never handed out by freshOrgs.
  const [a, b] = [String(TEST_ORGANIZATION_COUNT - 1), String(TEST_ORGANIZATION_COUNT)];
  const base = broker.baseUrl;
  const ta = await token(base, `client-${a}`, `secret-${a}`);
  const tb = await token(base, `client-${b}`, `secret-${b}`);
  const createBody = { requestingOrganizationId: `org-${a}`, acceptingOrganizationId: `org-${b}`, scopes: ['capacity:read'] };
  const created = await send(base, ta, 'POST', '/partner-relationships', createBody, { 'idempotency-key': 'smoke' });
  expect(created.status).toBe(201);
  const replayed = await send(base, ta, 'POST', '/partner-relationships', createBody, { 'idempotency-key': 'smoke' });
  expect(replayed.body).toEqual(created.body);
  const id = created.body.id;
  expect((await send(base, ta, 'POST', `/partner-relationships/${id}/request`, undefined, { 'if-match': '"1"' })).status).toBe(200);
  const [accept, stale] = await Promise.all([
    send(base, tb, 'POST', `/partner-relationships/${id}/accept`, undefined, { 'if-match': '"2"' }),
    send(base, ta, 'POST', `/partner-relationships/${id}/withdraw`, { reason: 'race' }, { 'if-match': '"2"' }),
  ]);
  expect([accept.status, stale.status].sort()).toEqual([200, 409]);
  const events = await send(base, tb, 'GET', '/events');
  expect(events.body.items.map((e: any) => e.type)[0]).toBe('pcx.partner-relationship.requested.v1');
  expect(events.body.items).toHaveLength(2);

  await broker.stop();
  broker = await startBroker(env(), dataDir());
  // The restarted broker listens on another port, which is part of its token issuer: new token.
  const ta2 = await token(broker.baseUrl, `client-${a}`, `secret-${a}`);
  const again = await send(broker.baseUrl, ta2, 'GET', `/partner-relationships/${id}`);
  expect(again.status).toBe(200);
  expect(again.body.resourceVersion).toBe(3);
  expect((await send(broker.baseUrl, ta2, 'POST', '/partner-relationships', createBody, { 'idempotency-key': 'smoke' })).body.id).toBe(id);
}, 120000);
