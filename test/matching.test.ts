// Matching, match proposals and match decisions, end to end on both engines: from publication to
// acceptance under both decision policies, the effects on offers and requests, the races the
// specification names, expiry, and what each organization may see.
import { Client, Connection } from '@temporalio/client';
import { OFFER_TERMS, REQUEST_TERMS } from '../domain/matching';
import { activeRelationship, Connector, expectProblem, listAll, testEnv } from './helpers';
import { expectCausalFeed, wholeFeed } from './feed';
import { OFFERS, operator, publishedListing, REQUESTS } from './listing-fixtures';
import { connectors, decide, expectValid, get, market, offer, proposalsOf, request, waitFor, waitProposals, waitStatus } from './matching-fixtures';

let temporal: Connection | undefined;
afterAll(async () => {
  await temporal?.close();
});

/**
 * Waits until matching has run to its end for the given listings: at least `runs` matching flows
 * of each listing have been started (its publication, and each return to published) and no flow a
 * listing's transitions started is running (Temporal's visibility). Whatever those flows were going
 * to propose is then in the read model: the positive sign that a proposal that is absent was not
 * made, where a fixed pause would only hope that matching had finished.
 */
async function matchingSettled(...listings: Array<{ kind: 'capacity-offer' | 'load-request'; id: string; runs?: number }>) {
  temporal ??= await Connection.connect({ address: testEnv().temporalAddress });
  const workflows = new Client({ connection: temporal }).workflow;
  const count = async (query: string) => (await workflows.count(query)).count;
  const settled = async ({ kind, id, runs = 1 }: (typeof listings)[number]) => {
    const flows = `WorkflowId STARTS_WITH "${kind}/${id}/effect/"`;
    return (await count(`${flows} AND WorkflowType = "matchListingFlow"`)) >= runs && (await count(`${flows} AND ExecutionStatus = "Running"`)) === 0;
  };
  const what = listings.map((l) => `${l.kind} ${l.id}`).join(', ');
  await waitFor(`the matching of ${what} to end`, async () => ((await Promise.all(listings.map(settled))).every(Boolean) ? true : undefined));
}

// The expiry test's proposal is made as the file starts: its validity (MATCH_PROPOSAL_VALIDITY_SECONDS
// of the test brokers) runs out while the tests before it run, instead of in a wait of its own.
let expiring: Promise<{ m: Awaited<ReturnType<typeof market>>; proposal: any }>;
beforeAll(() => {
  expiring = (async () => {
    const m = await market();
    const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
    return { m, proposal };
  })();
  expiring.catch(() => undefined); // a failure is the expiry test's, which awaits it
});

describe('from publication to acceptance', () => {
  test('BILATERAL_REQUIRED: the broker proposes, explains, reserves; both accept; the request is matched and the capacity committed', async () => {
    const m = await market();
    const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
    expectValid('match-proposal', proposal);
    expect(proposal).toMatchObject({
      status: 'open',
      decisionState: 'PENDING_INITIATOR_ACCEPT',
      capacityOfferId: m.offer.id,
      loadRequestId: m.request.id,
      offerOwnerOrganizationId: m.carrier.id,
      requestOwnerOrganizationId: m.shipper.id,
      createdBy: { kind: 'broker' },
      schemaVersion: 'v0',
      requiredDecisionPolicy: { mode: 'BILATERAL_REQUIRED', initiatorOrganizationId: m.carrier.id, acceptorOrganizationId: m.shipper.id, relationshipId: m.relationship.id },
      routeCompatibility: { distanceModel: 'great-circle x 1.3', allowanceKm: 80, detourKm: 0 },
      capacityCompatibility: { allocation: { weightKg: 12000, palletSpaces: 12 }, exhaustsOffer: false },
    });
    expect(proposal.rationale.reasonCodes).toEqual(expect.arrayContaining(['AREA_PICKUP_ON_ROUTE', 'DETOUR_WITHIN_LIMIT', 'TIME_WINDOW_FEASIBLE', 'CAPACITY_WEIGHT_FITS', 'BODY_TYPE_MATCH']));
    expect(Date.parse(proposal.validUntil)).toBeLessThanOrEqual(Date.parse(m.offer.expiresAt));
    // A proposal never discloses a protected field because a match exists.
    expect(JSON.stringify(proposal)).not.toMatch(/ACME Secret|Geheimweg|"price"|restrictedDetails/);
    // The same proposal for both organizations; the offer holds a tentative reservation; the request is proposed.
    expect((await m.carrier.get(`/match-proposals/${proposal.id}`)).body).toEqual(proposal);
    const offerNow = await get(m.carrier, `/capacity-offers/${m.offer.id}`);
    expect(offerNow).toMatchObject({ status: 'partiallyMatched', allocations: [{ proposalId: proposal.id, requestId: m.request.id, state: 'tentative', capacity: { weightKg: 12000, palletSpaces: 12 } }] });
    const requestNow = await get(m.shipper, `/load-requests/${m.request.id}`);
    expect(requestNow).toMatchObject({ status: 'proposed', proposalIds: [proposal.id], openProposalIds: [proposal.id] });
    // Before acceptance the carrier does not see the request's restricted details.
    expect((await get(m.carrier, `/load-requests/${m.request.id}`)).restrictedDetails).toBeUndefined();

    // The acceptor accepts first: recorded, still waiting for the initiator.
    const first = await decide(m.shipper, proposal, 'accept', { comment: 'fine by us', reasonCode: 'PRICE_OK' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'open', decisionState: 'PENDING_INITIATOR_ACCEPT', resourceVersion: proposal.resourceVersion + 1 });
    // A repeated accept by the same organization is idempotent and does not advance.
    const again = await decide(m.shipper, first.body, 'accept');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ decisionState: 'PENDING_INITIATOR_ACCEPT', resourceVersion: first.body.resourceVersion });
    expect(again.body.decisions).toHaveLength(1);
    // A stale observed version is never applied to a changed proposal.
    expectProblem(await decide(m.carrier, proposal, 'accept'), 409, 'STALE_RESOURCE_VERSION');
    // The second, distinct organization commits it.
    const second = await decide(m.carrier, first.body, 'accept');
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'accepted', decisionState: 'COMMITTED' });
    expectValid('match-proposal', second.body);

    const matched = await get(m.shipper, `/load-requests/${m.request.id}`);
    expect(matched).toMatchObject({ status: 'matched', acceptedProposalId: proposal.id, matchedOfferId: m.offer.id, matchedOrganizationId: m.carrier.id, openProposalIds: [] });
    expect(await get(m.carrier, `/capacity-offers/${m.offer.id}`)).toMatchObject({ status: 'partiallyMatched', allocations: [{ proposalId: proposal.id, state: 'committed' }] });
    // Disclosure moves to the accepted phase for the two organizations of the accepted proposal.
    const carrierView = await m.carrier.get(`/load-requests/${m.request.id}`);
    expect(carrierView.status).toBe(200);
    expect(carrierView.body.restrictedDetails).toEqual(request().restrictedDetails);
    expect((await get(m.shipper, `/capacity-offers/${m.offer.id}`)).restrictedDetails).toEqual(offer().restrictedDetails);
    expect((await listAll(m.carrier, '/load-requests')).map((x) => x.id)).toContain(m.request.id);

    // The decisions, append-only, with the comment for the two organizations.
    const decisions = (await m.carrier.get(`/match-proposals/${proposal.id}/decisions`)).body;
    expectValid('match-proposal#/$defs/DecisionPage', decisions);
    expect(decisions.items.map((d: any) => [d.organizationId, d.decision, d.observedProposalVersion])).toEqual([
      [m.shipper.id, 'accept', proposal.resourceVersion],
      [m.carrier.id, 'accept', first.body.resourceVersion],
    ]);
    expect(decisions.items[0]).toMatchObject({ comment: 'fine by us', reasonCode: 'PRICE_OK', decidedBy: { organizationId: m.shipper.id, clientId: m.shipper.org.clientId } });
    // An action on a terminal decision answers 409 with currentState.
    const late = await decide(m.shipper, second.body, 'reject');
    expectProblem(late, 409, 'DECISION_TERMINAL');
    expect(late.body.currentState).toBe('COMMITTED');

    // What each side reads in the feed: each decision is its own subject, and no event is one a
    // consumer must drop (delivery rule 2).
    for (const c of [m.carrier, m.shipper]) {
      const feed = await wholeFeed(c);
      expectCausalFeed(feed);
      const recorded = feed.filter((e: any) => e.type === 'pcx.match-decision.recorded.v1');
      expect(recorded.map((e: any) => [e.subject, e.resourceversion])).toEqual(decisions.items.map((d: any) => [`match-proposals/${proposal.id}/decisions/${d.id}`, 1]));
      for (const e of recorded) expectValid('match-proposal#/$defs/MatchDecision', e.data);
    }
    const types = async (c: Connector) => (await c.get('/events?limit=200')).body.items.map((e: any) => e.type);
    for (const c of [m.carrier, m.shipper]) {
      expect(await types(c)).toEqual(expect.arrayContaining(['pcx.match-proposal.created.v1', 'pcx.match-decision.recorded.v1', 'pcx.match-proposal.accepted.v1', 'pcx.load-request.matched.v1', 'pcx.capacity-offer.partially-matched.v1']));
    }
    // A committed match is not reversed by a later withdraw (request rule 3).
    expectProblem(await m.shipper.command(`/load-requests/${m.request.id}/withdraw`, matched.resourceVersion, { reason: 'too late' }), 422, 'INVALID_STATE_TRANSITION');
  });

  test('INITIATOR_ONLY: the acceptor\u2019s accept is recorded and waits; the initiator\u2019s accept alone commits', async () => {
    const m = await market({ policy: 'INITIATOR_ONLY' });
    const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
    expect(proposal.requiredDecisionPolicy).toMatchObject({ mode: 'INITIATOR_ONLY', initiatorOrganizationId: m.carrier.id });
    const byAcceptor = await decide(m.shipper, proposal, 'accept');
    expect(byAcceptor.body).toMatchObject({ status: 'open', decisionState: 'PENDING_INITIATOR_ACCEPT' });
    const fresh = await get(m.carrier, `/match-proposals/${proposal.id}`);
    const byInitiator = await decide(m.carrier, fresh, 'accept');
    expect(byInitiator.body).toMatchObject({ status: 'accepted', decisionState: 'COMMITTED' });

    // And on another pair, the initiator alone, without the acceptor at all.
    const r2 = await publishedListing({ ...REQUESTS, body: () => request({ requiredCapacity: { weight: { value: 2, unitCode: 'TNE' } } }) }, m.shipper);
    const [p2] = await waitProposals(m.carrier, `request=${r2.id}`);
    expect((await decide(m.carrier, p2, 'accept')).body).toMatchObject({ decisionState: 'COMMITTED' });
    expect((await get(m.shipper, `/load-requests/${r2.id}`)).status).toBe('matched');
  });

  test('the last capacity: a proposal that uses the offer up makes it matched; it blocks further matching', async () => {
    const m = await market({ request: { requiredCapacity: { weight: { value: 24, unitCode: 'TNE' } } } });
    const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
    expect(proposal.capacityCompatibility.exhaustsOffer).toBe(true);
    const full = await get(m.carrier, `/capacity-offers/${m.offer.id}`);
    expect(full).toMatchObject({ status: 'matched' });
    const r2 = await publishedListing({ ...REQUESTS, body: () => request({ requiredCapacity: { weight: { value: 1, unitCode: 'TNE' } } }) }, m.shipper);
    await matchingSettled({ kind: 'load-request', id: r2.id }, { kind: 'capacity-offer', id: m.offer.id }, { kind: 'load-request', id: m.request.id });
    expect(await proposalsOf(m.shipper, `request=${r2.id}`)).toEqual([]);
    expect((await get(m.shipper, `/load-requests/${r2.id}`)).status).toBe('published');
  });
});

describe('ending without acceptance', () => {
  test('a rejection releases the reservation and the request; the broker does not propose the pair again', async () => {
    const m = await market();
    const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
    const rejected = await decide(m.carrier, proposal, 'reject', { reasonCode: 'NO_DRIVER' });
    expect(rejected.body).toMatchObject({ status: 'rejected', decisionState: 'REJECTED' });
    await waitStatus(m.shipper, `/load-requests/${m.request.id}`, 'published');
    const released = await waitStatus(m.carrier, `/capacity-offers/${m.offer.id}`, 'published');
    expect(released.allocations).toEqual([]);
    // Both listings are published again and matched again (a second run each): the pair is not proposed.
    await matchingSettled({ kind: 'load-request', id: m.request.id, runs: 2 }, { kind: 'capacity-offer', id: m.offer.id, runs: 2 });
    expect(await proposalsOf(m.shipper, `request=${m.request.id}`)).toHaveLength(1);
    const types = (await m.shipper.get('/events?limit=200')).body.items.map((e: any) => e.type);
    expect(types).toEqual(expect.arrayContaining(['pcx.match-proposal.rejected.v1']));
  });

  test('withdrawing the request withdraws its open proposals before it answers, and releases the offer', async () => {
    const m = await market();
    const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
    const current = await get(m.shipper, `/load-requests/${m.request.id}`);
    const withdrawn = await m.shipper.command(`/load-requests/${m.request.id}/withdraw`, current.resourceVersion, { reason: 'no longer needed' });
    expect(withdrawn.status).toBe(200);
    // Once the withdraw has answered, no read shows the proposal open, and the request says so itself.
    expect(withdrawn.body).toMatchObject({ status: 'withdrawn', openProposalIds: [], proposalIds: [proposal.id] });
    expect(await proposalsOf(m.shipper, `request=${m.request.id}&status=open`)).toEqual([]);
    expect(await proposalsOf(m.carrier, `request=${m.request.id}&status=open`)).toEqual([]);
    const ended = await get(m.carrier, `/match-proposals/${proposal.id}`);
    expect(ended).toMatchObject({ status: 'withdrawn', decisionState: 'CANCELLED', endReason: { reason: 'the load request ended' } });
    expect((await get(m.shipper, `/load-requests/${m.request.id}`)).openProposalIds).toEqual([]);
    await waitStatus(m.carrier, `/capacity-offers/${m.offer.id}`, 'published');
    expectProblem(await decide(m.carrier, ended, 'accept'), 409, 'DECISION_TERMINAL');
  });

  test('withdrawing the offer withdraws its open proposals; the request is published again', async () => {
    const m = await market();
    const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
    const current = await get(m.carrier, `/capacity-offers/${m.offer.id}`);
    expect((await m.carrier.command(`/capacity-offers/${m.offer.id}/withdraw`, current.resourceVersion, { reason: 'lorry broke down' })).status).toBe(200);
    // Withdrawn before the withdraw answered.
    expect(await proposalsOf(m.shipper, `offer=${m.offer.id}&status=open`)).toEqual([]);
    expect(await get(m.shipper, `/match-proposals/${proposal.id}`)).toMatchObject({ status: 'withdrawn', endReason: { reason: 'the capacity offer ended' } });
    await waitStatus(m.shipper, `/load-requests/${m.request.id}`, 'published');
  });

  test('an operator\u2019s cancel of a proposed request or of an offer ends their open proposals before it answers', async () => {
    const op = await operator();
    // The two sides on markets of their own, at the same time.
    await Promise.all((['request', 'offer'] as const).map(async (side) => {
      const m = await market();
      const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
      const path = side === 'request' ? `/load-requests/${m.request.id}` : `/capacity-offers/${m.offer.id}`;
      const current = await get(side === 'request' ? m.shipper : m.carrier, path);
      const cancelled = await op.command(`${path}/cancel`, current.resourceVersion, { reason: 'fraud report' });
      expect(cancelled.status).toBe(200);
      expect(await get(m.carrier, `/match-proposals/${proposal.id}`)).toMatchObject({ status: 'withdrawn', decisionState: 'CANCELLED' });
      if (side === 'request') expect(cancelled.body.openProposalIds ?? []).toEqual([]);
    }));
  });

  test('an accepted proposal supersedes the request\u2019s other open proposals and releases their capacity', async () => {
    const [carrier, shipper] = await connectors(2);
    await activeRelationship(carrier, shipper);
    const [o1, o2] = await Promise.all([publishedListing({ ...OFFERS, body: () => offer() }, carrier), publishedListing({ ...OFFERS, body: () => offer() }, carrier)]);
    const r = await publishedListing({ ...REQUESTS, body: () => request() }, shipper);
    const both = await waitProposals(shipper, `request=${r.id}&status=open`, 2);
    const [chosen, other] = both;
    await decide(shipper, chosen, 'accept');
    expect((await decide(carrier, await get(carrier, `/match-proposals/${chosen.id}`), 'accept')).body.decisionState).toBe('COMMITTED');
    const superseded = await waitStatus(shipper, `/match-proposals/${other.id}`, 'superseded');
    expect(superseded).toMatchObject({ decisionState: 'CANCELLED', supersededByProposalId: chosen.id });
    const otherOffer = other.capacityOfferId === o1.id ? o1 : o2;
    await waitStatus(carrier, `/capacity-offers/${otherOffer.id}`, 'published');
  });
});

describe('races', () => {
  test('two requests compete for the offer\u2019s last capacity: never overbooked', async () => {
    const [carrier, s1, s2] = await connectors(3);
    await activeRelationship(carrier, s1);
    await activeRelationship(carrier, s2);
    const body = () => request({ requiredCapacity: { weight: { value: 15, unitCode: 'TNE' } } });
    const [r1, r2] = await Promise.all([publishedListing({ ...REQUESTS, body }, s1), publishedListing({ ...REQUESTS, body }, s2)]);
    const o = await publishedListing({ ...OFFERS, body: () => offer() }, carrier); // 24 t for 2 x 15 t
    await waitProposals(carrier, `offer=${o.id}`);
    await matchingSettled({ kind: 'capacity-offer', id: o.id }, { kind: 'load-request', id: r1.id }, { kind: 'load-request', id: r2.id }); // every matching run settled
    const proposals = await proposalsOf(carrier, `offer=${o.id}`);
    expect(proposals).toHaveLength(1);
    expect([r1.id, r2.id]).toContain(proposals[0].loadRequestId);
    const final = await get(carrier, `/capacity-offers/${o.id}`);
    const allocated = final.allocations.reduce((sum: number, a: any) => sum + a.capacity.weightKg, 0);
    expect(allocated).toBeLessThanOrEqual(24000);
  });

  test('two match attempts on one pair (both listings published at once) create one proposal', async () => {
    const [carrier, shipper] = await connectors(2);
    await activeRelationship(carrier, shipper);
    const created = await Promise.all([
      carrier.post('/capacity-offers', offer()),
      shipper.post('/load-requests', request()),
    ]);
    await Promise.all([
      carrier.command(`/capacity-offers/${created[0].body.id}/publish`, 1),
      shipper.command(`/load-requests/${created[1].body.id}/publish`, 1),
    ]);
    await waitProposals(shipper, `request=${created[1].body.id}`);
    await matchingSettled({ kind: 'capacity-offer', id: created[0].body.id }, { kind: 'load-request', id: created[1].body.id });
    expect(await proposalsOf(shipper, `request=${created[1].body.id}`)).toHaveLength(1);
  });

  test('acceptance racing the request\u2019s withdrawal: one of them wins, consistently', async () => {
    const m = await market();
    const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
    const first = await decide(m.shipper, proposal, 'accept');
    const requestNow = await get(m.shipper, `/load-requests/${m.request.id}`);
    const [accept, withdraw] = await Promise.all([
      decide(m.carrier, first.body, 'accept'),
      m.shipper.command(`/load-requests/${m.request.id}/withdraw`, requestNow.resourceVersion, { reason: 'race' }),
    ]);
    const finalRequest = await get(m.shipper, `/load-requests/${m.request.id}`);
    const finalProposal = await waitFor('the proposal to settle', async () => {
      const p = await get(m.carrier, `/match-proposals/${proposal.id}`);
      return p.decisionState === 'COMMITTING' ? undefined : p;
    });
    if (withdraw.status === 200) {
      expect(finalRequest.status).toBe('withdrawn');
      expect(finalProposal.status).toBe('withdrawn');
      expect(accept.status).toBe(409);
      await waitStatus(m.carrier, `/capacity-offers/${m.offer.id}`, 'published');
    } else {
      expect(accept.status).toBe(200);
      expect(finalRequest.status).toBe('matched');
      expect(finalProposal.status).toBe('accepted');
      expect([409, 422]).toContain(withdraw.status);
    }
  });
});

describe('expiry', () => {
  // The test brokers give proposals a short validity (MATCH_PROPOSAL_VALIDITY_SECONDS in
  // test/setup/stack-setup.ts); the time-skipping harness tests the real distances.
  test('an open proposal expires at validUntil: the request is published again and the capacity released; a late accept is refused', async () => {
    const { m, proposal } = await expiring; // made as the file started (above)
    const expired = await waitStatus(m.carrier, `/match-proposals/${proposal.id}`, 'expired', 40000);
    expect(expired).toMatchObject({ decisionState: 'EXPIRED' });
    expect(Date.parse(expired.expiredAt)).toBeGreaterThanOrEqual(Date.parse(proposal.validUntil));
    await waitStatus(m.shipper, `/load-requests/${m.request.id}`, 'published');
    await waitStatus(m.carrier, `/capacity-offers/${m.offer.id}`, 'published');
    const late = await decide(m.carrier, expired, 'accept');
    expectProblem(late, 409, 'DECISION_TERMINAL');
    expect(late.body.currentState).toBe('EXPIRED');
  }, 60000);
});

describe('participants and evaluations', () => {
  test('POST /match-evaluations explains why a pair matches or not, without creating anything', async () => {
    const m = await market({ request: { vehicleRequirements: { bodyTypes: ['tanker'] } } });
    await matchingSettled({ kind: 'capacity-offer', id: m.offer.id }, { kind: 'load-request', id: m.request.id });
    expect(await proposalsOf(m.shipper, `request=${m.request.id}`)).toEqual([]);
    const evaluation = await m.shipper.post('/match-evaluations', { capacityOfferId: m.offer.id, loadRequestId: m.request.id });
    expect(evaluation.status).toBe(200);
    expectValid('match-proposal#/$defs/Evaluation', evaluation.body);
    expect(evaluation.body).toMatchObject({ compatible: false, capacityOfferId: m.offer.id, loadRequestVersion: m.request.resourceVersion });
    expect(evaluation.body.compatibility.filter((c: any) => c.result === 'fail').map((c: any) => c.reasonCode)).toEqual(['BODY_TYPE_MISMATCH']);
    expect(JSON.stringify(evaluation.body)).not.toMatch(/ACME Secret|Geheimweg|"price"|restrictedDetails/);
    // The outsider can see neither listing (no relationship): 404, as their reads answer.
    expectProblem(await m.outsider.post('/match-evaluations', { capacityOfferId: m.offer.id, loadRequestId: m.request.id }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await m.shipper.post('/match-evaluations', { capacityOfferId: m.offer.id }), 400, 'VALIDATION_FAILED');
  });

  test('a participant proposes a pair: the same evaluation, the caller as initiator; an incompatible pair is 422', async () => {
    const m = await market({ offer: { visibility: { mode: 'open' } } });
    const [broker] = await waitProposals(m.shipper, `request=${m.request.id}`);
    // While the broker's proposal is open, the pair cannot be proposed again.
    expectProblem(await m.shipper.post('/match-proposals', { capacityOfferId: m.offer.id, loadRequestId: m.request.id }), 409, 'DUPLICATE_MATCH');
    await decide(m.shipper, broker, 'reject');
    await waitStatus(m.shipper, `/load-requests/${m.request.id}`, 'published');
    await waitStatus(m.carrier, `/capacity-offers/${m.offer.id}`, 'published');
    const asked = await m.shipper.post('/match-proposals', { capacityOfferId: m.offer.id, loadRequestId: m.request.id }, { 'idempotency-key': 'ask-1' });
    expect(asked.status).toBe(201);
    expect(asked.body).toMatchObject({ createdBy: { kind: 'participant', organizationId: m.shipper.id }, requiredDecisionPolicy: { initiatorOrganizationId: m.shipper.id, acceptorOrganizationId: m.carrier.id } });
    const replay = await m.shipper.post('/match-proposals', { capacityOfferId: m.offer.id, loadRequestId: m.request.id }, { 'idempotency-key': 'ask-1' });
    expect(replay.body.id).toBe(asked.body.id);
    const tanker = await publishedListing({ ...REQUESTS, body: () => request({ vehicleRequirements: { bodyTypes: ['tanker'] } }) }, m.shipper);
    const refused = await m.shipper.post('/match-proposals', { capacityOfferId: m.offer.id, loadRequestId: tanker.id });
    expectProblem(refused, 422, 'INCOMPATIBLE_MATCH');
    expect(refused.body.evaluation.compatible).toBe(false);
    expectProblem(await m.outsider.post('/match-proposals', { capacityOfferId: m.offer.id, loadRequestId: m.request.id }), 404, 'RESOURCE_NOT_FOUND');
  });

  test('a pair that lacks terms matching reads (drafts): 422 LISTING_INCOMPLETE at once, naming each missing term; no flow starts', async () => {
    const [owner] = await connectors(1);
    const draftOffer = (await owner.post('/capacity-offers', {})).body;
    const draftRequest = (await owner.post('/load-requests', {})).body;
    const pair = { capacityOfferId: draftOffer.id, loadRequestId: draftRequest.id };
    const evaluation = await owner.post('/match-evaluations', pair);
    expectProblem(evaluation, 422, 'LISTING_INCOMPLETE');
    expect(evaluation.body.missingTerms).toEqual({ capacityOffer: [...OFFER_TERMS], loadRequest: [...REQUEST_TERMS] });
    expect(evaluation.body.errors).toContainEqual({ pointer: '/capacityOfferId', message: 'the capacity offer has no originArea' });
    // Half a draft: only what it lacks is named.
    const { originArea: _o, ...partial } = offer();
    const halfOffer = (await owner.post('/capacity-offers', partial)).body;
    const half = await owner.post('/match-evaluations', { capacityOfferId: halfOffer.id, loadRequestId: draftRequest.id });
    expectProblem(half, 422, 'LISTING_INCOMPLETE');
    expect(half.body.missingTerms.capacityOffer).toEqual(['originArea']);
    // Proposing the pair is refused the same way, before any flow starts.
    const connection = await Connection.connect({ address: testEnv().temporalAddress });
    try {
      const flows = () => new Client({ connection }).workflow.count(`WorkflowType = "proposePairFlow" AND TaskQueue = "${testEnv().taskQueue}"`).then((c) => c.count);
      const before = await flows();
      const proposed = await owner.post('/match-proposals', pair, { 'idempotency-key': `drafts-${draftOffer.id}` });
      expectProblem(proposed, 422, 'LISTING_INCOMPLETE');
      expect(proposed.body.missingTerms.loadRequest).toEqual([...REQUEST_TERMS]);
      expect(await flows()).toBe(before);
    } finally {
      await connection.close();
    }
  });

  test('a relationship coming into force brings matching: listings published before it are proposed', async () => {
    const [carrier, shipper] = await connectors(2);
    const o = await publishedListing({ ...OFFERS, body: () => offer() }, carrier);
    const r = await publishedListing({ ...REQUESTS, body: () => request() }, shipper);
    await matchingSettled({ kind: 'capacity-offer', id: o.id }, { kind: 'load-request', id: r.id });
    expect(await proposalsOf(shipper, `request=${r.id}`)).toEqual([]);
    await activeRelationship(carrier, shipper);
    const [proposal] = await waitProposals(shipper, `request=${r.id}`);
    expect(proposal.capacityOfferId).toBe(o.id);
  });

  test('at most the configured number of open proposals per request, best scores first', async () => {
    const [carrier, shipper] = await connectors(2);
    await activeRelationship(carrier, shipper);
    const offers = await Promise.all(Array.from({ length: 4 }, () => publishedListing({ ...OFFERS, body: () => offer() }, carrier)));
    const r = await publishedListing({ ...REQUESTS, body: () => request() }, shipper);
    await waitProposals(shipper, `request=${r.id}`, 3);
    await matchingSettled({ kind: 'load-request', id: r.id }, ...offers.map((o) => ({ kind: 'capacity-offer' as const, id: o.id })));
    expect(await proposalsOf(shipper, `request=${r.id}`)).toHaveLength(3);
  });
});

describe('isolation', () => {
  test('a third organization never sees a proposal, its rationale or its decisions, on any endpoint', async () => {
    const m = await market();
    const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
    await decide(m.shipper, proposal, 'accept', { comment: 'secret comment' });
    const current = await get(m.shipper, `/match-proposals/${proposal.id}`);
    for (const [name, reply] of [
      ['GET /match-proposals/{id}', await m.outsider.get(`/match-proposals/${proposal.id}`)],
      ['GET /match-proposals/{id}/decisions', await m.outsider.get(`/match-proposals/${proposal.id}/decisions`)],
      ['POST /match-proposals/{id}/decisions', await decide(m.outsider, current, 'accept')],
    ] as const) {
      if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to an outsider`);
    }
    expect(await proposalsOf(m.outsider, '')).toEqual([]);
    expect(await proposalsOf(m.outsider, `request=${m.request.id}`)).toEqual([]);
    const feed = JSON.stringify((await m.outsider.get('/events?limit=200')).body);
    expect(feed).not.toContain(proposal.id);
    expect(feed).not.toContain('secret comment');
    // Nothing the outsider did changed it.
    expect((await get(m.shipper, `/match-proposals/${proposal.id}`)).resourceVersion).toBe(current.resourceVersion);
    // Scopes are exact: matches:read does not allow deciding.
    const readOnly = await Connector.of(m.shipper.org, 'matches:read');
    expectProblem(await decide(readOnly, current, 'reject'), 403, 'INSUFFICIENT_SCOPE');
    expect((await readOnly.get(`/match-proposals/${proposal.id}`)).status).toBe(200);
  });
});
