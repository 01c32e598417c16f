// Every transition row and refusal of the MatchProposal machine (docs/decisions.md, "MatchProposal
// transitions"), in-process: both decision policies, the acceptance commit, expiry, withdrawal
// and supersession, and what each transition starts on the offer and the request.
import { FLOW_DEADLINE_MS, FLOW_TIMEOUT_MS } from '../../../domain/flows';
import { acceptance, matchProposal, type MatchProposal } from '../../../domain/match-proposal';
import { apply, command, connector, HOUR, later, next, NOW, refusal, system } from './harness';

const R = matchProposal;
const CARRIER = 'org-carrier';
const SHIPPER = 'org-shipper';

function created(mode: 'BILATERAL_REQUIRED' | 'INITIATOR_ONLY' = 'BILATERAL_REQUIRED', decidingRoles?: string[]): MatchProposal {
  return next(R, undefined, command('create', system, {
    capacityOfferId: 'offer-1', capacityOfferVersion: 2, offerOwnerOrganizationId: CARRIER,
    loadRequestId: 'request-1', loadRequestVersion: 2, requestOwnerOrganizationId: SHIPPER,
    validUntil: later(HOUR), score: 0.8, compatibility: [], routeCompatibility: {}, capacityCompatibility: {},
    rationale: { reasonCodes: [], summary: 'ok' }, createdBy: { kind: 'broker' },
    requiredDecisionPolicy: { mode, initiatorOrganizationId: CARRIER, acceptorOrganizationId: SHIPPER, relationshipId: 'rel', relationshipVersion: 3, ...(decidingRoles ? { decidingRoles } : {}) },
  })).state;
}

const decide = (org: string, decision: string, extra: Record<string, unknown> = {}, context: Record<string, unknown> = {}) => command('decide', connector(org), { decision, ...extra }, { context });
const release = (p: MatchProposal, releaseRequest = true) => [{ flow: 'releaseProposalFlow', input: { proposalId: p.id, offerId: 'offer-1', requestId: 'request-1', releaseRequest } }];

test('create: by the broker only; open, PENDING_INITIATOR_ACCEPT, owned by the initiator; event to both', () => {
  const t = next(R, undefined, command('create', system, { ...created(), id: undefined }));
  expect(t.state).toMatchObject({ status: 'open', decisionState: 'PENDING_INITIATOR_ACCEPT', ownerOrganizationId: CARRIER, resourceVersion: 1, decisions: [], schemaVersion: 'v0' });
  expect(t.events).toEqual([{ type: 'pcx.match-proposal.created.v1', audience: [CARRIER, SHIPPER] }]);
  expect(refusal(R, undefined, command('create', connector(CARRIER), created()))).toBe('ACTOR_NOT_PERMITTED');
  expect(R.machine.deadline(t.state)).toEqual({ at: later(HOUR), command: 'expire' });
});

describe('BILATERAL_REQUIRED', () => {
  test('either order: the first accept waits, the second distinct organization commits; a repeat does not advance', () => {
    for (const [first, second] of [[CARRIER, SHIPPER], [SHIPPER, CARRIER]]) {
      const one = next(R, created(), decide(first, 'accept', { comment: 'c' }));
      expect(one.state).toMatchObject({ status: 'open', decisionState: first === CARRIER ? 'PENDING_ACCEPTOR_ACCEPT' : 'PENDING_INITIATOR_ACCEPT', resourceVersion: 2 });
      expect(one.state.decisions).toEqual([expect.objectContaining({ organizationId: first, decision: 'accept', comment: 'c', decidedAt: NOW })]);
      expect(one.events.map((e) => e.type)).toEqual(['pcx.match-decision.recorded.v1']);
      // The decision is its own subject, at version 1, with the record as its data.
      const decision = one.state.decisions[0];
      expect(one.events[0].record).toEqual({ subject: `match-proposals/${one.state.id}/decisions/${decision.id}`, version: 1, schema: 'match-proposal#/$defs/MatchDecision', data: decision });
      expect(one.effects).toEqual([]);
      const repeat = next(R, one.state, decide(first, 'accept'));
      expect(repeat).toEqual({ state: one.state, events: [] });
      const two = next(R, one.state, decide(second, 'accept'));
      expect(two.state.decisionState).toBe('COMMITTING');
      expect(two.effects).toEqual([{ flow: 'acceptProposalFlow', input: { proposalId: two.state.id, offerId: 'offer-1', requestId: 'request-1', requestOwnerOrganizationId: SHIPPER, offerOwnerOrganizationId: CARRIER }, timeoutMs: FLOW_TIMEOUT_MS }]);
      // An acceptance in time is not overtaken by expiry; only by its own commit deadline.
      expect(R.machine.deadline(two.state)).toEqual({ at: new Date(Date.parse(NOW) + FLOW_DEADLINE_MS).toISOString(), command: 'abandonCommit' });
    }
  });
});

describe('INITIATOR_ONLY', () => {
  test('the acceptor\u2019s accept is recorded and waits; the initiator\u2019s alone commits', () => {
    const byAcceptor = next(R, created('INITIATOR_ONLY'), decide(SHIPPER, 'accept')).state;
    expect(byAcceptor.decisionState).toBe('PENDING_INITIATOR_ACCEPT');
    expect(next(R, created('INITIATOR_ONLY'), decide(CARRIER, 'accept')).state.decisionState).toBe('COMMITTING');
    expect(acceptance({ decisions: [], requiredDecisionPolicy: created('INITIATOR_ONLY').requiredDecisionPolicy }).satisfied).toBe(false);
  });
});

describe('the acceptance commit', () => {
  const committing = () => next(R, next(R, created(), decide(SHIPPER, 'accept')).state, decide(CARRIER, 'accept')).state;

  test('commit -> accepted, COMMITTED, event accepted; a decision meanwhile is DECISION_IN_PROGRESS', () => {
    expect(refusal(R, committing(), decide(SHIPPER, 'reject'))).toBe('DECISION_IN_PROGRESS');
    expect(refusal(R, committing(), command('withdrawByBroker', system, { reason: 'x' }))).toBe('DECISION_IN_PROGRESS');
    const t = next(R, committing(), command('commit', system));
    expect(t.state).toMatchObject({ status: 'accepted', decisionState: 'COMMITTED', acceptedAt: NOW });
    expect(t.events.map((e) => e.type)).toEqual(['pcx.match-proposal.accepted.v1']);
    expect(refusal(R, created(), command('commit', system))).toBe('INVALID_STATE_TRANSITION');
    expect(refusal(R, committing(), command('commit', connector(CARRIER)))).toBe('ACTOR_NOT_PERMITTED');
  });

  test('the commit deadline: past the acceptance flow\u2019s whole life, the proposal abandons itself (COMMIT_TIMEOUT) and releases what it held', () => {
    const deadline = R.machine.deadline(committing())!;
    expect(Date.parse(deadline.at) - Date.parse(NOW)).toBeGreaterThan(FLOW_TIMEOUT_MS);
    const t = next(R, committing(), command(deadline.command, system, {}), deadline.at);
    expect(t.state).toMatchObject({ status: 'withdrawn', decisionState: 'CANCELLED', endReason: { reason: 'the acceptance was not committed in time', code: 'COMMIT_TIMEOUT' } });
    expect(t.effects).toEqual(release(t.state));
  });

  test('abandonCommit -> withdrawn, CANCELLED, with the reason; releases the offer and the request', () => {
    const t = next(R, committing(), command('abandonCommit', system, { reason: 'the load request was withdrawn', code: 'INVALID_STATE_TRANSITION' }));
    expect(t.state).toMatchObject({ status: 'withdrawn', decisionState: 'CANCELLED', endReason: { reason: 'the load request was withdrawn', code: 'INVALID_STATE_TRANSITION' } });
    expect(t.effects).toEqual(release(t.state));
  });
});

describe('ending without acceptance', () => {
  test.each<[string, (p: MatchProposal) => ReturnType<typeof command>, Partial<MatchProposal>, string, boolean]>([
    ['reject by either organization', () => decide(SHIPPER, 'reject', { reasonCode: 'NO' }), { status: 'rejected', decisionState: 'REJECTED', rejectedAt: NOW }, 'rejected', true],
    ['withdraw by either organization', () => decide(CARRIER, 'withdraw'), { status: 'withdrawn', decisionState: 'CANCELLED', withdrawnAt: NOW }, 'withdrawn', true],
    ['a listing ended', () => command('withdrawByBroker', system, { reason: 'the capacity offer ended' }), { status: 'withdrawn', decisionState: 'CANCELLED', endReason: { reason: 'the capacity offer ended' } }, 'withdrawn', true],
    ['another proposal was accepted', () => command('supersede', system, { reason: 'r', byProposalId: 'p9' }), { status: 'superseded', decisionState: 'CANCELLED', supersededByProposalId: 'p9' }, 'superseded', false],
  ])('%s', (_name, cmd, expected, event, releaseRequest) => {
    const p = created();
    const t = next(R, p, cmd(p));
    expect(t.state).toMatchObject(expected);
    expect(t.events.map((e) => e.type).pop()).toBe(`pcx.match-proposal.${event}.v1`);
    expect(t.effects).toEqual(release(t.state, releaseRequest));
    expect(R.terminalStatuses).toContain(t.state.status);
  });

  test('expire at validUntil only; after it a decision is RESOURCE_EXPIRED', () => {
    expect(refusal(R, created(), command('expire', system))).toBe('INVALID_STATE_TRANSITION');
    const t = next(R, created(), command('expire', system), later(HOUR));
    expect(t.state).toMatchObject({ status: 'expired', decisionState: 'EXPIRED', expiredAt: later(HOUR) });
    expect(refusal(R, created(), decide(CARRIER, 'accept'), later(HOUR))).toBe('RESOURCE_EXPIRED');
  });

  test('an action on a terminal decision is DECISION_TERMINAL with currentState', () => {
    const rejected = next(R, created(), decide(SHIPPER, 'reject')).state;
    const outcome = apply(R, rejected, decide(CARRIER, 'accept'));
    expect(outcome).toMatchObject({ ok: false, code: 'DECISION_TERMINAL', extensions: { currentState: 'REJECTED' } });
    expect(R.machine.ended!(rejected)).toMatchObject({ code: 'DECISION_TERMINAL', extensions: { currentState: 'REJECTED' } });
    expect(R.machine.deadline(rejected)).toBeUndefined();
  });
});

test('gate 10: only the two organizations, and only the roles the policy names', () => {
  expect(refusal(R, created(), decide('org-third', 'accept'))).toBe('ACTOR_NOT_PERMITTED');
  const roles = created('BILATERAL_REQUIRED', ['planner']);
  expect(refusal(R, roles, decide(CARRIER, 'accept', {}, { actorRoles: ['sales'] }))).toBe('ACTOR_NOT_PERMITTED');
  expect(next(R, roles, decide(CARRIER, 'accept', {}, { actorRoles: ['planner'] })).state.decisions[0].decidedBy).toMatchObject({ organizationId: CARRIER, actorRoles: ['planner'] });
});

test('no relationship in force: an accept is RELATIONSHIP_INACTIVE; a reject still ends the proposal; recorded commands without the fact count as in force', () => {
  expect(refusal(R, created(), decide(SHIPPER, 'accept', {}, { relationshipInForce: false }))).toBe('RELATIONSHIP_INACTIVE');
  expect(next(R, created(), decide(CARRIER, 'reject', {}, { relationshipInForce: false })).state).toMatchObject({ status: 'rejected' });
  expect(next(R, created(), decide(SHIPPER, 'accept')).state.decisions).toHaveLength(1);
});

test('the definition: both organizations are participants; every field is shared with them alone', () => {
  expect(R.participants!(created())).toEqual([CARRIER, SHIPPER]);
  for (const field of Object.keys({ ...created(), acceptedAt: NOW, rejectedAt: NOW, expiredAt: NOW, withdrawnAt: NOW, supersededAt: NOW, supersededByProposalId: 'x', endReason: {} })) {
    expect([field, R.fields[field]]).toEqual([field, 'shared']);
  }
});
