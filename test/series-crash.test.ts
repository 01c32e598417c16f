// A recurring series whose horizon falls due at once (sixty daily occurrences) while its broker
// process is SIGKILLed in the middle of publishing them: once a broker runs again, every
// occurrence is one published listing, published once; none is missing, doubled or left as a
// draft (issue 33: "a restart in the middle of publishing a horizon publishes each occurrence
// once"). Runs once, on PostgreSQL (jest.config.js, ENGINE_INDEPENDENT): the killed process and
// its successor share the database, which an embedded PGlite inside the dead process would not.
import { join } from 'node:path';
import { startBroker, type BrokerHandle } from './stack';
import { db, freshOrgs, sleep, testEnv } from './helpers';
import { offer as marketOffer } from './market-bodies';

const OCCURRENCES = 60;

async function token(base: string, org: { clientId: string; secret: string }) {
  const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.secret }) });
  return ((await res.json()) as any).access_token as string;
}

async function call(base: string, bearer: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

/** The caller's offers that are occurrences of the series, every page. */
async function occurrencesOf(base: string, bearer: string, seriesId: string): Promise<any[]> {
  const found: any[] = [];
  for (let cursor: string | null = ''; cursor !== null; ) {
    const page: { status: number; body: any } = await call(base, bearer, 'GET', `/capacity-offers?status=draft,published,withdrawn,expired&limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    if (!Array.isArray(page.body?.items)) throw new Error(`GET /capacity-offers answered ${page.status} ${JSON.stringify(page.body)}`);
    found.push(...page.body.items.filter((o: any) => o.seriesId === seriesId));
    cursor = page.body.nextCursor;
  }
  return found;
}

let brokers: BrokerHandle[] = [];
afterEach(async () => {
  for (const b of brokers) await b.stop();
  brokers = [];
});

test('a broker killed while a series publishes its horizon: after the restart each occurrence is published once', async () => {
  const env = testEnv();
  const [carrier] = freshOrgs(1);
  const brokerEnv = { ...env.brokerEnv, TEMPORAL_TASK_QUEUE: `${env.taskQueue}-series-crash-${Date.now()}` };
  const dataDir = join(env.dir, `series-crash-${Date.now()}`);
  let broker = await startBroker(brokerEnv, dataDir);
  let bearer = await token(broker.baseUrl, carrier);

  const { availabilityWindow: _w, expiresAt: _e, ...terms } = marketOffer();
  const startDate = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const created = await call(broker.baseUrl, bearer, 'POST', '/listing-series', {
    listingKind: 'capacityOffer',
    terms,
    recurrence: { rrule: `FREQ=DAILY;COUNT=${OCCURRENCES}`, timeZone: 'Europe/Berlin', startDate },
    template: { windows: { availabilityWindow: { time: '08:00', duration: 'PT10H' } }, expiresAt: { before: 'PT2H' } },
    horizon: 'P90D',
  });
  expect(created.status).toBe(201);
  const seriesId = created.body.id;

  // Killed once a few occurrences exist and before the horizon is done (watched in the read
  // model: polling the API this fast would meet the rate limit).
  let atKill = 0;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(20)) {
    const { rows } = await db().query<{ n: number }>(`select count(*)::int as n from capacity_offers where doc->>'seriesId' = $1`, [seriesId]);
    atKill = rows[0].n;
    if (atKill >= 3) break;
  }
  broker.process.kill('SIGKILL');
  expect(atKill).toBeGreaterThanOrEqual(3);
  expect(atKill).toBeLessThan(OCCURRENCES);

  broker = await startBroker(brokerEnv, dataDir);
  brokers.push(broker);
  bearer = await token(broker.baseUrl, carrier);
  let offers: any[] = [];
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(2000)) {
    offers = await occurrencesOf(broker.baseUrl, bearer, seriesId);
    if (offers.length === OCCURRENCES && offers.every((o) => o.status === 'published')) break;
  }
  // Every date once, each a published listing of the carrier's, none a draft or withdrawn.
  expect(offers.map((o) => o.occurrenceKey).sort()).toEqual([...new Set(offers.map((o) => o.occurrenceKey))].sort());
  expect(offers).toHaveLength(OCCURRENCES);
  expect(offers.filter((o) => o.status !== 'published')).toEqual([]);
  const series = (await call(broker.baseUrl, bearer, 'GET', `/listing-series/${seriesId}`)).body;
  expect(Object.keys(series.occurrences)).toHaveLength(OCCURRENCES);
  expect(new Set(Object.values<any>(series.occurrences).map((o) => o.listingId))).toEqual(new Set(offers.map((o) => o.id)));
  // Published once each: one published event per occurrence in the carrier's feed.
  const published = new Map<string, number>();
  for (let cursor: string | null = ''; cursor !== null; ) {
    const page: { status: number; body: any } = await call(broker.baseUrl, bearer, 'GET', `/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    for (const e of page.body.items) if (e.type === 'pcx.capacity-offer.published.v1' && e.data.seriesId === seriesId) published.set(e.data.id, (published.get(e.data.id) ?? 0) + 1);
    cursor = page.body.items.length ? page.body.nextCursor : null;
  }
  expect(published.size).toBe(OCCURRENCES);
  expect([...published.values()].every((n) => n === 1)).toBe(true);
}, 180_000);
