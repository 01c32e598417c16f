// The consumer-side webhook receiver (sdk/src/webhooks.ts): Standard Webhooks verification with
// signatures made by the `standardwebhooks` package itself, the 300 s window on an injected clock
// (far from the real one, so the package's own Date.now check could not be what passes), secret
// rotation, and the delivery rules (dedupe by id, stale versions per subject, nothing recorded
// before markApplied).
import { Webhook } from 'standardwebhooks';
import { createWebhookReceiver, MemoryAppliedStore, WebhookVerificationError, type WebhookEvent } from '../../sdk/src/webhooks';

const secret = (fill: string) => `whsec_${Buffer.from(fill.repeat(32)).toString('base64')}`;
const CURRENT = secret('c');
const PREVIOUS = secret('p');
const NOW = new Date('2030-06-01T12:00:00.000Z');
const nowSeconds = NOW.getTime() / 1000;

let sequence = 0;
function event(overrides: Partial<WebhookEvent> = {}): WebhookEvent {
  sequence++;
  return {
    specversion: '1.0',
    id: `01912f6e-6a44-7c3a-9d3e-${String(sequence).padStart(12, '0')}`,
    source: 'https://pcx.example/',
    type: 'pcx.transport-tender.offered.v0',
    subject: 'transport-tenders/01912f6e-6a44-7c3a-9d3e-0c5b6a1e2f3c',
    time: '2030-06-01T11:59:59.000Z',
    dataschema: 'https://pcx.example/schemas/v0/transport-tender',
    datacontenttype: 'application/json',
    data: { status: 'offered' },
    organizationid: 'org-a',
    resourceversion: 1,
    correlationid: '01912f6e-6a44-7c3a-9d3e-0c5b6a1e0000',
    ...overrides,
  };
}

/** A delivery as the broker makes it: body, and headers signed with `signWith` at `at`. */
function delivery(e: WebhookEvent, options: { signWith?: string; at?: Date; id?: string } = {}) {
  const body = JSON.stringify(e);
  const at = options.at ?? NOW;
  const id = options.id ?? e.id;
  return {
    body,
    headers: {
      'content-type': 'application/cloudevents+json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(options.signWith ?? CURRENT).sign(id, at, body),
    } as Record<string, string>,
  };
}

const receiver = (secrets = [CURRENT], store = new MemoryAppliedStore()) => createWebhookReceiver({ secrets, store, now: () => NOW });

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as Error).message;
}

describe('verification', () => {
  test('a delivery signed by standardwebhooks is accepted and its event returned', async () => {
    const e = event();
    const { body, headers } = delivery(e);
    await expect(receiver().receive(body, headers)).resolves.toEqual({ outcome: 'apply', event: e });
    await expect(receiver().receive(Buffer.from(body), headers)).resolves.toMatchObject({ outcome: 'apply' });
  });

  test('a tampered body, id or timestamp is refused', async () => {
    const { body, headers } = delivery(event());
    expect(await refusal(receiver().receive(body.replace('"offered"', '"accepted"'), headers))).toMatch(/signature/);
    expect(await refusal(receiver().receive(body, { ...headers, 'webhook-timestamp': String(nowSeconds - 1) }))).toMatch(/signature/);
    expect(await refusal(receiver().receive(body, { ...headers, 'webhook-id': 'another-id' }))).toMatch(/signature/);
    expect(await refusal(receiver().receive(body, { ...headers, 'webhook-signature': 'v1,' + Buffer.alloc(32).toString('base64') }))).toMatch(/signature/);
  });

  test('a webhook-id other than the body id is refused even when correctly signed', async () => {
    const { body, headers } = delivery(event(), { id: 'msg_other' });
    expect(await refusal(receiver().receive(body, headers))).toMatch(/webhook-id header "msg_other" does not equal the event id/);
  });

  test('the 300 s window on the injected clock: 299 s and 300 s either way accepted, 301 s refused', async () => {
    for (const offset of [-299, -300, 299, 300]) {
      const { body, headers } = delivery(event(), { at: new Date(NOW.getTime() + offset * 1000) });
      await expect(receiver().receive(body, headers)).resolves.toMatchObject({ outcome: 'apply' });
    }
    const old = delivery(event(), { at: new Date(NOW.getTime() - 301_000) });
    expect(await refusal(receiver().receive(old.body, old.headers))).toMatch(/too old/);
    const future = delivery(event(), { at: new Date(NOW.getTime() + 301_000) });
    expect(await refusal(receiver().receive(future.body, future.headers))).toMatch(/too new/);
  });

  test('toleranceSeconds narrows the window', async () => {
    const { body, headers } = delivery(event(), { at: new Date(NOW.getTime() - 61_000) });
    const narrow = createWebhookReceiver({ secrets: [CURRENT], toleranceSeconds: 60, now: () => NOW });
    expect(await refusal(narrow.receive(body, headers))).toMatch(/too old/);
  });

  test('without `now` the system clock is used', async () => {
    const e = event();
    const at = new Date();
    const { body, headers } = delivery(e, { at });
    await expect(createWebhookReceiver({ secrets: [CURRENT] }).receive(body, headers)).resolves.toMatchObject({ outcome: 'apply' });
    const stale = delivery(event(), { at: new Date(at.getTime() - 3600_000) });
    expect(await refusal(createWebhookReceiver({ secrets: [CURRENT] }).receive(stale.body, stale.headers))).toMatch(/too old/);
  });

  test('rotation: two signatures in the header, only the second valid, accepted', async () => {
    const e = event();
    const { body, headers } = delivery(e);
    const wrong = new Webhook(secret('x')).sign(e.id, NOW, body);
    await expect(receiver().receive(body, { ...headers, 'webhook-signature': `${wrong} ${headers['webhook-signature']}` })).resolves.toMatchObject({ outcome: 'apply' });
    expect(await refusal(receiver().receive(body, { ...headers, 'webhook-signature': `${wrong} ${wrong}` }))).toMatch(/No matching signature/);
  });

  test('rotation: two secrets configured, a delivery signed with the old one accepted', async () => {
    const { body, headers } = delivery(event(), { signWith: PREVIOUS });
    await expect(receiver([CURRENT, PREVIOUS]).receive(body, headers)).resolves.toMatchObject({ outcome: 'apply' });
    expect(await refusal(receiver([CURRENT]).receive(body, headers))).toMatch(/No matching signature/);
  });

  test('signature versions other than v1 are not accepted', async () => {
    const { body, headers } = delivery(event());
    expect(await refusal(receiver().receive(body, { ...headers, 'webhook-signature': headers['webhook-signature'].replace(/^v1,/, 'v1a,') }))).toMatch(/No v1 signature/);
  });

  test('missing headers and a malformed timestamp are refused with the reason', async () => {
    const { body, headers } = delivery(event());
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const { [name]: _gone, ...rest } = headers;
      expect(await refusal(receiver().receive(body, rest))).toBe(`Missing ${name} header`);
    }
    expect(await refusal(receiver().receive(body, { ...headers, 'webhook-timestamp': '17e8' }))).toMatch(/Invalid webhook-timestamp/);
  });

  test('a signed body that is not a broker CloudEvent is refused', async () => {
    const sign = (body: string) => ({
      'webhook-id': 'm1',
      'webhook-timestamp': String(nowSeconds),
      'webhook-signature': new Webhook(CURRENT).sign('m1', NOW, body),
    });
    expect(await refusal(receiver().receive('not json', sign('not json')))).toMatch(/not JSON/);
    const noVersion = JSON.stringify({ ...event({ id: 'm1' }), resourceversion: '3' });
    expect(await refusal(receiver().receive(noVersion, sign(noVersion)))).toMatch(/resourceversion/);
  });

  test('header names in any case, Node array values and fetch Headers are accepted', async () => {
    const { body, headers } = delivery(event());
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(receiver().receive(body, upper)).resolves.toMatchObject({ outcome: 'apply' });
    const mixed = { 'Webhook-Id': headers['webhook-id'], 'Webhook-Timestamp': headers['webhook-timestamp'], 'Webhook-Signature': headers['webhook-signature'] };
    await expect(receiver().receive(body, mixed)).resolves.toMatchObject({ outcome: 'apply' });

    const wrong = new Webhook(secret('x')).sign(headers['webhook-id'], NOW, body);
    const arrays = { 'webhook-id': [headers['webhook-id']], 'webhook-timestamp': [headers['webhook-timestamp']], 'webhook-signature': [wrong, headers['webhook-signature']], 'x-other': undefined };
    await expect(receiver().receive(body, arrays)).resolves.toMatchObject({ outcome: 'apply' });
    expect(await refusal(receiver().receive(body, { ...arrays, 'webhook-id': [headers['webhook-id'], 'other'] }))).toMatch(/Several different webhook-id headers/);

    const fetchHeaders = new Headers(headers);
    fetchHeaders.append('Webhook-Signature', wrong); // fetch joins repeated values with ", "
    await expect(receiver().receive(body, fetchHeaders)).resolves.toMatchObject({ outcome: 'apply' });
  });
});

describe('delivery rules', () => {
  test('a redelivered id after markApplied is a duplicate', async () => {
    const r = receiver();
    const e = event();
    const first = await r.receive(delivery(e).body, delivery(e).headers);
    expect(first.outcome).toBe('apply');
    await r.markApplied(first.event);
    // The retry is signed again at a later attempt time; the id stays.
    const retry = delivery(e, { at: new Date(NOW.getTime() + 60_000) });
    await expect(r.receive(retry.body, retry.headers)).resolves.toEqual({ outcome: 'duplicate', event: e });
  });

  test('per subject: lower or equal resourceversion is stale, higher is apply; subjects are independent', async () => {
    const r = receiver();
    const subject = 'transport-tenders/aaaa';
    const v3 = event({ subject, resourceversion: 3 });
    await r.markApplied((await r.receive(delivery(v3).body, delivery(v3).headers)).event);

    for (const version of [2, 3]) {
      const older = event({ subject, resourceversion: version });
      await expect(r.receive(delivery(older).body, delivery(older).headers)).resolves.toEqual({ outcome: 'stale', event: older, appliedVersion: 3 });
    }
    const v4 = event({ subject, resourceversion: 4 });
    await expect(r.receive(delivery(v4).body, delivery(v4).headers)).resolves.toMatchObject({ outcome: 'apply' });

    const elsewhere = event({ subject: 'transport-tenders/bbbb', resourceversion: 1 });
    await expect(r.receive(delivery(elsewhere).body, delivery(elsewhere).headers)).resolves.toMatchObject({ outcome: 'apply' });
  });

  test('receive records nothing: without markApplied the same event is applied again', async () => {
    const store = new MemoryAppliedStore();
    const r = receiver([CURRENT], store);
    const e = event({ resourceversion: 7 });
    const { body, headers } = delivery(e);
    await expect(r.receive(body, headers)).resolves.toMatchObject({ outcome: 'apply' });
    // The consumer crashed before applying: the broker redelivers.
    await expect(r.receive(body, headers)).resolves.toMatchObject({ outcome: 'apply' });
    expect(store.hasEvent(e.id)).toBe(false);
    expect(store.appliedVersion(e.subject)).toBeUndefined();
    await r.markApplied(e);
    await expect(r.receive(body, headers)).resolves.toMatchObject({ outcome: 'duplicate' });
  });

  test('a custom asynchronous store is consulted and written through', async () => {
    const ids = new Set<string>();
    const versions = new Map<string, number>();
    const r = createWebhookReceiver({
      secrets: [CURRENT],
      now: () => NOW,
      store: {
        hasEvent: async (id) => ids.has(id),
        appliedVersion: async (subject) => versions.get(subject),
        record: async ({ id, subject, resourceversion }) => {
          ids.add(id);
          versions.set(subject, resourceversion);
        },
      },
    });
    const e = event({ subject: 'x/1', resourceversion: 5 });
    await r.markApplied((await r.receive(delivery(e).body, delivery(e).headers)).event);
    expect([...ids]).toEqual([e.id]);
    expect(versions.get('x/1')).toBe(5);
  });
});

describe('MemoryAppliedStore', () => {
  test('keeps the last N event ids and the highest version per subject', () => {
    const store = new MemoryAppliedStore({ maxEventIds: 3 });
    for (const n of [1, 2, 3, 4]) store.record({ id: `e${n}`, subject: 's', resourceversion: n });
    expect(['e1', 'e2', 'e3', 'e4'].map((id) => store.hasEvent(id))).toEqual([false, true, true, true]);
    store.record({ id: 'e0', subject: 's', resourceversion: 2 });
    expect(store.appliedVersion('s')).toBe(4);
    expect(store.appliedVersion('t')).toBeUndefined();
    expect(() => new MemoryAppliedStore({ maxEventIds: 0 })).toThrow(RangeError);
  });

  test('defaults to 10,000 ids', () => {
    const store = new MemoryAppliedStore();
    for (let n = 0; n <= 10_000; n++) store.record({ id: `e${n}`, subject: 's', resourceversion: n });
    expect(store.hasEvent('e0')).toBe(false);
    expect(store.hasEvent('e1')).toBe(true);
  });
});

test('a receiver needs a secret', () => {
  expect(() => createWebhookReceiver({ secrets: [] })).toThrow(/at least one secret/);
});
