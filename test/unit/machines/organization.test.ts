// Every transition row and refusal of the Organization machine (domain/organization.ts), in-process:
// registered by the operator (pending), verified on evidence or rejected, suspended, reinstated,
// ended by the operator or by its adherence period's timer; what its own admins may change; and
// where it stands at a given second (standingOf, gate 3's view).
import { organization as R, organizationContext, standingOf, type Organization } from '../../../domain/organization';
import { command, connector, DAY, HOUR, later, next, NOW, operator, refusal, system } from './harness';

const ORG = 'org-nordic';
const ctx = organizationContext();
const register = (payload: Record<string, unknown> = {}) =>
  next(R, undefined, command('create', operator, { organizationId: ORG, name: 'Nordic Haulage', legalIdentifier: { scheme: 'LEI', value: 'HWUPKR0MPOU8FGXBT394' }, ...payload }, { context: ctx })).state;
const verified = (o = register()) => next(R, o, command('verify', operator, { evidenceReference: 'case 1' })).state;

test('registered by the operator: pending, its verification pending, every relationship scope granted, a ceiling without exchange:admin', () => {
  const o = register();
  expect(o).toEqual(expect.objectContaining({ status: 'pending', organizationId: ORG, ownerOrganizationId: ORG, role: 'participant', verification: { status: 'pending' }, adherence: {} }));
  expect(o.scopeCeiling).not.toContain('exchange:admin');
  expect(o.partneringPolicy.grantedScopes).toContain('capacity:read');
  expect(next(R, undefined, command('create', operator, { organizationId: ORG, name: 'x' }, { context: ctx })).events[0]).toEqual(expect.objectContaining({ type: 'pcx.organization.registered.v1', audience: [ORG, 'pcx:operator'] }));
  // Only the operator registers; nobody makes an operator but the seed.
  expect(refusal(R, undefined, command('create', connector(ORG), { organizationId: ORG, name: 'x' }, { context: ctx }))).toBe('ACTOR_NOT_PERMITTED');
  expect(register({ role: 'operator' }).role).toBe('participant');
  expect(next(R, undefined, command('create', system, { organizationId: 'org-op', name: 'Operator', role: 'operator' }, { context: organizationContext({ source: 'organizations.json' }) })).state).toEqual(
    expect.objectContaining({ role: 'operator', status: 'active', verification: expect.objectContaining({ status: 'verified', evidenceReference: 'organizations.json' }), scopeCeiling: expect.arrayContaining(['exchange:admin']) }),
  );
  // Bad input.
  expect(refusal(R, undefined, command('create', operator, { organizationId: 'a', name: 'x' }, { context: ctx }))).toBe('VALIDATION_FAILED');
  expect(refusal(R, undefined, command('create', operator, { organizationId: ORG, name: ' ' }, { context: ctx }))).toBe('VALIDATION_FAILED');
  expect(refusal(R, undefined, command('create', operator, { organizationId: ORG, name: 'x', adherence: { until: later(-HOUR) } }, { context: ctx }))).toBe('VALIDATION_FAILED');
  expect(refusal(R, undefined, command('create', operator, { organizationId: ORG, name: 'x', adherence: { from: later(2 * DAY), until: later(DAY) } }, { context: ctx }))).toBe('VALIDATION_FAILED');
  expect(refusal(R, undefined, command('create', operator, { organizationId: ORG, name: 'x', scopeCeiling: ['exchange:admin'] }, { context: ctx }))).toBe('VALIDATION_FAILED');
  expect(refusal(R, undefined, command('create', operator, { organizationId: ORG, name: 'x', partneringPolicy: { grantedScopes: ['connectors:manage'] } }, { context: ctx }))).toBe('VALIDATION_FAILED');
});

test('verified on evidence (active, its adherence from then), or rejected (still pending); never without an identifier or an evidence reference', () => {
  const o = verified();
  expect(o).toEqual(expect.objectContaining({ status: 'active', verification: { status: 'verified', decidedAt: NOW, decidedBy: expect.objectContaining({ organizationId: 'org-operator' }), evidenceReference: 'case 1' }, adherence: { from: NOW } }));
  expect(refusal(R, o, command('verify', operator, { evidenceReference: 'again' }))).toBe('INVALID_STATE_TRANSITION');
  expect(refusal(R, register(), command('verify', operator, {}))).toBe('VALIDATION_FAILED');
  expect(refusal(R, register({ legalIdentifier: undefined }), command('verify', operator, { evidenceReference: 'x' }))).toBe('INVALID_STATE_TRANSITION');
  expect(refusal(R, register(), command('verify', connector(ORG), { evidenceReference: 'my word' }))).toBe('ACTOR_NOT_PERMITTED');
  const rejected = next(R, register(), command('reject', operator, { reason: 'no such LEI holder' }));
  expect(rejected.state).toEqual(expect.objectContaining({ status: 'pending', verification: expect.objectContaining({ status: 'rejected', reason: 'no such LEI holder' }) }));
  expect(rejected.events.map((e) => e.type)).toEqual(['pcx.organization.rejected.v1']);
  // A rejection is not final: new evidence can verify it.
  expect(next(R, rejected.state, command('verify', operator, { evidenceReference: 'case 2' })).state.status).toBe('active');
  // An adherence period set to begin later is kept.
  expect(verified(register({ adherence: { from: later(DAY) } })).adherence).toEqual({ from: later(DAY).replace('.000Z', 'Z') });
});

test('suspended, reinstated and ended by the operator, with reasons; ended is for good; the operator organization is neither', () => {
  const o = verified();
  const suspended = next(R, o, command('suspend', operator, { reason: 'fee' }));
  expect(suspended.state).toEqual(expect.objectContaining({ status: 'suspended', suspendedAt: NOW, statusReason: expect.objectContaining({ reason: 'fee', at: NOW }) }));
  expect(refusal(R, o, command('suspend', operator, {}))).toBe('VALIDATION_FAILED');
  expect(refusal(R, suspended.state, command('suspend', operator, { reason: 'again' }))).toBe('INVALID_STATE_TRANSITION');
  expect(refusal(R, o, command('suspend', connector(ORG), { reason: 'x' }))).toBe('ACTOR_NOT_PERMITTED');
  const reinstated = next(R, suspended.state, command('reinstate', operator, { reason: 'paid' }));
  expect(reinstated.state.status).toBe('active');
  expect(refusal(R, o, command('reinstate', operator, { reason: 'x' }))).toBe('INVALID_STATE_TRANSITION');
  const ended = next(R, suspended.state, command('end', operator, { reason: 'left' }));
  expect(ended.state).toEqual(expect.objectContaining({ status: 'ended', endedAt: NOW }));
  for (const [name, payload] of [['end', { reason: 'x' }], ['update', { name: 'x' }], ['reinstate', { reason: 'x' }], ['verify', { evidenceReference: 'x' }]] as const) {
    expect(refusal(R, ended.state, command(name, operator, payload, { context: ctx }))).toBe('INVALID_STATE_TRANSITION');
  }
  const op = next(R, undefined, command('create', system, { organizationId: 'org-op', name: 'Operator', role: 'operator' }, { context: organizationContext({ source: 'seed' }) })).state;
  expect(refusal(R, op, command('suspend', operator, { reason: 'x' }))).toBe('ACTOR_NOT_PERMITTED');
  expect(refusal(R, op, command('end', operator, { reason: 'x' }))).toBe('ACTOR_NOT_PERMITTED');
});

test('update: its admins change name and partnering policy; the operator also identifier (verified again), adherence and ceiling; strangers nothing', () => {
  const o = verified();
  const renamed = next(R, o, command('update', connector(ORG), { name: 'Nordic', partneringPolicy: { grantedScopes: ['capacity:read'] } }, { context: ctx }));
  expect(renamed.state).toEqual(expect.objectContaining({ name: 'Nordic', partneringPolicy: { grantedScopes: ['capacity:read'] }, status: 'active' }));
  expect(refusal(R, o, command('update', connector('org-other'), { name: 'x' }, { context: ctx }))).toBe('ACTOR_NOT_PERMITTED');
  for (const field of [{ scopeCeiling: [] }, { adherence: { until: later(DAY) } }, { legalIdentifier: { scheme: 'EORI', value: 'DE1' } }]) {
    expect(refusal(R, o, command('update', connector(ORG), field, { context: ctx }))).toBe('ACTOR_NOT_PERMITTED');
  }
  const reidentified = next(R, o, command('update', operator, { legalIdentifier: { scheme: 'VAT', value: 'DE136695976' } }, { context: ctx })).state;
  expect(reidentified).toEqual(expect.objectContaining({ status: 'pending', verification: { status: 'pending' } }));
  // The same identifier again changes nothing about the verification.
  expect(next(R, o, command('update', operator, { legalIdentifier: o.legalIdentifier }, { context: ctx })).state.status).toBe('active');
  expect(next(R, o, command('update', operator, { adherence: { until: later(DAY) } }, { context: ctx })).state.adherence).toEqual({ from: NOW, until: later(DAY).replace('.000Z', 'Z') });
});

test('the adherence period: its timer ends it at `until`, not before; standingOf counts it at its second', () => {
  const o = verified(register({ adherence: { until: later(DAY) } }));
  expect(R.machine.deadline(o)).toEqual({ at: later(DAY).replace('.000Z', 'Z'), command: 'endAdherence' });
  expect(next(R, o, command('endAdherence', system), later(DAY - 1)).events).toEqual([]);
  const ended = next(R, o, command('endAdherence', system), later(DAY));
  expect(ended.state).toEqual(expect.objectContaining({ status: 'ended', statusReason: expect.objectContaining({ reason: 'the adherence period ended' }) }));
  expect(ended.events.map((e) => e.type)).toEqual(['pcx.organization.ended.v1']);
  expect(R.machine.deadline(ended.state)).toBeUndefined();
  expect(refusal(R, o, command('endAdherence', connector(ORG)))).toBe('ACTOR_NOT_PERMITTED');

  const at = (iso: string) => Date.parse(iso);
  expect(standingOf(o, at(later(DAY)) - 1)).toBe('active');
  expect(standingOf(o, at(later(DAY)))).toBe('ended');
  const later_ = verified(register({ adherence: { from: later(HOUR) } })) as Organization;
  expect(standingOf(later_, at(NOW))).toBe('pending');
  expect(standingOf(later_, at(later(HOUR)))).toBe('active');
  expect(standingOf(register(), at(NOW))).toBe('pending');
});
