// The whole webhook retry schedule and the disabling of a subscription that fails for days, at
// their real distances (about 27.6 hours of retries, then days of failures) in seconds: the
// subscription's workflow sleeps on Temporal timers, which the time-skipping server fires.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RETRY_SCHEDULE_SECONDS } from '../../domain/webhooks';
import { testCertificates } from '../tls';
import { startReceiver, type Receiver } from '../webhook-receiver';
import { offerBody } from '../listing-fixtures';
import { startHarness, testOnHarness, type Harness, type Party } from './harness';

jest.setTimeout(180_000);

let h: Harness;
let receiver: Receiver;
let tls: string;

beforeAll(async () => {
  tls = mkdtempSync(join(tmpdir(), 'pcx-timeskip-tls-'));
  const certificates = testCertificates(tls);
  receiver = await startReceiver(certificates);
  h = await startHarness({
    env: { WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_CA_FILE: join(tls, 'ca.pem'), WEBHOOK_DISABLE_AFTER_HOURS: '48',
      // No idle pumps between the retries' timers: the outbox watcher pokes for new events.
      WEBHOOK_IDLE_PUMP_SECONDS: '86400',
    },
  });
});
afterAll(async () => {
  await h?.stop();
  await receiver?.close();
  rmSync(tls, { recursive: true, force: true });
});
const test = testOnHarness(() => h, 180_000);

async function publishOffer(party: Party): Promise<void> {
  // offerBody's windows are relative to Date, which the harness keeps at the test server's time.
  const created = await party.post('/capacity-offers', offerBody());
  expect(created.status).toBe(201);
  expect((await party.command(`/capacity-offers/${created.body.id}/publish`, 1)).status).toBe(200);
}

test('a delivery that always fails is attempted on the schedule, dead-lettered, and the subscription disabled after days', async () => {
  receiver.respond(() => ({ status: 500 }));
  const [carrier] = h.parties(1);
  const created = await carrier.post('/webhook-subscriptions', { url: receiver.url('/always-failing'), eventTypes: ['pcx.capacity-offer.published.v1'] });
  expect(created.status).toBe(201);
  const id = created.body.id;
  const deliveries = async () => (await carrier.get(`/webhook-subscriptions/${id}/deliveries`)).body.items as any[];

  await publishOffer(carrier);
  await h.until('the first attempt', async () => (await deliveries())[0]?.attempts.length === 1);

  // Every later attempt comes when its timer fires: skip just past each.
  for (let n = 1; n < RETRY_SCHEDULE_SECONDS.length; n++) {
    await h.skip(`${Math.ceil(RETRY_SCHEDULE_SECONDS[n] * 1.1) + 1} seconds`);
    await h.until(`attempt ${n + 1}`, async () => (await deliveries())[0]?.attempts.length === n + 1);
  }
  const [delivery] = await deliveries();
  expect(delivery.status).toBe('dead-lettered');
  expect(delivery.nextAttemptAt).toBeUndefined();
  const times = delivery.attempts.map((a: any) => Date.parse(a.attemptedAt));
  // Each gap is the schedule's delay within its ±10 % jitter (plus the moment a pump takes).
  for (let n = 1; n < times.length; n++) {
    const gap = (times[n] - times[n - 1]) / 1000;
    expect(gap).toBeGreaterThanOrEqual(RETRY_SCHEDULE_SECONDS[n] * 0.9 - 1);
    expect(gap).toBeLessThanOrEqual(RETRY_SCHEDULE_SECONDS[n] * 1.1 + 70);
  }
  expect(delivery.attempts.every((a: any) => a.outcome === 'failed' && a.statusCode === 500)).toBe(true);
  expect((await carrier.get(`/webhook-subscriptions/${id}`)).body.active).toBe(true);

  // A day later another event fails too; once every attempt has failed for 48 hours
  // (WEBHOOK_DISABLE_AFTER_HOURS), the broker disables the subscription and says so.
  await h.skip('3 hours');
  await publishOffer(carrier);
  for (let hours = 0; hours < 40; hours += 5) {
    await h.skip('5 hours');
    if ((await carrier.get(`/webhook-subscriptions/${id}`)).body.active === false) break;
  }
  await h.until('disabled', async () => (await carrier.get(`/webhook-subscriptions/${id}`)).body.active === false);
  const subscription = (await carrier.get(`/webhook-subscriptions/${id}`)).body;
  expect(subscription.disabledReason).toBe('failing');
  // The feed serves a transaction's events once no older transaction runs in the cluster (read-model/events.ts): soon, not at once.
  await h.until('the feed to say pcx.webhook-subscription.disabled.v1', async () => (await carrier.eventTypes()).includes('pcx.webhook-subscription.disabled.v1'));
  // Disabled: no attempt after it.
  const attemptsThen = receiver.requests.length;
  await h.skip('12 hours');
  expect(receiver.requests.length).toBe(attemptsThen);
});
