// Every transition row and refusal of the TransportTender and TransportCommitment machines
// (docs/decisions.md, "TransportTender transitions", "TransportCommitment"), in-process.
import { FLOW_DEADLINE_MS, FLOW_TIMEOUT_MS } from '../../../domain/flows';
import { changesOf, policySatisfied, transportTender, type TransportTender } from '../../../domain/transport-tender';
import { cancellationAllowed, transportCommitment, type TransportCommitment } from '../../../domain/transport-commitment';
import { apply, command, connector, DAY, HOUR, later, next, NOW, refusal, system } from './harness';

const T = transportTender;
const C = transportCommitment;
const ISSUER = 'org-shipper';
const EXECUTOR = 'org-carrier';
const relationship = (mode: 'BILATERAL_REQUIRED' | 'INITIATOR_ONLY' = 'BILATERAL_REQUIRED') => ({ id: 'rel', resourceVersion: 4, decisionPolicy: { mode }, scopes: ['tenders:read', 'tenders:decide'] });
const terms = (amount = 900) => ({
  stops: [
    { sequence: 1, role: 'pickup' as const, area: { kind: 'unlocode', code: 'DEHAM' }, timeWindow: { start: later(DAY), end: later(DAY + 4 * HOUR) } },
    { sequence: 2, role: 'delivery' as const, area: { kind: 'unlocode', code: 'NLRTM' }, timeWindow: { start: later(DAY + 8 * HOUR), end: later(2 * DAY) } },
  ],
  commercialTerms: { amount, currency: 'EUR' },
});
const create = (extra: Record<string, unknown> = {}, context: Record<string, unknown> = { relationship: relationship() }) =>
  command('create', connector(ISSUER), { executingOrganizationId: EXECUTOR, movementScope: 'fullTransport', expiresAt: later(DAY), terms: terms(), ...extra }, { context });
const draft = (mode?: 'BILATERAL_REQUIRED' | 'INITIATOR_ONLY') => next(T, undefined, create({}, { relationship: relationship(mode) })).state;
const issued = (mode?: 'BILATERAL_REQUIRED' | 'INITIATOR_ONLY') => next(T, draft(mode), command('issue', connector(ISSUER))).state;
const decide = (org: string, decision: string, revision = 1, reason?: string) => command('decide', connector(org), { decision, revision, ...(reason ? { reason } : {}) });

describe('create and issue', () => {
  test('a draft of the issuer, no event; issue presents revision 1', () => {
    const t = next(T, undefined, create());
    expect(t.state).toMatchObject({ status: 'draft', issuingOrganizationId: ISSUER, executingOrganizationId: EXECUTOR, currentRevision: 0, revisions: [], requiredDecisionPolicy: { mode: 'BILATERAL_REQUIRED', relationshipId: 'rel', relationshipVersion: 4 }, amendmentPolicy: { mode: 'bilateral' }, cancellationPolicy: { mode: 'either' } });
    expect(t.events).toEqual([]);
    expect(T.participants!(t.state)).toEqual([]); // invisible to the executing organization
    const i = next(T, t.state, command('issue', connector(ISSUER)));
    expect(i.state).toMatchObject({ status: 'issued', issuedAt: NOW, currentRevision: 1, revisions: [{ number: 1, authorOrganizationId: ISSUER, terms: terms() }] });
    expect(i.state.draftTerms).toBeUndefined();
    expect(i.events).toEqual([{ type: 'pcx.transport-tender.issued.v1', audience: [ISSUER, EXECUTOR] }]);
    expect(T.machine.deadline(i.state)).toEqual({ at: later(DAY), command: 'expire' });
  });

  test.each<[string, ReturnType<typeof command>, string]>([
    ['no relationship in force', create({}, {}), 'RELATIONSHIP_INACTIVE'],
    ['a relationship without the tender scopes', create({}, { relationship: { ...relationship(), scopes: ['tenders:read'] } }), 'RELATIONSHIP_INACTIVE'],
    ['a tender to oneself', create({ executingOrganizationId: ISSUER }), 'VALIDATION_FAILED'],
    ['an expiresAt in the past', create({ expiresAt: later(-1) }), 'VALIDATION_FAILED'],
    ['no stops', create({ terms: { ...terms(), stops: [] } }), 'VALIDATION_FAILED'],
    ['both a price and an external terms reference', create({ terms: { ...terms(), externalTermsReference: { system: 's', type: 't', value: 'v' } } }), 'VALIDATION_FAILED'],
    ['a proposal the caller is no party to', create({ originatingProposalId: 'p' }, { relationship: relationship(), proposal: { id: 'p', status: 'accepted', capacityOfferId: 'o', loadRequestId: 'r', participants: ['x', EXECUTOR] } }), 'RESOURCE_NOT_FOUND'],
    ['a proposal not accepted', create({ originatingProposalId: 'p' }, { relationship: relationship(), proposal: { id: 'p', status: 'open', capacityOfferId: 'o', loadRequestId: 'r', participants: [ISSUER, EXECUTOR] } }), 'INVALID_STATE_TRANSITION'],
    ['an executing organization that is not the proposal\u2019s counterpart', create({ originatingProposalId: 'p', executingOrganizationId: 'org-x' }, { relationship: relationship(), proposal: { id: 'p', status: 'accepted', capacityOfferId: 'o', loadRequestId: 'r', participants: [ISSUER, EXECUTOR] } }), 'VALIDATION_FAILED'],
  ])('refuses %s', (_name, cmd, code) => {
    expect(refusal(T, undefined, cmd)).toBe(code);
  });

  test('now against the movement: a pickup window ending within the hour is WINDOW_PASSED at create, issue and counter; expiresAt must fall an hour before the first pickup ends', () => {
    // The first pickup ends at DAY + 4 h: an hour before that is the last moment to issue.
    const late = later(DAY + 3 * HOUR + 1);
    expect(apply(T, undefined, create({ expiresAt: later(DAY + 4 * HOUR) }), late)).toMatchObject({ ok: false, code: 'WINDOW_PASSED', extensions: { errors: [{ pointer: '/terms/stops/0/timeWindow/end' }] } });
    expect(apply(T, undefined, create({ expiresAt: later(DAY + 3 * HOUR + 1) }))).toMatchObject({ ok: false, code: 'VALIDATION_FAILED', extensions: { errors: [{ pointer: '/expiresAt' }] } });
    expect(next(T, undefined, create({ expiresAt: later(DAY + 3 * HOUR) })).state.status).toBe('draft');
    const d = next(T, undefined, create({ expiresAt: later(DAY + 3 * HOUR) })).state;
    expect(next(T, d, command('issue', connector(ISSUER)), later(DAY + 2 * HOUR)).state.status).toBe('issued');
    // A counter that moves the pickup to a window already closing.
    const stops = terms().stops.map((s) => (s.role === 'pickup' ? { ...s, timeWindow: { start: later(-HOUR), end: later(30 * 60_000) } } : s));
    expect(refusal(T, issued(), command('counterpropose', connector(EXECUTOR), { revision: 1, reason: 'earlier', terms: { stops } }))).toBe('WINDOW_PASSED');
    // A counter that moves the pickup before the tender's expiry.
    const sooner = terms().stops.map((s) => (s.role === 'pickup' ? { ...s, timeWindow: { start: later(HOUR), end: later(12 * HOUR) } } : s));
    expect(refusal(T, issued(), command('counterpropose', connector(EXECUTOR), { revision: 1, reason: 'earlier', terms: { stops: sooner } }))).toBe('VALIDATION_FAILED');
  });

  test('from an accepted proposal the tender records the pair', () => {
    const t = next(T, undefined, create({ originatingProposalId: 'p' }, { relationship: relationship(), proposal: { id: 'p', status: 'accepted', capacityOfferId: 'o', loadRequestId: 'r', participants: [ISSUER, EXECUTOR] } })).state;
    expect(t).toMatchObject({ originatingProposalId: 'p', capacityOfferId: 'o', loadRequestId: 'r' });
  });

  test('only the issuer issues and withdraws; the draft cannot be issued twice', () => {
    expect(refusal(T, draft(), command('issue', connector(EXECUTOR)))).toBe('ACTOR_NOT_PERMITTED');
    expect(refusal(T, issued(), command('issue', connector(ISSUER)))).toBe('INVALID_STATE_TRANSITION');
    expect(refusal(T, issued(), command('withdraw', connector(EXECUTOR), { reason: 'x' }))).toBe('ACTOR_NOT_PERMITTED');
    expect(refusal(T, draft(), command('issue', connector(ISSUER)), later(DAY))).toBe('RESOURCE_EXPIRED');
  });
});

test('no relationship in force: issue and accept are RELATIONSHIP_INACTIVE; reject still ends the tender; commands without the fact count as in force', () => {
  const gone = { context: { relationshipInForce: false } };
  expect(refusal(T, draft(), command('issue', connector(ISSUER), {}, gone))).toBe('RELATIONSHIP_INACTIVE');
  expect(refusal(T, issued(), command('decide', connector(EXECUTOR), { decision: 'accept', revision: 1 }, gone))).toBe('RELATIONSHIP_INACTIVE');
  expect(next(T, issued(), command('decide', connector(EXECUTOR), { decision: 'reject', revision: 1 }, gone)).state.status).toBe('rejected');
  expect(next(T, issued(), decide(EXECUTOR, 'accept')).state.decisions).toHaveLength(1);
});

describe('revisions and decisions', () => {
  test('a counterproposal adds revision n+1 with what changed; the one it answers must be current', () => {
    const t = next(T, issued(), command('counterpropose', connector(EXECUTOR), { revision: 1, terms: { commercialTerms: { amount: 1000, currency: 'EUR' } }, reason: 'fuel' }));
    expect(t.state.revisions).toEqual([
      expect.objectContaining({ number: 1, outcome: 'superseded', terms: terms() }),
      expect.objectContaining({ number: 2, authorOrganizationId: EXECUTOR, reason: 'fuel', changes: [{ term: 'commercialTerms', before: { amount: 900, currency: 'EUR' }, after: { amount: 1000, currency: 'EUR' } }] }),
    ]);
    expect(t.events.map((e) => e.type)).toEqual(['pcx.transport-tender.countered.v1']);
    expect(refusal(T, t.state, command('counterpropose', connector(ISSUER), { revision: 1, terms: { commercialTerms: { amount: 950, currency: 'EUR' } }, reason: 'x' }))).toBe('STALE_RESOURCE_VERSION');
    expect(refusal(T, t.state, command('counterpropose', connector(ISSUER), { revision: 2, terms: { commercialTerms: { amount: 1000, currency: 'EUR' } }, reason: 'x' }))).toBe('VALIDATION_FAILED'); // changes nothing
    expect(refusal(T, t.state, decide(ISSUER, 'accept', 1))).toBe('STALE_RESOURCE_VERSION');
    expect(refusal(T, issued(), command('counterpropose', connector('org-x'), { revision: 1, terms: {}, reason: 'x' }))).toBe('ACTOR_NOT_PERMITTED');
    // The price and an external terms reference are alternatives: giving one replaces the other.
    const reference = { system: 'erp', type: 'frame-contract', value: 'FC-7' };
    const switched = next(T, t.state, command('counterpropose', connector(ISSUER), { revision: 2, terms: { externalTermsReference: reference }, reason: 'frame contract' })).state;
    const latest = switched.revisions[switched.revisions.length - 1].terms;
    expect([latest.externalTermsReference, latest.commercialTerms]).toEqual([reference, undefined]);
  });

  test('BILATERAL_REQUIRED: the author and the other organization accept the current revision; then the commit flow runs', () => {
    const one = next(T, issued(), decide(EXECUTOR, 'accept'));
    expect(one.state).toMatchObject({ status: 'issued', decisions: [{ organizationId: EXECUTOR, revision: 1, decision: 'accept' }] });
    expect(next(T, one.state, decide(EXECUTOR, 'accept'))).toEqual({ state: one.state, events: [] });
    const two = next(T, one.state, decide(ISSUER, 'accept'));
    expect(two.state.status).toBe('accepting');
    expect(two.effects).toEqual([{ flow: 'commitTenderFlow', input: { tenderId: two.state.id, revision: 1, requiredDecisions: two.state.decisions }, timeoutMs: FLOW_TIMEOUT_MS }]);
    expect(refusal(T, two.state, decide(ISSUER, 'reject'))).toBe('INVALID_STATE_TRANSITION');
    // accepting ends by itself once the commit flow's whole life has passed without committing it.
    const deadline = T.machine.deadline(two.state)!;
    expect(deadline).toEqual({ at: new Date(Date.parse(NOW) + FLOW_DEADLINE_MS).toISOString(), command: 'abandonAcceptance' });
    expect(next(T, two.state, command(deadline.command, system, {}), deadline.at).state).toMatchObject({ status: 'withdrawn', endReason: { reason: 'the acceptance was not committed in time' } });
    const committed = next(T, two.state, command('commit', system, { commitmentId: 'c1', revision: 1 }));
    expect(committed.state).toMatchObject({ status: 'accepted', commitmentId: 'c1', commitmentIds: ['c1'], revisions: [{ outcome: 'accepted' }] });
    expect(T.machine.deadline(committed.state)).toBeUndefined();
  });

  test('INITIATOR_ONLY: presenting a revision is its author\u2019s accept; the recipient\u2019s accept commits', () => {
    const t = issued('INITIATOR_ONLY');
    expect(next(T, t, decide(ISSUER, 'accept')).state.status).toBe('issued');
    expect(next(T, t, decide(EXECUTOR, 'accept')).state.status).toBe('accepting');
    expect(policySatisfied({ ...t, decisions: [] })).toBe(false);
  });

  test('reject ends an issued tender; abandoned acceptance withdraws it', () => {
    const r = next(T, issued(), decide(EXECUTOR, 'reject', 1, 'no'));
    expect(r.state).toMatchObject({ status: 'rejected', rejectedAt: NOW, revisions: [{ outcome: 'rejected' }], endReason: { reason: 'no', organizationId: EXECUTOR } });
    expect(T.terminalStatuses).toContain('rejected');
    const accepting = next(T, next(T, issued(), decide(EXECUTOR, 'accept')).state, decide(ISSUER, 'accept')).state;
    expect(next(T, accepting, command('abandonAcceptance', system, { reason: 'capacity gone' })).state).toMatchObject({ status: 'withdrawn', endReason: { reason: 'capacity gone' } });
  });

  test('withdraw (reason required) and expiry at expiresAt', () => {
    expect(refusal(T, issued(), command('withdraw', connector(ISSUER), {}))).toBe('VALIDATION_FAILED');
    expect(next(T, issued(), command('withdraw', connector(ISSUER), { reason: 'x' })).events.map((e) => e.type)).toEqual(['pcx.transport-tender.withdrawn.v1']);
    expect(next(T, draft(), command('withdraw', connector(ISSUER), { reason: 'x' })).events).toEqual([]); // the executor never saw the draft
    expect(refusal(T, issued(), command('expire', system))).toBe('INVALID_STATE_TRANSITION');
    expect(next(T, issued(), command('expire', system), later(DAY)).state).toMatchObject({ status: 'expired', expiredAt: later(DAY) });
    expect(refusal(T, issued(), decide(EXECUTOR, 'accept'), later(DAY))).toBe('RESOURCE_EXPIRED');
  });
});

describe('amendments', () => {
  const accepted = () => next(T, next(T, next(T, issued(), decide(EXECUTOR, 'accept')).state, decide(ISSUER, 'accept')).state, command('commit', system, { commitmentId: 'c1', revision: 1 })).state;
  const amend = (org = EXECUTOR, commitmentId = 'c1') => command('amend', connector(org), { terms: { commercialTerms: { amount: 1100, currency: 'EUR' } }, reason: 'toll', commitmentId });

  test('an amendment is a revision linked to the commitment; accepted, the commit flow names the commitment it replaces', () => {
    const a = next(T, accepted(), amend());
    expect(a.state).toMatchObject({ status: 'amending', currentRevision: 2, revisions: [{ outcome: 'accepted' }, { number: 2, amendsCommitmentId: 'c1' }] });
    const done = next(T, next(T, a.state, decide(ISSUER, 'accept', 2)).state, decide(EXECUTOR, 'accept', 2));
    expect(done.effects![0].input).toMatchObject({ revision: 2, previousCommitmentId: 'c1' });
    expect(next(T, done.state, command('commit', system, { commitmentId: 'c2', revision: 2 })).state).toMatchObject({ status: 'accepted', commitmentId: 'c2', commitmentIds: ['c1', 'c2'] });
  });

  test('a rejected amendment leaves the commitment; an amendment of an old version or under policy none is refused', () => {
    const a = next(T, accepted(), amend()).state;
    expect(next(T, a, decide(ISSUER, 'reject', 2)).state).toMatchObject({ status: 'accepted', commitmentId: 'c1', revisions: [{}, { outcome: 'rejected' }] });
    expect(refusal(T, accepted(), amend(EXECUTOR, 'c0'))).toBe('STALE_RESOURCE_VERSION');
    expect(refusal(T, { ...accepted(), amendmentPolicy: { mode: 'none' } }, amend())).toBe('AMENDMENT_NOT_ALLOWED');
    expect(refusal(T, issued(), amend())).toBe('INVALID_STATE_TRANSITION');
  });

  test('the commitment amended must be active and at the version the caller observed (If-Match)', () => {
    const withContext = (status: string, observed: number) =>
      command('amend', connector(EXECUTOR), { terms: { commercialTerms: { amount: 1100, currency: 'EUR' } }, reason: 'toll', commitmentId: 'c1' }, { context: { commitment: { id: 'c1', status, resourceVersion: 1 }, observedCommitmentVersion: observed } });
    expect(next(T, accepted(), withContext('active', 1)).state.status).toBe('amending');
    expect(refusal(T, accepted(), withContext('active', 2))).toBe('STALE_RESOURCE_VERSION');
    expect(refusal(T, accepted(), withContext('cancelled', 1))).toBe('INVALID_STATE_TRANSITION');
  });

  test('close when the commitment is cancelled', () => {
    expect(next(T, accepted(), command('close', system, { reason: 'cancelled', commitmentId: 'c1' })).state).toMatchObject({ status: 'closed', closedAt: NOW });
    expect(refusal(T, accepted(), command('close', system, { reason: 'x', commitmentId: 'c0' }))).toBe('INVALID_STATE_TRANSITION');
  });
});

test('changesOf compares terms whatever the key order', () => {
  expect(changesOf(terms(), { ...terms(), commercialTerms: { currency: 'EUR', amount: 900 } })).toEqual([]);
  expect(changesOf(undefined, terms()).map((c) => c.term)).toEqual(['commercialTerms', 'stops']);
});

describe('TransportCommitment', () => {
  const created = (cancellationPolicy: Record<string, unknown> = { mode: 'either' }) =>
    next(C, undefined, command('create', system, {
      commitmentVersion: 1, tenderId: 't', issuingOrganizationId: ISSUER, executingOrganizationId: EXECUTOR, movementScope: 'fullTransport',
      acceptedRevision: { number: 1, authorOrganizationId: ISSUER, terms: terms() }, requiredDecisions: [], decisionPolicy: { mode: 'BILATERAL_REQUIRED' },
      acceptedAt: NOW, relationshipId: 'rel', relationshipVersion: 4, capacity: { state: 'consumed', originatingProposalId: 'p', capacityOfferId: 'o', loadRequestId: 'r' },
      cancellationPolicy, digest: { algorithm: 'SHA-256', canonicalization: 'RFC 8785', fields: [], value: 'x'.repeat(64) },
    })).state as TransportCommitment;

  test('created by the broker only; event created (or amended for a later version)', () => {
    expect(refusal(C, undefined, command('create', connector(ISSUER), {}))).toBe('ACTOR_NOT_PERMITTED');
    expect(created()).toMatchObject({ status: 'active', ownerOrganizationId: ISSUER, resourceVersion: 1 });
    const v2 = next(C, undefined, command('create', system, { ...created(), previousCommitmentId: 'c1', commitmentVersion: 2 }));
    expect(v2.events.map((e) => e.type)).toEqual(['pcx.transport-commitment.amended.v1']);
  });

  test('cancel by either party with a reason releases the offer, the request and the tender', () => {
    const t = next(C, created(), command('cancel', connector(EXECUTOR), { reason: 'breakdown' }));
    expect(t.state).toMatchObject({ status: 'cancelled', cancellation: { reason: 'breakdown', organizationId: EXECUTOR } });
    expect(t.effects).toEqual([{ flow: 'commitmentCancelledFlow', input: { commitmentId: t.state.id, tenderId: 't', reason: 'breakdown', proposalId: 'p', offerId: 'o', requestId: 'r' } }]);
    expect(refusal(C, t.state, command('cancel', connector(ISSUER), { reason: 'x' }))).toBe('INVALID_STATE_TRANSITION');
    expect(refusal(C, created(), command('cancel', connector(ISSUER), {}))).toBe('VALIDATION_FAILED');
    expect(refusal(C, created(), command('cancel', connector('org-x'), { reason: 'x' }))).toBe('ACTOR_NOT_PERMITTED');
  });

  test('the cancellation policy: none, issuerOnly, notice before the first stop', () => {
    expect(refusal(C, created({ mode: 'none' }), command('cancel', connector(ISSUER), { reason: 'x' }))).toBe('CANCELLATION_NOT_ALLOWED');
    expect(refusal(C, created({ mode: 'issuerOnly' }), command('cancel', connector(EXECUTOR), { reason: 'x' }))).toBe('CANCELLATION_NOT_ALLOWED');
    expect(cancellationAllowed(created({ mode: 'either', noticeHours: 12 }), ISSUER, later(DAY - 13 * HOUR))).toBeUndefined();
    expect(cancellationAllowed(created({ mode: 'either', noticeHours: 12 }), ISSUER, later(DAY - 11 * HOUR))).toMatch(/notice/);
  });

  test('supersede by the next version; superseded and cancelled are terminal', () => {
    const s = next(C, created(), command('supersede', system, { byCommitmentId: 'c2' })).state;
    expect(s).toMatchObject({ status: 'superseded', supersededByCommitmentId: 'c2' });
    expect(C.terminalStatuses).toEqual(['superseded', 'cancelled']);
    expect(apply(C, s, command('supersede', system, { byCommitmentId: 'c3' }))).toMatchObject({ ok: false, code: 'INVALID_STATE_TRANSITION' });
    expect(refusal(C, created(), command('supersede', connector(ISSUER), { byCommitmentId: 'c2' }))).toBe('ACTOR_NOT_PERMITTED');
  });
});

test('every field of both resources is classified', () => {
  const t = { ...issued(), acceptedAt: NOW, commitmentId: 'c', withdrawnAt: NOW, rejectedAt: NOW, expiredAt: NOW, closedAt: NOW, endReason: {}, originatingProposalId: 'p', capacityOfferId: 'o', loadRequestId: 'r', draftTerms: terms() } as TransportTender;
  for (const f of Object.keys(t)) expect([f, T.fields[f] !== undefined]).toEqual([f, true]);
});
