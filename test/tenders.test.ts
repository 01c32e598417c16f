// Transport tenders and commitments end to end, on both engines: a tender from an accepted match
// proposal through revisions and decisions to a commitment with a verifiable digest, its
// amendment and cancellation; direct tenders; refusals, races, expiry and isolation.
import { createHash } from 'node:crypto';
import { canonicalBytes, digestInput } from '../core/digest';
import { activeRelationship, expectProblem, listAll, testEnv } from './helpers';
import { connectors, expectValid, get, waitFor, waitStatus } from './matching-fixtures';
import { iso } from './listing-fixtures';
import { acceptedMatch, DAY, directTerms, issuedTender, tenderCommand } from './tenders.fixtures';

describe('from an accepted proposal to a commitment', () => {
  test('prefilled terms, a counterproposal, decisions on the current revision, the commitment and its digest', async () => {
    const m = await acceptedMatch({ request: { externalReferences: [{ system: 'baltic-erp', type: 'order', value: 'O-9' }] } });
    const { draft, tender } = await issuedTender(m);
    // The draft was the issuer's alone; the executing organization sees the tender from issue on.
    expect(draft).toMatchObject({ status: 'draft', issuingOrganizationId: m.shipper.id, executingOrganizationId: m.carrier.id, originatingProposalId: m.proposal.id, capacityOfferId: m.offer.id, loadRequestId: m.request.id });
    expect(draft.draftTerms).toMatchObject({ commercialTerms: { amount: 900, currency: 'EUR' }, stops: [{ role: 'pickup' }, { role: 'delivery' }], cargo: { weight: { value: 12000, unitCode: 'KGM' }, palletSpaces: 12 } });
    expectValid('transport-tender', tender);
    expect(tender).toMatchObject({ status: 'issued', currentRevision: 1, revisions: [{ number: 1, authorOrganizationId: m.shipper.id }] });
    expect(tender.draftTerms).toBeUndefined();
    expect((await m.carrier.get(`/transport-tenders/${tender.id}`)).body).toEqual(tender);

    // The carrier answers with a higher price: revision 2, revision 1 unchanged.
    const countered = await tenderCommand(m.carrier, tender, 'counterproposals', { revision: 1, terms: { commercialTerms: { amount: 1000, currency: 'EUR' } }, reason: 'diesel prices' });
    expect(countered.status).toBe(200);
    expect(countered.body).toMatchObject({ currentRevision: 2, revisions: [{ number: 1, outcome: 'superseded', terms: { commercialTerms: { amount: 900 } } }, { number: 2, authorOrganizationId: m.carrier.id, reason: 'diesel prices' }] });
    expect(countered.body.revisions[1].changes).toEqual([{ term: 'commercialTerms', before: { amount: 900, currency: 'EUR' }, after: { amount: 1000, currency: 'EUR' } }]);
    const revisions = (await m.shipper.get(`/transport-tenders/${tender.id}/revisions`)).body;
    expectValid('transport-tender#/$defs/RevisionPage', revisions);
    expect(revisions.items.map((r: any) => r.number)).toEqual([1, 2]);

    // A decision on a revision that is no longer current is 409 stale-resource-version.
    const stale = await tenderCommand(m.shipper, countered.body, 'decisions', { decision: 'accept', revision: 1 });
    expectProblem(stale, 409, 'STALE_RESOURCE_VERSION');
    expect(stale.body.currentRevision).toBe(2);
    // BILATERAL_REQUIRED: the revision's author and the other organization.
    const byShipper = await tenderCommand(m.shipper, countered.body, 'decisions', { decision: 'accept', revision: 2 });
    expect(byShipper.body).toMatchObject({ status: 'issued', decisions: [{ organizationId: m.shipper.id, revision: 2 }] });
    const again = await tenderCommand(m.shipper, byShipper.body, 'decisions', { decision: 'accept', revision: 2 });
    expect(again.body.resourceVersion).toBe(byShipper.body.resourceVersion); // a repeated accept does not advance
    const byCarrier = await tenderCommand(m.carrier, byShipper.body, 'decisions', { decision: 'accept', revision: 2 });
    expect(byCarrier.status).toBe(200);
    expect(byCarrier.body).toMatchObject({ status: 'accepted', currentRevision: 2, revisions: [{}, { outcome: 'accepted' }] });
    const commitmentId = byCarrier.body.commitmentId;

    const commitment = (await m.carrier.get(`/transport-commitments/${commitmentId}`)).body;
    expectValid('transport-commitment', commitment);
    expect(commitment).toMatchObject({
      status: 'active',
      commitmentVersion: 1,
      tenderId: tender.id,
      issuingOrganizationId: m.shipper.id,
      executingOrganizationId: m.carrier.id,
      acceptedRevision: { number: 2, authorOrganizationId: m.carrier.id, terms: { commercialTerms: { amount: 1000 } } },
      decisionPolicy: { mode: 'BILATERAL_REQUIRED' },
      relationshipId: m.relationship.id,
      capacity: { state: 'consumed', originatingProposalId: m.proposal.id, capacityOfferId: m.offer.id, loadRequestId: m.request.id, allocation: { weightKg: 12000, palletSpaces: 12 } },
      digest: { algorithm: 'SHA-256', canonicalization: 'RFC 8785' },
    });
    expect(commitment.requiredDecisions.map((d: any) => d.organizationId).sort()).toEqual([m.carrier.id, m.shipper.id].sort());
    // Anyone who may read it recomputes the digest from the canonical bytes.
    const raw = await fetch(`${testEnv().baseUrl}/transport-commitments/${commitmentId}/digest-input`, { headers: { authorization: `Bearer ${m.shipper.token}` } });
    expect(raw.status).toBe(200);
    const bytes = Buffer.from(await raw.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(commitment.digest.value);
    expect(raw.headers.get('x-digest-sha256')).toBe(commitment.digest.value);
    // The bytes are the RFC 8785 form of what the commitment shows, for the documented fields.
    expect(canonicalBytes(JSON.parse(bytes.toString('utf8'))).equals(bytes)).toBe(true);
    expect(canonicalBytes(digestInput(commitment)).equals(bytes)).toBe(true);
    expect(Object.keys(JSON.parse(bytes.toString('utf8'))).sort()).toEqual(commitment.digest.fields.filter((f: string) => commitment[f] !== undefined).sort());

    // The lists filter by the link: the tenders of this proposal, the commitments of this tender.
    const ids = async (path: string) => (await m.carrier.get(path)).body.items.map((x: any) => x.id);
    expect(await ids(`/transport-tenders?proposal=${m.proposal.id}`)).toEqual([tender.id]);
    expect(await ids(`/transport-tenders?proposal=${crypto.randomUUID()}`)).toEqual([]);
    expect(await ids(`/transport-commitments?tender=${tender.id}`)).toEqual([commitmentId]);
    expect(await ids(`/transport-commitments?tender=${crypto.randomUUID()}`)).toEqual([]);

    // The listings record the commitment: the counterparts read in the committed phase (external references).
    expect((await get(m.carrier, `/capacity-offers/${m.offer.id}`)).allocations[0]).toMatchObject({ state: 'committed', commitmentId });
    // The request's owner reads the link too (its own bookkeeping, private); the counterpart does not.
    expect((await get(m.shipper, `/load-requests/${m.request.id}`)).matchedCommitmentId).toBe(commitmentId);
    const carrierView = await get(m.carrier, `/load-requests/${m.request.id}`);
    expect(carrierView.externalReferences).toEqual([{ system: 'baltic-erp', type: 'order', value: 'O-9' }]);
    expect(carrierView).not.toHaveProperty('matchedCommitmentId');
    const types = (await m.carrier.get('/events?limit=200')).body.items.map((e: any) => e.type);
    expect(types).toEqual(expect.arrayContaining(['pcx.transport-tender.issued.v1', 'pcx.transport-tender.countered.v1', 'pcx.transport-commitment.created.v1']));
  });

  test('a price given with the tender replaces the prefilled one; the other terms are still prefilled from the match', async () => {
    const m = await acceptedMatch();
    const { draft, tender } = await issuedTender(m, { terms: { commercialTerms: { amount: 875, currency: 'EUR' } } });
    expect(draft.draftTerms).toMatchObject({ commercialTerms: { amount: 875, currency: 'EUR' }, stops: [{ role: 'pickup' }, { role: 'delivery' }], cargo: { weight: { value: 12000, unitCode: 'KGM' }, palletSpaces: 12 } });
    expect(tender.revisions[0].terms.commercialTerms).toEqual({ amount: 875, currency: 'EUR' });
    // An external terms reference instead of a price: no price is prefilled beside it.
    const referenced = await m.shipper.post('/transport-tenders', { executingOrganizationId: m.carrier.id, originatingProposalId: m.proposal.id, movementScope: 'fullTransport', expiresAt: iso(DAY), terms: { externalTermsReference: { system: 'erp', type: 'contract', value: 'C-7' } } });
    expect(referenced.status).toBe(201);
    expect(referenced.body.draftTerms.commercialTerms).toBeUndefined();
    expect(referenced.body.draftTerms).toMatchObject({ externalTermsReference: { value: 'C-7' }, stops: [{ role: 'pickup' }, { role: 'delivery' }] });
  });

  test('an amendment is a linked revision; accepted, it makes the next commitment version; the old one stays readable; cancel releases', async () => {
    const m = await acceptedMatch();
    const { tender } = await issuedTender(m);
    const one = (await tenderCommand(m.carrier, tender, 'decisions', { decision: 'accept', revision: 1 })).body;
    const accepted = (await tenderCommand(m.shipper, one, 'decisions', { decision: 'accept', revision: 1 })).body;
    const first = (await m.shipper.get(`/transport-commitments/${accepted.commitmentId}`)).body;

    // Stale If-Match on the commitment: 409. Then the amendment itself.
    expectProblem(await m.carrier.command(`/transport-commitments/${first.id}/amendments`, first.resourceVersion + 1, { terms: { commercialTerms: { amount: 1100, currency: 'EUR' } }, reason: 'toll' }), 409, 'STALE_RESOURCE_VERSION');
    const amending = await m.carrier.command(`/transport-commitments/${first.id}/amendments`, first.resourceVersion, { terms: { commercialTerms: { amount: 1100, currency: 'EUR' } }, reason: 'new toll' });
    expect(amending.status).toBe(200);
    expect(amending.body).toMatchObject({ status: 'amending', currentRevision: 2, revisions: [{ number: 1, outcome: 'accepted' }, { number: 2, amendsCommitmentId: first.id, authorOrganizationId: m.carrier.id }] });
    // Until the amendment is accepted the commitment keeps its terms.
    expect((await get(m.shipper, `/transport-commitments/${first.id}`)).digest.value).toBe(first.digest.value);
    const a1 = (await tenderCommand(m.carrier, amending.body, 'decisions', { decision: 'accept', revision: 2 })).body;
    const a2 = (await tenderCommand(m.shipper, a1, 'decisions', { decision: 'accept', revision: 2 })).body;
    expect(a2.status).toBe('accepted');
    expect(a2.commitmentIds).toEqual([first.id, a2.commitmentId]);
    const second = (await m.shipper.get(`/transport-commitments/${a2.commitmentId}`)).body;
    expect(second).toMatchObject({ commitmentVersion: 2, previousCommitmentId: first.id, status: 'active', acceptedRevision: { number: 2, terms: { commercialTerms: { amount: 1100 } } } });
    expect(second.digest.value).not.toBe(first.digest.value);
    expect(await get(m.shipper, `/transport-commitments/${first.id}`)).toMatchObject({ status: 'superseded', supersededByCommitmentId: second.id, digest: first.digest });
    expect((await listAll(m.carrier, '/transport-commitments', `tender=${tender.id}`)).map((c) => c.id)).toEqual([first.id, second.id]);
    // A superseded commitment accepts nothing.
    expectProblem(await m.carrier.command(`/transport-commitments/${first.id}/cancel`, (await get(m.carrier, `/transport-commitments/${first.id}`)).resourceVersion, { reason: 'x' }), 422, 'INVALID_STATE_TRANSITION');

    // Cancel, by either party, with a reason: the capacity and the request are released.
    expectProblem(await m.shipper.command(`/transport-commitments/${second.id}/cancel`, second.resourceVersion, {}), 400, 'VALIDATION_FAILED');
    const cancelled = await m.shipper.command(`/transport-commitments/${second.id}/cancel`, second.resourceVersion, { reason: 'customer cancelled the order', reasonCode: 'CUSTOMER' });
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancellation: { reason: 'customer cancelled the order', organizationId: m.shipper.id } });
    await waitStatus(m.carrier, `/capacity-offers/${m.offer.id}`, 'published');
    const released = await waitStatus(m.shipper, `/load-requests/${m.request.id}`, 'published');
    expect(released.releasedMatches).toEqual([expect.objectContaining({ proposalId: m.proposal.id, commitmentId: second.id })]);
    await waitStatus(m.shipper, `/transport-tenders/${tender.id}`, 'closed');
    expectProblem(await m.carrier.command(`/transport-commitments/${second.id}/cancel`, cancelled.body.resourceVersion, { reason: 'again' }), 422, 'INVALID_STATE_TRANSITION');
    expect((await m.carrier.get('/events?limit=200')).body.items.map((e: any) => e.type)).toEqual(expect.arrayContaining(['pcx.transport-commitment.amended.v1', 'pcx.transport-commitment.cancelled.v1']));
  });
});

describe('direct tenders and policies', () => {
  test('to a partner without a proposal; INITIATOR_ONLY: the recipient\u2019s accept alone commits; the cancellation policy holds', async () => {
    const [issuer, executor, stranger] = await connectors(3);
    await activeRelationship(issuer, executor, { decisionPolicy: { mode: 'INITIATOR_ONLY' } });
    expectProblem(await issuer.post('/transport-tenders', { executingOrganizationId: stranger.id, movementScope: 'routeLeg', expiresAt: iso(DAY), terms: directTerms() }), 403, 'RELATIONSHIP_INACTIVE');
    expectProblem(await issuer.post('/transport-tenders', { executingOrganizationId: executor.id, movementScope: 'routeLeg', expiresAt: iso(DAY) }), 400, 'VALIDATION_FAILED');
    // Without a proposal nothing is prefilled: a price alone names no movement.
    const priceOnly = await issuer.post('/transport-tenders', { executingOrganizationId: executor.id, movementScope: 'routeLeg', expiresAt: iso(DAY), terms: { commercialTerms: { amount: 700, currency: 'EUR' } } });
    expectProblem(priceOnly, 400, 'VALIDATION_FAILED');
    expect(priceOnly.body.errors).toEqual([expect.objectContaining({ pointer: '/terms/stops' })]);
    expectProblem(await issuer.post('/transport-tenders', { executingOrganizationId: executor.id, movementScope: 'routeLeg', expiresAt: iso(DAY), terms: { ...directTerms(), externalTermsReference: { system: 'x', type: 'contract', value: 'C1' } } }), 400, 'VALIDATION_FAILED');
    const created = await issuer.post('/transport-tenders', { executingOrganizationId: executor.id, movementScope: 'routeLeg', expiresAt: iso(DAY), terms: directTerms(), cancellationPolicy: { mode: 'issuerOnly' } });
    expect(created.status).toBe(201);
    // A draft is invisible to the executing organization.
    expect((await executor.get(`/transport-tenders/${created.body.id}`)).status).toBe(404);
    expectProblem(await tenderCommand(executor, created.body, 'issue'), 404, 'RESOURCE_NOT_FOUND');
    const issued = (await tenderCommand(issuer, created.body, 'issue')).body;
    expectProblem(await tenderCommand(executor, issued, 'withdraw', { reason: 'not mine' }), 403, 'ACTOR_NOT_PERMITTED');
    const accepted = await tenderCommand(executor, issued, 'decisions', { decision: 'accept', revision: 1 });
    expect(accepted.body).toMatchObject({ status: 'accepted' });
    const commitment = (await executor.get(`/transport-commitments/${accepted.body.commitmentId}`)).body;
    expect(commitment).toMatchObject({ capacity: { state: 'none' }, decisionPolicy: { mode: 'INITIATOR_ONLY' }, requiredDecisions: [{ organizationId: executor.id }] });
    expectProblem(await executor.command(`/transport-commitments/${commitment.id}/cancel`, commitment.resourceVersion, { reason: 'x' }), 422, 'CANCELLATION_NOT_ALLOWED');
    expect((await issuer.command(`/transport-commitments/${commitment.id}/cancel`, commitment.resourceVersion, { reason: 'plans changed' })).status).toBe(200);
  });

  test('reject ends the tender; withdraw by the issuer; expiry at expiresAt; a late decision is refused', async () => {
    const [issuer, executor] = await connectors(2);
    await activeRelationship(issuer, executor);
    const make = async (expiresAt = iso(DAY)) => {
      const created = (await issuer.post('/transport-tenders', { executingOrganizationId: executor.id, movementScope: 'collection', expiresAt, terms: directTerms() })).body;
      return (await tenderCommand(issuer, created, 'issue')).body;
    };
    const rejected = await tenderCommand(executor, await make(), 'decisions', { decision: 'reject', revision: 1, reason: 'no driver' });
    expect(rejected.body).toMatchObject({ status: 'rejected', endReason: { reason: 'no driver', organizationId: executor.id } });
    expectProblem(await tenderCommand(executor, rejected.body, 'decisions', { decision: 'accept', revision: 1 }), 422, 'INVALID_STATE_TRANSITION');
    const toWithdraw = await make();
    expectProblem(await tenderCommand(issuer, toWithdraw, 'withdraw', {}), 400, 'VALIDATION_FAILED');
    expect((await tenderCommand(issuer, toWithdraw, 'withdraw', { reason: 'found another carrier' })).body.status).toBe('withdrawn');
    const short = await make(iso(3000));
    const expired = await waitStatus(issuer, `/transport-tenders/${short.id}`, 'expired');
    expectProblem(await tenderCommand(executor, expired, 'decisions', { decision: 'accept', revision: 1 }), 422, 'INVALID_STATE_TRANSITION');
  });
});

describe('races', () => {
  test('accept racing a counterproposal: the counterproposal wins and the accept is stale, or the accept commits and the counterproposal is refused', async () => {
    const [issuer, executor] = await connectors(2);
    await activeRelationship(issuer, executor, { decisionPolicy: { mode: 'INITIATOR_ONLY' } });
    for (let round = 0; round < 2; round++) {
      const created = (await issuer.post('/transport-tenders', { executingOrganizationId: executor.id, movementScope: 'fullTransport', expiresAt: iso(DAY), terms: directTerms() })).body;
      const issued = (await tenderCommand(issuer, created, 'issue')).body;
      const [accept, counter] = await Promise.all([
        executor.post(`/transport-tenders/${issued.id}/decisions`, { decision: 'accept', revision: 1, observedResourceVersion: issued.resourceVersion }),
        issuer.post(`/transport-tenders/${issued.id}/counterproposals`, { revision: 1, terms: { commercialTerms: { amount: 650, currency: 'EUR' } }, reason: 'discount', observedResourceVersion: issued.resourceVersion }),
      ]);
      const final = await waitFor('the tender to settle', async () => {
        const t = await get(issuer, `/transport-tenders/${issued.id}`);
        return t.status === 'accepting' ? undefined : t;
      });
      if (accept.status === 200) {
        expect(final.status).toBe('accepted');
        expect(counter.status).toBe(409);
      } else {
        expect(accept.status).toBe(409);
        expect(counter.status).toBe(200);
        expect(final).toMatchObject({ status: 'issued', currentRevision: 2 });
      }
    }
  });

  test('accept racing withdraw: exactly one wins', async () => {
    const [issuer, executor] = await connectors(2);
    await activeRelationship(issuer, executor, { decisionPolicy: { mode: 'INITIATOR_ONLY' } });
    const created = (await issuer.post('/transport-tenders', { executingOrganizationId: executor.id, movementScope: 'fullTransport', expiresAt: iso(DAY), terms: directTerms() })).body;
    const issued = (await tenderCommand(issuer, created, 'issue')).body;
    const [accept, withdraw] = await Promise.all([
      tenderCommand(executor, issued, 'decisions', { decision: 'accept', revision: 1 }),
      tenderCommand(issuer, issued, 'withdraw', { reason: 'race' }),
    ]);
    expect([accept.status, withdraw.status].sort()).toEqual([200, 409]);
    const commitments = await listAll(issuer, '/transport-commitments', `tender=${issued.id}`);
    expect(commitments).toHaveLength(accept.status === 200 ? 1 : 0);
  });
});
