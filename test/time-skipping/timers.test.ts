// Every timer of the exchange at the distance users configure, on Temporal's time-skipping test
// server (test/time-skipping/harness.ts): listing expiry days ahead, a relationship's
// effectiveUntil months ahead, a proposal's validUntil, a tender's expiresAt, and the orderings
// between them. After each skip the test reads what a connector reads: the resource through the
// API and the organization's event feed.
import { startHarness, type Harness, type Party } from './harness';

const SCOPES = ['capacity:publish', 'capacity:read', 'loads:publish', 'loads:read', 'matches:read', 'matches:decide', 'tenders:read', 'tenders:decide'];

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 120000);
afterAll(() => h?.stop());

async function partners(a: Party, b: Party, extra: Record<string, unknown> = {}) {
  const created = await a.post('/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: SCOPES, ...extra });
  expect(created.status).toBe(201);
  expect((await a.command(`/partner-relationships/${created.body.id}/request`, 1)).status).toBe(200);
  const accepted = await b.command(`/partner-relationships/${created.body.id}/accept`, 2);
  expect(accepted.status).toBe(200);
  return accepted.body;
}

/** Hamburg to Rotterdam; its availability and expiry in days from now (harness time). */
async function offerBody(expiresInDays: number, o: Record<string, unknown> = {}) {
  return {
    availabilityWindow: { start: await h.at('1 day'), end: await h.at(`${expiresInDays + 2} days`) },
    originArea: { kind: 'unlocode', code: 'DEHAM' },
    destinationArea: { kind: 'unlocode', code: 'NLRTM' },
    vehicleProfile: { bodyType: 'curtainsider' },
    availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33 },
    maximumDetour: { kilometres: 80 },
    expiresAt: await h.at(`${expiresInDays} days`),
    visibility: { mode: 'open' },
    ...o,
  };
}

async function requestBody(expiresInDays: number, r: Record<string, unknown> = {}) {
  return {
    pickupArea: { kind: 'subdivision', code: 'DE-HH' },
    pickupWindow: { start: await h.at('26 hours'), end: await h.at('30 hours') },
    deliveryArea: { kind: 'unlocode', code: 'NLRTM' },
    deliveryWindow: { start: await h.at('36 hours'), end: await h.at(`${expiresInDays + 1} days`) },
    requiredCapacity: { weight: { value: 12000, unitCode: 'KGM' }, palletSpaces: 12 },
    vehicleRequirements: { bodyTypes: ['curtainsider'] },
    goodsProfile: { category: 'electronics' },
    expiresAt: await h.at(`${expiresInDays} days`),
    visibility: { mode: 'open' },
    ...r,
  };
}

async function published(owner: Party, collection: string, body: unknown) {
  const created = await owner.post(collection, body);
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const done = await owner.command(`${collection}/${created.body.id}/publish`, 1);
  if (done.status !== 200) throw new Error(`publish: ${done.status} ${JSON.stringify(done.body)}`);
  return done.body;
}

const status = async (p: Party, path: string) => (await p.get(path)).body?.status;
const untilStatus = (p: Party, path: string, expected: string) => h.until(`${path} is ${expected}`, async () => (await status(p, path)) === expected);

/** A carrier's offer and a shipper's request that match, and the broker's proposal for them. */
async function proposed(offerDays: number, requestDays: number) {
  const [carrier, shipper] = h.parties(2);
  await partners(carrier, shipper);
  const offer = await published(carrier, '/capacity-offers', await offerBody(offerDays));
  const request = await published(shipper, '/load-requests', await requestBody(requestDays));
  let proposal: any;
  await h.until('the broker proposed the pair', async () => {
    [proposal] = (await shipper.get(`/match-proposals?request=${request.id}`)).body.items;
    return proposal !== undefined;
  });
  return { carrier, shipper, offer, request, proposal };
}

describe('listings', () => {
  test('an offer and a request expire at expiresAt days ahead, not a minute before; the owner reads it and its feed says so', async () => {
    const [owner, other] = h.parties(2);
    const offer = await published(owner, '/capacity-offers', await offerBody(3));
    const request = await published(other, '/load-requests', await requestBody(5));

    await h.skipTo(offer.expiresAt, { before: '1 minute' });
    expect(await status(owner, `/capacity-offers/${offer.id}`)).toBe('published');
    await h.skip('2 minutes');
    await untilStatus(owner, `/capacity-offers/${offer.id}`, 'expired');
    expect(await owner.eventTypes()).toContain('pcx.capacity-offer.expired.v1');
    expect(await status(other, `/load-requests/${request.id}`)).toBe('published');

    await h.skipTo(request.expiresAt, { before: '1 minute' });
    expect(await status(other, `/load-requests/${request.id}`)).toBe('published');
    await h.skip('2 minutes');
    await untilStatus(other, `/load-requests/${request.id}`, 'expired');
    const expired = (await other.get(`/load-requests/${request.id}`)).body;
    expect(Date.parse(expired.updatedAt)).toBeGreaterThanOrEqual(Date.parse(request.expiresAt));
    expect(await other.eventTypes()).toContain('pcx.load-request.expired.v1');
    // An expired listing takes no command.
    expect((await other.command(`/load-requests/${request.id}/withdraw`, expired.resourceVersion, { reason: 'late' })).status).toBe(422);
  });
});
