// User: an interactive user (a planner at the console) as a record of its organization (issue 29),
// invited by the organization's admin instead of a file and a restart. Identity stays with the
// identity provider (the token's `sub` is the userId); the record says which organization, which
// roles and whether the user may act, and gate 2 reads it on every request (read-model/managed-registry.ts).
//
// status    how it gets there
// invited   invite; reinvite (a new invitation, a new expiry)
// active    accept: the invited user's first signed-in request, before the invitation expired; enable
// disabled  disable (its tokens are refused at once; enable brings it back)
// expired   the invitation's timer, unaccepted (reinvite makes a new one)
// removed   remove: for good; the userId is never given again (terminal)
import { actorRef, bump, Command, Envelope, EventDraft, isBroker, Machine, OPERATOR_AUDIENCE, refuse, requiredReason, Transition, firstVersion } from './machine';
import { defineResource } from './resource';

export type UserStatus = 'invited' | 'active' | 'disabled' | 'expired' | 'removed';
export type UserRole = 'planner' | 'viewer' | 'admin' | 'operator';
export const USER_ROLES: readonly UserRole[] = ['planner', 'viewer', 'admin', 'operator'];

export interface User extends Envelope {
  status: UserStatus;
  /** The `sub` of the user's tokens at the identity provider; unique in the exchange for good. */
  userId: string;
  organizationId: string;
  /** Absent once erased (`nameErased`: a removed user's, on request or by the retention purge). */
  name?: string;
  roles: UserRole[];
  /** When an invitation (still open, or the last one) ends. */
  invitationExpiresAt?: string;
  acceptedAt?: string;
  statusReason?: { reason: string; organizationId: string; clientId?: string; userId?: string; at: string };
  invitedBy?: { organizationId: string; clientId?: string; userId?: string };
  nameErased?: { at: string; reason: string; pointers: string[]; historiesDeleted: number; retentionPolicyRef?: string; requestedBy?: Record<string, string> };
  /**
   * The hash of the open invitation's code (the development identity provider's password for the
   * user), from the command that made it: its workflow state, sealed by the payload codec, is
   * where a rebuilt read model finds it (read-model/client-secrets.ts projectUser). Never in the
   * document: `document` strips it, so no view or event carries it.
   */
  invitationHash?: string;
}

export const KIND = 'user';
/** How long an invitation stays open. */
export const INVITATION_DAYS = 7;

/** What the API looked up: whether the organization is the operator's (only its users may be operators). */
export interface UserContext {
  operatorOrganization: boolean;
}

const USER_ID = /^[A-Za-z0-9][A-Za-z0-9._@+-]{1,127}$/;
const event = (u: User, name: string): EventDraft => ({ type: `pcx.${KIND}.${name}.v1`, audience: [u.organizationId, OPERATOR_AUDIENCE] });
/** An invitation's code hash the API put in the payload (development identity provider only). */
const invitationHashOf = (payload: unknown): { invitationHash?: string } => {
  const hash = (payload as { invitationHash?: unknown } | undefined)?.invitationHash;
  return typeof hash === 'string' && hash ? { invitationHash: hash } : {};
};
const later = (now: string, days: number) => new Date(Date.parse(now) + days * 86_400_000).toISOString().replace(/\.000Z$/, 'Z');

function requireAdmin(u: User, command: Command): void {
  if (isBroker(command.actor)) return;
  if (command.actor.organizationId !== u.organizationId) refuse('ACTOR_NOT_PERMITTED', "only the user's organization manages it");
}

function checkRoles(roles: unknown, context: UserContext | undefined): UserRole[] {
  if (!Array.isArray(roles) || roles.length === 0 || roles.some((r) => !USER_ROLES.includes(r as UserRole))) refuse('VALIDATION_FAILED', `roles: one or more of ${USER_ROLES.join(', ')}`, { errors: [{ pointer: '/roles', message: 'must be roles' }] });
  if ((roles as string[]).includes('operator') && !context?.operatorOrganization) refuse('SCOPE_ABOVE_CEILING', "only the operator's organization has operators", { errors: [{ pointer: '/roles', message: 'operator is the protocol operator organization\u2019s role' }] });
  return [...new Set(roles as UserRole[])];
}


export const userMachine = {
  kind: KIND,
  brokerCommands: ['expireInvitation'],

  // The invitation: the user exists, invited, until its first signed-in request accepts it.
  create(command: Command<{ userId: string; name?: string; roles: UserRole[]; organizationId?: string }, UserContext>, id: string, now: string): Transition<User> {
    const p = command.payload;
    if (!isBroker(command.actor) && !command.actor.organizationId) refuse('ACTOR_NOT_PERMITTED', 'a user is invited by an organization');
    if (typeof p.userId !== 'string' || !USER_ID.test(p.userId)) refuse('VALIDATION_FAILED', 'userId: 2 to 128 letters, digits and . _ @ + -', { errors: [{ pointer: '/userId', message: 'is not a user id' }] });
    // The development seed (the broker, seed.ts) invites a user of the users file for the
    // organization the file names, and accepts the invitation at once (nobody else is there to).
    const organizationId = isBroker(command.actor) ? p.organizationId : command.actor.organizationId;
    if (typeof organizationId !== 'string' || !organizationId) refuse('VALIDATION_FAILED', "the seed names the user's organization");
    const state: User = {
      ...firstVersion(id, organizationId, now),
      status: 'invited',
      userId: p.userId,
      organizationId,
      name: typeof p.name === 'string' && p.name.trim() ? p.name.trim() : p.userId,
      roles: checkRoles(p.roles, command.context),
      invitationExpiresAt: later(now, INVITATION_DAYS),
      ...invitationHashOf(command.payload),
      // The seed's invitation is the organization's own (the broker acts for it).
      invitedBy: isBroker(command.actor) ? { organizationId } : actorRef(command),
    };
    return { state, events: [event(state, 'invited')] };
  },

  commands: {
    // The user's own first signed-in request (the broker sends it from gate 2), within the invitation.
    accept(u: User, command: Command, now: string): Transition<User> {
      if (!isBroker(command.actor) && command.actor.userId !== u.userId) refuse('ACTOR_NOT_PERMITTED', 'only the invited user accepts an invitation');
      if (u.status !== 'invited') refuse('INVALID_STATE_TRANSITION', `a ${u.status} user has no open invitation`, { currentState: u.status });
      if (u.invitationExpiresAt && Date.parse(u.invitationExpiresAt) <= Date.parse(now)) refuse('INVALID_STATE_TRANSITION', 'the invitation has expired', { currentState: u.status });
      const next = bump(u, now, { status: 'active', acceptedAt: now });
      return { state: next, events: [event(next, 'accepted')] };
    },

    update(u: User, command: Command<{ name?: string; roles?: UserRole[] }, UserContext>, now: string): Transition<User> {
      requireAdmin(u, command);
      if (u.status === 'removed') refuse('INVALID_STATE_TRANSITION', 'a removed user cannot be changed', { currentState: u.status });
      const p = command.payload ?? {};
      const changes: Partial<User> = {};
      if (p.name !== undefined) {
        if (typeof p.name !== 'string' || !p.name.trim()) refuse('VALIDATION_FAILED', 'name must not be empty', { errors: [{ pointer: '/name', message: 'must not be empty' }] });
        changes.name = p.name.trim();
      }
      if (p.roles !== undefined) changes.roles = checkRoles(p.roles, command.context);
      const next = bump(u, now, changes);
      return { state: next, events: [event(next, 'updated')] };
    },

    disable(u: User, command: Command<{ reason: string }>, now: string): Transition<User> {
      requireAdmin(u, command);
      if (u.status !== 'active' && u.status !== 'invited') refuse('INVALID_STATE_TRANSITION', `a ${u.status} user cannot be disabled`, { currentState: u.status });
      const next = bump(u, now, { status: 'disabled', statusReason: { reason: requiredReason(command.payload), ...actorRef(command), at: now } });
      return { state: next, events: [event(next, 'disabled')] };
    },

    enable(u: User, command: Command, now: string): Transition<User> {
      requireAdmin(u, command);
      if (u.status !== 'disabled') refuse('INVALID_STATE_TRANSITION', `a ${u.status} user cannot be enabled`, { currentState: u.status });
      // A user disabled before accepting goes back to its invitation, if it is still open.
      const status = u.acceptedAt ? 'active' : u.invitationExpiresAt && Date.parse(u.invitationExpiresAt) > Date.parse(now) ? 'invited' : 'expired';
      const next = bump(u, now, { status });
      return { state: next, events: [event(next, 'enabled')] };
    },

    reinvite(u: User, command: Command, now: string): Transition<User> {
      requireAdmin(u, command);
      if (u.status !== 'invited' && u.status !== 'expired') refuse('INVALID_STATE_TRANSITION', `a ${u.status} user cannot be invited again`, { currentState: u.status });
      const next = bump(u, now, { status: 'invited', invitationExpiresAt: later(now, INVITATION_DAYS), invitedBy: actorRef(command), ...invitationHashOf(command.payload) });
      return { state: next, events: [event(next, 'invited')] };
    },

    remove(u: User, command: Command<{ reason: string }>, now: string): Transition<User> {
      requireAdmin(u, command);
      if (u.status === 'removed') refuse('INVALID_STATE_TRANSITION', 'the user was removed already', { currentState: u.status });
      const next = bump(u, now, { status: 'removed', statusReason: { reason: requiredReason(command.payload), ...actorRef(command), at: now } });
      return { state: next, events: [event(next, 'removed')] };
    },

    // The timer at the invitation's end.
    expireInvitation(u: User, _command: Command, now: string): Transition<User> {
      if (u.status !== 'invited' || !u.invitationExpiresAt || Date.parse(u.invitationExpiresAt) > Date.parse(now)) return { state: u, events: [] };
      const next = bump(u, now, { status: 'expired' });
      return { state: next, events: [event(next, 'invitation-expired')] };
    },
  },

  deadline(u: User) {
    return u.status === 'invited' && u.invitationExpiresAt ? { at: u.invitationExpiresAt, command: 'expireInvitation' } : undefined;
  },
} satisfies Machine<User>;

/** Whether the user may act now: active; or invited with its invitation open (its first request accepts it). */
export function userStanding(u: Pick<User, 'status' | 'invitationExpiresAt'>, now = Date.now()): 'active' | 'invited' | 'inactive' {
  if (u.status === 'active') return 'active';
  if (u.status === 'invited' && u.invitationExpiresAt && Date.parse(u.invitationExpiresAt) > now) return 'invited';
  return 'inactive';
}

const FIELDS = ['id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'externalReferences', 'extensions', 'status', 'userId', 'organizationId', 'name', 'roles', 'invitationExpiresAt', 'acceptedAt', 'statusReason', 'invitedBy', 'nameErased'];

export const user = defineResource({
  kind: KIND,
  retention: { kept: 'the registry\'s record of a person: once removed, the name goes after the default policy\'s personalData period (activities/retention.ts), the record stays for the audit of what they decided' },
  collection: 'users',
  workflowType: 'userWorkflow',
  table: 'users',
  indexedFields: ['userId'],
  statuses: ['invited', 'active', 'disabled', 'expired', 'removed'],
  terminalStatuses: ['removed'],
  scopes: { read: 'connectors:manage', write: 'connectors:manage' },
  operatorFeed: true,
  fields: Object.fromEntries(FIELDS.map((f) => [f, 'envelope' as const])),
  searchAttributes: (u) => ({ owner: u.organizationId, status: u.status }),
  machine: userMachine,
  document: ({ invitationHash: _hash, ...doc }) => doc,
  events: {
    'pcx.user.invited.v1': { emittedBy: 'create; reinvite' },
    'pcx.user.accepted.v1': { emittedBy: 'accept (the invited user\u2019s first signed-in request)' },
    'pcx.user.updated.v1': { emittedBy: 'update' },
    'pcx.user.disabled.v1': { emittedBy: 'disable' },
    'pcx.user.enabled.v1': { emittedBy: 'enable' },
    'pcx.user.removed.v1': { emittedBy: 'remove' },
    'pcx.user.invitation-expired.v1': { emittedBy: 'the timer at the invitation\u2019s end' },
  },
});
