// The SDK (sdk/, @pcx/sdk) against the running broker, on both engines: what a connector's author
// relies on: client credentials, typed resource clients with If-Match from the resource read,
// auto-pagination, typed problem errors, re-deciding on a stale version, retries that keep one
// Idempotency-Key (one effect), AbortSignal and timeouts, the feed consumer's delivery rules.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { activeRelationship, Connector, freshOrgs, sleep, testEnv } from './helpers';
import { offerBody } from './listing-fixtures';
import {
  AuthenticationError,
  isProblem,
  MemoryAppliedStore,
  NotFoundError,
  PcxClient,
  operationOf,
  PcxConnectionError,
  PcxTimeoutError,
  PreconditionRequiredError,
  PROBLEM_CODES,
  StaleResourceVersionError,
  ValidationError,
  type RetryInfo,
} from '../sdk/src';
import { PROBLEMS } from '../domain/problems';

const clientOf = (org: { clientId: string; secret: string }, extra: Partial<ConstructorParameters<typeof PcxClient>[0]> = {}) =>
  new PcxClient({ baseUrl: testEnv().baseUrl, clientId: org.clientId, clientSecret: org.secret, ...extra });

test('the SDK knows every problem code of the broker', () => {
  expect([...PROBLEM_CODES].sort()).toEqual(Object.keys(PROBLEMS).sort());
});

test('create, read, command with the version read, list every page', async () => {
  const [org] = freshOrgs(1);
  const pcx = clientOf(org);
  const draft = await pcx.offers.create(offerBody() as any);
  expect(draft).toMatchObject({ status: 'draft', resourceVersion: 1, ownerOrganizationId: org.id });
  const published = await pcx.offers.publish(draft);
  expect(published).toMatchObject({ id: draft.id, status: 'published', resourceVersion: 2 });
  expect(await pcx.offers.get(draft.id)).toMatchObject({ status: 'published' });

  for (let i = 0; i < 4; i++) await pcx.offers.create(offerBody() as any);
  const seen: string[] = [];
  for await (const offer of pcx.offers.list({ owner: org.id, limit: 2 } as any)) seen.push(offer.id);
  expect(seen).toHaveLength(5);
  expect(new Set(seen).size).toBe(5);
  const first = await pcx.offers.page({ owner: org.id, limit: 2 } as any);
  expect(first.items).toHaveLength(2);
  expect(first.nextCursor).toBeTruthy();
});

test('problems are typed errors with the RFC 9457 body, code and correlation id', async () => {
  const [org] = freshOrgs(1);
  const pcx = clientOf(org);
  const missing = await pcx.offers.get(randomUUID()).catch((e) => e);
  expect(missing).toBeInstanceOf(NotFoundError);
  expect(missing).toMatchObject({ status: 404, code: 'RESOURCE_NOT_FOUND' });
  expect(missing.correlationId).toBeTruthy();
  expect(missing.problem.type).toMatch(/^urn:exchange:protocol:error:/);

  const invalid = await pcx.offers.create({ ...offerBody(), availableCapacity: 'lots' } as any).catch((e) => e);
  expect(invalid).toBeInstanceOf(ValidationError);
  expect(invalid.problem.errors?.length).toBeGreaterThan(0);
  // The message names the fields at fault, as a log line would need them.
  expect(invalid.message).toContain(`(${invalid.problem.errors[0].pointer}: ${invalid.problem.errors[0].message}`);
  expect(invalid.message).toContain('/availableCapacity');

  // Wrong credentials are the broker's answer (401), not a lost connection.
  const wrong = new PcxClient({ baseUrl: testEnv().baseUrl, clientId: org.clientId, clientSecret: 'not-the-secret' });
  const refused = await wrong.offers.get(randomUUID()).catch((e) => e);
  expect(refused).toBeInstanceOf(AuthenticationError);
  expect(refused).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });

  const draft = await pcx.offers.create(offerBody() as any);
  // A command given only an id sends no If-Match: the broker asks for one.
  expect(await pcx.offers.publish(draft.id).catch((e) => e)).toBeInstanceOf(PreconditionRequiredError);
  await pcx.offers.update(draft, { expiresAt: new Date(Date.now() + 3 * 86_400_000).toISOString() } as any);
  const stale = await pcx.offers.publish(draft).catch((e) => e);
  expect(stale).toBeInstanceOf(StaleResourceVersionError);
  expect(isProblem(stale, 'STALE_RESOURCE_VERSION')).toBe(true);
  // Safe to decide again on the current version: the SDK re-reads and resends.
  const published = await pcx.offers.publish(draft, undefined, { redecideOnStale: true });
  expect(published).toMatchObject({ status: 'published', resourceVersion: 3 });
  // retryOnStale: read, act, and again on a stale version.
  let reads = 0;
  const withdrawn = await pcx.retryOnStale(
    async () => {
      reads++;
      const current = await pcx.offers.get(draft.id);
      return reads === 1 ? { ...current, resourceVersion: 1 } : current;
    },
    (current) => pcx.offers.withdraw(current, { reason: 'test' } as any),
  );
  expect(reads).toBe(2);
  expect(withdrawn).toMatchObject({ status: 'withdrawn' });
});

test('a lost answer is retried with the same Idempotency-Key: one effect, the original answer', async () => {
  const [org] = freshOrgs(1);
  const keys: string[] = [];
  const retries: RetryInfo[] = [];
  let dropped = false;
  const pcx = clientOf(org, {
    onRetry: (info) => retries.push(info),
    retry: { baseDelayMs: 50 },
    // The broker did the work; the connection broke before the answer arrived.
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === 'POST' && String(input).endsWith('/capacity-offers')) {
        keys.push(new Headers(init.headers).get('idempotency-key')!);
        if (!dropped) {
          dropped = true;
          await res.arrayBuffer();
          throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
        }
      }
      return res;
    },
  });
  const created = await pcx.offers.create(offerBody() as any);
  expect(keys).toHaveLength(2);
  expect(keys[0]).toBe(keys[1]);
  expect(retries).toEqual([expect.objectContaining({ method: 'POST', path: '/capacity-offers', reason: 'ECONNRESET', idempotencyKey: keys[0] })]);
  const mine = [];
  for await (const offer of pcx.offers.list({ owner: org.id } as any)) mine.push(offer.id);
  expect(mine).toEqual([created.id]);
});

test('429 and 503 are retried after Retry-After; other 4xx never; exhausted retries end in the error', async () => {
  const [org] = freshOrgs(1);
  let calls = 0;
  const answers = [
    new Response(JSON.stringify({ type: 'urn:exchange:protocol:error:rate-limited', title: 'Too many requests', status: 429, code: 'RATE_LIMITED' }), { status: 429, headers: { 'retry-after': '0', 'content-type': 'application/problem+json' } }),
    new Response('', { status: 503 }),
  ];
  const pcx = clientOf(org, {
    retry: { baseDelayMs: 10 },
    fetch: async (input, init) => {
      if (/\/oauth2\/|\/\.well-known\//.test(String(input))) return fetch(input, init);
      calls++;
      return answers.shift() ?? fetch(input, init);
    },
  });
  await pcx.offers.create(offerBody() as any);
  expect(calls).toBe(3);

  calls = 0;
  const refused = await pcx.offers.create({ nonsense: true } as any).catch((e) => e);
  expect(refused).toBeInstanceOf(ValidationError);
  expect(calls).toBe(1);

  const down = clientOf(org, { retry: { maxRetries: 2, baseDelayMs: 10 }, fetch: async (input, init) => (/\/oauth2\/|\/\.well-known\//.test(String(input)) ? fetch(input, init) : new Response('', { status: 503 })) });
  const error = await down.offers.get(randomUUID()).catch((e) => e);
  expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
});

test('every call takes an AbortSignal and a timeout', async () => {
  const [org] = freshOrgs(1);
  const hanging = clientOf(org, {
    timeoutMs: 200,
    retry: { maxRetries: 1, baseDelayMs: 10 },
    fetch: (input, init) =>
      /\/oauth2\/|\/\.well-known\//.test(String(input))
        ? fetch(input, init)
        : new Promise((_, reject) => {
            const signal = init!.signal!;
            if (signal.aborted) reject(signal.reason);
            signal.addEventListener('abort', () => reject(signal.reason));
          }),
  });
  expect(await hanging.offers.get(randomUUID()).catch((e) => e)).toBeInstanceOf(PcxTimeoutError);
  const controller = new AbortController();
  const call = hanging.offers.get(randomUUID(), { signal: controller.signal }).catch((e) => e);
  controller.abort(new Error('caller gave up'));
  expect((await call).message).toBe('caller gave up');
  const nowhere = new PcxClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 'x', retry: { maxRetries: 1, baseDelayMs: 10 } });
  expect(await nowhere.offers.get(randomUUID()).catch((e) => e)).toBeInstanceOf(PcxConnectionError);
});

test('the token is fetched once for concurrent calls and renewed when the broker refuses it', async () => {
  const [org] = freshOrgs(1);
  let tokenRequests = 0;
  let spoil = false;
  const pcx = clientOf(org, {
    fetch: async (input, init) => {
      if (String(input).endsWith('/oauth2/token')) tokenRequests++;
      else if (spoil) {
        spoil = false;
        const headers = new Headers(init?.headers);
        headers.set('authorization', 'Bearer expired');
        return fetch(input, { ...init, headers });
      }
      return fetch(input, init);
    },
  });
  await Promise.all([1, 2, 3, 4].map(() => pcx.offers.page()));
  expect(tokenRequests).toBe(1);
  spoil = true;
  await pcx.offers.page();
  expect(tokenRequests).toBe(2);
});

test('the feed consumer yields each event once, skips stale versions and keeps its cursor', async () => {
  const [a, b] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
  await activeRelationship(a, b);
  const pcx = new PcxClient({ baseUrl: testEnv().baseUrl, clientId: a.org.clientId, clientSecret: a.org.secret });
  const offer = await pcx.offers.create(offerBody() as any);
  const published = await pcx.offers.publish(offer);
  await pcx.offers.withdraw(published, { reason: 'test' } as any);
  let saved: string | undefined;
  const store = { load: () => saved, save: (c: string) => void (saved = c) };
  const types: string[] = [];
  const skipped: string[] = [];
  // Everything so far, then the end of the feed.
  for await (const event of pcx.events({ cursorStore: store, limit: 2, onSkip: (_e, why) => skipped.push(why) })) {
    if (event.subject === `capacity-offers/${offer.id}`) types.push(event.type);
  }
  expect(types).toEqual(['pcx.capacity-offer.published.v1', 'pcx.capacity-offer.withdrawn.v1']);
  expect(saved).toBeTruthy();
  // Started again from the saved cursor: nothing new.
  const again: string[] = [];
  for await (const event of pcx.events({ cursorStore: store })) again.push(event.id);
  expect(again).toEqual([]);
  // Read from the beginning with what was applied: the same events are duplicates now.
  const applied = new MemoryAppliedStore();
  const firstPass: string[] = [];
  for await (const event of pcx.events({ applied })) firstPass.push(event.id);
  const dupes: string[] = [];
  for await (const event of pcx.events({ applied, onSkip: (e, why) => dupes.push(`${why}`) })) firstPass.push(event.id);
  expect(dupes.length).toBe(firstPass.length);
  expect(new Set(dupes)).toEqual(new Set(['duplicate']));
  // follow: a new event arrives while the consumer waits at the end of the feed.
  const controller = new AbortController();
  const following = (async () => {
    for await (const event of pcx.events({ cursorStore: store, follow: true, pollIntervalMs: 100, signal: controller.signal })) {
      if (event.type === 'pcx.capacity-offer.published.v1') return event.subject;
    }
  })();
  await sleep(300);
  const second = await pcx.offers.create(offerBody() as any);
  await pcx.offers.publish(second);
  expect(await following).toBe(`capacity-offers/${second.id}`);
  controller.abort();
});

test("the feed consumer started from the feed's end yields only what comes after it, and keeps that place", async () => {
  const [a] = await Promise.all(freshOrgs(1).map((o) => Connector.of(o)));
  const pcx = new PcxClient({ baseUrl: testEnv().baseUrl, clientId: a.org.clientId, clientSecret: a.org.secret });
  // Events before the consumer starts: more than one page of them.
  for (let i = 0; i < 3; i++) await pcx.offers.publish(await pcx.offers.create(offerBody() as any));
  let saved: string | undefined;
  const store = { load: () => saved, save: (c: string) => void (saved = c) };
  const feed = pcx.events({ from: 'end', cursorStore: store, limit: 1 });
  const end = await feed.skipToEnd();
  expect(saved).toBe(end);
  const after = await pcx.offers.publish(await pcx.offers.create(offerBody() as any));
  const seen: string[] = [];
  for await (const event of feed) seen.push(event.subject);
  expect(seen).toEqual([`capacity-offers/${after.id}`]);
  // A second consumer from the end, without a stored place, sees nothing of the past.
  const none: string[] = [];
  for await (const event of pcx.events({ from: 'end' })) none.push(event.subject);
  expect(none).toEqual([]);
});

test('pcx.request and pcx.api reach any operation; a path outside the document is refused before sending', async () => {
  const [org] = freshOrgs(1);
  const pcx = clientOf(org);
  const feed = await pcx.request<{ items: unknown[] }>('GET', '/events', { query: { limit: 1 } });
  expect(Array.isArray(feed.data.items)).toBe(true);
  expect(feed.response.headers.get('x-correlation-id')).toBeTruthy();
  const { data, error } = await pcx.api.GET('/capacity-offers', { params: { query: { limit: 1 } } });
  expect(error).toBeUndefined();
  expect(data?.items).toBeDefined();
  await expect(pcx.request('GET', '/nothing-here')).rejects.toThrow(TypeError);
});

test('by URL: a concrete path with its query is sent as its operation, a literal segment before a parameter, an unknown path refused unsent', async () => {
  const [org] = freshOrgs(1);
  const pcx = clientOf(org);
  const draft = (await pcx.send<{ id: string; resourceVersion: number }>('POST', '/capacity-offers', { body: offerBody() })).data;
  const published = (await pcx.send<{ status: string }>('POST', `/capacity-offers/${draft.id}/publish`, { ifMatch: `"${draft.resourceVersion}"` })).data;
  expect(published.status).toBe('published');
  const page = (await pcx.send<{ items: { id: string }[] }>('GET', `/capacity-offers?owner=${encodeURIComponent(org.id)}&limit=1`)).data;
  expect(page.items.map((o) => o.id)).toEqual([draft.id]);
  expect(operationOf('GET', '/console/place-search')?.operation.path).toBe('/console/place-search');
  expect(operationOf('GET', `/capacity-offers/${draft.id}`)).toMatchObject({ operation: { operationId: 'getCapacityOffer' }, path: { id: draft.id } });
  expect(operationOf('POST', '/capacity-offers/x/fly')).toBeUndefined();
  await expect(pcx.send('POST', `/capacity-offers/${draft.id}/fly`)).rejects.toThrow(/not an operation of the broker's document/);
});

test("the console's SDK (/console/app/sdk.js) as a browser loads it: a user's token renewed after a 401, requests by URL, refusals as problems", async () => {
  const [org] = freshOrgs(1);
  const res = await fetch(`${testEnv().baseUrl}/console/app/sdk.js`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
  const source = await res.text();
  // Nothing for Node only: no node: imports left, and it loads as one ES module from its text.
  expect(source).not.toMatch(/from\s*"node:/);
  const file = join(testEnv().dir, `console-sdk-${randomUUID()}.mjs`);
  writeFileSync(file, source);
  const sdk = await import(pathToFileURL(file).href);
  const token = await clientOf(org).accessToken();
  const asked: boolean[] = [];
  const pcx = new sdk.PcxClient({ baseUrl: testEnv().baseUrl, accessToken: ({ renew }: { renew: boolean }) => (asked.push(renew), renew ? token : 'expired') });
  const draft = (await pcx.send('POST', '/capacity-offers', { body: offerBody() })).data;
  expect(draft).toMatchObject({ status: 'draft', ownerOrganizationId: org.id });
  expect(asked).toEqual([false, true]);
  const stale = await pcx.send('POST', `/capacity-offers/${draft.id}/publish`, { ifMatch: '"7"' }).catch((e: unknown) => e);
  expect(stale).toBeInstanceOf(sdk.PcxProblemError);
  expect(stale).toMatchObject({ status: 409, code: 'STALE_RESOURCE_VERSION', problem: { code: 'STALE_RESOURCE_VERSION' } });
  expect(sdk.isProblem(stale, 'STALE_RESOURCE_VERSION')).toBe(true);
  expect([...sdk.PROBLEM_CODES].sort()).toEqual(Object.keys(PROBLEMS).sort());
});
