// The retention purge over years (issue 34 part 4), on Temporal's time-skipping test server
// (test/time-skipping/harness.ts): records are removed when their policy's period after their final
// status has passed, not a round before; what went leaves a tombstone its readers can list and an
// event in their feed; its own path answers 410 to them and 404 to anyone else; an audit hold keeps
// everything linked to its relationship however long, as does an operator's hold placed on a
// relationship after it ended, until it is lifted; a removed user's name is erased after the
// default policy's personal data period.
import { offer as offerFixture, request as requestFixture } from '../matching-fixtures';
import { Party, startHarness, testOnHarness, type Harness } from './harness';
import { startRetention } from '../../core/temporal';

const SCOPES = ['capacity:publish', 'capacity:read', 'loads:publish', 'loads:read', 'matches:read', 'matches:decide', 'tenders:read', 'tenders:decide'];
/** The purge's round in this test: a record is purged at most this long after it falls due. */
const ROUND_DAYS = 30;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ prepare: (harness) => startRetention(harness.client, harness.config.temporal.taskQueue, { roundMs: ROUND_DAYS * 86_400_000 }) });
}, 120000);
afterAll(() => h?.stop());
const test = testOnHarness(() => h);

async function partners(a: Party, b: Party, retentionPolicyRef: string) {
  const created = await a.post('/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: SCOPES, retentionPolicyRef });
  expect(created.status).toBe(201);
  expect((await a.command(`/partner-relationships/${created.body.id}/request`, 1)).status).toBe(200);
  const accepted = await b.command(`/partner-relationships/${created.body.id}/accept`, 2);
  expect(accepted.status).toBe(200);
  return accepted.body;
}

async function published(owner: Party, collection: string, body: unknown) {
  const created = await owner.post(collection, body);
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const done = await owner.command(`${collection}/${created.body.id}/publish`, 1);
  if (done.status !== 200) throw new Error(`publish: ${done.status} ${JSON.stringify(done.body)}`);
  return done.body;
}

/** A matching offer and request of two partners, expiring in three days, and the broker's proposal. */
async function proposed(carrier: Party, shipper: Party) {
  const offer = await published(carrier, '/capacity-offers', offerFixture({ availabilityWindow: { start: await h.at('1 day'), end: await h.at('5 days') }, expiresAt: await h.at('3 days') }));
  const request = await published(shipper, '/load-requests', requestFixture({
    pickupWindow: { start: await h.at('1 day'), end: await h.at('3.5 days') },
    deliveryWindow: { start: await h.at('36 hours'), end: await h.at('4 days') },
    expiresAt: await h.at('3 days'),
  }));
  let proposal: any;
  await h.until('the broker proposed the pair', async () => {
    [proposal] = (await shipper.get(`/match-proposals?request=${request.id}`)).body.items;
    return proposal !== undefined;
  });
  return { offer, request, proposal };
}

const statusOf = async (p: Party, path: string) => (await p.get(path)).status;

test('records are purged at the end of their policy period after they ended, leave a tombstone and an event; an audit hold keeps its records for years', async () => {
  const [carrier, shipper, heldCarrier, heldShipper, loner, disputer, disputed] = h.parties(7);
  const operator = new Party(h, 'org-operator', 'client-operator', 'secret-o');
  const pilot = await partners(carrier, shipper, 'pcx:pilot');
  const held = await partners(heldCarrier, heldShipper, 'pcx:audit-hold');
  // A pilot relationship the operator holds after it ended (a dispute): kept past its 90 days until the hold is lifted.
  const dispute = await partners(disputer, disputed, 'pcx:pilot');
  const a = await proposed(carrier, shipper);
  const b = await proposed(heldCarrier, heldShipper);
  const alone = await published(loner, '/capacity-offers', offerFixture({ availabilityWindow: { start: await h.at('1 day'), end: await h.at('5 days') }, expiresAt: await h.at('3 days') }));
  // A user removed now: its name is personal data, kept the default policy's personalData period (a year).
  const invited = await loner.post('/users', { userId: `leaver-${loner.id}`, name: 'Max Planner', roles: ['viewer'] });
  expect(invited.status).toBe(201);
  const leaver = `/users/${invited.body.id}`;
  expect((await loner.command(`${leaver}/remove`, 1, { reason: 'left the company' })).status).toBe(200);
  // Both relationships end now: their records' clocks start (the proposals end with them).
  expect((await carrier.command(`/partner-relationships/${pilot.id}/terminate`, pilot.resourceVersion, { reason: 'pilot over' })).status).toBe(200);
  expect((await heldCarrier.command(`/partner-relationships/${held.id}/terminate`, held.resourceVersion, { reason: 'contract ended' })).status).toBe(200);
  expect((await disputer.command(`/partner-relationships/${dispute.id}/terminate`, dispute.resourceVersion, { reason: 'pilot over' })).status).toBe(200);
  const holdPath = `/partner-relationships/${dispute.id}/retention-hold`;
  expect((await disputer.post(holdPath, { reason: 'mine' })).status).toBe(403); // a party may not hold
  const placed = await operator.post(holdPath, { reason: 'a dispute over the last invoice' });
  expect(placed.status).toBe(200);
  expect(placed.body).toMatchObject({ relationshipId: dispute.id, reason: 'a dispute over the last invoice', placedBy: { organizationId: 'org-operator' } });
  expect((await disputed.get(holdPath)).body).toEqual(placed.body);
  const paths = {
    relationship: `/partner-relationships/${pilot.id}`,
    proposal: `/match-proposals/${a.proposal.id}`,
    offer: `/capacity-offers/${a.offer.id}`,
    heldRelationship: `/partner-relationships/${held.id}`,
    heldProposal: `/match-proposals/${b.proposal.id}`,
  };
  await h.until('the pilot proposal ended', async () => ['withdrawn', 'expired', 'superseded', 'rejected'].includes((await carrier.get(paths.proposal)).body?.status));
  await h.skip('4 days');
  await h.until('the listings expired', async () => (await carrier.get(paths.offer)).body?.status === 'expired');

  // A day short of the pilot policy's 90 days: nothing has gone.
  await h.skip('85 days');
  await h.until('a round passed', async () => true);
  expect(await statusOf(carrier, paths.relationship)).toBe(200);
  expect(await statusOf(carrier, paths.proposal)).toBe(200);
  expect((await loner.get(leaver)).body.name).toBe('Max Planner');

  // Past 90 days and a round: the pilot proposal went, then its relationship (a relationship goes
  // after the records that follow its policy); the listings, under the default (a year), and
  // everything under the hold stay.
  await h.skip(`${2 * ROUND_DAYS + 7} days`);
  await h.until('the pilot relationship purged', async () => (await carrier.get(paths.relationship)).status === 410);
  const gone = await carrier.get(paths.relationship);
  expect(gone.body).toMatchObject({ code: 'RECORD_PURGED', status: 410, tombstone: `/purged-records/${pilot.id}` });
  expect(await statusOf(shipper, paths.relationship)).toBe(410);
  expect(await statusOf(loner, paths.relationship)).toBe(404);
  await h.until('the pilot proposal purged', async () => (await shipper.get(paths.proposal)).status === 410);
  for (const path of [paths.offer, paths.heldRelationship, paths.heldProposal]) expect(await statusOf(path === paths.offer ? carrier : heldCarrier, path)).toBe(200);
  // The held pilot relationship too; lifted, it goes at the next round.
  expect(await statusOf(disputer, `/partner-relationships/${dispute.id}`)).toBe(200);
  expect((await operator.delete(holdPath)).status).toBe(204);
  expect((await disputer.get(holdPath)).status).toBe(404);
  await h.skip(`${ROUND_DAYS + 1} days`);
  await h.until('the relationship whose hold was lifted purged', async () => (await disputer.get(`/partner-relationships/${dispute.id}`)).status === 410);

  // The tombstones: what it was, under which policy, when it went and what went with it.
  const tombstones = (await carrier.get('/purged-records')).body.items;
  expect(tombstones.map((t: any) => t.id).sort()).toEqual([pilot.id, a.proposal.id].sort());
  const relationshipTombstone = tombstones.find((t: any) => t.id === pilot.id);
  expect(relationshipTombstone).toMatchObject({ resourceKind: 'partner-relationship', subject: `partner-relationships/${pilot.id}`, finalStatus: 'terminated', retentionPolicyRef: 'pcx:pilot', period: 'P90D' });
  expect(relationshipTombstone.removed.events).toBeGreaterThanOrEqual(3); // requested, activated, terminated at least
  expect(Date.parse(relationshipTombstone.purgedAt)).toBeGreaterThanOrEqual(Date.parse(relationshipTombstone.dueAt));
  expect(Date.parse(relationshipTombstone.dueAt) - Date.parse(relationshipTombstone.finalAt)).toBe(90 * 86_400_000);
  // Newest purge first, page by page.
  const first = (await carrier.get('/purged-records?limit=1')).body;
  expect(first.items).toHaveLength(1);
  const second = (await carrier.get(`/purged-records?limit=1&cursor=${first.nextCursor}`)).body;
  expect([...first.items, ...second.items]).toEqual(tombstones);
  expect(second.nextCursor).toBeNull();
  expect((await carrier.get('/purged-records?kind=match-proposal')).body.items.map((t: any) => t.id)).toEqual([a.proposal.id]);
  expect((await loner.get('/purged-records')).body.items).toEqual([]);
  expect((await loner.get(`/purged-records/${pilot.id}`)).status).toBe(404);
  expect((await shipper.get(`/purged-records/${pilot.id}`)).body).toEqual(relationshipTombstone);
  // The feed: the purge events, and none of the purged records' own events any more.
  const feed = async (p: Party) => {
    const items: any[] = [];
    for (let cursor: string | undefined; ; ) {
      const page = (await p.get(`/events?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;
      items.push(...page.items);
      if (!page.nextCursor || page.items.length === 0) return items;
      cursor = page.nextCursor;
    }
  };
  const events = await feed(carrier);
  expect(events.filter((e) => e.type === 'pcx.purged-record.recorded.v1').map((e) => e.subject).sort()).toEqual([`purged-records/${pilot.id}`, `purged-records/${a.proposal.id}`].sort());
  expect(events.filter((e) => e.subject === `partner-relationships/${pilot.id}` || e.subject === `match-proposals/${a.proposal.id}`)).toEqual([]);
  expect(events.some((e) => e.subject === `capacity-offers/${a.offer.id}`)).toBe(true);

  // A year after they expired: the listings too (the default policy), each once.
  await h.skipTo(new Date(Date.parse(alone.expiresAt) + (365 + ROUND_DAYS + 1) * 86_400_000).toISOString());
  await h.until('the listings purged', async () => (await carrier.get(paths.offer)).status === 410 && (await loner.get(`/capacity-offers/${alone.id}`)).status === 410);
  expect((await loner.get('/purged-records')).body.items).toEqual([expect.objectContaining({ id: alone.id, resourceKind: 'capacity-offer', finalStatus: 'expired', retentionPolicyRef: 'pcx:standard', period: 'P1Y' })]);
  // And the removed user's name: erased, the user kept (it is no record class of a policy).
  await h.until("the removed user's name erased", async () => (await loner.get(leaver)).body.nameErased !== undefined);
  const erased = (await loner.get(leaver)).body;
  expect(erased).toMatchObject({ status: 'removed', userId: `leaver-${loner.id}`, nameErased: { pointers: ['/name'], retentionPolicyRef: 'pcx:standard' } });
  expect(erased.name).toBeUndefined();

  // Three years on: the hold still keeps its relationship and proposal, and nothing was purged twice.
  await h.skip('1095 days');
  await h.until('a round passed', async () => true);
  expect(await statusOf(heldCarrier, paths.heldRelationship)).toBe(200);
  expect(await statusOf(heldShipper, paths.heldProposal)).toBe(200);
  const { rows } = await h.db.query<{ n: string }>('select count(*)::text as n from purged_records where id = any($1)', [[pilot.id, a.proposal.id, a.offer.id, a.request.id, alone.id]]);
  expect(rows[0].n).toBe('5');
}, 300000);
