// Webhook delivery across a crash: the broker process (worker and API) is SIGKILLed while
// deliveries are in flight to a slow receiver; after the restart every event arrives, at least
// once, and each subject's events arrive in their order (a duplicate of an event in flight at the
// kill comes before the next event of its subject, never after). Runs once, on PostgreSQL
// (jest.config.js, ENGINE_INDEPENDENT): the killed broker's database must outlive it.
import { join } from 'node:path';
import { freshOrgs, sleep, testEnv } from './helpers';
import { offerBody } from './listing-fixtures';
import { startBroker, type BrokerHandle } from './stack';
import { testCertificates } from './tls';
import { startReceiver, type Receiver } from './webhook-receiver';

let broker: BrokerHandle | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await broker?.stop();
  await receiver?.close();
});

async function send(base: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

test('deliveries in flight when the broker is killed all arrive after its restart, in order per subject', async () => {
  const env = testEnv();
  const [org] = freshOrgs(1);
  const brokerEnv = { ...env.brokerEnv, TEMPORAL_TASK_QUEUE: `${env.taskQueue}-webhook-crash-${Date.now()}` };
  const dataDir = join(env.dir, `webhook-crash-${Date.now()}`);
  receiver = await startReceiver(testCertificates(env.webhooks.tlsDir));
  // Slow answers: deliveries are in flight when the kill comes.
  receiver.respond(() => ({ status: 204, delayMs: 1500 }));
  broker = await startBroker(brokerEnv, dataDir);
  const tokenOf = async (base: string) => {
    const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.secret }) });
    return ((await res.json()) as any).access_token as string;
  };
  let token = await tokenOf(broker.baseUrl);
  await send(broker.baseUrl, token, 'POST', '/webhook-subscriptions', { url: receiver.url('/crash'), eventTypes: ['pcx.capacity-offer.*'] });

  // Six offers, each published then withdrawn: two events per subject.
  const expected = new Map<string, string[]>();
  for (let i = 0; i < 6; i++) {
    const offer = await send(broker.baseUrl, token, 'POST', '/capacity-offers', offerBody());
    const published = await send(broker.baseUrl, token, 'POST', `/capacity-offers/${offer.id}/publish`, undefined, { 'if-match': '"1"' });
    await send(broker.baseUrl, token, 'POST', `/capacity-offers/${offer.id}/withdraw`, { reason: 'test' }, { 'if-match': `"${published.resourceVersion}"` });
    expected.set(`capacity-offers/${offer.id}`, ['pcx.capacity-offer.published.v1', 'pcx.capacity-offer.withdrawn.v1']);
  }
  await receiver.waitFor(1, 20_000);
  broker.process.kill('SIGKILL');
  await new Promise((resolve) => broker!.process.once('exit', resolve));
  const receivedBeforeRestart = receiver.requests.length;
  // The slow answers did their part (deliveries in flight at the kill). From the restart on, prompt
  // answers: a subject's events go one after another (the redelivery, then the next), and 1.5 s
  // each would only make the test wait.
  receiver.respond(() => ({ status: 204 }));
  broker = await startBroker(brokerEnv, dataDir);
  token = await tokenOf(broker.baseUrl);

  const firstArrivals = () => {
    const seen = new Set<string>();
    const bySubject = new Map<string, string[]>();
    for (const r of receiver!.requests) {
      const event = JSON.parse(r.body);
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      bySubject.set(event.subject, [...(bySubject.get(event.subject) ?? []), event.type]);
    }
    return bySubject;
  };
  const deadline = Date.now() + 60_000;
  while ([...expected.keys()].some((s) => (firstArrivals().get(s)?.length ?? 0) < 2) && Date.now() < deadline) await sleep(250);
  expect(Object.fromEntries(firstArrivals())).toEqual(Object.fromEntries(expected));
  // At least once: duplicates only of what was in flight at the kill (at most one per subject).
  const duplicates = receiver.requests.length - 12;
  expect(duplicates).toBeLessThanOrEqual(6);
  process.stdout.write(`webhook crash: ${receivedBeforeRestart} received before the kill, ${duplicates} duplicate(s) after the restart\n`);
}, 120_000);
