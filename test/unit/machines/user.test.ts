// Every transition row and refusal of the User machine (domain/user.ts), in-process: invited by its
// organization, accepted within the invitation (by the broker for the signed-in user, or the user),
// roles changed, disabled and enabled, invited again, removed for good; the invitation's timer.
import { INVITATION_DAYS, user as R, userStanding, type User } from '../../../domain/user';
import { command, connector, DAY, later, next, refusal, system } from './harness';

const ORG = 'org-a';
const ctx = { operatorOrganization: false };
const invite = (roles: string[] = ['planner']) => next(R, undefined, command('create', connector(ORG), { userId: 'ina@example.com', name: 'Ina', roles }, { context: ctx })).state;

test('invited by its organization for INVITATION_DAYS; the operator role only in the operator\u2019s organization', () => {
  const u = invite();
  expect(u).toEqual(expect.objectContaining({ status: 'invited', organizationId: ORG, roles: ['planner'], invitationExpiresAt: later(INVITATION_DAYS * DAY).replace('.000Z', 'Z') }));
  expect(R.machine.deadline(u)).toEqual({ at: u.invitationExpiresAt, command: 'expireInvitation' });
  expect(refusal(R, undefined, command('create', connector(ORG), { userId: 'x y', roles: ['planner'] }, { context: ctx }))).toBe('VALIDATION_FAILED');
  expect(refusal(R, undefined, command('create', connector(ORG), { userId: 'ina', roles: [] }, { context: ctx }))).toBe('VALIDATION_FAILED');
  expect(refusal(R, undefined, command('create', connector(ORG), { userId: 'ina', roles: ['operator'] }, { context: ctx }))).toBe('SCOPE_ABOVE_CEILING');
  expect(next(R, undefined, command('create', connector('org-op'), { userId: 'olga', roles: ['operator'] }, { context: { operatorOrganization: true } })).state.roles).toEqual(['operator']);
});

test('accepted by the broker (for the signed-in user) or the user, within the invitation; not by someone else, not after it ended', () => {
  const u = invite();
  const accepted = next(R, u, command('accept', system), later(DAY));
  expect(accepted.state).toEqual(expect.objectContaining({ status: 'active', acceptedAt: later(DAY) }));
  expect(accepted.events.map((e) => e.type)).toEqual(['pcx.user.accepted.v1']);
  expect(R.machine.deadline(accepted.state)).toBeUndefined();
  expect(next(R, u, command('accept', { kind: 'connector', organizationId: ORG, userId: 'ina@example.com' })).state.status).toBe('active');
  expect(refusal(R, u, command('accept', { kind: 'connector', organizationId: ORG, userId: 'someone-else' }))).toBe('ACTOR_NOT_PERMITTED');
  expect(refusal(R, u, command('accept', system), later(INVITATION_DAYS * DAY))).toBe('INVALID_STATE_TRANSITION');
  expect(refusal(R, accepted.state, command('accept', system))).toBe('INVALID_STATE_TRANSITION');
});

test('the invitation\u2019s timer: expired at its end, not before; invited again; standing at the second', () => {
  const u = invite();
  expect(next(R, u, command('expireInvitation', system), later(INVITATION_DAYS * DAY - 1)).events).toEqual([]);
  const expired = next(R, u, command('expireInvitation', system), later(INVITATION_DAYS * DAY));
  expect(expired.state.status).toBe('expired');
  expect(expired.events.map((e) => e.type)).toEqual(['pcx.user.invitation-expired.v1']);
  const again = next(R, expired.state, command('reinvite', connector(ORG)), later(10 * DAY));
  expect(again.state).toEqual(expect.objectContaining({ status: 'invited', invitationExpiresAt: later((10 + INVITATION_DAYS) * DAY).replace('.000Z', 'Z') }));
  expect(userStanding(u, Date.parse(later(INVITATION_DAYS * DAY)) - 1)).toBe('invited');
  expect(userStanding(u, Date.parse(later(INVITATION_DAYS * DAY)))).toBe('inactive');
});

test('its organization changes roles, disables, enables and removes it; nobody else does', () => {
  const active = next(R, invite(), command('accept', system)).state as User;
  expect(next(R, active, command('update', connector(ORG), { roles: ['viewer'] }, { context: ctx })).state.roles).toEqual(['viewer']);
  const disabled = next(R, active, command('disable', connector(ORG), { reason: 'left' })).state;
  expect(disabled.status).toBe('disabled');
  expect(next(R, disabled, command('enable', connector(ORG))).state.status).toBe('active');
  // Disabled before accepting: enabled, it is invited again while the invitation is open.
  expect(next(R, next(R, invite(), command('disable', connector(ORG), { reason: 'x' })).state, command('enable', connector(ORG))).state.status).toBe('invited');
  const removed = next(R, active, command('remove', connector(ORG), { reason: 'gone' })).state;
  expect(removed.status).toBe('removed');
  for (const [name, payload] of [['update', { name: 'x' }], ['disable', { reason: 'x' }], ['remove', { reason: 'x' }], ['reinvite', {}]] as const) {
    expect(refusal(R, active, command(name, connector('org-b'), payload, { context: ctx }))).toBe('ACTOR_NOT_PERMITTED');
  }
  expect(refusal(R, removed, command('update', connector(ORG), { name: 'x' }, { context: ctx }))).toBe('INVALID_STATE_TRANSITION');
  expect(refusal(R, active, command('reinvite', connector(ORG)))).toBe('INVALID_STATE_TRANSITION');
  expect(refusal(R, active, command('disable', connector(ORG), {}))).toBe('VALIDATION_FAILED');
});
