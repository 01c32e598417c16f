// Isolation across three organizations: for every endpoint and every state, an organization sees
// and touches only what the specification lets it. Add each new endpoint to the matrix below.
import { Connector, createRelationship, freshOrgs, listAll, testEnv, type Reply } from './helpers';
import { readStream } from './feed';
import { decide, get, market, waitFor, waitProposals } from './matching-fixtures';
import { acceptedMatch, DAY, issuedTender, tenderCommand } from './tenders.fixtures';
import { iso, offerBody } from './listing-fixtures';
import { commitment as activeCommitment, handoverBody } from './execution-handovers.fixtures';
import { generateConnectorKey } from '../sdk/src/keys';

type Probe = (c: Connector, id: string, version: number) => Promise<Reply>;

/** Every relationship endpoint that addresses one relationship. */
const RELATIONSHIP_ENDPOINTS: Record<string, Probe> = {
  'GET /partner-relationships/{id}': (c, id) => c.get(`/partner-relationships/${id}`),
  'PATCH /partner-relationships/{id}': (c, id, v) => c.patch(`/partner-relationships/${id}`, { retentionPolicyRef: 'pcx:pilot' }, { 'if-match': `"${v}"` }),
  ...Object.fromEntries(
    ['request', 'accept', 'reject', 'withdraw', 'suspend', 'terminate', 'reactivate'].map((name) => [
      `POST /partner-relationships/{id}/${name}`,
      ((c, id, v) => c.command(`/partner-relationships/${id}/${name}`, v, { reason: 'probe' })) as Probe,
    ]),
  ),
  'GET /partner-relationships/{id}/retention-hold': (c, id) => c.get(`/partner-relationships/${id}/retention-hold`),
  'POST /partner-relationships/{id}/retention-hold': (c, id) => c.post(`/partner-relationships/${id}/retention-hold`, { reason: 'probe' }),
  'DELETE /partner-relationships/{id}/retention-hold': (c, id) => c.delete(`/partner-relationships/${id}/retention-hold`),
};

/** Endpoints that list; the relationship must be absent from what they return. */
const LIST_ENDPOINTS: Record<string, (c: Connector) => Promise<string[]>> = {
  'GET /partner-relationships': async (c) => (await c.get('/partner-relationships?limit=200')).body.items.map((r: any) => r.id),
  'GET /events': async (c) => (await c.get('/events?limit=200')).body.items.map((e: any) => e.data.id),
  // The whole stream from the start, until it has been quiet for a moment.
  'GET /events/stream': async (c) => (await readStream(testEnv().baseUrl, c.token, { quietMs: 400, ms: 4000 })).messages.map((m) => m.data.data.id),
};

async function relationshipIn(state: string, a: Connector, b: Connector): Promise<{ id: string; version: number }> {
  const id = (await createRelationship(a, b)).body.id;
  if (state === 'draft') return { id, version: 1 };
  await a.command(`/partner-relationships/${id}/request`, 1);
  if (state === 'requested') return { id, version: 2 };
  await b.command(`/partner-relationships/${id}/accept`, 2);
  if (state === 'active') return { id, version: 3 };
  await b.command(`/partner-relationships/${id}/suspend`, 3, { reason: 'x' });
  if (state === 'suspended') return { id, version: 4 };
  await a.command(`/partner-relationships/${id}/terminate`, 4, { reason: 'x' });
  return { id, version: 5 };
}

describe.each(['draft', 'requested', 'active', 'suspended', 'terminated'])('a relationship in %s', (state) => {
  test('is invisible and untouchable for a third organization on every endpoint', async () => {
    const [a, b, outsider] = await Promise.all(freshOrgs(3).map((o) => Connector.of(o)));
    const { id, version } = await relationshipIn(state, a, b);
    for (const [name, probe] of Object.entries(RELATIONSHIP_ENDPOINTS)) {
      const reply = await probe(outsider, id, version);
      if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to an outsider`);
    }
    for (const [name, list] of Object.entries(LIST_ENDPOINTS)) {
      if ((await list(outsider)).includes(id)) throw new Error(`${name} showed it to an outsider`);
    }
    // GET /partners names neither party to the outsider.
    expect((await outsider.get('/partners')).body.items.map((p: any) => p.organizationId)).toEqual([outsider.id]);
    // GET /directory names only listed organizations (these are not), with the outsider's own relationships (none).
    const directory = (await outsider.get('/directory')).body.items;
    expect(directory.map((p: any) => p.organizationId)).not.toEqual(expect.arrayContaining([a.id]));
    expect(directory.map((p: any) => p.organizationId)).not.toEqual(expect.arrayContaining([b.id]));
    expect(directory.filter((p: any) => p.relationship !== 'none')).toEqual([]);
    // And nothing the outsider did changed it.
    expect((await a.get(`/partner-relationships/${id}`)).body.resourceVersion).toBe(version);
  });

  test(state === 'draft' ? 'is invisible to the accepting organization' : 'is visible to both parties', async () => {
    const [a, b] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
    const { id } = await relationshipIn(state, a, b);
    expect((await a.get(`/partner-relationships/${id}`)).status).toBe(200);
    expect((await LIST_ENDPOINTS['GET /partner-relationships'](a)).includes(id)).toBe(true);
    const seenByB = (await b.get(`/partner-relationships/${id}`)).status;
    expect(seenByB).toBe(state === 'draft' ? 404 : 200);
    expect((await LIST_ENDPOINTS['GET /partner-relationships'](b)).includes(id)).toBe(state !== 'draft');
  });
});

// Match proposals: in every state, a third organization neither sees nor touches a proposal, its
// rationale or its decisions, on any endpoint; the two listings stay out of its reach too.
describe.each(['open', 'accepted', 'rejected'])('a match proposal in %s', (state) => {
  test('is invisible and untouchable for a third organization on every endpoint', async () => {
    const m = await market();
    let [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
    if (state !== 'open') {
      proposal = (await decide(m.shipper, proposal, state === 'accepted' ? 'accept' : 'reject', { comment: 'between us' })).body;
      if (state === 'accepted') proposal = (await decide(m.carrier, proposal, 'accept')).body;
    }
    expect(proposal.status).toBe(state);
    const probes: Record<string, () => Promise<Reply>> = {
      'GET /match-proposals/{id}': () => m.outsider.get(`/match-proposals/${proposal.id}`),
      'GET /match-proposals/{id}/decisions': () => m.outsider.get(`/match-proposals/${proposal.id}/decisions`),
      'POST /match-proposals/{id}/decisions': () => decide(m.outsider, proposal, 'reject'),
      'POST /match-proposals': () => m.outsider.post('/match-proposals', { capacityOfferId: m.offer.id, loadRequestId: m.request.id }),
      'POST /match-evaluations': () => m.outsider.post('/match-evaluations', { capacityOfferId: m.offer.id, loadRequestId: m.request.id }),
    };
    for (const [name, probe] of Object.entries(probes)) {
      const reply = await probe();
      if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to an outsider`);
    }
    const lists = [
      (await m.outsider.get('/match-proposals?limit=200')).body.items,
      (await m.outsider.get(`/match-proposals?request=${m.request.id}`)).body.items,
      (await m.outsider.get('/events?limit=200')).body.items.map((e: any) => e.data),
    ];
    for (const items of lists) expect(JSON.stringify(items)).not.toContain(proposal.id);
    expect((await get(m.carrier, `/match-proposals/${proposal.id}`)).resourceVersion).toBe(proposal.resourceVersion);
  });
});

// Transport tenders and commitments: a third organization sees and touches none, on any endpoint.
describe('transport tenders and commitments', () => {
  test('are invisible and untouchable for a third organization on every endpoint', async () => {
    const m = await acceptedMatch();
    const { tender } = await issuedTender(m);
    const accepted = (await tenderCommand(m.shipper, (await tenderCommand(m.carrier, tender, 'decisions', { decision: 'accept', revision: 1 })).body, 'decisions', { decision: 'accept', revision: 1 })).body;
    const commitment = await get(m.carrier, `/transport-commitments/${accepted.commitmentId}`);
    const probes: Record<string, () => Promise<Reply>> = {
      'GET /transport-tenders/{id}': () => m.outsider.get(`/transport-tenders/${tender.id}`),
      'GET /transport-tenders/{id}/revisions': () => m.outsider.get(`/transport-tenders/${tender.id}/revisions`),
      'POST /transport-tenders/{id}/decisions': () => tenderCommand(m.outsider, accepted, 'decisions', { decision: 'reject', revision: 1 }),
      'POST /transport-tenders/{id}/counterproposals': () => tenderCommand(m.outsider, accepted, 'counterproposals', { revision: 1, terms: { commercialTerms: { amount: 1, currency: 'EUR' } }, reason: 'x' }),
      'POST /transport-tenders/{id}/withdraw': () => tenderCommand(m.outsider, accepted, 'withdraw', { reason: 'x' }),
      'POST /transport-tenders/{id}/issue': () => tenderCommand(m.outsider, accepted, 'issue'),
      'GET /transport-commitments/{id}': () => m.outsider.get(`/transport-commitments/${commitment.id}`),
      'GET /transport-commitments/{id}/digest-input': () => m.outsider.get(`/transport-commitments/${commitment.id}/digest-input`),
      'POST /transport-commitments/{id}/amendments': () => m.outsider.command(`/transport-commitments/${commitment.id}/amendments`, commitment.resourceVersion, { terms: { commercialTerms: { amount: 1, currency: 'EUR' } }, reason: 'x' }),
      'POST /transport-commitments/{id}/cancel': () => m.outsider.command(`/transport-commitments/${commitment.id}/cancel`, commitment.resourceVersion, { reason: 'x' }),
      'POST /transport-tenders (from their proposal)': () => m.outsider.post('/transport-tenders', { executingOrganizationId: m.carrier.id, originatingProposalId: m.proposal.id, movementScope: 'fullTransport', expiresAt: iso(DAY) }),
    };
    for (const [name, probe] of Object.entries(probes)) {
      const reply = await probe();
      if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to an outsider`);
    }
    for (const list of ['/transport-tenders', '/transport-commitments']) expect(await listAll(m.outsider, list)).toEqual([]);
    // What the exchange delivered counts the match for its two organizations only.
    const impact = async (c: Connector) => (await c.get('/reports/exchange-impact')).body;
    expect((await impact(m.outsider)).totals.matches).toBe(0);
    expect(JSON.stringify(await impact(m.outsider))).not.toContain(commitment.id);
    for (const party of [m.carrier, m.shipper]) expect(JSON.stringify(await impact(party))).toContain(commitment.id);
    expect(JSON.stringify((await m.outsider.get('/events?limit=200')).body)).not.toContain(tender.id);
    expect((await get(m.carrier, `/transport-commitments/${commitment.id}`)).resourceVersion).toBe(commitment.resourceVersion);
  });
});

// The transparency log: a third organization gets no inclusion proof of another's records (404, as
// for a record that does not exist), none of their leaves, and nothing of them in what every
// organization may read (the checkpoint and consistency proofs: hashes, counts and a signature).
describe('the transparency log', () => {
  test("no organization proves, lists or learns another's records, a partner's included", async () => {
    const m = await acceptedMatch();
    const { tender } = await issuedTender(m);
    const accepted = (await tenderCommand(m.shipper, (await tenderCommand(m.carrier, tender, 'decisions', { decision: 'accept', revision: 1 })).body, 'decisions', { decision: 'accept', revision: 1 })).body;
    const keys = [`match-proposals/${m.proposal.id}#/decisions/0`, `match-proposals/${m.proposal.id}#/decisions/1`, `transport-tenders/${tender.id}#/revisions/0`, `transport-tenders/${tender.id}#/decisions/0`, `transport-commitments/${accepted.commitmentId}#/digest`];
    for (const key of keys) {
      const own = await m.carrier.get(`/transparency-log/inclusion-proofs?recordKey=${encodeURIComponent(key)}`);
      expect({ key, status: own.status }).toEqual({ key, status: 200 });
      const other = await m.outsider.get(`/transparency-log/inclusion-proofs?recordKey=${encodeURIComponent(key)}`);
      expect({ key, status: other.status, code: other.body.code }).toEqual({ key, status: 404, code: 'RESOURCE_NOT_FOUND' });
    }
    const leaves = (await m.outsider.get('/transparency-log/leaves?limit=200')).body;
    expect(leaves.items.map((l: any) => l.recordKey)).toEqual([]);
    const open = JSON.stringify([(await m.outsider.get('/transparency-log/checkpoint')).body, (await m.outsider.get('/transparency-log/consistency-proofs?from=1')).body]);
    for (const id of [m.proposal.id, tender.id, accepted.commitmentId, m.carrier.id, m.shipper.id]) expect(open).not.toContain(id);
  });
});

// Execution handovers: a third organization sees and touches no handover, in any state, on any
// endpoint; the executing organization sees the exact addresses only through the handover, never
// in the tender, the commitment or their events before or after it.
describe('execution handovers', () => {
  test('are invisible and untouchable for a third organization; exact addresses reach only the executing organization, only through the handover', async () => {
    const { issuer, executor, outsider, tender, commitment } = await activeCommitment();
    const street = `Geheimkai ${Date.now()}, Tor 9`;
    const body = handoverBody(commitment, street);
    const executorSees = async () =>
      JSON.stringify([
        await get(executor, `/transport-tenders/${tender.id}`),
        await get(executor, `/transport-commitments/${commitment.id}`),
        await listAll(executor, '/transport-tenders'),
        await listAll(executor, '/transport-commitments'),
        (await executor.get('/events?limit=200')).body.items.filter((e: any) => !String(e.subject).startsWith('execution-handovers/')),
      ]);
    // Before the handover nothing the executing organization can read holds the exact address.
    expect(await executorSees()).not.toContain(street);
    expect(await listAll(executor, '/execution-handovers')).toEqual([]);
    expect((await outsider.post('/execution-handovers', body)).status).toBe(404);

    const handover = (await issuer.post('/execution-handovers', body)).body;
    expect((await executor.get(`/execution-handovers/${handover.id}`)).body.package.stops[0].location.address.lines).toEqual([street]);
    // After it, still only the handover (and its own events) holds it.
    expect(await executorSees()).not.toContain(street);

    for (const state of ['offered', 'imported']) {
      if (state === 'imported') {
        const acked = await executor.post(`/execution-handovers/${handover.id}/acknowledgements`, { outcome: 'imported', destinationExternalReference: { system: 'x', type: 'trip', value: 'T-1' } });
        expect(acked.body.status).toBe('imported');
      }
      const current = await get(issuer, `/execution-handovers/${handover.id}`);
      const probes: Record<string, () => Promise<Reply>> = {
        'GET /execution-handovers/{id}': () => outsider.get(`/execution-handovers/${handover.id}`),
        'POST /execution-handovers/{id}/acknowledgements': () => outsider.post(`/execution-handovers/${handover.id}/acknowledgements`, { outcome: 'rejected', reason: 'probe' }),
        'POST /execution-handovers (for their commitment)': () => outsider.post('/execution-handovers', body),
        'POST /execution-handovers/{id}/contact-erasures': () => outsider.post(`/execution-handovers/${handover.id}/contact-erasures`, { reason: 'probe' }),
        // Its tombstone, were it purged, is its organizations' too (test/time-skipping/retention.test.ts purges).
        'GET /purged-records/{id}': () => outsider.get(`/purged-records/${handover.id}`),
      };
      for (const [name, probe] of Object.entries(probes)) {
        const reply = await probe();
        if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to an outsider (${state})`);
      }
      expect(await listAll(outsider, '/execution-handovers')).toEqual([]);
      expect(await listAll(outsider, '/execution-handovers', `commitment=${commitment.id}`)).toEqual([]);
      const feed = JSON.stringify((await outsider.get('/events?limit=200')).body);
      expect(feed).not.toContain(handover.id);
      expect(feed).not.toContain(street);
      expect((await get(issuer, `/execution-handovers/${handover.id}`)).resourceVersion).toBe(current.resourceVersion);
    }
  });
});

// Execution references, their milestones and outcome chain: a third organization sees and touches
// none, in any state, on any endpoint (reference rule 7: participants and authorized operators only).
describe.each(['created', 'linked', 'completed', 'cancelled'])('an execution reference in %s', (state) => {
  test('is invisible and untouchable for a third organization on every endpoint', async () => {
    const m = await acceptedMatch();
    const id = (await waitFor('the execution reference', async () => (await m.carrier.get(`/execution-references?proposal=${m.proposal.id}`)).body.items?.[0])).id;
    const milestone = { executionReferenceId: id, milestone: 'pickedUp', occurredAt: iso(0), deduplicationKey: 'iso-1', position: { kind: 'unlocode', code: 'DEHAM' } };
    expect((await m.carrier.post('/execution-updates', milestone)).status).toBe(201);
    let outcome: any;
    if (state === 'linked' || state === 'completed') {
      outcome = (await m.carrier.post('/execution-outcomes', { executionReferenceId: id, status: 'inProgress', deduplicationKey: 'iso-o', schemaVersion: 'v0', externalExecutionRefs: [{ system: 'carrier-tms', type: 'trip', value: 'SECRET-TRIP' }] })).body;
    }
    if (state === 'completed') {
      outcome = (await m.shipper.post(`/execution-outcomes/${outcome.id}/corrections`, { observedOutcomeVersion: 1, deduplicationKey: 'iso-c', status: 'completed', schemaVersion: 'v0', correctionReason: 'delivered', actualTimeRange: { start: iso(0), end: iso(0) } })).body;
    }
    let reference = await get(m.carrier, `/execution-references/${id}`);
    if (state === 'cancelled') reference = (await m.shipper.command(`/execution-references/${id}/cancel`, reference.resourceVersion, { reason: 'no longer needed' })).body;
    expect(reference.status).toBe(state);
    const probes: Record<string, () => Promise<Reply>> = {
      'GET /execution-references/{id}': () => m.outsider.get(`/execution-references/${id}`),
      'GET /execution-references/{id}/updates': () => m.outsider.get(`/execution-references/${id}/updates`),
      'POST /execution-references/{id}/link': () => m.outsider.command(`/execution-references/${id}/link`, reference.resourceVersion, { externalTripRef: { system: 'x', type: 'trip', value: 'v' } }),
      'POST /execution-references/{id}/complete': () => m.outsider.command(`/execution-references/${id}/complete`, reference.resourceVersion),
      'POST /execution-references/{id}/cancel': () => m.outsider.command(`/execution-references/${id}/cancel`, reference.resourceVersion, { reason: 'probe' }),
      'POST /execution-references (for their proposal)': () => m.outsider.post('/execution-references', { acceptedProposalId: m.proposal.id, acceptedProposalVersion: m.proposal.resourceVersion, participatingOrganizationIds: [m.carrier.id, m.shipper.id] }),
      'POST /execution-updates': () => m.outsider.post('/execution-updates', { ...milestone, deduplicationKey: 'probe' }),
      'POST /execution-outcomes': () => m.outsider.post('/execution-outcomes', { executionReferenceId: id, status: 'disputed', deduplicationKey: 'probe', schemaVersion: 'v0' }),
      'GET /execution-outcomes?executionReferenceId=': () => m.outsider.get(`/execution-outcomes?executionReferenceId=${id}`),
      ...(outcome
        ? {
            'GET /execution-outcomes/{id}': () => m.outsider.get(`/execution-outcomes/${outcome.id}`),
            'POST /execution-outcomes/{id}/corrections': () => m.outsider.post(`/execution-outcomes/${outcome.id}/corrections`, { observedOutcomeVersion: 1, deduplicationKey: 'probe', status: 'disputed', schemaVersion: 'v0', correctionReason: 'probe' }),
          }
        : {}),
    };
    for (const [name, probe] of Object.entries(probes)) {
      const reply = await probe();
      if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to an outsider`);
    }
    expect(await listAll(m.outsider, '/execution-references')).toEqual([]);
    const feed = JSON.stringify((await m.outsider.get('/events?limit=200')).body);
    expect(feed).not.toContain(id);
    expect(feed).not.toContain('SECRET-TRIP');
    expect((await get(m.carrier, `/execution-references/${id}`)).resourceVersion).toBe(reference.resourceVersion);
  });
});

describe('webhook subscriptions', () => {
  test('are invisible and untouchable for another organization, even a partner, on every endpoint', async () => {
    const [owner, partner, outsider] = await Promise.all(freshOrgs(3).map((o) => Connector.of(o)));
    await createRelationship(owner, partner);
    const created = await owner.post('/webhook-subscriptions', { url: 'https://127.0.0.1:9/isolation', active: false });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const delivery = '00000000-0000-7000-8000-000000000000';
    for (const other of [partner, outsider]) {
      const probes: Record<string, () => Promise<Reply>> = {
        'GET /webhook-subscriptions/{id}': () => other.get(`/webhook-subscriptions/${id}`),
        'PATCH /webhook-subscriptions/{id}': () => other.patch(`/webhook-subscriptions/${id}`, { active: true }, { 'if-match': '"1"' }),
        'DELETE /webhook-subscriptions/{id}': () => other.delete(`/webhook-subscriptions/${id}`, { 'if-match': '"1"' }),
        'POST /webhook-subscriptions/{id}/rotate-secret': () => other.post(`/webhook-subscriptions/${id}/rotate-secret`, {}),
        'POST /webhook-subscriptions/{id}/ping': () => other.post(`/webhook-subscriptions/${id}/ping`),
        'GET /webhook-subscriptions/{id}/deliveries': () => other.get(`/webhook-subscriptions/${id}/deliveries`),
        'POST /webhook-subscriptions/{id}/deliveries/{deliveryId}/redeliver': () => other.post(`/webhook-subscriptions/${id}/deliveries/${delivery}/redeliver`),
        'POST /webhook-subscriptions/{id}/recover': () => other.post(`/webhook-subscriptions/${id}/recover`, { since: iso(-DAY) }),
      };
      for (const [name, probe] of Object.entries(probes)) {
        const reply = await probe();
        if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to another organization`);
      }
      expect((await other.get('/webhook-subscriptions?limit=200')).body.items).toEqual([]);
    }
    expect((await owner.get(`/webhook-subscriptions/${id}`)).body.resourceVersion).toBe(1);
  });
});

describe('listing series', () => {
  test('are invisible and untouchable for another organization, even a partner that sees their occurrences; their events reach the owner alone', async () => {
    const [owner, partner, outsider] = await Promise.all(freshOrgs(3).map((o) => Connector.of(o)));
    await createRelationship(owner, partner).then(async (r) => {
      await owner.command(`/partner-relationships/${r.body.id}/request`, 1);
      await partner.command(`/partner-relationships/${r.body.id}/accept`, 2);
    });
    const { availabilityWindow: _w, expiresAt: _e, ...terms } = offerBody();
    const tomorrow = iso(DAY).slice(0, 10);
    const created = await owner.post('/listing-series', {
      listingKind: 'capacityOffer', terms, horizon: 'P2D',
      recurrence: { rrule: 'FREQ=DAILY;COUNT=3', timeZone: 'Europe/Berlin', startDate: tomorrow },
      template: { windows: { availabilityWindow: { time: '08:00', duration: 'PT10H' } }, expiresAt: { before: 'PT2H' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    // Its first occurrence is published: the partner sees it, as a listing.
    const occurrence = await waitFor('the first occurrence', async () => (await owner.get(`/listing-series/${id}`)).body.occurrences?.[tomorrow]?.listingId);
    await waitFor('the partner to see it', async () => ((await partner.get(`/capacity-offers/${occurrence}`)).status === 200 ? true : undefined));
    for (const other of [partner, outsider]) {
      const probes: Record<string, () => Promise<Reply>> = {
        'GET /listing-series/{id}': () => other.get(`/listing-series/${id}`),
        'POST /listing-series/{id}/revisions': () => other.command(`/listing-series/${id}/revisions`, 1, { horizon: 'P3D' }),
        'POST /listing-series/{id}/skips': () => other.command(`/listing-series/${id}/skips`, 1, { key: tomorrow }),
        'POST /listing-series/{id}/pause': () => other.command(`/listing-series/${id}/pause`, 1),
        'POST /listing-series/{id}/resume': () => other.command(`/listing-series/${id}/resume`, 1),
        'POST /listing-series/{id}/end': () => other.command(`/listing-series/${id}/end`, 1, { reason: 'probe' }),
      };
      for (const [name, probe] of Object.entries(probes)) {
        const reply = await probe();
        if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to another organization`);
      }
      expect((await other.get('/listing-series?limit=200')).body.items).toEqual([]);
      expect((await other.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `listing-series/${id}`)).toEqual([]);
    }
    expect((await owner.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `listing-series/${id}`).map((e: any) => e.type)).toEqual(['pcx.listing-series.created.v1']);
    expect((await owner.get(`/listing-series/${id}`)).body).toMatchObject({ status: 'active' });
  });
});

describe('connectors', () => {
  test("are invisible and untouchable for another organization's admin, even a partner's, on every endpoint; their events reach the owner alone", async () => {
    const [owner, partner, outsider] = await Promise.all(freshOrgs(3).map((o) => Connector.of(o)));
    await createRelationship(owner, partner);
    const key = generateConnectorKey();
    const created = await owner.post('/connectors', { clientId: `iso-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`, scopes: ['capacity:read'], publicJwk: key.publicJwk });
    expect(created.status).toBe(201);
    const id = created.body.id;
    for (const other of [partner, outsider]) {
      const probes: Record<string, () => Promise<Reply>> = {
        'GET /connectors/{id}': () => other.get(`/connectors/${id}`),
        'PATCH /connectors/{id}': () => other.patch(`/connectors/${id}`, { name: 'mine now' }, { 'if-match': '"1"' }),
        ...Object.fromEntries(
          (
            [
              ['disable', { reason: 'probe' }],
              ['enable', {}],
              ['retire', { reason: 'probe' }],
              ['credentials', { publicJwk: generateConnectorKey().publicJwk }],
              ['roll-credential', { credentialId: key.publicJwk.kid, publicJwk: generateConnectorKey().publicJwk, oldExpiresAt: iso(DAY) }],
              ['revoke-credential', { credentialId: key.publicJwk.kid, reason: 'probe' }],
            ] as const
          ).map(([path, body]) => [`POST /connectors/{id}/${path}`, () => other.command(`/connectors/${id}/${path}`, 1, body)]),
        ),
      };
      for (const [name, probe] of Object.entries(probes)) {
        const reply = await probe();
        if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to another organization`);
      }
      expect((await other.get('/connectors?limit=200')).body.items).toEqual([]);
      expect((await other.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `connectors/${id}`)).toEqual([]);
    }
    expect((await owner.get(`/connectors/${id}`)).body.resourceVersion).toBe(1);
  });
});

describe('the OAuth endpoints (introspection, revocation)', () => {
  test("another organization's client, a partner's included, learns nothing of a token by introspection and cannot revoke it", async () => {
    const orgs = freshOrgs(3);
    const [owner, partner] = await Promise.all(orgs.slice(0, 2).map((o) => Connector.of(o)));
    await createRelationship(owner, partner);
    const basic = (o: { clientId: string; secret: string }) => ({ authorization: `Basic ${Buffer.from(`${o.clientId}:${o.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' });
    const oauth = (path: string, as: { clientId: string; secret: string }) => fetch(`${testEnv().baseUrl}/oauth2/${path}`, { method: 'POST', headers: basic(as), body: new URLSearchParams({ token: owner.token }) });
    for (const other of orgs.slice(1)) {
      expect(await (await oauth('introspect', other)).json()).toEqual({ active: false });
      const revoked = await oauth('revoke', other);
      expect(revoked.status).toBe(400);
      expect(((await revoked.json()) as any).error).toBe('unauthorized_client');
    }
    // The owner's own client sees it active, and it still works: nobody else ended it.
    expect(await (await oauth('introspect', orgs[0])).json()).toEqual(expect.objectContaining({ active: true, org_id: orgs[0].id }));
    expect((await owner.get('/partner-relationships?limit=1')).status).toBe(200);
  });
});

describe('organizations', () => {
  test("an organization's record is invisible and untouchable for every other organization, a partner and a participant holding the admin scope included; its events reach it and the operator alone", async () => {
    const [partner, outsider] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
    const operator = await Connector.of({ id: 'org-operator', clientId: 'client-operator', secret: 'secret-o' } as any);
    const pretender = await Connector.of({ id: 'org-special', clientId: 'client-pretender', secret: 'secret-p' } as any);
    const organizationId = `org-iso-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
    const created = await operator.post('/organizations', { organizationId, name: 'Isolated', legalIdentifier: { scheme: 'LEI', value: 'HWUPKR0MPOU8FGXBT394' } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    for (const other of [partner, outsider, pretender]) {
      const commands = [['verify', { evidenceReference: 'probe' }], ['reject', { reason: 'probe' }], ['suspend', { reason: 'probe' }], ['reinstate', { reason: 'probe' }], ['end', { reason: 'probe' }]] as const;
      const replies: Array<[string, Reply]> = [
        ['GET /organizations/{id}', await other.get(`/organizations/${id}`)],
        ['PATCH /organizations/{id}', await other.patch(`/organizations/${id}`, { name: 'mine now' }, { 'if-match': '"1"' })],
        ...(await Promise.all(commands.map(async ([path, body]): Promise<[string, Reply]> => [`POST /organizations/{id}/${path}`, await other.command(`/organizations/${id}/${path}`, 1, body)]))),
      ];
      for (const [name, reply] of replies) {
        // Without the operator's scope a command is refused before the record is looked at (gate 6); with it, a participant is nobody here (404).
        const expected = name.startsWith('POST') && other !== pretender ? 403 : 404;
        if (reply.status !== expected) throw new Error(`${name} answered ${reply.status} to another organization (${other.org.clientId})`);
      }
      expect((await other.get('/organizations?limit=200')).body.items.map((o: any) => o.organizationId)).not.toContain(organizationId);
      expect((await other.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `organizations/${id}`)).toEqual([]);
    }
    expect((await operator.get(`/organizations/${id}`)).body.resourceVersion).toBe(1);
  });
});

describe('users', () => {
  test("an organization's users are invisible and untouchable for another organization's admin, even a partner's; their events reach the organization and the operator alone", async () => {
    const [owner, partner, outsider] = await Promise.all(freshOrgs(3).map((o) => Connector.of(o)));
    await createRelationship(owner, partner);
    const created = await owner.post('/users', { userId: `iso-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`, roles: ['viewer'] });
    expect(created.status).toBe(201);
    const id = created.body.id;
    for (const other of [partner, outsider]) {
      const probes: Record<string, () => Promise<Reply>> = {
        'GET /users/{id}': () => other.get(`/users/${id}`),
        'PATCH /users/{id}': () => other.patch(`/users/${id}`, { roles: ['admin'] }, { 'if-match': '"1"' }),
        ...Object.fromEntries(
          ([['disable', { reason: 'probe' }], ['enable', {}], ['reinvite', {}], ['remove', { reason: 'probe' }]] as const).map(([path, body]) => [`POST /users/{id}/${path}`, () => other.command(`/users/${id}/${path}`, 1, body)]),
        ),
        'POST /users/{id}/name-erasures': () => other.post(`/users/${id}/name-erasures`, { reason: 'probe' }),
      };
      for (const [name, probe] of Object.entries(probes)) {
        const reply = await probe();
        if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to another organization`);
      }
      expect((await other.get('/users?limit=200')).body.items).toEqual([]);
      expect((await other.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `users/${id}`)).toEqual([]);
    }
    expect((await owner.get(`/users/${id}`)).body.resourceVersion).toBe(1);
  });
});

describe('the sandbox (development mode)', () => {
  test("no participant reads another's record or sets faults on it, a partner included", async () => {
    const [owner, partner] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
    await createRelationship(owner, partner);
    expect((await owner.post('/capacity-offers', { padding: true })).status).toBe(400);
    for (const other of [partner, owner]) {
      expect((await other.get(`/sandbox/connector-requests?clientId=${owner.org.clientId}`)).status).toBe(403);
      expect((await other.post('/sandbox/faults', { clientId: owner.org.clientId, status: 503 })).status).toBe(403);
      expect((await other.post('/sandbox/event-disorder', { clientId: owner.org.clientId, holdSeconds: 30 })).status).toBe(403);
      expect((await other.post('/sandbox/reset', { clientId: owner.org.clientId })).status).toBe(403);
    }
    // Nothing was set: the owner's next request reaches the broker, its feed is served.
    expect((await owner.get('/capacity-offers?limit=1')).status).toBe(200);
    expect((await owner.get('/events?limit=200')).status).toBe(200);
  });
});

describe("the retention purge's operator endpoints", () => {
  test("no organization previews another's (or its own) due records, runs the purge or reads who ran it; its records stay as they were", async () => {
    const [owner, other] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
    await createRelationship(owner, other);
    const offer = (await owner.post('/capacity-offers', offerBody())).body;
    const later = encodeURIComponent(new Date(Date.now() + 3 * 365 * 86_400_000).toISOString());
    for (const caller of [other, owner]) {
      for (const probe of [
        caller.get(`/retention-preview?organizationId=${owner.org.id}&at=${later}`),
        caller.get(`/retention-preview?at=${later}`),
        caller.post('/retention-runs', { reason: 'probe' }),
        caller.get('/retention-runs'),
      ]) {
        const reply = await probe;
        if (reply.status !== 403) throw new Error(`a retention endpoint answered ${reply.status} to ${caller === owner ? 'the owner' : 'another organization'}`);
        expect(JSON.stringify(reply.body)).not.toContain(offer.id);
      }
    }
    expect((await owner.get(`/capacity-offers/${offer.id}`)).body.resourceVersion).toBe(1);
  });
});
