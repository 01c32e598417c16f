// The sandbox (api/sandbox.ts, development mode): what a connector sent, as the conformance kit's
// connector profiles will judge it (Idempotency-Key and If-Match as sent, the body's fields,
// statuses, timing), and faults answered in the broker's place, through which the SDK's retries
// are seen to reuse one key and wait for Retry-After. Only a protocol operator reads or sets it.
import { Connector, expectProblem, freshOrgs, testEnv } from './helpers';
import { offerBody } from './listing-fixtures';
import { PcxClient } from '../sdk/src';

const operator = () => Connector.of({ id: 'org-operator', clientId: 'client-operator', secret: 'secret-o' });
const requestsOf = async (op: Connector, clientId: string, after = 0) => {
  const reply = await op.get(`/sandbox/connector-requests?clientId=${clientId}&after=${after}`);
  expect(reply.status).toBe(200);
  return reply.body as { items: any[]; after: number };
};

test("records each of a connector's requests: Idempotency-Key and If-Match as sent, the body's fields, the status", async () => {
  const [org] = freshOrgs(1);
  const connector = await Connector.of(org);
  const op = await operator();
  const start = (await requestsOf(op, org.clientId)).after;
  const created = await connector.post('/capacity-offers', offerBody(), { 'idempotency-key': 'sandbox-1' });
  expect(created.status).toBe(201);
  expect((await connector.command(`/capacity-offers/${created.body.id}/publish`, 1)).status).toBe(200);
  const { items, after } = await requestsOf(op, org.clientId, start);
  expect(items.map((r) => [r.method, r.path, r.status, r.idempotencyKey, r.ifMatch, r.injectedFault])).toEqual([
    ['POST', '/capacity-offers', 201, 'sandbox-1', null, false],
    ['POST', `/capacity-offers/${created.body.id}/publish`, 200, null, '"1"', false],
  ]);
  expect(items[0].bodyFields).toEqual(Object.keys(offerBody()).sort());
  expect(items[0]).toMatchObject({ clientId: org.clientId, organizationId: org.id, correlationId: expect.any(String) });
  expect(after).toBe(items[1].sequence);
  // Read again after the last: nothing new.
  expect((await requestsOf(op, org.clientId, after)).items).toEqual([]);
});

test('a refused request is recorded with the status of its refusal: a schema refusal, a missing resource, a stale version', async () => {
  const [org] = freshOrgs(1);
  const connector = await Connector.of(org);
  const op = await operator();
  const start = (await requestsOf(op, org.clientId)).after;
  expectProblem(await connector.post('/capacity-offers', { ...offerBody(), capacity: 'lots' }, { 'idempotency-key': 'sandbox-bad' }), 400, 'VALIDATION_FAILED');
  expectProblem(await connector.get('/capacity-offers/0190a6f0-0000-7000-8000-000000000000'), 404, 'RESOURCE_NOT_FOUND');
  const created = await connector.post('/capacity-offers', offerBody());
  expectProblem(await connector.command(`/capacity-offers/${created.body.id}/publish`, 7), 409, 'STALE_RESOURCE_VERSION');
  const { items } = await requestsOf(op, org.clientId, start);
  expect(items.map((r) => [r.method, r.path.replace(created.body.id, '{id}'), r.status, r.injectedFault])).toEqual([
    ['POST', '/capacity-offers', 400, false],
    ['GET', '/capacity-offers/0190a6f0-0000-7000-8000-000000000000', 404, false],
    ['POST', '/capacity-offers', 201, false],
    ['POST', '/capacity-offers/{id}/publish', 409, false],
  ]);
  expect(items[0]).toMatchObject({ idempotencyKey: 'sandbox-bad', bodyFields: [...Object.keys(offerBody()), 'capacity'].sort(), deduplicationKey: null });
});

test("an injected 503 answers in the broker's place; the SDK retries after Retry-After with one Idempotency-Key, and the record shows it", async () => {
  const [org] = freshOrgs(1);
  const op = await operator();
  const start = (await requestsOf(op, org.clientId)).after;
  const fault = await op.post('/sandbox/faults', { clientId: org.clientId, status: 503, count: 2, retryAfterSeconds: 1, method: 'POST', pathPrefix: '/capacity-offers' });
  expect(fault.status).toBe(200);
  expect(fault.body).toMatchObject({ clientId: org.clientId, status: 503, remaining: 2, retryAfterSeconds: 1 });
  const pcx = new PcxClient({ baseUrl: testEnv().baseUrl, clientId: org.clientId, clientSecret: org.secret });
  const offer = await pcx.offers.create(offerBody() as any);
  expect(offer.status).toBe('draft');
  const posts = (await requestsOf(op, org.clientId, start)).items.filter((r) => r.method === 'POST');
  expect(posts.map((r) => [r.status, r.injectedFault])).toEqual([
    [503, true],
    [503, true],
    [201, false],
  ]);
  expect(new Set(posts.map((r) => r.idempotencyKey)).size).toBe(1);
  expect(posts[0].idempotencyKey).toBeTruthy();
  // Polite: each retry waited at least the Retry-After second.
  for (let i = 1; i < posts.length; i++) expect(Date.parse(posts[i].at) - Date.parse(posts[i - 1].at)).toBeGreaterThanOrEqual(900);
  // The fault is used up: the next request reaches the broker.
  expect((await (await Connector.of(org)).post('/capacity-offers', offerBody())).status).toBe(201);
});

test('only a protocol operator reads or sets the sandbox; bad queries and bodies are refused', async () => {
  const [org] = freshOrgs(1);
  const participant = await Connector.of(org);
  expectProblem(await participant.get(`/sandbox/connector-requests?clientId=${org.clientId}`), 403, 'INSUFFICIENT_SCOPE');
  expectProblem(await participant.post('/sandbox/faults', { clientId: org.clientId, status: 503 }), 403, 'INSUFFICIENT_SCOPE');
  // A participant holding the admin scope is still no operator.
  const pretender = await Connector.of({ id: 'org-special', clientId: 'client-pretender', secret: 'secret-p' });
  expectProblem(await pretender.get(`/sandbox/connector-requests?clientId=${org.clientId}`), 403, 'ACTOR_NOT_PERMITTED');
  expectProblem(await pretender.post('/sandbox/faults', { clientId: org.clientId, status: 503 }), 403, 'ACTOR_NOT_PERMITTED');
  const op = await operator();
  expectProblem(await op.get('/sandbox/connector-requests'), 400, 'VALIDATION_FAILED');
  expectProblem(await op.get(`/sandbox/connector-requests?clientId=${org.clientId}&after=-1`), 400, 'VALIDATION_FAILED');
  expectProblem(await op.post('/sandbox/faults', { clientId: org.clientId, status: 500 }), 400, 'VALIDATION_FAILED');
  expectProblem(await op.post('/sandbox/faults', { clientId: org.clientId, status: 429, count: 21 }), 400, 'VALIDATION_FAILED');
  expectProblem(await participant.post('/sandbox/event-disorder', { clientId: org.clientId }), 403, 'INSUFFICIENT_SCOPE');
  expectProblem(await pretender.post('/sandbox/event-disorder', { clientId: org.clientId }), 403, 'ACTOR_NOT_PERMITTED');
  expectProblem(await op.post('/sandbox/event-disorder', { clientId: org.clientId, holdSeconds: 31 }), 400, 'VALIDATION_FAILED');
  expectProblem(await op.post('/sandbox/event-disorder', { clientId: org.clientId, pages: -1 }), 400, 'VALIDATION_FAILED');
  expectProblem(await pretender.post('/sandbox/reset', { clientId: org.clientId }), 403, 'ACTOR_NOT_PERMITTED');
  expectProblem(await op.post('/sandbox/reset', {}), 400, 'VALIDATION_FAILED');
});

test("an injected 409 answers a command as if the resource had just changed; the SDK re-reads and decides again on the version it read", async () => {
  const [org] = freshOrgs(1);
  const op = await operator();
  const pcx = new PcxClient({ baseUrl: testEnv().baseUrl, clientId: org.clientId, clientSecret: org.secret });
  const offer = await pcx.offers.create(offerBody() as any);
  const start = (await requestsOf(op, org.clientId)).after;
  expect((await op.post('/sandbox/faults', { clientId: org.clientId, status: 409, method: 'POST', pathSuffix: '/publish' })).body).toMatchObject({ status: 409, pathSuffix: '/publish' });
  const published = await pcx.offers.publish(offer, undefined, { redecideOnStale: true });
  expect(published.status).toBe('published');
  const seen = (await requestsOf(op, org.clientId, start)).items.map((r) => [r.method, r.path.replace(offer.id, '{id}'), r.status, r.injectedFault]);
  expect(seen).toEqual([
    ['POST', '/capacity-offers/{id}/publish', 409, true],
    ['GET', '/capacity-offers/{id}', 200, false],
    ['POST', '/capacity-offers/{id}/publish', 200, false],
  ]);
});

test("an event disorder serves the feed late, each page reversed and then once more; the SDK's feed consumer applies each change once, in version order", async () => {
  const [org] = freshOrgs(1);
  const op = await operator();
  const connector = await Connector.of(org);
  // The feed's end, read before the disorder.
  let cursor: string | undefined;
  for (let more = true; more; ) {
    const page = await connector.get(`/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    more = page.body.items.length > 0;
    cursor = page.body.nextCursor;
  }
  // Held for the longest hold first (30 s), so that the events are young whatever the machine's speed.
  expect((await op.post('/sandbox/event-disorder', { clientId: org.clientId, holdSeconds: 30, pages: 10 })).body).toEqual({ clientId: org.clientId, holdSeconds: 30, remainingPages: 10 });
  const created = await connector.post('/capacity-offers', offerBody());
  await connector.command(`/capacity-offers/${created.body.id}/publish`, 1);
  await connector.command(`/capacity-offers/${created.body.id}/withdraw`, 2, { reason: 'disorder' });
  // Read as it comes over the wire: the disorder breaks, on purpose, the feed's promise of order
  // per resource that the test helpers' contract check holds every answer to.
  const disordered = async (after: string) => {
    const res = await fetch(`${testEnv().baseUrl}/events?limit=200&cursor=${after}`, { headers: { authorization: `Bearer ${connector.token}` } });
    return { status: res.status, body: (await res.json()) as any };
  };
  // Held back while young.
  const early = await disordered(cursor!);
  expect(early.body.items).toEqual([]);
  expect(early.body.nextCursor).toBe(cursor);
  // Old enough now (no hold): served, each page reversed and then once more.
  expect((await op.post('/sandbox/event-disorder', { clientId: org.clientId, holdSeconds: 0, pages: 10 })).body).toEqual({ clientId: org.clientId, holdSeconds: 0, remainingPages: 10 });
  const first = await disordered(cursor!);
  const versions = (page: any) => page.body.items.filter((e: any) => e.subject === `capacity-offers/${created.body.id}`).map((e: any) => e.resourceversion);
  expect(versions(first)).toEqual([3, 2]);
  const again = await disordered(first.body.nextCursor);
  expect(versions(again)).toEqual([3, 2]);
  expect(again.body.items.map((e: any) => e.id)).toEqual(first.body.items.map((e: any) => e.id));
  // Ended: served as it is.
  await op.post('/sandbox/event-disorder', { clientId: org.clientId, pages: 0 });
  expect((await connector.get(`/events?limit=200&cursor=${cursor}`)).body.items.filter((e: any) => e.subject === `capacity-offers/${created.body.id}`).map((e: any) => e.resourceversion)).toEqual([2, 3]);
  // The SDK's consumer over a disordered feed: each event once, none older than one applied.
  await op.post('/sandbox/event-disorder', { clientId: org.clientId, holdSeconds: 0, pages: 10 });
  const pcx = new PcxClient({ baseUrl: testEnv().baseUrl, clientId: org.clientId, clientSecret: org.secret });
  const applied: Array<[string, number]> = [];
  const feed = pcx.events({ ...(cursor ? { cursor } : {}) } as any);
  for await (const event of feed) if (event.subject === `capacity-offers/${created.body.id}`) applied.push([event.type, event.resourceversion]);
  expect(applied).toEqual([['pcx.capacity-offer.withdrawn.v1', 3]]);
  await op.post('/sandbox/event-disorder', { clientId: org.clientId, pages: 0 });
});

test('a reset drops the faults still waiting for a connector and ends its disorder', async () => {
  const [org] = freshOrgs(1);
  const op = await operator();
  await op.post('/sandbox/faults', { clientId: org.clientId, status: 503, count: 3 });
  await op.post('/sandbox/event-disorder', { clientId: org.clientId, holdSeconds: 30 });
  expect((await op.post('/sandbox/reset', { clientId: org.clientId })).body).toEqual({ clientId: org.clientId, faultsCleared: 1, disorderEnded: true });
  const connector = await Connector.of(org);
  expect((await connector.post('/capacity-offers', offerBody())).status).toBe(201);
  // Served at once: no hold.
  expect((await connector.get('/events?limit=200')).status).toBe(200);
  expect((await op.post('/sandbox/reset', { clientId: org.clientId })).body).toEqual({ clientId: org.clientId, faultsCleared: 0, disorderEnded: false });
});
