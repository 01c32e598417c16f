// Every transition row and refusal of the PartnerRelationship machine (specification, States and
// transitions, PartnerRelationship, rules 1-7), in-process.
import { partnerRelationship, type PartnerRelationship } from '../../../domain/partner-relationship';
import { apply, command, connector, DAY, later, next, NOW, refusal, system } from './harness';

const R = partnerRelationship;
const A = 'org-a';
const B = 'org-b';
const C = 'org-c';
const ALL = ['capacity:read', 'loads:read', 'capacity:publish'];
const context = { requestingGrantedScopes: ALL, acceptingGrantedScopes: ['capacity:read', 'loads:read'], acceptingOrganizationKnown: true };
const body = (extra: Record<string, unknown> = {}) => ({ requestingOrganizationId: A, acceptingOrganizationId: B, scopes: ['capacity:read', 'capacity:publish'], ...extra });

function inStatus(status: PartnerRelationship['status'], extra: Record<string, unknown> = {}): PartnerRelationship {
  let s = next(R, undefined, command('create', connector(A), body(extra), { context })).state;
  if (status === 'draft') return s;
  s = next(R, s, command('request', connector(A), {}, { context })).state;
  if (status === 'requested') return s;
  s = next(R, s, command('accept', connector(B), {}, { context })).state;
  if (status === 'active') return s;
  s = next(R, s, command('suspend', connector(B), { reason: 'audit' }, { context })).state;
  if (status === 'suspended') return s;
  return next(R, s, command('terminate', connector(A), { reason: 'over' }, { context })).state;
}

describe('create', () => {
  test('a draft of version 1 owned by the requester, BILATERAL_REQUIRED by default, no event', () => {
    const t = next(R, undefined, command('create', connector(A), body(), { context }));
    expect(t.state).toMatchObject({ status: 'draft', resourceVersion: 1, ownerOrganizationId: A, requestedScopes: ['capacity:publish', 'capacity:read'], scopes: [], decisionPolicy: { mode: 'BILATERAL_REQUIRED' } });
    expect(t.events).toEqual([]);
  });

  test.each([
    ['another organization in the payload (rule 16)', connector(C), body(), context, 'ORGANIZATION_BINDING_VIOLATION'],
    ['an unknown counterpart', connector(A), body(), { ...context, acceptingOrganizationKnown: false }, 'UNKNOWN_ORGANIZATION'],
    ['a partnership with itself', connector(A), body({ acceptingOrganizationId: A }), context, 'VALIDATION_FAILED'],
    ['effectiveFrom after effectiveUntil', connector(A), body({ effectiveFrom: later(2 * DAY), effectiveUntil: later(DAY) }), context, 'VALIDATION_FAILED'],
    ['a scope the requester does not grant', connector(A), body({ scopes: ['tenders:read'] }), context, 'SCOPES_NOT_GRANTED'],
  ])('refuses %s', (_name, actor, payload, ctx, code) => {
    expect(refusal(R, undefined, command('create', actor, payload, { context: ctx }))).toBe(code);
  });
});

describe('transition rows', () => {
  test('draft -> request by the requester -> requested, submittedAt, event to both', () => {
    const t = next(R, inStatus('draft'), command('request', connector(A), {}, { context }));
    expect(t.state).toMatchObject({ status: 'requested', resourceVersion: 2, submittedAt: NOW });
    expect(t.events).toEqual([{ type: 'pcx.partner-relationship.requested.v1', audience: [A, B] }]);
  });

  test('requested -> accept by the accepter -> active with the scopes both policies grant (rule 4)', () => {
    const t = next(R, inStatus('requested'), command('accept', connector(B), {}, { context }));
    expect(t.state).toMatchObject({ status: 'active', scopes: ['capacity:read'], activatedAt: NOW, effectiveFrom: NOW });
    expect(t.events.map((e) => e.type)).toEqual(['pcx.partner-relationship.activated.v1']);
  });

  test('an effectiveFrom set in advance is kept on accept; matching for both organizations waits for it', () => {
    const t = next(R, inStatus('requested', { effectiveFrom: later(DAY) }), command('accept', connector(B), {}, { context }));
    expect(t.state.effectiveFrom).toBe(later(DAY));
    expect(t.effects).toEqual([{ flow: 'matchRelationshipFlow', input: { organizationIds: [A, B], notBefore: later(DAY) } }]);
    // In force at once: matching runs at once.
    expect(next(R, inStatus('requested'), command('accept', connector(B), {}, { context })).effects).toEqual([{ flow: 'matchRelationshipFlow', input: { organizationIds: [A, B] } }]);
  });

  test('requested -> reject by the accepter -> terminated (rejected), the reason optional', () => {
    const silent = next(R, inStatus('requested'), command('reject', connector(B), {}, { context }));
    expect(silent.state).toMatchObject({ status: 'terminated', terminationCause: 'rejected', terminatedAt: NOW, reasons: [] });
    const said = next(R, inStatus('requested'), command('reject', connector(B), { reason: 'no', reasonCode: 'NO_NEED' }, { context }));
    expect(said.state.reasons).toEqual([{ kind: 'rejection', reason: 'no', reasonCode: 'NO_NEED', organizationId: B, at: NOW }]);
    expect(said.events).toEqual([{ type: 'pcx.partner-relationship.terminated.v1', audience: [A, B] }]);
  });

  test('draft or requested -> withdraw by the requester -> terminated (withdrawn); a withdrawn draft tells only the requester (rule 7)', () => {
    const fromDraft = next(R, inStatus('draft'), command('withdraw', connector(A), { reason: 'oops' }, { context }));
    expect(fromDraft.state).toMatchObject({ status: 'terminated', terminationCause: 'withdrawn' });
    expect(fromDraft.events[0].audience).toEqual([A]);
    const fromRequested = next(R, inStatus('requested'), command('withdraw', connector(A), { reason: 'oops' }, { context }));
    expect(fromRequested.events[0].audience).toEqual([A, B]);
  });

  test('active -> suspend by either -> suspended, suspender recorded', () => {
    for (const org of [A, B]) {
      const t = next(R, inStatus('active'), command('suspend', connector(org), { reason: 'check' }, { context }));
      expect(t.state).toMatchObject({ status: 'suspended', suspendedAt: NOW, suspendedByOrganizationId: org });
      expect(t.events.map((e) => e.type)).toEqual(['pcx.partner-relationship.suspended.v1']);
    }
  });

  test('suspended -> reactivate only by the suspender -> active', () => {
    const suspended = inStatus('suspended'); // suspended by B
    expect(refusal(R, suspended, command('reactivate', connector(A), {}, { context }))).toBe('ACTOR_NOT_PERMITTED');
    const t = next(R, suspended, command('reactivate', connector(B), {}, { context }));
    expect(t.state).toMatchObject({ status: 'active', reactivatedAt: NOW });
    expect(t.state.suspendedByOrganizationId).toBeUndefined();
  });

  test('active or suspended -> terminate by either -> terminated (terminated)', () => {
    for (const status of ['active', 'suspended'] as const) {
      for (const org of [A, B]) {
        const t = next(R, inStatus(status), command('terminate', connector(org), { reason: 'end' }, { context }));
        expect(t.state).toMatchObject({ status: 'terminated', terminationCause: 'terminated' });
      }
    }
  });

  test('the effectiveUntil deadline terminates any non-terminated relationship (rule 5)', () => {
    for (const status of ['draft', 'requested', 'active', 'suspended'] as const) {
      const s = inStatus(status, { effectiveUntil: later(DAY) });
      expect(R.machine.deadline(s)).toEqual({ at: later(DAY), command: 'expire' });
      expect(refusal(R, s, command('expire', system))).toBe('INVALID_STATE_TRANSITION'); // not yet
      const t = next(R, s, command('expire', system), later(DAY));
      expect(t.state).toMatchObject({ status: 'terminated', terminationCause: 'expired' });
    }
    expect(R.machine.deadline(inStatus('terminated', { effectiveUntil: later(DAY) }))).toBeUndefined();
    expect(refusal(R, inStatus('active', { effectiveUntil: later(DAY) }), command('expire', connector(A)))).toBe('ACTOR_NOT_PERMITTED');
  });

  test('leaving active (suspend, terminate, expire) ends the relationship’s open proposals; nothing else does', () => {
    const ending = (reason: string, at = NOW) => [{ flow: 'endRelationshipProposalsFlow', input: { relationshipId: expect.any(String), at, reason } }];
    expect(next(R, inStatus('active'), command('suspend', connector(A), { reason: 'audit' }, { context })).effects).toEqual(ending('the partner relationship was suspended'));
    expect(next(R, inStatus('active'), command('terminate', connector(A), { reason: 'over' }, { context })).effects).toEqual(ending('the partner relationship ended (terminated)'));
    expect(next(R, inStatus('active', { effectiveUntil: later(DAY) }), command('expire', system), later(DAY)).effects).toEqual(ending('the partner relationship ended (expired)', later(DAY)));
    // A suspended relationship's proposals ended at its suspension; a requested one had none.
    expect(next(R, inStatus('suspended'), command('terminate', connector(A), { reason: 'over' }, { context })).effects ?? []).toEqual([]);
    expect(next(R, inStatus('requested'), command('withdraw', connector(A), { reason: 'no' }, { context })).effects ?? []).toEqual([]);
  });

  test('draft data may be patched by the requester; a decision-policy change of an active relationship is 422 INCOMPATIBLE_DECISION_POLICY', () => {
    const t = next(R, inStatus('draft'), command('update', connector(A), { retentionPolicyRef: 'keep-7y', scopes: ['loads:read'] }, { context }));
    expect(t.state).toMatchObject({ resourceVersion: 2, retentionPolicyRef: 'keep-7y', requestedScopes: ['loads:read'] });
    expect(refusal(R, inStatus('draft'), command('update', connector(B), {}, { context }))).toBe('ACTOR_NOT_PERMITTED');
    expect(refusal(R, inStatus('active'), command('update', connector(A), { decisionPolicy: { mode: 'INITIATOR_ONLY' } }, { context }))).toBe('INCOMPATIBLE_DECISION_POLICY');
    expect(refusal(R, inStatus('active'), command('update', connector(A), { retentionPolicyRef: 'x' }, { context }))).toBe('INVALID_STATE_TRANSITION');
  });
});

describe('refusals', () => {
  test.each<[string, string, string]>([
    ['request', 'requested', A], ['request', 'active', A],
    ['accept', 'draft', B], ['accept', 'active', B], ['accept', 'suspended', B],
    ['reject', 'draft', B], ['reject', 'active', B],
    ['withdraw', 'active', A], ['withdraw', 'suspended', A],
    ['suspend', 'draft', A], ['suspend', 'requested', A], ['suspend', 'suspended', A],
    ['reactivate', 'active', B], ['reactivate', 'requested', B],
    ['terminate', 'draft', A], ['terminate', 'requested', A],
    // rule 6: a terminated relationship never moves again
    ...['request', 'withdraw', 'suspend', 'terminate'].map((name): [string, string, string] => [name, 'terminated', A]),
    ...['accept', 'reject', 'reactivate'].map((name): [string, string, string] => [name, 'terminated', B]),
  ])('%s in %s (by an organization allowed to in other states) is 422 invalid-state-transition', (name, status, org) => {
    const s = inStatus(status as PartnerRelationship['status']);
    const outcome = apply(R, s, command(name, connector(org), { reason: 'r' }, { context }));
    expect(outcome).toMatchObject({ ok: false, code: 'INVALID_STATE_TRANSITION', extensions: { currentState: status } });
  });

  test.each([
    ['request', 'draft', B], ['accept', 'requested', A], ['reject', 'requested', A], ['withdraw', 'requested', B],
    ['suspend', 'active', C], ['terminate', 'active', C],
  ])('%s in %s by the wrong organization is ACTOR_NOT_PERMITTED', (name, status, org) => {
    expect(refusal(R, inStatus(status as PartnerRelationship['status']), command(name, connector(org), { reason: 'r' }, { context }))).toBe('ACTOR_NOT_PERMITTED');
  });

  test.each(['withdraw', 'suspend', 'terminate'])('%s needs a reason', (name) => {
    const status = name === 'withdraw' ? 'requested' : 'active';
    expect(refusal(R, inStatus(status), command(name, connector(A), { reason: '  ' }, { context }))).toBe('VALIDATION_FAILED');
  });

  test('accept with no scope granted by both policies is SCOPES_NOT_GRANTED', () => {
    const ctx = { ...context, acceptingGrantedScopes: ['tenders:read'] };
    expect(refusal(R, inStatus('requested'), command('accept', connector(B), {}, { context: ctx }))).toBe('SCOPES_NOT_GRANTED');
  });

  test('request, accept and reactivate after effectiveUntil are RESOURCE_EXPIRED', () => {
    const until = { effectiveUntil: later(DAY) };
    const after = later(2 * DAY);
    expect(refusal(R, inStatus('draft', until), command('request', connector(A), {}, { context }), after)).toBe('RESOURCE_EXPIRED');
    expect(refusal(R, inStatus('requested', until), command('accept', connector(B), {}, { context }), after)).toBe('RESOURCE_EXPIRED');
    expect(refusal(R, inStatus('suspended', until), command('reactivate', connector(B), {}, { context }), after)).toBe('RESOURCE_EXPIRED');
  });
});

test('the definition: terminal statuses, participants, search attributes, every field classified', () => {
  const active = inStatus('active');
  expect(R.terminalStatuses).toEqual(['terminated']);
  expect(R.participants!(active)).toEqual([A, B]);
  expect(R.searchAttributes(active)).toEqual({ owner: A, partner: B, status: 'active' });
  const everything = { ...inStatus('terminated', { effectiveUntil: later(DAY), retentionPolicyRef: 'r', externalReferences: [], extensions: {} }) };
  for (const field of Object.keys(everything)) expect([field, R.fields[field]]).toEqual([field, 'shared']);
  expect(R.workflowId('x')).toBe('partner-relationship/x');
});
