// Webhook subscriptions and delivery against the running broker, on both engines: real HTTPS
// receivers on 127.0.0.1 (allow-listed by the test stack, certificates of a test authority),
// target names resolved by the tests' DNS server (test/dns-server.ts), signatures checked with the
// standardwebhooks package's own verifier.
import { keyRingOf } from '../core/secrets';
import { personalDataOf } from '../core/personal-data';
import { Webhook } from 'standardwebhooks';
import { activeRelationship, Connector, db, expectProblem, freshOrgs, postgresOnly, sleep, testEnv, type Reply } from './helpers';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { KeyRing } from '../core/secrets';
import { resealSecrets } from '../read-model/webhook-subscriptions';
import { createWebhookDelivery } from '../delivery/webhook-pump';
import { loadConfig } from '../core/config';
import { openDb } from '../core/db';
import { Registry } from '../core/registry';
import { SchemaRegistry } from '../core/schemas';
import { offerBody } from './listing-fixtures';
import { setDnsAnswer } from './dns-server';
import { createWebhookReceiver } from '../sdk/src/webhooks';
import { testCertificates } from './tls';
import { startReceiver, type ReceivedRequest, type Receiver } from './webhook-receiver';
import { parsePrometheusTextFormat } from './metrics-text';

const connectors = (n: number) => Promise.all(freshOrgs(n).map((o) => Connector.of(o)));

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver(testCertificates(testEnv().webhooks.tlsDir));
});
afterAll(() => receiver.close());
beforeEach(() => receiver.respond(() => ({ status: 204 })));

/** Requests to one path of the receiver (each test subscribes its own path). */
const at = (path: string) => receiver.requests.filter((r) => r.path === path);

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

let paths = 0;
/** A subscription of `c` to a fresh path of the receiver. */
async function subscribe(c: Connector, extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string; path: string; body: any }> {
  const path = `/hook-${process.pid}-${++paths}`;
  const created = await c.post('/webhook-subscriptions', { url: receiver.url(path), ...extra });
  expect(created.status).toBe(201);
  return { id: created.body.id, secret: created.body.secret, path, body: created.body };
}

async function publishedOffer(c: Connector): Promise<any> {
  const created = await c.post('/capacity-offers', offerBody());
  expect(created.status).toBe(201);
  const published = await c.command(`/capacity-offers/${created.body.id}/publish`, 1);
  expect(published.status).toBe(200);
  return published.body;
}

/** Successful attempts by path (direct: by the outbox watcher; workflow: by the subscription's workflow). */
async function succeededAttempts(path: 'direct' | 'workflow'): Promise<number> {
  const families = parsePrometheusTextFormat(await (await fetch(`${testEnv().baseUrl}/metrics`)).text());
  const sample = families.get('pcx_webhook_attempts_total')?.samples.find((s) => s.labels.outcome === 'succeeded' && s.labels.path === path);
  return sample?.value ?? 0;
}

const eventOf = (r: ReceivedRequest) => JSON.parse(r.body);
const headersOf = (r: ReceivedRequest) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

describe('subscriptions', () => {
  test('create shows the secret once; reads, lists and changes never show it; If-Match guards changes', async () => {
    const [a] = await connectors(1);
    const { id, secret, body } = await subscribe(a, { eventTypes: ['pcx.capacity-offer.*'], description: 'our TMS' });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(body).toMatchObject({ ownerOrganizationId: a.id, active: true, eventTypes: ['pcx.capacity-offer.*'], createdBy: { kind: 'connector', clientId: a.org.clientId } });

    const read = await a.get(`/webhook-subscriptions/${id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe('"1"');
    expect(JSON.stringify(read.body)).not.toContain(secret);
    const listed = await a.get('/webhook-subscriptions?limit=200');
    expect(listed.body.items.map((s: any) => s.id)).toContain(id);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');

    expectProblem(await a.patch(`/webhook-subscriptions/${id}`, { active: false }), 428, 'PRECONDITION_REQUIRED');
    const paused = await a.patch(`/webhook-subscriptions/${id}`, { active: false }, { 'if-match': '"1"' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ active: false, resourceVersion: 2 });
    expectProblem(await a.patch(`/webhook-subscriptions/${id}`, { active: true }, { 'if-match': '"1"' }), 409, 'STALE_RESOURCE_VERSION');
    expectProblem(await a.patch(`/webhook-subscriptions/${id}`, { eventTypes: ['pcx.capacity-ofer.*'] }, { 'if-match': '"2"' }), 400, 'VALIDATION_FAILED');

    const deleted = await a.delete(`/webhook-subscriptions/${id}`, { 'if-match': '"2"' });
    expect(deleted.status).toBe(204);
    expectProblem(await a.get(`/webhook-subscriptions/${id}`), 404, 'RESOURCE_NOT_FOUND');
  });

  test('another organization finds none of it (404), a token without connectors:manage gets 403', async () => {
    const [a, b] = await connectors(2);
    const { id } = await subscribe(a);
    for (const reply of [
      await b.get(`/webhook-subscriptions/${id}`),
      await b.patch(`/webhook-subscriptions/${id}`, { active: false }, { 'if-match': '"1"' }),
      await b.delete(`/webhook-subscriptions/${id}`, { 'if-match': '"1"' }),
      await b.post(`/webhook-subscriptions/${id}/rotate-secret`, {}),
      await b.post(`/webhook-subscriptions/${id}/ping`),
      await b.get(`/webhook-subscriptions/${id}/deliveries`),
      await b.post(`/webhook-subscriptions/${id}/recover`, { since: new Date().toISOString() }),
    ]) {
      expectProblem(reply, 404, 'RESOURCE_NOT_FOUND');
    }
    expect((await b.get('/webhook-subscriptions?limit=200')).body.items.map((s: any) => s.id)).not.toContain(id);
    const narrow = await Connector.of(a.org, 'capacity:read');
    expectProblem(await narrow.get('/webhook-subscriptions'), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await narrow.post('/webhook-subscriptions', { url: receiver.url('/x') }), 403, 'INSUFFICIENT_SCOPE');
  });

  test('every unsafe target is refused at registration (422 WEBHOOK_TARGET_REFUSED) and nothing is stored', async () => {
    const [a] = await connectors(1);
    setDnsAnswer(testEnv().webhooks.dnsFile, 'mixed.pcx.test', ['93.184.216.34', '10.1.2.3']);
    setDnsAnswer(testEnv().webhooks.dnsFile, 'metadata.pcx.test', ['169.254.169.254']);
    setDnsAnswer(testEnv().webhooks.dnsFile, 'v6loop.pcx.test', ['::1']);
    const port = receiver.port;
    const refused = [
      `http://127.0.0.1:${port}/hook`,
      `https://user:pass@127.0.0.1:${port}/hook`,
      'https://127.0.0.2/hook',
      'https://2130706434/hook',
      'https://0177.0.0.2/hook',
      'https://0x7f000002/hook',
      'https://10.0.0.1/hook',
      'https://172.16.0.1/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://100.100.100.200/',
      'https://0.0.0.0/',
      'https://[::1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://[fe80::1]/',
      'https://[fd00:ec2::254]/',
      'https://224.0.0.1/',
      'https://mixed.pcx.test/hook',
      'https://metadata.pcx.test/hook',
      'https://v6loop.pcx.test/hook',
      'https://nowhere.pcx.test/hook',
    ];
    for (const url of refused) {
      const reply = await a.post('/webhook-subscriptions', { url });
      if (reply.status === 400) continue; // not even an https URL by the schema (http://)
      try {
        expectProblem(reply, 422, 'WEBHOOK_TARGET_REFUSED');
      } catch (err) {
        throw new Error(`${url}: ${(err as Error).message}`);
      }
    }
    expect((await a.get('/webhook-subscriptions?limit=200')).body.items).toEqual([]);
  });
});

describe('delivery', () => {
  test('the events of GET /events, signed, with the same data, filtered by type, in order per subject', async () => {
    const [a] = await connectors(1);
    const { secret, path } = await subscribe(a, { eventTypes: ['pcx.capacity-offer.*'] });
    const directBefore = await succeededAttempts('direct');
    const offer = await publishedOffer(a);
    const withdrawn = await a.command(`/capacity-offers/${offer.id}/withdraw`, offer.resourceVersion, { reason: 'sold elsewhere' });
    expect(withdrawn.status).toBe(200);
    const received = await until('two deliveries', () => (at(path).length >= 2 ? at(path) : undefined));
    const events = received.map(eventOf);
    expect(events.map((e) => e.type)).toEqual(['pcx.capacity-offer.published.v1', 'pcx.capacity-offer.withdrawn.v1']);
    for (const r of received) {
      // The package's own verifier: signature and timestamp window.
      expect(new Webhook(secret).verify(r.body, headersOf(r))).toEqual(eventOf(r));
      expect(r.headers['webhook-id']).toBe(eventOf(r).id);
      expect(r.headers['content-type']).toBe('application/cloudevents+json');
    }
    // The same events, with the same data, as the organization's feed.
    const feed = (await a.get('/events?limit=200')).body.items;
    for (const e of events) expect(feed.find((f: any) => f.id === e.id)).toEqual(e);
    // A subscription receives nothing of types it did not ask for (the offer's create was a draft: no event).
    const deliveries = await until('deliveries succeeded', async () => {
      const page = await a.get(`/webhook-subscriptions/${(await a.get('/webhook-subscriptions')).body.items[0].id}/deliveries`);
      return page.body.items.length === 2 && page.body.items.every((d: any) => d.status === 'succeeded') ? page.body.items : undefined;
    });
    expect(deliveries[0].attempts[0]).toMatchObject({ outcome: 'succeeded', statusCode: 204 });
    // Delivered as they arrived, by the outbox watcher itself: no workflow task in between.
    expect(await succeededAttempts('direct')).toBeGreaterThanOrEqual(directBefore + 2);
  });

  postgresOnly('pumps of other workers running at once send each event once, in order per subject (claims)', async () => {
    const [a] = await connectors(1);
    const { id, path } = await subscribe(a, { eventTypes: ['pcx.capacity-offer.*'] });
    // Two more workers' pumps of the same subscription, as fast as they can, beside the broker's
    // watcher and the subscription's workflow.
    const config = loadConfig({ ...testEnv().brokerEnv, DATA_DIR: testEnv().dataDir });
    const db = await openDb({ databaseUrl: testEnv().databaseUrl, dataDir: testEnv().dataDir, poolSize: 4 });
    const registry = Registry.load(config.registry.organizationsFile, config.registry.connectorsFile, config.registry.environment, 'ignored');
    const others = [1, 2].map(() => createWebhookDelivery(db, { webhooks: config.webhooks, registry, eventSource: 'https://test/events', schemaBase: config.schemaBase, secrets: keyRingOf({ keyFile: config.secrets.keyFile, dataDir: config.dataDir }).ring, personalData: personalDataOf(config.secrets) }));
    let stop = false;
    const hammering = others.map(async (delivery) => {
      while (!stop) {
        await delivery.pump({ subscriptionId: id, now: Date.now() }, { path: 'direct' });
        await sleep(5);
      }
    });
    // A slow receiver keeps attempts in flight while the other pumps look.
    receiver.respond(() => ({ status: 204, delayMs: 150 }));
    try {
      const offers = await Promise.all([1, 2, 3, 4].map(() => publishedOffer(a)));
      for (const offer of offers) expect((await a.command(`/capacity-offers/${offer.id}/withdraw`, offer.resourceVersion, { reason: 'test' })).status).toBe(200);
      await until('eight deliveries', () => (at(path).length >= 8 ? true : undefined));
      await sleep(1500);
    } finally {
      stop = true;
      await Promise.all(hammering);
      await db.close();
    }
    const events = at(path).map(eventOf);
    expect(events).toHaveLength(8);
    expect(new Set(events.map((e) => e.id)).size).toBe(8);
    const bySubject = new Map<string, string[]>();
    for (const e of events) bySubject.set(e.subject, [...(bySubject.get(e.subject) ?? []), e.type]);
    for (const types of bySubject.values()) expect(types).toEqual(['pcx.capacity-offer.published.v1', 'pcx.capacity-offer.withdrawn.v1']);
  });

  test('a failing subject holds its later events until the earlier one succeeded; Retry-After is honoured', async () => {
    const [a] = await connectors(1);
    const { id, path } = await subscribe(a, { eventTypes: ['pcx.capacity-offer.*'] });
    let failures = 0;
    receiver.respond((req) => {
      if (req.path === path && failures < 1) {
        failures++;
        return { status: 503, headers: { 'retry-after': '2' } };
      }
      return { status: 204 };
    });
    const offer = await publishedOffer(a);
    await a.command(`/capacity-offers/${offer.id}/withdraw`, offer.resourceVersion, { reason: 'sold elsewhere' });
    const received = await until('the retried and the held event', () => (at(path).length >= 3 ? at(path) : undefined));
    expect(received.map((r) => eventOf(r).type)).toEqual(['pcx.capacity-offer.published.v1', 'pcx.capacity-offer.published.v1', 'pcx.capacity-offer.withdrawn.v1']);
    // The retry waited for Retry-After (2 s), not the schedule's 5 s.
    const gap = received[1].at - received[0].at;
    expect(gap).toBeGreaterThanOrEqual(1500);
    expect(gap).toBeLessThan(4500);
    const deliveries = (await a.get(`/webhook-subscriptions/${id}/deliveries`)).body.items;
    const first = deliveries.find((d: any) => d.eventType === 'pcx.capacity-offer.published.v1');
    expect(first.attempts.map((x: any) => [x.outcome, x.statusCode])).toEqual([
      ['failed', 503],
      ['succeeded', 204],
    ]);
    expect(first.attempts[0].retryAfterSeconds).toBe(2);
  });

  test('a redirect is a failed attempt and is never followed; the response body is never stored', async () => {
    const [a] = await connectors(1);
    const { id, path } = await subscribe(a);
    receiver.respond((req) => (req.path === path ? { status: 302, headers: { location: receiver.url(`${path}-elsewhere`) }, body: 'secret body' } : { status: 204 }));
    await publishedOffer(a);
    const delivery = await until('a failed attempt', async () => {
      const items = (await a.get(`/webhook-subscriptions/${id}/deliveries`)).body.items;
      return items.find((d: any) => d.attempts.length > 0);
    });
    expect(delivery.status).toBe('pending');
    expect(delivery.attempts[0]).toMatchObject({ outcome: 'failed', statusCode: 302, error: 'redirect' });
    expect(delivery.nextAttemptAt).toBeDefined();
    expect(at(`${path}-elsewhere`)).toEqual([]);
    expect(JSON.stringify(delivery)).not.toContain('secret body');
  });

  test('410 Gone disables the subscription and tells its organization', async () => {
    const [a] = await connectors(1);
    const { id, path } = await subscribe(a);
    receiver.respond((req) => (req.path === path ? { status: 410 } : { status: 204 }));
    await publishedOffer(a);
    const disabled = await until('the subscription disabled', async () => {
      const s = (await a.get(`/webhook-subscriptions/${id}`)).body;
      return s.active === false ? s : undefined;
    });
    expect(disabled).toMatchObject({ active: false, disabledReason: 'target-gone' });
    const items = (await a.get(`/webhook-subscriptions/${id}/deliveries`)).body.items;
    expect(items[0]).toMatchObject({ status: 'dead-lettered' });
    const feed = (await a.get('/events?limit=200')).body.items;
    expect(feed.find((e: any) => e.type === 'pcx.webhook-subscription.disabled.v1' && e.subject === `webhook-subscriptions/${id}`)?.data).toMatchObject({ disabledReason: 'target-gone' });
    // Turned on again by its organization: the reason goes.
    const resumed = await a.patch(`/webhook-subscriptions/${id}`, { active: true }, { 'if-match': `"${disabled.resourceVersion}"` });
    expect(resumed.body.disabledReason).toBeUndefined();
  });

  test('a name that resolved to a public address at registration and to a private one later is refused at delivery', async () => {
    const [a] = await connectors(1);
    const name = `rebind-${process.pid}-${Date.now()}.pcx.test`;
    setDnsAnswer(testEnv().webhooks.dnsFile, name, ['93.184.216.34'], 1);
    const created = await a.post('/webhook-subscriptions', { url: `https://${name}:${receiver.port}/rebind` });
    expect(created.status).toBe(201);
    setDnsAnswer(testEnv().webhooks.dnsFile, name, ['10.9.8.7'], 1);
    await sleep(1500);
    await publishedOffer(a);
    const delivery = await until('a refused attempt', async () => (await a.get(`/webhook-subscriptions/${created.body.id}/deliveries`)).body.items.find((d: any) => d.attempts.length));
    expect(delivery.attempts[0]).toMatchObject({ outcome: 'failed', error: 'target-refused' });
    expect(at('/rebind')).toEqual([]);
  });

  test('secret rotation: both secrets sign during the overlap; ping; redelivery and recovery', async () => {
    const [a] = await connectors(1);
    const { id, secret: old, path } = await subscribe(a);
    const ping = await a.post(`/webhook-subscriptions/${id}/ping`);
    expect(ping.body).toMatchObject({ ok: true, statusCode: 204 });
    const pinged = await until('the ping', () => at(path)[0]);
    expect(eventOf(pinged).type).toBe('pcx.webhook-subscription.ping.v1');
    expect(new Webhook(old).verify(pinged.body, headersOf(pinged))).toBeTruthy();
    // A strict receiver takes the ping: a whole event by schemas/event.json, its data by its dataschema.
    const event = eventOf(pinged);
    const [schemaBase, dataRef] = String(event.dataschema).split('/v0/');
    const schemas = new SchemaRegistry(schemaBase);
    expect(schemas.validator('event')(event)).toBe(true);
    expect(dataRef).toBe('webhook-subscription#/$defs/Ping');
    expect(schemas.validator(dataRef)(event.data)).toBe(true);

    const rotated = await a.post(`/webhook-subscriptions/${id}/rotate-secret`, { overlapSeconds: 3600 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(old);
    expect(rotated.body.signingSecrets).toHaveLength(2);
    await publishedOffer(a);
    const delivered = await until('a delivery after the rotation', () => at(path)[1]);
    expect(String(delivered.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, fresh]) expect(new Webhook(secret).verify(delivered.body, headersOf(delivered))).toBeTruthy();

    // Redelivery of a succeeded delivery: the same message (same webhook-id) again.
    const deliveries = (await a.get(`/webhook-subscriptions/${id}/deliveries?status=succeeded`)).body.items;
    expect(deliveries).toHaveLength(1);
    const again = await a.post(`/webhook-subscriptions/${id}/deliveries/${deliveries[0].id}/redeliver`);
    expect(again.status).toBe(202);
    const redelivered = await until('the redelivery', () => at(path)[2]);
    expect(redelivered.headers['webhook-id']).toBe(delivered.headers['webhook-id']);
    // The consumers' helper (sdk/src/webhooks.ts) applies the first and recognises the redelivery.
    const consumer = createWebhookReceiver({ secrets: [fresh] });
    const first = await consumer.receive(delivered.body, delivered.headers as Record<string, string>);
    expect(first.outcome).toBe('apply');
    await consumer.markApplied(first.event);
    expect((await consumer.receive(redelivered.body, redelivered.headers as Record<string, string>)).outcome).toBe('duplicate');
    const recovered = await a.post(`/webhook-subscriptions/${id}/recover`, { since: new Date(Date.now() - 3600_000).toISOString() });
    expect(recovered).toMatchObject({ status: 202, body: { redelivering: 0 } });
  });

  test('nothing from a relationship that ended: events shared before the end are skipped, the feed keeps them', async () => {
    const [owner, partner] = await connectors(2);
    const relationship = await activeRelationship(owner, partner);
    const { id, path } = await subscribe(partner, { eventTypes: ['pcx.capacity-offer.*'], active: false });
    const offer = await publishedOffer(owner);
    const feed = (await partner.get('/events?limit=200')).body.items;
    expect(feed.some((e: any) => e.data?.id === offer.id)).toBe(true);
    const terminated = await owner.command(`/partner-relationships/${relationship.id}/terminate`, relationship.resourceVersion, { reason: 'ended' });
    expect(terminated.status).toBe(200);
    const resumed = await partner.patch(`/webhook-subscriptions/${id}`, { active: true }, { 'if-match': '"1"' });
    expect(resumed.status).toBe(200);
    // Its own events still arrive (proof that the subscription delivers)...
    const own = await publishedOffer(partner);
    await until('its own event', () => at(path).find((r) => eventOf(r).data?.id === own.id));
    // ...but nothing of the partner's offer.
    await sleep(1000);
    expect(at(path).filter((r) => eventOf(r).data?.id === offer.id)).toEqual([]);
  });
});

// Signing secrets at rest (core/secrets.ts; docs/decisions.md, "Secrets at rest"): sealed under the
// key ring of SECRETS_KEY_FILE (the test stack mounts one beside the data folder), a new key
// sealing from the moment it is in the file, the old ones still opening, every stored secret
// sealed again under the newest by resealSecrets (npm run secrets:rotate), after which the old key
// leaves the file; receivers verify throughout with the secret they were given.
describe('secrets at rest', () => {
  const keyFile = () => testEnv().brokerEnv.SECRETS_KEY_FILE;
  let touched = Date.now() + 10_000;
  /** Rewrites the key file (a new modification time each time, however fast the test). */
  const writeKeys = (change: (json: { primary?: string; keys: Array<{ id: string; key: string }> }) => void) => {
    const json = JSON.parse(readFileSync(keyFile(), 'utf8'));
    change(json);
    writeFileSync(keyFile(), JSON.stringify(json, null, 2));
    touched += 1000;
    utimesSync(keyFile(), new Date(), new Date(touched));
  };
  const sealedKeysOf = async (id: string): Promise<Array<string | undefined>> => {
    const { rows } = await db().query<{ secrets: Array<{ sealed?: string }> }>('select secrets from webhook_subscriptions where id = $1', [id]);
    return rows[0].secrets.map((s) => (s.sealed ? KeyRing.keyOf(s.sealed) : undefined));
  };
  /** One offer published by `a`, and its delivery to each path verified with that path's secret. */
  async function deliveredSigned(a: Connector, subscriptions: Array<{ path: string; secret: string }>): Promise<void> {
    const offer = await publishedOffer(a);
    for (const { path, secret } of subscriptions) {
      const delivered = await until(`the offer at ${path}`, () => at(path).find((r) => eventOf(r).data?.id === offer.id));
      expect(new Webhook(secret).verify(delivered.body, headersOf(delivered))).toEqual(eventOf(delivered));
    }
  }

  postgresOnly('the secret is sealed in its row and in the stored idempotent answer, never in an event; a replay still shows it', async () => {
    const [a] = await connectors(1);
    const key = `create-${randomBytes(6).toString('hex')}`;
    const path = `/hook-${process.pid}-sealed`;
    const created = await a.post('/webhook-subscriptions', { url: receiver.url(path), eventTypes: ['pcx.capacity-offer.*'] }, { 'idempotency-key': key });
    expect(created.status).toBe(201);
    const { id, secret } = created.body;
    const material = secret.slice('whsec_'.length);
    const { rows } = await db().query<{ secrets: string }>('select secrets::text as secrets from webhook_subscriptions where id = $1', [id]);
    expect(rows[0].secrets).toMatch(/pcx-sealed:v1:/);
    expect(rows[0].secrets).not.toContain(material);
    const stored = await db().query<{ body: string }>('select response_body::text as body from idempotency_keys where key = $1', [key]);
    expect(stored.rows[0].body).toMatch(/pcx-sealed:v1:/);
    expect(stored.rows[0].body).not.toContain(material);
    const replay = await a.post('/webhook-subscriptions', { url: receiver.url(path), eventTypes: ['pcx.capacity-offer.*'] }, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.secret).toBe(secret);

    const rotated = await a.post(`/webhook-subscriptions/${id}/rotate-secret`, { overlapSeconds: 3600 }, { 'idempotency-key': `rotate-${key}` });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    await deliveredSigned(a, [{ path, secret }, { path, secret: fresh }]);
    // Nowhere in the read model in clear: not the subscription, not an answer kept, not an event.
    for (const s of [material, fresh.slice('whsec_'.length)]) {
      const found = await db().query<{ n: number }>(
        `select (select count(*) from webhook_subscriptions where secrets::text like '%' || $1 || '%')
              + (select count(*) from idempotency_keys where response_body::text like '%' || $1 || '%')
              + (select count(*) from events where cloudevent::text like '%' || $1 || '%') as n`,
        [s],
      );
      expect(Number(found.rows[0].n)).toBe(0);
    }
  });

  postgresOnly('a secret stored in clear before sealing signs as before and is sealed by the next re-sealing', async () => {
    const [a] = await connectors(1);
    const { id, path } = await subscribe(a, { eventTypes: ['pcx.capacity-offer.*'] });
    // The row as a broker before this change wrote it.
    const legacy = `whsec_${randomBytes(32).toString('base64')}`;
    await db().query('update webhook_subscriptions set secrets = $2 where id = $1', [id, JSON.stringify([{ secret: legacy, createdAt: new Date().toISOString() }])]);
    await deliveredSigned(a, [{ path, secret: legacy }]);
    const config = loadConfig({ ...testEnv().brokerEnv, DATA_DIR: testEnv().dataDir });
    const pool = await openDb({ databaseUrl: testEnv().databaseUrl, dataDir: testEnv().dataDir, poolSize: 2 });
    try {
      const ring = keyRingOf({ keyFile: config.secrets.keyFile, dataDir: config.dataDir }).ring;
      const done = await resealSecrets(pool, ring);
      expect(done.resealed).toBeGreaterThanOrEqual(1);
      expect(await sealedKeysOf(id)).toEqual([ring.primary]);
      // Idempotent: nothing left to do.
      expect((await resealSecrets(pool, ring)).resealed).toBe(0);
    } finally {
      await pool.close();
    }
    const { rows } = await db().query<{ secrets: string }>('select secrets::text as secrets from webhook_subscriptions where id = $1', [id]);
    expect(rows[0].secrets).not.toContain(legacy.slice('whsec_'.length));
    await deliveredSigned(a, [{ path, secret: legacy }]);
  });

  test('a key added to the ring seals from then on, the old one still opens; re-sealed, the old key leaves the ring; deliveries stay signed', async () => {
    const [a] = await connectors(1);
    const before = await subscribe(a, { eventTypes: ['pcx.capacity-offer.*'] });
    const oldKey = JSON.parse(readFileSync(keyFile(), 'utf8')).keys.at(-1).id as string;
    const newKey = `test-${randomBytes(4).toString('hex')}`;
    writeKeys((json) => {
      delete json.primary;
      json.keys.push({ id: newKey, key: randomBytes(32).toString('base64') });
    });
    // The broker looks at the file again at most every 5 s (core/secrets.ts, KeyRing).
    await sleep(5_500);
    const after = await subscribe(a, { eventTypes: ['pcx.capacity-offer.*'] });
    await deliveredSigned(a, [before, after]);
    if (testEnv().engine !== 'postgres') return; // PGlite: the broker owns its database and re-seals at its next start.
    expect(await sealedKeysOf(before.id)).toEqual([oldKey]);
    expect(await sealedKeysOf(after.id)).toEqual([newKey]);
    // npm run secrets:rotate, while the broker runs.
    const config = loadConfig({ ...testEnv().brokerEnv, DATA_DIR: testEnv().dataDir });
    const pool = await openDb({ databaseUrl: testEnv().databaseUrl, dataDir: testEnv().dataDir, poolSize: 2 });
    try {
      const done = await resealSecrets(pool, keyRingOf({ keyFile: config.secrets.keyFile, dataDir: config.dataDir }).ring);
      expect(done.unopened).toBe(0);
    } finally {
      await pool.close();
    }
    expect(await sealedKeysOf(before.id)).toEqual([newKey]);
    const { rows } = await db().query<{ n: number }>(`select count(*)::int as n from webhook_subscriptions where secrets::text like '%pcx-sealed:v1:${oldKey}:%'`);
    expect(rows[0].n).toBe(0);
    writeKeys((json) => {
      json.keys = json.keys.filter((k) => k.id !== oldKey);
    });
    await sleep(5_500);
    await deliveredSigned(a, [before, after]);
  }, 60_000);
});

export type { Reply };
