// The deployment docker-compose.yml describes, run with plain processes: two API processes
// (PCX_ROLE=api) and two workers (PCX_ROLE=worker) on one PostgreSQL and one Temporal server, with
// a task queue of their own. Connectors spread their requests over both APIs as a load balancer
// would, and one API and one worker are SIGKILLed while markets are being built:
// - idempotency holds across replicas (one key sent to both APIs at once: one effect);
// - the rate limit is one limit across replicas (its counters live in PostgreSQL);
// - nothing acknowledged is lost or duplicated, and every retry is answered within seconds;
// - matching and the time rules (proposal expiry) go on in the surviving worker;
// - the feed is the same whichever API serves it, without duplicates or gaps per subject;
// - GET /metrics on an API and on a worker's health port, behind METRICS_TOKEN.
// Runs once, on PostgreSQL (jest.config.js, ENGINE_INDEPENDENT): PGlite serves a single process.
import { join } from 'node:path';
import { startBroker, type BrokerHandle } from './stack';
import { startWorkerProcess, type WorkerProcess } from './worker-process';
import { db, freshOrgs, sleep, testEnv, type Org } from './helpers';
import { expectCausalFeed } from './feed';
import { offer, request } from './matching-fixtures';
import { parsePrometheusTextFormat } from './metrics-text';
import { waitFor } from '../sdk/src';

const METRICS_TOKEN = 'scale-test-metrics-token';
const ORG_LIMIT = 150; // RATE_LIMIT_ORG_PER_MINUTE of these processes
// MATCH_PROPOSAL_VALIDITY_SECONDS: proposals expire during the test. They are the markets' last
// step, made after the kill, so their expiry timers run on the surviving worker whatever the length
// (and the check that each market has its proposal counts it in any status): 10 s, not a long wait.
const VALIDITY_SECONDS = 10;
const MARKETS = 6;

interface Reply {
  status: number;
  body: any;
}

/** Connectors' view of the cluster: the APIs behind a round-robin balancer that skips dead ones. */
class Balancer {
  private next = 0;
  /** Answers that needed a retry after a failure, with how long after the kill they came. */
  readonly recovered: number[] = [];
  killedAt: number | undefined;

  constructor(readonly apis: string[]) {}

  async once(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}, api?: string): Promise<Reply> {
    const base = api ?? this.apis[this.next++ % this.apis.length];
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(20000),
      });
      return { status: res.status, body: await res.json().catch(() => undefined) };
    } catch {
      return { status: 0, body: undefined };
    }
  }

  /**
   * Sends like a connector does: a network error, 503 or 409 IDEMPOTENCY_IN_PROGRESS is retried
   * (the next try goes to the next API) with the same Idempotency-Key, every 250 ms for 30 s.
   */
  async send(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const deadline = Date.now() + 30000;
    let failed = false;
    for (;;) {
      const reply = await this.once(method, path, token, body, headers);
      const retry = reply.status === 0 || reply.status === 503 || (reply.status === 409 && reply.body?.code === 'IDEMPOTENCY_IN_PROGRESS');
      if (!retry || Date.now() > deadline) {
        if (failed && this.killedAt !== undefined) this.recovered.push(Date.now() - this.killedAt);
        return reply;
      }
      failed = true;
      await sleep(250);
    }
  }
}

async function tokenOf(base: string, org: Org): Promise<string> {
  const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.secret }) });
  return ((await res.json()) as any).access_token;
}

function ok(reply: Reply, status: number, what: string): any {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** A carrier and a shipper: relationship, an offer and a request that match, every command with its own key. */
async function buildMarket(lb: Balancer, carrier: { org: Org; token: string }, shipper: { org: Org; token: string }, n: number) {
  const key = (what: string) => ({ 'idempotency-key': `scale-${carrier.org.id}-${what}` });
  const rel = ok(await lb.send('POST', '/partner-relationships', carrier.token, {
    requestingOrganizationId: carrier.org.id, acceptingOrganizationId: shipper.org.id,
    scopes: ['capacity:publish', 'capacity:read', 'loads:publish', 'loads:read', 'matches:read', 'matches:decide'],
  }, key('rel')), 201, `market ${n}: relationship`);
  ok(await lb.send('POST', `/partner-relationships/${rel.id}/request`, carrier.token, undefined, { 'if-match': '"1"', ...key('rel-request') }), 200, `market ${n}: request`);
  ok(await lb.send('POST', `/partner-relationships/${rel.id}/accept`, shipper.token, undefined, { 'if-match': '"2"', ...key('rel-accept') }), 200, `market ${n}: accept`);
  const o = ok(await lb.send('POST', '/capacity-offers', carrier.token, offer(), key('offer')), 201, `market ${n}: offer`);
  ok(await lb.send('POST', `/capacity-offers/${o.id}/publish`, carrier.token, undefined, { 'if-match': `"${o.resourceVersion}"`, ...key('offer-publish') }), 200, `market ${n}: publish offer`);
  const r = ok(await lb.send('POST', '/load-requests', shipper.token, request(), key('request')), 201, `market ${n}: load request`);
  ok(await lb.send('POST', `/load-requests/${r.id}/publish`, shipper.token, undefined, { 'if-match': `"${r.resourceVersion}"`, ...key('request-publish') }), 200, `market ${n}: publish request`);
  return { relationshipId: rel.id as string, offerId: o.id as string, requestId: r.id as string };
}

async function wholeFeed(lb: Balancer, token: string, api: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = ok(await lb.once('GET', `/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`, token, undefined, {}, api), 200, 'feed');
    items.push(...page.items);
    if (page.items.length === 0) return items;
    cursor = page.nextCursor;
  }
}

let apis: BrokerHandle[] = [];
let workers: WorkerProcess[] = [];
/** When this file began: the command intents made since are its processes'. */
const began = new Date();
afterAll(async () => {
  await Promise.all([...apis.map((a) => a.stop()), ...workers.map((w) => w.stop())]);
  // Intents its killed or stopped processes left (the test failed midway) name workflows of its
  // own task queue, which no worker polls any more: no sweep can settle them, and the shared
  // broker's readiness would report them (test/health.test.ts) for the rest of the run.
  await db().query('delete from command_intents where created_at >= $1', [began]);
});

test('two APIs and two workers: idempotency, rate limits, matching, expiry and the feed hold across replicas and through SIGKILL of one of each', async () => {
  const env = testEnv();
  const queue = `${env.taskQueue}-scale-${Date.now()}`;
  const dataDir = join(env.dir, `scale-${Date.now()}`); // shared: the APIs sign development tokens with one key
  const common = {
    ...env.brokerEnv,
    TEMPORAL_TASK_QUEUE: queue,
    RATE_LIMIT_ORG_PER_MINUTE: String(ORG_LIMIT),
    RATE_LIMIT_TOKEN_PER_MINUTE: '3000',
    MATCH_PROPOSAL_VALIDITY_SECONDS: String(VALIDITY_SECONDS),
    METRICS_TOKEN,
    // One public address for the cluster, as behind a load balancer: tokens name it as issuer,
    // events as source, so a token from one API is good at the other.
    PUBLIC_BASE_URL: 'http://pcx-cluster.test',
  };
  workers = await Promise.all([startWorkerProcess(common, dataDir), startWorkerProcess(common, dataDir)]);
  apis = await Promise.all([startBroker({ ...common, PCX_ROLE: 'api' }, dataDir), startBroker({ ...common, PCX_ROLE: 'api' }, dataDir)]);
  const lb = new Balancer(apis.map((a) => a.baseUrl));
  const orgs = freshOrgs(2 * MARKETS + 2);
  const tokens = await Promise.all(orgs.map((o, i) => tokenOf(apis[i % 2].baseUrl, o)));
  const party = (i: number) => ({ org: orgs[i], token: tokens[i] });

  // Idempotency across replicas: one create, its key sent to both APIs at the same moment.
  const [x, y] = [party(2 * MARKETS), party(2 * MARKETS + 1)];
  const invite = { requestingOrganizationId: x.org.id, acceptingOrganizationId: y.org.id, scopes: ['capacity:read'] };
  const both = await Promise.all(apis.map(async (a) => {
    for (;;) {
      const reply = await lb.once('POST', '/partner-relationships', x.token, invite, { 'idempotency-key': 'scale-both' }, a.baseUrl);
      if (reply.status !== 409 || reply.body?.code !== 'IDEMPOTENCY_IN_PROGRESS') return reply;
      await sleep(200);
    }
  }));
  expect(both.map((r) => r.status)).toEqual([201, 201]);
  expect(both[0].body.id).toBe(both[1].body.id);

  // The rate limit is one limit across both APIs: twice the limit, half to each, from one
  // organization. Each API counts in batches below a fifth of the limit (read-model/rate-counters.ts
  // RequestCounter), so a burst may pass it by what the other had counted but not written: at
  // most a fifth of it; each API alone would have allowed all of its half.
  const burst = await Promise.all(Array.from({ length: 2 * ORG_LIMIT }, (_, i) => lb.once('GET', '/partner-relationships?limit=1', y.token, undefined, {}, apis[i % 2].baseUrl)));
  const allowed = burst.filter((r) => r.status === 200).length;
  expect(burst.filter((r) => r.status !== 200).every((r) => r.status === 429 && r.body.code === 'RATE_LIMITED')).toBe(true);
  expect(allowed).toBeGreaterThanOrEqual(ORG_LIMIT - 5);
  expect(allowed).toBeLessThanOrEqual(ORG_LIMIT * 1.2 + 5);

  // Markets built under load; one API and one worker killed in the middle.
  const building = Array.from({ length: MARKETS }, (_, n) => buildMarket(lb, party(2 * n), party(2 * n + 1), n));
  await sleep(1500);
  lb.killedAt = Date.now();
  apis[0].process.kill('SIGKILL');
  workers[0].process.kill('SIGKILL');
  const markets = await Promise.all(building);

  // The retries across the kill (leases and task timeouts, domain/timeouts.ts, let another process take the work over).
  const recovered = [...lb.recovered].sort((a, b) => a - b);
  console.log(`scale: ${recovered.length} requests retried across the kill; answered ${recovered.length ? `at median ${recovered[recovered.length >> 1]} ms, max ${recovered[recovered.length - 1]} ms` : '(none needed a retry)'} after it`);
  // Every retry was answered (the markets above completed); how soon is a measurement, printed
  // here: the median stays near 4.5 s, the slowest reached 8.0 to 10.1 s in five clean-clone runs
  // of the whole suite on two cores, more on a machine busy with other work (docs/decisions.md,
  // "A suite that holds under load").

  // Matching ran on the surviving worker; proposals expire there too (the time rules).
  const survivor = apis[1].baseUrl;
  for (const [n, m] of markets.entries()) {
    const shipper = party(2 * n + 1);
    const proposals = await waitFor(`market ${n}: a proposal`, async () => {
      const page = ok(await lb.once('GET', `/match-proposals?request=${m.requestId}`, shipper.token, undefined, {}, survivor), 200, 'proposals');
      return page.items.length ? page.items : undefined;
    }, { timeoutMs: 30000, intervalMs: 1000 });
    expect(proposals).toHaveLength(1);
    expect(proposals[0]).toMatchObject({ capacityOfferId: m.offerId, loadRequestId: m.requestId });
  }
  for (const [n, m] of markets.entries()) {
    const shipper = party(2 * n + 1);
    await waitFor(`market ${n}: the proposal expired`, async () => {
      const page = ok(await lb.once('GET', `/match-proposals?request=${m.requestId}`, shipper.token, undefined, {}, survivor), 200, 'proposals');
      return page.items[0].status === 'expired' ? true : undefined;
    }, { timeoutMs: (VALIDITY_SECONDS + 30) * 1000, intervalMs: 1000 });
  }

  // Nothing acknowledged lost, nothing duplicated: each organization has exactly what it created,
  // and its feed holds each transition once, in order per subject.
  for (const [n, m] of markets.entries()) {
    const carrier = party(2 * n);
    const shipper = party(2 * n + 1);
    const rels = ok(await lb.once('GET', '/partner-relationships?limit=200', carrier.token, undefined, {}, survivor), 200, 'relationships').items;
    expect(rels.map((r: any) => r.id)).toEqual([m.relationshipId]);
    expect(rels[0].status).toBe('active');
    const offers = ok(await lb.once('GET', '/capacity-offers?limit=200', carrier.token, undefined, {}, survivor), 200, 'offers').items;
    expect(offers.filter((o: any) => o.ownerOrganizationId === carrier.org.id).map((o: any) => o.id)).toEqual([m.offerId]);
    const requests = ok(await lb.once('GET', '/load-requests?limit=200', shipper.token, undefined, {}, survivor), 200, 'requests').items;
    expect(requests.filter((r: any) => r.ownerOrganizationId === shipper.org.id).map((r: any) => r.id)).toEqual([m.requestId]);
    const feed = await wholeFeed(lb, carrier.token, survivor);
    expectCausalFeed(feed);
    const types = (subject: string) => feed.filter((e) => e.subject === subject).map((e) => e.type);
    // A draft is private and emits nothing (the relationship's first event is its request).
    expect(types(`partner-relationships/${m.relationshipId}`)).toEqual(['pcx.partner-relationship.requested.v1', 'pcx.partner-relationship.activated.v1']);
    expect(types(`capacity-offers/${m.offerId}`).filter((t) => t === 'pcx.capacity-offer.published.v1')).toHaveLength(1);
  }

  // GET /metrics: behind the token on the API and on the surviving worker's health port.
  const unauthorized = await fetch(`${survivor}/metrics`);
  expect(unauthorized.status).toBe(401);
  expect(unauthorized.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(((await unauthorized.json()) as any).code).toBe('UNAUTHENTICATED');
  expect((await fetch(`${workers[1].healthUrl}/metrics`)).status).toBe(401);
  const scrape = async (url: string) => {
    const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    return parsePrometheusTextFormat(await res.text());
  };
  const apiMetrics = await scrape(survivor);
  const commands = apiMetrics.get('pcx_command_duration_seconds')!.samples.filter((s) => s.name === 'pcx_command_duration_seconds_count');
  expect(commands.some((s) => s.labels.kind === 'capacity-offer' && s.labels.command === 'publish' && s.value >= 1)).toBe(true);
  const workerMetrics = await scrape(workers[1].healthUrl);
  const flows = workerMetrics.get('pcx_flow_duration_seconds')!.samples.filter((s) => s.name === 'pcx_flow_duration_seconds_count');
  expect(flows.some((s) => s.labels.flow === 'matchListingFlow' && s.value >= 1)).toBe(true);
  // The worker executes no commands through HTTP: its histogram has no samples.
  expect(workerMetrics.get('pcx_command_duration_seconds')!.samples).toHaveLength(0);
}, 240000);
