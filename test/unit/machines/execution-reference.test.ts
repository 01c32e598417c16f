// Every transition and refusal of the ExecutionReference machine (docs/decisions.md,
// "ExecutionReference", "Milestones", "The outcome chain"), in-process: creation from an accepted
// proposal, links, milestones, the outcome chain with its corrections, completion and
// cancellation. The invariants of the chain are checked after every step that changes it.
import { executionReference, referenceIdOf, type ExecutionOutcome, type ExecutionReference } from '../../../domain/execution-reference';
import { apply, command, connector, DAY, HOUR, later, next, NOW, operator, refusal, system } from './harness';

const R = executionReference;
const CARRIER = 'org-carrier';
const SHIPPER = 'org-shipper';
const OUTSIDER = 'org-outsider';
const PROPOSAL = { id: '01a1fd30-05ff-70e9-bbcd-a29491e72bb4', status: 'accepted', resourceVersion: 4, carrierOrganizationId: CARRIER, shipperOrganizationId: SHIPPER };
/** The reference is created a day before the harness's now; the movement's times lie between. */
const CREATED = later(-DAY);
const at = (minutes: number) => new Date(Date.parse(CREATED) + 6 * HOUR + minutes * 60_000).toISOString();

function created(): ExecutionReference {
  return next(R, undefined, command('create', system, { acceptedProposalId: PROPOSAL.id, acceptedProposalVersion: 4, participatingOrganizationIds: [CARRIER, SHIPPER] }, { context: { proposal: PROPOSAL } }), CREATED).state;
}

const outcome = (org: string, key: string, status: string, extra: Record<string, unknown> = {}) =>
  command('recordOutcome', connector(org), { deduplicationKey: key, status, schemaVersion: 'v0', ...(status === 'completed' ? { actualTimeRange: { start: at(0), end: at(600) } } : {}), ...extra });
const correction = (org: string, of: ExecutionOutcome, key: string, status: string, extra: Record<string, unknown> = {}) =>
  command('correctOutcome', connector(org), {
    outcomeId: of.id, observedOutcomeVersion: of.resourceVersion, deduplicationKey: key, status, schemaVersion: 'v0', correctionReason: 'fixed',
    ...(status === 'completed' ? { actualTimeRange: { start: at(0), end: at(620) } } : {}), ...extra,
  });
const milestone = (org: string, key: string, name: string, minutes: number, extra: Record<string, unknown> = {}) =>
  command('recordUpdate', connector(org), { deduplicationKey: key, milestone: name, occurredAt: at(minutes), ...extra });

/** Invariants 1-5: one head, every record but the head superseded by exactly one, no cycles, the reference names the head. */
function expectChain(r: ExecutionReference) {
  const heads = r.outcomes.filter((o) => o.supersededByOutcomeId === null);
  if (r.outcomes.length === 0) return expect(r.headOutcomeId).toBeUndefined();
  expect(heads.map((o) => o.id)).toEqual([r.headOutcomeId]);
  const byId = new Map(r.outcomes.map((o) => [o.id, o]));
  const seen = new Set<string>();
  for (let o: ExecutionOutcome | undefined = heads[0]; o; o = o.supersedes ? byId.get(o.supersedes) : undefined) {
    expect(seen.has(o.id)).toBe(false);
    seen.add(o.id);
    if (o.supersedes) expect(byId.get(o.supersedes)?.supersededByOutcomeId).toBe(o.id);
  }
  expect(seen.size).toBe(r.outcomes.length);
}

describe('create', () => {
  test('from an accepted proposal: created, owned by the carrier, one event to the participants; the id derives from the proposal', () => {
    const t = next(R, undefined, command('create', system, { acceptedProposalId: PROPOSAL.id, acceptedProposalVersion: 4, participatingOrganizationIds: [CARRIER, SHIPPER, CARRIER] }, { context: { proposal: PROPOSAL } }));
    expect(t.state).toMatchObject({ status: 'created', resourceVersion: 1, ownerOrganizationId: CARRIER, participatingOrganizationIds: [CARRIER, SHIPPER], createdBy: { kind: 'broker' }, updates: [], outcomes: [] });
    expect(t.events).toEqual([{ type: 'pcx.execution-reference.created.v1', audience: [CARRIER, SHIPPER] }]);
    expect(referenceIdOf(PROPOSAL.id)).toBe(referenceIdOf(PROPOSAL.id.toUpperCase().toLowerCase()));
    expect(referenceIdOf(PROPOSAL.id)).not.toBe(PROPOSAL.id);
    expect(referenceIdOf(PROPOSAL.id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('refusals: no or another proposal, not accepted, stale proposal version, a third organization, a participant missing', () => {
    const base = { acceptedProposalId: PROPOSAL.id, acceptedProposalVersion: 4, participatingOrganizationIds: [CARRIER, SHIPPER] };
    const create = (actor: any, payload: any, proposal: any = PROPOSAL) => refusal(R, undefined, command('create', actor, payload, { context: { proposal } }));
    expect(create(system, base, null)).toBe('RESOURCE_NOT_FOUND');
    expect(create(system, { ...base, acceptedProposalId: 'other' })).toBe('RESOURCE_NOT_FOUND');
    expect(create(system, base, { ...PROPOSAL, status: 'open' })).toBe('INVALID_STATE_TRANSITION');
    expect(create(system, { ...base, acceptedProposalVersion: 3 })).toBe('STALE_RESOURCE_VERSION');
    expect(create(connector(OUTSIDER), base)).toBe('ACTOR_NOT_PERMITTED');
    expect(create(connector(SHIPPER), { ...base, participatingOrganizationIds: [SHIPPER] })).toBe('VALIDATION_FAILED');
    expect(next(R, undefined, command('create', connector(SHIPPER), base, { context: { proposal: PROPOSAL } })).state.createdBy).toEqual({ kind: 'participant', organizationId: SHIPPER, clientId: `client-of-${SHIPPER}` });
  });
});

describe('attach and link', () => {
  test('attach is the broker\'s, adds the commitment and the handover once, and is silent', () => {
    const r = created();
    expect(refusal(R, r, command('attach', connector(CARRIER), { commitmentId: 'c-1' }))).toBe('ACTOR_NOT_PERMITTED');
    const one = next(R, r, command('attach', system, { commitmentId: 'c-1' }));
    expect(one.state).toMatchObject({ commitmentId: 'c-1', commitmentIds: ['c-1'], resourceVersion: 2 });
    expect(one.events).toEqual([]);
    expect(next(R, one.state, command('attach', system, { commitmentId: 'c-1' })).state).toBe(one.state);
    const two = next(R, one.state, command('attach', system, { commitmentId: 'c-2', handoverId: 'h-1' })).state;
    expect(two).toMatchObject({ commitmentId: 'c-2', commitmentIds: ['c-1', 'c-2'], handoverId: 'h-1' });
  });

  test('link: a participant adds references of each system once; needs a trip or order reference; linked', () => {
    const r = created();
    const trip = { system: 'alpine-tms', type: 'trip', value: 'T-1' };
    const t = next(R, r, command('link', connector(CARRIER), { externalTripRef: trip }));
    expect(t.state).toMatchObject({ status: 'linked', linkedAt: NOW, externalTripRefs: [trip] });
    expect(t.events.map((e) => e.type)).toEqual(['pcx.execution-reference.linked.v1']);
    // The same value from another system is another reference.
    const again = next(R, t.state, command('link', connector(SHIPPER), { externalTripRef: trip, externalOrderRef: { system: 'baltic-erp', type: 'order', value: 'T-1' } })).state;
    expect(again.externalTripRefs).toEqual([trip]);
    expect(next(R, again, command('link', connector(SHIPPER), { externalTripRef: { ...trip, system: 'baltic-erp' } })).state.externalTripRefs).toHaveLength(2);
    expect(refusal(R, r, command('link', connector(CARRIER), {}))).toBe('VALIDATION_FAILED');
    expect(refusal(R, r, command('link', connector(OUTSIDER), { externalTripRef: trip }))).toBe('ACTOR_NOT_PERMITTED');
    expect(refusal(R, r, command('link', operator, { externalTripRef: trip }))).toBe('ACTOR_NOT_PERMITTED');
  });
});

describe('milestones', () => {
  test('recorded with the submitter; a late older one is kept but the current milestone never moves back', () => {
    let r = created();
    r = next(R, r, milestone(CARRIER, 'm-2', 'pickedUp', 60)).state;
    expect(r.currentMilestone).toMatchObject({ milestone: 'pickedUp', occurredAt: at(60) });
    const late = next(R, r, milestone(SHIPPER, 'm-1', 'atPickup', 30));
    expect(late.events.map((e) => e.type)).toEqual(['pcx.execution.updated.v1']);
    expect(late.state.updates).toHaveLength(2);
    expect(late.state.currentMilestone).toEqual(r.currentMilestone);
    expect(late.state.updates[1]).toMatchObject({ milestone: 'atPickup', submittedBy: { organizationId: SHIPPER }, recordedAt: NOW, deduplicationKey: 'm-1' });
  });

  test('a repeated key with the same content changes nothing; with other content it is refused; outsiders and closed references refused', () => {
    const r = next(R, created(), milestone(CARRIER, 'm-1', 'pickedUp', 60, { position: { kind: 'unlocode', code: 'DEHAM' } })).state;
    const replay = next(R, r, milestone(SHIPPER, 'm-1', 'pickedUp', 60, { position: { code: 'DEHAM', kind: 'unlocode' } }));
    expect(replay.state).toBe(r);
    expect(replay.events).toEqual([]);
    expect(refusal(R, r, milestone(CARRIER, 'm-1', 'inTransit', 60))).toBe('IDEMPOTENCY_CONFLICT');
    expect(refusal(R, r, milestone(OUTSIDER, 'm-9', 'inTransit', 90))).toBe('ACTOR_NOT_PERMITTED');
    const cancelled = next(R, r, command('cancel', connector(SHIPPER), { reason: 'no longer needed' })).state;
    expect(refusal(R, cancelled, milestone(CARRIER, 'm-9', 'inTransit', 90))).toBe('INVALID_STATE_TRANSITION');
    // A replay is still answered after the end: the original stands.
    expect(next(R, cancelled, milestone(CARRIER, 'm-1', 'pickedUp', 60, { position: { kind: 'unlocode', code: 'DEHAM' } })).state).toBe(cancelled);
  });
});

describe('reported times against now and the movement (5 minutes of clock skew)', () => {
  const MIN = 60_000;
  const SKEW = 5 * MIN;
  const when = (ms: number) => later(ms);
  const refused = (state: ExecutionReference, cmd: ReturnType<typeof command>) => {
    const outcome = apply(R, state, cmd);
    if (outcome.ok) throw new Error(`${cmd.name} was accepted`);
    return outcome;
  };
  const milestoneAt = (key: string, occurredAt: string) => command('recordUpdate', connector(CARRIER), { deduplicationKey: key, milestone: 'pickedUp', occurredAt });

  test.each([
    ['5 minutes ahead of now (the skew)', when(SKEW), true],
    ['now', NOW, true],
    ['5 minutes before the reference was created', new Date(Date.parse(CREATED) - SKEW).toISOString(), true],
    ['5 minutes and 1 ms ahead of now', when(SKEW + 1), false],
    ['a day ahead (the fixtures\' old 2030 clock)', when(DAY), false],
    ['5 minutes and 1 ms before the reference was created', new Date(Date.parse(CREATED) - SKEW - 1).toISOString(), false],
    ['years before (a public example message\'s date)', '2008-03-05T10:00:00Z', false],
  ])('a milestone at %s: accepted %s', (_name, occurredAt, accepted) => {
    const r = created();
    const outcome = apply(R, r, milestoneAt('m-t', occurredAt));
    expect(outcome.ok).toBe(accepted);
    if (!outcome.ok) {
      expect(outcome).toMatchObject({ code: 'VALIDATION_FAILED', extensions: { errors: [{ pointer: '/occurredAt' }] } });
    }
  });

  test('the refusal names the field, the broker\'s now and the bound; nothing changes', () => {
    const r = created();
    const ahead = refused(r, milestoneAt('m-f', when(HOUR)));
    expect(ahead.detail).toBe(`occurredAt ${when(HOUR)} is in the future: the broker's now is ${NOW}, and a reported time may be at most 5 minutes ahead of it (${when(SKEW)}).`);
    expect(ahead.extensions).toEqual({ errors: [{ pointer: '/occurredAt', message: `is more than 5 minutes after the broker's now (${NOW}): at the latest ${when(SKEW)}` }] });
    const before = refused(r, milestoneAt('m-b', '2008-03-05T10:00:00Z'));
    const earliest = new Date(Date.parse(CREATED) - SKEW).toISOString();
    expect(before.detail).toBe(`occurredAt 2008-03-05T10:00:00Z is before the movement: the execution reference was created at ${CREATED} (the broker's now is ${NOW}), and a reported time may be at most 5 minutes before that (${earliest}).`);
    expect(before.extensions).toEqual({ errors: [{ pointer: '/occurredAt', message: `is before the execution reference was created (${CREATED}): at the earliest ${earliest}` }] });
    // The refusal comes from the pure machine: the state given is untouched, and the key stays free.
    expect(r.updates).toEqual([]);
    expect(next(R, r, milestoneAt('m-f', at(60))).state.updates).toHaveLength(1);
  });

  test('a replay of a milestone recorded in time is still the original, whatever the hour; estimatedTimes may lie ahead', () => {
    const r = next(R, created(), milestoneAt('m-1', NOW)).state;
    expect(next(R, r, milestoneAt('m-1', NOW), later(2 * DAY)).state).toBe(r);
    expect(next(R, r, command('recordUpdate', connector(CARRIER), { deduplicationKey: 'm-2', milestone: 'delayed', occurredAt: NOW, estimatedTimes: { deliveryAt: when(DAY) } })).state.updates).toHaveLength(2);
  });

  test('outcomes and corrections: actualTimeRange, confirmations and deviations are facts; plannedTimeRange is a plan', () => {
    const r = created();
    const future = refused(r, outcome(CARRIER, 'o-1', 'completed', { actualTimeRange: { start: at(0), end: when(HOUR) } }));
    expect(future).toMatchObject({ code: 'VALIDATION_FAILED', extensions: { errors: [{ pointer: '/actualTimeRange/end' }] } });
    expect(future.detail).toContain(`actualTimeRange/end ${when(HOUR)} is in the future: the broker's now is ${NOW}`);
    const early = refused(r, outcome(CARRIER, 'o-1', 'inProgress', { actualTimeRange: { start: '2019-12-31T23:00:00Z' } }));
    expect(early).toMatchObject({ code: 'VALIDATION_FAILED', extensions: { errors: [{ pointer: '/actualTimeRange/start' }] } });
    const both = refused(r, outcome(CARRIER, 'o-1', 'disputed', { participantConfirmations: [{ organizationId: SHIPPER, confirmed: false, at: when(DAY) }], operationalDeviations: [{ code: 'LATE', at: '2019-12-31T23:00:00Z' }] }));
    expect((both.extensions as any).errors.map((e: any) => e.pointer)).toEqual(['/participantConfirmations/0/at', '/operationalDeviations/0/at']);
    // A plan may lie ahead (or anywhere): not checked.
    const planned = next(R, r, outcome(CARRIER, 'o-1', 'inProgress', { plannedTimeRange: { start: when(DAY), end: when(2 * DAY) } })).state;
    expect(planned.outcomes).toHaveLength(1);
    // A correction is held to the same rule; its refusal leaves the head as it was.
    const refusedCorrection = refused(planned, correction(SHIPPER, planned.outcomes[0], 'c-1', 'completed', { actualTimeRange: { start: at(0), end: when(SKEW + 1) } }));
    expect(refusedCorrection).toMatchObject({ code: 'VALIDATION_FAILED', extensions: { errors: [{ pointer: '/actualTimeRange/end' }] } });
    expect(next(R, planned, correction(SHIPPER, planned.outcomes[0], 'c-1', 'completed', { actualTimeRange: { start: at(0), end: when(SKEW) } })).state.status).toBe('completed');
  });
});

describe('the outcome chain', () => {
  test('the first report links the reference; a later report follows the head; a replay is the original; another payload under a key is refused', () => {
    const r = created();
    const first = next(R, r, outcome(CARRIER, 'o-1', 'inProgress'));
    expect(first.state).toMatchObject({ status: 'linked', headOutcomeId: first.state.outcomes[0].id, lastOutcomeChange: { kind: 'recorded', outcomeId: first.state.outcomes[0].id } });
    expect(first.events.map((e) => e.type)).toEqual(['pcx.execution-reference.linked.v1', 'pcx.execution-outcome.recorded.v1']);
    // Two subjects: the reference (at its new version) and the new record (at its own version 1).
    const [outcomeId] = first.state.outcomes.map((o) => o.id);
    expect(first.events.map((e) => e.record?.subject)).toEqual([undefined, `execution-outcomes/${outcomeId}`]);
    expect(first.events[1].record).toMatchObject({ version: 1, schema: 'execution-reference#/$defs/ExecutionOutcome', data: { id: outcomeId, status: 'inProgress' } });
    expect((first.events[1].record!.data as any).commandId).toBeUndefined();
    expect(first.state.outcomes[0]).toMatchObject({ resourceVersion: 1, supersedes: null, supersededByOutcomeId: null, submittedBy: { organizationId: CARRIER } });
    expectChain(first.state);
    expect(next(R, first.state, outcome(CARRIER, 'o-1', 'inProgress')).state).toBe(first.state);
    expect(refusal(R, first.state, outcome(CARRIER, 'o-1', 'disputed'))).toBe('IDEMPOTENCY_CONFLICT');
    const second = next(R, first.state, outcome(SHIPPER, 'o-2', 'disputed', { operationalDeviations: [{ code: 'DAMAGED_GOODS' }] }));
    const [old, head] = second.state.outcomes;
    expect(head).toMatchObject({ supersedes: old.id, supersededByOutcomeId: null });
    expect(old).toMatchObject({ supersededByOutcomeId: head.id, resourceVersion: 2 });
    expect(second.state.lastOutcomeChange).toEqual({ kind: 'recorded', outcomeId: head.id, supersededOutcomeId: old.id });
    expect(second.events.map((e) => e.type)).toEqual(['pcx.execution-outcome.recorded.v1']);
    expectChain(second.state);
  });

  test('validation: completed needs both ends of actualTimeRange; no range ends before it starts', () => {
    const r = created();
    expect(refusal(R, r, outcome(CARRIER, 'o-1', 'completed', { actualTimeRange: { start: at(0) } }))).toBe('VALIDATION_FAILED');
    expect(refusal(R, r, outcome(CARRIER, 'o-1', 'inProgress', { plannedTimeRange: { start: at(10), end: at(0) } }))).toBe('VALIDATION_FAILED');
    expect(refusal(R, r, outcome(OUTSIDER, 'o-1', 'inProgress'))).toBe('ACTOR_NOT_PERMITTED');
  });

  test('a correction: version first, then the head, then its key; a reason is required', () => {
    let r = next(R, created(), outcome(CARRIER, 'o-1', 'inProgress')).state;
    r = next(R, r, outcome(SHIPPER, 'o-2', 'disputed')).state;
    const [old, head] = r.outcomes;
    expect(refusal(R, r, correction(CARRIER, { ...head, resourceVersion: 7 }, 'c-1', 'inProgress'))).toBe('STALE_RESOURCE_VERSION');
    expect(refusal(R, r, correction(CARRIER, old, 'c-1', 'inProgress'))).toBe('IDEMPOTENCY_CONFLICT');
    expect(refusal(R, r, correction(CARRIER, head, 'o-1', 'inProgress'))).toBe('IDEMPOTENCY_CONFLICT');
    expect(refusal(R, r, correction(CARRIER, { ...head, id: 'nope' }, 'c-1', 'inProgress'))).toBe('RESOURCE_NOT_FOUND');
    expect(refusal(R, r, correction(CARRIER, head, 'c-1', 'inProgress', { correctionReason: ' ' }))).toBe('VALIDATION_FAILED');
    const fixed = next(R, r, correction(SHIPPER, head, 'c-1', 'inProgress', { correctionReasonCode: 'DISPUTE_RESOLVED' }));
    const record = fixed.state.outcomes[2];
    expect(record).toMatchObject({ supersedes: head.id, observedOutcomeVersion: 1, correctionReasonCode: 'DISPUTE_RESOLVED', supersededByOutcomeId: null });
    expect(fixed.state.lastOutcomeChange).toEqual({ kind: 'corrected', outcomeId: record.id, supersededOutcomeId: head.id });
    expect(fixed.events.map((e) => e.type)).toEqual(['pcx.execution-outcome.corrected.v1']);
    expectChain(fixed.state);
    // Two corrections of one head: the second sees the head's new version and is stale.
    expect(refusal(R, fixed.state, correction(CARRIER, head, 'c-2', 'inProgress'))).toBe('STALE_RESOURCE_VERSION');
    // Its replay is the original.
    expect(next(R, fixed.state, correction(SHIPPER, head, 'c-1', 'inProgress', { correctionReasonCode: 'DISPUTE_RESOLVED' })).state).toBe(fixed.state);
  });

  test('the first final head completes the reference; then nothing more, not even a correction or a cancel', () => {
    let r = next(R, created(), outcome(CARRIER, 'o-1', 'inProgress')).state;
    const done = next(R, r, correction(CARRIER, r.outcomes[0], 'c-1', 'completed'));
    expect(done.state).toMatchObject({ status: 'completed', completedAt: NOW, actualTimeRange: { start: at(0), end: at(620) } });
    expect(done.events.map((e) => e.type)).toEqual(['pcx.execution-outcome.corrected.v1', 'pcx.execution.completed.v1']);
    expect(done.events[0].record).toMatchObject({ subject: `execution-outcomes/${done.state.outcomes[1].id}`, data: { supersedes: r.outcomes[0].id } });
    // A first outcome that completes a created reference: one event about the reference (completed), not linked as well.
    const direct = next(R, created(), outcome(CARRIER, 'o-9', 'completed', { actualTimeRange: { start: at(0), end: at(60) } }));
    expect(direct.state).toMatchObject({ status: 'completed', linkedAt: NOW });
    expect(direct.events.map((e) => [e.type, e.record?.subject.split('/')[0]])).toEqual([['pcx.execution-outcome.recorded.v1', 'execution-outcomes'], ['pcx.execution.completed.v1', undefined]]);
    r = done.state;
    const head = r.outcomes[1];
    expect(refusal(R, r, outcome(CARRIER, 'o-2', 'inProgress'))).toBe('INVALID_STATE_TRANSITION');
    expect(refusal(R, r, correction(CARRIER, head, 'c-2', 'cancelled'))).toBe('INVALID_STATE_TRANSITION');
    expect(refusal(R, r, command('cancel', connector(SHIPPER), { reason: 'late' }))).toBe('INVALID_STATE_TRANSITION');
    expect(refusal(R, r, command('link', connector(SHIPPER), { externalTripRef: { system: 's', type: 't', value: 'v' } }))).toBe('INVALID_STATE_TRANSITION');
    expect(refusal(R, r, command('complete', connector(SHIPPER)))).toBe('INVALID_STATE_TRANSITION');
    // A cancelled report completes it too (the execution ended), and is the head.
    const cancelled = next(R, next(R, created(), outcome(CARRIER, 'o-1', 'inProgress')).state, outcome(SHIPPER, 'o-2', 'cancelled'));
    expect(cancelled.state.status).toBe('completed');
    expectChain(cancelled.state);
  });
});

describe('complete and cancel', () => {
  test('complete needs a linked reference with a final head (the outcome path completes first, so by hand it is refused)', () => {
    const r = created();
    expect(refusal(R, r, command('complete', connector(CARRIER)))).toBe('INVALID_STATE_TRANSITION');
    const linked = next(R, r, outcome(CARRIER, 'o-1', 'inProgress')).state;
    expect(refusal(R, linked, command('complete', connector(CARRIER)))).toBe('INVALID_STATE_TRANSITION');
    expect(refusal(R, linked, command('complete', connector(OUTSIDER)))).toBe('ACTOR_NOT_PERMITTED');
  });

  test('cancel needs a reason, records who and why, tells every participant, and is terminal', () => {
    const r = created();
    expect(refusal(R, r, command('cancel', connector(SHIPPER), {}))).toBe('VALIDATION_FAILED');
    expect(refusal(R, r, command('cancel', connector(OUTSIDER), { reason: 'x' }))).toBe('ACTOR_NOT_PERMITTED');
    const t = next(R, r, command('cancel', connector(SHIPPER), { reason: 'order withdrawn', reasonCode: 'CUSTOMER' }));
    expect(t.state).toMatchObject({ status: 'cancelled', cancelledAt: NOW, cancellation: { reason: 'order withdrawn', reasonCode: 'CUSTOMER', organizationId: SHIPPER, at: NOW } });
    expect(t.events).toEqual([{ type: 'pcx.execution-reference.cancelled.v1', audience: [CARRIER, SHIPPER] }]);
    expect(refusal(R, t.state, command('cancel', connector(CARRIER), { reason: 'again' }))).toBe('INVALID_STATE_TRANSITION');
    expect(refusal(R, t.state, outcome(CARRIER, 'o-1', 'inProgress'))).toBe('INVALID_STATE_TRANSITION');
  });

  test('the document leaves the timeline and the chain to their own tables; participants see every field; operators too', () => {
    const r = next(R, created(), outcome(CARRIER, 'o-1', 'inProgress')).state;
    const doc = R.document!(r) as Record<string, unknown>;
    expect(doc).not.toHaveProperty('updates');
    expect(doc).not.toHaveProperty('outcomes');
    expect(doc).toMatchObject({ id: r.id, headOutcomeId: r.headOutcomeId });
    expect(R.operatorSees).toEqual(['shared']);
    expect(R.participants!(r)).toEqual([CARRIER, SHIPPER]);
  });
});
