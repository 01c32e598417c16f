// Execution references, milestones and the outcome chain, end to end on both engines: the
// reference an accepted match gets, links, the milestone timeline with duplicates and late
// arrivals, outcomes and corrections with every invariant under concurrency, completion, and
// who may see what.
import { Connector, expectProblem, type Reply } from './helpers';
import { decide, expectValid, get, market, waitFor, waitProposals } from './matching-fixtures';
import { acceptedMatch, issuedTender, tenderCommand } from './tenders.fixtures';
import { handoverBody } from './execution-handovers.fixtures';
import { expectCausalFeed, wholeFeed } from './feed';

/** An accepted match and the execution reference the broker made for it. */
async function referenced() {
  const m = await market();
  const [proposal] = await waitProposals(m.shipper, `request=${m.request.id}`);
  const first = (await decide(m.shipper, proposal, 'accept')).body;
  const accepted = (await decide(m.carrier, first, 'accept')).body;
  const reference = await waitFor('the execution reference', async () => {
    const items = (await m.carrier.get(`/execution-references?proposal=${proposal.id}`)).body.items;
    return items?.[0];
  });
  return { ...m, proposal: accepted, reference };
}

// The movement's times. The broker records a reported time only between the reference's creation
// and its own now (5 minutes of clock skew either side), so a test tells its day in fast motion:
// a minute of the story is 100 ms from a minute before the test began (620 minutes: 62 s).
let T0 = Date.now() - 60_000;
beforeEach(() => {
  T0 = Date.now() - 60_000;
});
const at = (minutes: number) => new Date(T0 + minutes * 100).toISOString();

const update = (c: Connector, referenceId: string, key: string, milestone: string, minutes: number, extra: Record<string, unknown> = {}) =>
  c.post('/execution-updates', { executionReferenceId: referenceId, milestone, occurredAt: at(minutes), deduplicationKey: key, ...extra });

const outcome = (c: Connector, referenceId: string, key: string, status: string, extra: Record<string, unknown> = {}) =>
  c.post('/execution-outcomes', {
    executionReferenceId: referenceId,
    status,
    deduplicationKey: key,
    schemaVersion: 'v0',
    ...(status === 'completed' ? { actualTimeRange: { start: at(0), end: at(600) } } : {}),
    ...extra,
  });

const correct = (c: Connector, head: { id: string; resourceVersion: number }, key: string, status: string, extra: Record<string, unknown> = {}) =>
  c.post(`/execution-outcomes/${head.id}/corrections`, {
    observedOutcomeVersion: head.resourceVersion,
    correctionReason: 'the driver reported late',
    correctionReasonCode: 'LATE_INFORMATION',
    deduplicationKey: key,
    status,
    schemaVersion: 'v0',
    ...(status === 'completed' ? { actualTimeRange: { start: at(0), end: at(620) } } : {}),
    ...extra,
  });

const chainOf = async (c: Connector, referenceId: string) => (await c.get(`/execution-outcomes?executionReferenceId=${referenceId}`)).body.items;

/** Invariants 4, 5, 6: one head; the supersedes chain is acyclic, covers every record, ends at a record with supersedes null. */
function expectChain(chain: any[]) {
  const heads = chain.filter((o) => o.supersededByOutcomeId === null);
  expect(heads).toHaveLength(1);
  expect(chain[0].id).toBe(heads[0].id); // head first
  const byId = new Map(chain.map((o) => [o.id, o]));
  const seen = new Set<string>();
  let node = heads[0];
  while (node) {
    expect(seen.has(node.id)).toBe(false);
    seen.add(node.id);
    if (node.supersedes === null) break;
    const previous = byId.get(node.supersedes);
    expect(previous.supersededByOutcomeId).toBe(node.id);
    node = previous;
  }
  expect(seen.size).toBe(chain.length);
  for (const o of chain) expect(o.schemaVersion).toBe('v0'); // invariant 8
}

describe('the execution reference', () => {
  test('the broker creates one per accepted proposal; links add references from each system; cancel needs a reason', async () => {
    const m = await referenced();
    expectValid('execution-reference', m.reference);
    expect(m.reference).toMatchObject({
      status: 'created',
      acceptedProposalId: m.proposal.id,
      acceptedProposalVersion: m.proposal.resourceVersion,
      carrierOrganizationId: m.carrier.id,
      shipperOrganizationId: m.shipper.id,
      participatingOrganizationIds: [m.carrier.id, m.shipper.id],
      createdBy: { kind: 'broker' },
    });
    // Rule 3: exactly one reference per accepted proposal.
    const again = await m.shipper.post('/execution-references', { acceptedProposalId: m.proposal.id, acceptedProposalVersion: m.proposal.resourceVersion, participatingOrganizationIds: [m.carrier.id, m.shipper.id] });
    expectProblem(again, 409, 'RESOURCE_EXISTS');
    expect(again.body.id).toBe(m.reference.id);

    const path = `/execution-references/${m.reference.id}`;
    expectProblem(await m.carrier.command(`${path}/link`, m.reference.resourceVersion, { sourceExternalReferences: [{ system: 'alpine-tms', type: 'trip', value: 'T-1' }] }), 400, 'VALIDATION_FAILED');
    const linked = await m.carrier.command(`${path}/link`, m.reference.resourceVersion, { externalTripRef: { system: 'alpine-tms', type: 'trip', value: 'T-1' } });
    expect(linked.body).toMatchObject({ status: 'linked', externalTripRefs: [{ system: 'alpine-tms', type: 'trip', value: 'T-1' }] });
    // The same value from another system is another reference (rule 4); a stale If-Match loses (rule 2).
    expectProblem(await m.shipper.command(`${path}/link`, m.reference.resourceVersion, { externalOrderRef: { system: 'baltic-erp', type: 'order', value: 'T-1' } }), 409, 'STALE_RESOURCE_VERSION');
    const twice = await m.shipper.command(`${path}/link`, linked.body.resourceVersion, { externalOrderRef: { system: 'baltic-erp', type: 'order', value: 'T-1' }, externalTripRef: { system: 'baltic-erp', type: 'trip', value: 'T-1' } });
    expect(twice.body.externalTripRefs).toHaveLength(2);
    expect(twice.body.externalOrderRefs).toEqual([{ system: 'baltic-erp', type: 'order', value: 'T-1' }]);
    // Concurrent link and cancel: first writer wins.
    const [link, cancel] = await Promise.all([
      m.carrier.command(`${path}/link`, twice.body.resourceVersion, { externalTripRef: { system: 'alpine-tms', type: 'trip', value: 'T-2' } }),
      m.shipper.command(`${path}/cancel`, twice.body.resourceVersion, { reason: 'order withdrawn by the customer' }),
    ]);
    expect([link.status, cancel.status].sort()).toEqual([200, 409]);
    if (cancel.status === 200) {
      expect(cancel.body).toMatchObject({ status: 'cancelled', cancellation: { reason: 'order withdrawn by the customer', organizationId: m.shipper.id } });
      // Terminal: nothing more (rule 5).
      expectProblem(await m.carrier.command(`${path}/link`, cancel.body.resourceVersion, { externalTripRef: { system: 'x', type: 't', value: 'v' } }), 422, 'INVALID_STATE_TRANSITION');
      expectProblem(await outcome(m.carrier, m.reference.id, 'late', 'inProgress'), 422, 'INVALID_STATE_TRANSITION');
    }
  });
});

describe('milestones', () => {
  test('duplicates are absorbed, out-of-order arrivals stored in occurrence order, the current milestone never moves back', async () => {
    const m = await referenced();
    const id = m.reference.id;
    const picked = await update(m.carrier, id, 'm-2', 'pickedUp', 60, { position: { kind: 'unlocode', code: 'DEHAM' } });
    expect(picked.status).toBe(201);
    expectValid('execution-reference#/$defs/ExecutionUpdate', picked.body);
    expect(picked.body).toMatchObject({ milestone: 'pickedUp', occurredAt: at(60), deduplicationKey: 'm-2', submittedBy: { organizationId: m.carrier.id } });
    const replay = await update(m.carrier, id, 'm-2', 'pickedUp', 60, { position: { kind: 'unlocode', code: 'DEHAM' } });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(picked.body);
    expectProblem(await update(m.carrier, id, 'm-2', 'inTransit', 60), 409, 'IDEMPOTENCY_CONFLICT');
    expect((await update(m.shipper, id, 'm-3', 'inTransit', 120)).status).toBe(201);
    // An older milestone arriving late: stored, shown in its place, not current.
    expect((await update(m.carrier, id, 'm-1', 'atPickup', 30)).status).toBe(201);
    const timeline = (await m.shipper.get(`/execution-references/${id}/updates`)).body;
    expectValid('execution-reference#/$defs/UpdatePage', timeline);
    expect(timeline.items.map((u: any) => u.milestone)).toEqual(['atPickup', 'pickedUp', 'inTransit']);
    expect((await get(m.carrier, `/execution-references/${id}`)).currentMilestone).toMatchObject({ milestone: 'inTransit', occurredAt: at(120) });
    // Concurrent duplicates: one record.
    const same = await Promise.all(Array.from({ length: 6 }, () => update(m.carrier, id, 'm-4', 'atDelivery', 300)));
    expect(new Set(same.map((r) => r.body.id)).size).toBe(1);
    expect(same.filter((r) => r.status === 201)).toHaveLength(1);
    expectProblem(await update(m.outsider, id, 'x', 'delayed', 1), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await update(m.carrier, id, 'm-5', 'delayed', 1, { position: { kind: 'unlocode', code: 'ZZZZZ' } }), 400, 'VALIDATION_FAILED');
    const types = (await m.shipper.get('/events?limit=200')).body.items.map((e: any) => e.type);
    expect(types.filter((t: string) => t === 'pcx.execution.updated.v1')).toHaveLength(4);
  });

  test('a milestone or an outcome dated in the future or before the reference is refused (400 at its field) and changes nothing', async () => {
    const m = await referenced();
    const id = m.reference.id;
    const before = await get(m.carrier, `/execution-references/${id}`);
    const eventsBefore = (await wholeFeed(m.shipper)).filter((e: any) => e.data?.id === id || e.data?.executionReferenceId === id).length;
    const hour = new Date(Date.now() + 3_600_000).toISOString();
    const ahead = await m.carrier.post('/execution-updates', { executionReferenceId: id, milestone: 'delivered', occurredAt: hour, deduplicationKey: 'future-1' });
    expectProblem(ahead, 400, 'VALIDATION_FAILED');
    expect(ahead.body.errors).toEqual([{ pointer: '/occurredAt', message: expect.stringContaining("more than 5 minutes after the broker's now") }]);
    expect(ahead.body.detail).toMatch(new RegExp(`^occurredAt ${hour} is in the future: the broker's now is \\S+Z, and a reported time may be at most 5 minutes ahead of it \\(\\S+Z\\)\\.$`));
    const historic = await m.carrier.post('/execution-updates', { executionReferenceId: id, milestone: 'pickedUp', occurredAt: '2008-03-05T10:00:00Z', deduplicationKey: 'past-1' });
    expectProblem(historic, 400, 'VALIDATION_FAILED');
    expect(historic.body.detail).toContain(`before the movement: the execution reference was created at ${before.createdAt}`);
    const done = await m.carrier.post('/execution-outcomes', { executionReferenceId: id, status: 'completed', deduplicationKey: 'future-o', schemaVersion: 'v0', actualTimeRange: { start: at(0), end: hour } });
    expectProblem(done, 400, 'VALIDATION_FAILED');
    expect(done.body.errors).toEqual([{ pointer: '/actualTimeRange/end', message: expect.any(String) }]);
    // Nothing changed: the same version and milestone, no record, no event; the keys are still free.
    expect(await get(m.carrier, `/execution-references/${id}`)).toMatchObject({ resourceVersion: before.resourceVersion, status: before.status });
    expect((await get(m.carrier, `/execution-references/${id}`)).currentMilestone).toBeUndefined();
    expect((await m.shipper.get(`/execution-references/${id}/updates`)).body.items).toEqual([]);
    expect((await m.shipper.get(`/execution-outcomes?executionReferenceId=${id}`)).body.items).toEqual([]);
    expect((await wholeFeed(m.shipper)).filter((e: any) => e.data?.id === id || e.data?.executionReferenceId === id)).toHaveLength(eventsBefore);
    expect((await update(m.carrier, id, 'future-1', 'delivered', 0)).status).toBe(201);
  });
});

describe('the outcome chain', () => {
  test('initial reports, replays, corrections and completion, with the invariants', async () => {
    const m = await referenced();
    const id = m.reference.id;
    const first = await outcome(m.carrier, id, 'o-1', 'inProgress', { executionReferenceVersion: m.reference.resourceVersion, plannedTimeRange: { start: at(0), end: at(600) } });
    expect(first.status).toBe(201);
    expectValid('execution-reference#/$defs/ExecutionOutcome', first.body);
    expect(first.body).toMatchObject({ status: 'inProgress', resourceVersion: 1, supersedes: null, supersededByOutcomeId: null, schemaVersion: 'v0', submittedBy: { organizationId: m.carrier.id } });
    // The reference becomes linked by its first outcome.
    expect((await get(m.shipper, `/execution-references/${id}`)).status).toBe('linked');
    // Replay (same key, same payload): 200 and the original; another payload under the key: refused (invariant 7).
    const replay = await outcome(m.carrier, id, 'o-1', 'inProgress', { plannedTimeRange: { start: at(0), end: at(600) } });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    expectProblem(await outcome(m.carrier, id, 'o-1', 'disputed'), 409, 'IDEMPOTENCY_CONFLICT');
    expectProblem(await outcome(m.carrier, id, 'o-x', 'completed', { actualTimeRange: undefined }), 400, 'VALIDATION_FAILED');

    // A disputed report follows the head (one head at all times), and is corrected (invariant 3).
    const disputed = await outcome(m.shipper, id, 'o-2', 'disputed', { operationalDeviations: [{ code: 'DAMAGED_GOODS', description: 'two pallets' }] });
    expect(disputed.body).toMatchObject({ supersedes: first.body.id, supersededByOutcomeId: null });
    const old = (await m.carrier.get(`/execution-outcomes/${first.body.id}`)).body;
    expect(old).toMatchObject({ ...first.body, supersededByOutcomeId: disputed.body.id, resourceVersion: 2, updatedAt: expect.any(String) }); // invariant 4
    // A correction must carry the superseded record's version, and name the head.
    expectProblem(await correct(m.carrier, { id: disputed.body.id, resourceVersion: 7 }, 'c-0', 'completed'), 409, 'STALE_RESOURCE_VERSION');
    expectProblem(await correct(m.carrier, old, 'c-0', 'completed'), 409, 'IDEMPOTENCY_CONFLICT');
    expectProblem(await correct(m.carrier, disputed.body, 'o-1', 'completed'), 409, 'IDEMPOTENCY_CONFLICT'); // a key already used
    expectProblem(await m.carrier.post(`/execution-outcomes/${disputed.body.id}/corrections`, { observedOutcomeVersion: 1, deduplicationKey: 'c-9', status: 'inProgress', schemaVersion: 'v0' }), 400, 'VALIDATION_FAILED');

    // Twenty concurrent corrections of one head: one winner, the rest 409, one head, acyclic.
    // Each sent as a connector sends it: a 503 (the broker busy: nothing decided) tried again after a
    // second with the same deduplicationKey, until it has its answer.
    const race = async (i: number) => {
      for (let attempt = 0; ; attempt++) {
        const r = await correct(i % 2 ? m.carrier : m.shipper, disputed.body, `c-${i}`, 'inProgress', { correctionReasonCode: 'DISPUTE_RESOLVED', correctionReason: `resolution ${i}` });
        if (r.status !== 503 || attempt === 20) return r;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    };
    const racers = await Promise.all(Array.from({ length: 20 }, (_, i) => race(i)));
    const won = racers.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    for (const r of racers.filter((x) => x.status !== 201)) expect([r.status, ['STALE_RESOURCE_VERSION', 'IDEMPOTENCY_CONFLICT'].includes(r.body.code)]).toEqual([409, true]);
    const winner = won[0].body;
    expect(winner).toMatchObject({ supersedes: disputed.body.id, correctionReasonCode: 'DISPUTE_RESOLVED', observedOutcomeVersion: 1 });
    expectChain(await chainOf(m.carrier, id));

    // The completed correction completes the reference (invariant 11: from the head, never a superseded record).
    const done = await correct(m.carrier, winner, 'c-final', 'completed');
    expect(done.status).toBe(201);
    const completed = await get(m.shipper, `/execution-references/${id}`);
    expect(completed).toMatchObject({ status: 'completed', headOutcomeId: done.body.id, actualTimeRange: { start: at(0), end: at(620) } });
    const chain = await chainOf(m.shipper, id);
    expectValid('execution-reference#/$defs/OutcomePage', { items: chain, nextCursor: null });
    expect(chain.map((o: any) => o.id)).toEqual([done.body.id, winner.id, disputed.body.id, first.body.id]);
    expectChain(chain);
    // Completed: nothing more, neither reports nor corrections nor a delayed cancel (rules 1, 5).
    expectProblem(await outcome(m.carrier, id, 'o-late', 'inProgress'), 422, 'INVALID_STATE_TRANSITION');
    expectProblem(await correct(m.carrier, done.body, 'c-late', 'cancelled', { correctionReason: 'x' }), 422, 'INVALID_STATE_TRANSITION');
    expectProblem(await m.shipper.command(`/execution-references/${id}/cancel`, completed.resourceVersion, { reason: 'late' }), 422, 'INVALID_STATE_TRANSITION');
    // A replay after the end is still the original (the reference's workflow has ended: answered from the read model).
    const replayed = await correct(m.carrier, winner, 'c-final', 'completed');
    expect([replayed.status, replayed.body]).toEqual([200, done.body]);

    // The events name both records of a correction: its subject is the new record, whose data
    // names the one it supersedes.
    for (const c of [m.carrier, m.shipper]) {
      const feed = await wholeFeed(c);
      expectCausalFeed(feed);
      const events = feed.filter((e: any) => e.data.id === id || e.data.executionReferenceId === id);
      const corrected = events.filter((e: any) => e.type === 'pcx.execution-outcome.corrected.v1');
      expect(corrected.map((e: any) => [e.subject, e.resourceversion, e.data.id, e.data.supersedes])).toContainEqual([`execution-outcomes/${winner.id}`, 1, winner.id, disputed.body.id]);
      // Of the twenty racers only the winner's transition happened: no event of another (a sender
      // writes only what its Update answered, and only a completed Update answers).
      expect(corrected.filter((e: any) => e.data.supersedes === disputed.body.id).map((e: any) => e.data.id)).toEqual([winner.id]);
      expect(events.map((e: any) => e.type)).toEqual(expect.arrayContaining(['pcx.execution-reference.created.v1', 'pcx.execution-outcome.recorded.v1', 'pcx.execution.completed.v1']));
      for (const e of events.filter((x: any) => x.type.startsWith('pcx.execution-outcome.'))) expectValid('execution-reference#/$defs/ExecutionOutcome', e.data);
    }
  });

  test('concurrent initial reports: one key makes one record; different keys are both accepted; only the first completed one completes', async () => {
    const m = await referenced();
    const id = m.reference.id;
    const same = await Promise.all(Array.from({ length: 8 }, () => outcome(m.carrier, id, 'k-same', 'inProgress')));
    expect(new Set(same.map((r) => r.body.id)).size).toBe(1);
    expect(same.filter((r) => r.status === 201)).toHaveLength(1);
    const different = await Promise.all([outcome(m.carrier, id, 'k-a', 'inProgress'), outcome(m.shipper, id, 'k-b', 'inProgress')]);
    expect(different.map((r) => r.status)).toEqual([201, 201]);
    expectChain(await chainOf(m.carrier, id));
    const finals = await Promise.all([outcome(m.carrier, id, 'k-done-1', 'completed'), outcome(m.shipper, id, 'k-done-2', 'cancelled')]);
    const accepted = finals.filter((r) => r.status === 201);
    expect(accepted).toHaveLength(1);
    expect(finals.filter((r) => r.status === 422)).toHaveLength(1);
    const reference = await get(m.carrier, `/execution-references/${id}`);
    expect(reference).toMatchObject({ status: 'completed', headOutcomeId: accepted[0].body.id });
    expectChain(await chainOf(m.carrier, id));
  });
});

describe('who sees what', () => {
  test('a non-participant sees nothing; a participant needs outcomes:review or outcomes:write; the auditor reads and does not write', async () => {
    const m = await referenced();
    const id = m.reference.id;
    const recorded = (await outcome(m.carrier, id, 'iso-1', 'inProgress', { externalExecutionRefs: [{ system: 'alpine-tms', type: 'stop', value: 'Hafenstrasse 1' }] })).body;
    await update(m.carrier, id, 'iso-m', 'assigned', 1);
    const probes: Record<string, (c: Connector) => Promise<Reply>> = {
      'GET /execution-references/{id}': (c) => c.get(`/execution-references/${id}`),
      'GET /execution-references/{id}/updates': (c) => c.get(`/execution-references/${id}/updates`),
      'POST /execution-references/{id}/link': (c) => c.command(`/execution-references/${id}/link`, 1, { externalTripRef: { system: 's', type: 't', value: 'v' } }),
      'POST /execution-references/{id}/complete': (c) => c.command(`/execution-references/${id}/complete`, 1),
      'POST /execution-references/{id}/cancel': (c) => c.command(`/execution-references/${id}/cancel`, 1, { reason: 'x' }),
      'POST /execution-references': (c) => c.post('/execution-references', { acceptedProposalId: m.proposal.id, acceptedProposalVersion: 1, participatingOrganizationIds: [m.carrier.id, m.shipper.id] }),
      'POST /execution-updates': (c) => update(c, id, 'x', 'delayed', 5),
      'POST /execution-outcomes': (c) => outcome(c, id, 'x', 'inProgress'),
      'GET /execution-outcomes?executionReferenceId': (c) => c.get(`/execution-outcomes?executionReferenceId=${id}`),
      'GET /execution-outcomes/{id}': (c) => c.get(`/execution-outcomes/${recorded.id}`),
      'POST /execution-outcomes/{id}/corrections': (c) => correct(c, recorded, 'x', 'inProgress'),
    };
    for (const [name, probe] of Object.entries(probes)) {
      const reply = await probe(m.outsider);
      if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to an outsider`);
    }
    expect((await m.outsider.get('/execution-references')).body.items).toEqual([]);
    expect(JSON.stringify((await m.outsider.get('/events?limit=200')).body)).not.toContain(id);
    // A participant's connector without outcomes:review or outcomes:write: 403 on reads and reports.
    const planner = await Connector.of(m.shipper.org, 'matches:read execution:update');
    expectProblem(await planner.get(`/execution-references/${id}`), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await planner.get(`/execution-outcomes/${recorded.id}`), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await outcome(planner, id, 'p', 'inProgress'), 403, 'INSUFFICIENT_SCOPE');
    expect((await planner.get(`/execution-references/${id}/updates`)).status).toBe(200); // execution:update reads the timeline
    // A read-only auditor.
    const auditor = await Connector.of(m.shipper.org, 'outcomes:review');
    expect((await auditor.get(`/execution-outcomes/${recorded.id}`)).body.externalExecutionRefs).toEqual([{ system: 'alpine-tms', type: 'stop', value: 'Hafenstrasse 1' }]);
    expect((await auditor.get(`/execution-references/${id}`)).status).toBe(200);
    expectProblem(await outcome(auditor, id, 'a', 'inProgress'), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await correct(auditor, recorded, 'a', 'inProgress'), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('from an accepted match to a completed execution', () => {
  test('the reference gathers the commitment, the handover and both systems\' records; milestones and a completed outcome finish it', async () => {
    const m = await acceptedMatch();
    const referenceId = (await waitFor('the execution reference', async () => (await m.carrier.get(`/execution-references?proposal=${m.proposal.id}`)).body.items?.[0])).id;
    // The shipper tenders the movement; both accept (BILATERAL_REQUIRED); the commitment follows.
    const { tender } = await issuedTender(m);
    const one = (await tenderCommand(m.carrier, tender, 'decisions', { decision: 'accept', revision: 1 })).body;
    await tenderCommand(m.shipper, one, 'decisions', { decision: 'accept', revision: 1 });
    const committed = await waitFor('the commitment', async () => {
      const t = await get(m.shipper, `/transport-tenders/${tender.id}`);
      return t.commitmentId ? t : undefined;
    });
    const commitment = await get(m.shipper, `/transport-commitments/${committed.commitmentId}`);
    await waitFor('the reference names the commitment', async () => ((await get(m.carrier, `/execution-references/${referenceId}`)).commitmentId === commitment.id ? true : undefined));
    // The shipper hands over the package; the reference records it and the shipper's own record.
    const delivered = await m.shipper.post('/execution-handovers', handoverBody(commitment));
    expect(delivered.status).toBe(201);
    expect(delivered.body.executionReferenceId).toBe(referenceId);
    const withHandover = await waitFor('the reference names the handover', async () => {
      const r = await get(m.shipper, `/execution-references/${referenceId}`);
      return r.handoverId === delivered.body.id ? r : undefined;
    });
    expect(withHandover.sourceExternalReferences).toEqual([{ system: 'issuer-tms', type: 'shipment', value: 'S-4711' }]);
    // The carrier's system imports it: the reference learns the carrier's record too.
    const trip = { system: 'carrier-tms', type: 'trip', value: 'TR-88' };
    expect((await m.carrier.post(`/execution-handovers/${delivered.body.id}/acknowledgements`, { outcome: 'imported', destinationExternalReference: trip })).status).toBe(200);
    await waitFor('the reference names the carrier\'s record', async () => {
      const r = await get(m.shipper, `/execution-references/${referenceId}`);
      return r.destinationExternalReferences?.length ? (expect(r.destinationExternalReferences).toEqual([trip]), true) : undefined;
    });
    // Execution: milestones, then a completed outcome completes the reference.
    expect((await update(m.carrier, referenceId, 'e-1', 'pickedUp', 60)).status).toBe(201);
    expect((await update(m.carrier, referenceId, 'e-2', 'delivered', 500)).status).toBe(201);
    const done = await outcome(m.carrier, referenceId, 'e-done', 'completed');
    expect(done.status).toBe(201);
    expect(await get(m.shipper, `/execution-references/${referenceId}`)).toMatchObject({
      status: 'completed', commitmentId: commitment.id, handoverId: delivered.body.id, headOutcomeId: done.body.id, currentMilestone: { milestone: 'delivered' },
    });
  });
});
