// HTTP API of User (domain/user.ts): an organization's admins (`connectors:manage`) invite users
// with roles, change their roles, disable, enable, invite again and remove them; the protocol
// operator reads every organization's. The user id is taken once in the exchange (the record id
// derives from it, core/name-ids.ts). While the development identity provider is on, an invitation
// answers with an invitation code, the user's password there, shown this once and kept as a slow
// hash (the same store as client secrets); with an organization's own identity provider the
// invitee simply signs in, and its first request accepts the invitation (api/gates.ts).
import { Hono } from 'hono';
import { generateClientSecret, hashClientSecret } from '../core/client-secrets';
import { nameBasedId } from '../core/name-ids';
import { Problem } from '../domain/problems';
import { user, type User, type UserContext } from '../domain/user';
import { invitationKey, secretHashes, storeSecretHash } from '../read-model/client-secrets';
import { precheckCreate, runCommand, type CommandRequest } from './commands';
import type { AppEnv } from './context';
import type { Ctx } from './http';
import { operation } from './operations';
import { commandRoute, getRoute, listRoute, managedRecord, participantAccess, plainCommandRoutes, viewFor } from './resource-routes';
import { answerErasure } from './erasures';
import { USER_NAME } from '../read-model/erasures';

const resource = user;
const MANAGE = 'connectors:manage';

const context = (c: Ctx, organizationId: string): UserContext => ({ operatorOrganization: c.get('services').registry.organization(organizationId)?.role === 'operator' });

/**
 * A new invitation code for the development identity provider (none without it): its hash goes in
 * the command to the user's workflow, whose projector stores it once the invitation is made (a
 * reinvitation replaces the old one; a refused request changes nothing, so a user's working code
 * is never lost to a duplicate invitation; a rebuilt read model finds it in the workflow's state),
 * the code revealed in this answer only.
 */
function invitationCode(c: Ctx, userId: string, replace: boolean, payload: Record<string, unknown>): Pick<CommandRequest, 'prepare' | 'settle'> {
  if (!c.get('services').config.auth.users?.devProvider) return {};
  const { db } = c.get('services');
  const key = invitationKey(userId);
  const { secret } = generateClientSecret();
  let hash = '';
  let stored = false;
  return {
    // The user's projector has written the hash of the invitation the workflow holds (read-model/
    // client-secrets.ts projectUser): the code is shown only when that is this request's, not
    // when the command was a retry answered with an earlier attempt's invitation.
    settle: async (snapshot) => {
      const [current] = await secretHashes(db, key.clientId, [key.credentialId]);
      stored = current ? current.secretHash === hash : !replace && (await storeSecretHash(db, key.clientId, key.credentialId, hash));
      return snapshot;
    },
    prepare: async () => {
      hash = await hashClientSecret(secret);
      return {
        // The hash goes to the user's workflow too (its state, sealed by the payload codec): a rebuilt read model finds it there.
        payload: { ...payload, invitationHash: hash },
        reveal: (answer) => (stored ? { ...answer, invitationCode: secret } : answer),
      };
    },
  };
}

const access = participantAccess<User>(resource, MANAGE);
const managed = managedRecord<User>(resource, { noun: 'user', plural: 'users', needs: "`connectors:manage` of the user's organization", notFound: ': no such user of the caller\u2019s organization' });

export const users = new Hono<AppEnv>();

operation(users, {
  method: 'POST', path: '/', access: { scope: MANAGE }, body: 'UserCreateRequest', answers: [201],
  idempotent: true,
  returns: 'User',
  doc: {
    id: 'createUser',
    summary: "Invite a user to the caller's organization",
    description:
      "A user of the caller's organization with roles, `invited` for 7 days: the user signs in at the identity provider " +
      '(its tokens\u2019 sub is the userId) and its first request accepts the invitation. With the development identity ' +
      'provider the answer carries `invitationCode`, the user\u2019s password there, shown this once. The user id is taken for good. ' +
      'Needs `connectors:manage`.',
    responses: {
      '201': 'Invited.',
      '400': '`VALIDATION_FAILED`: the body, a userId that is not one.',
      '403': '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE` or `ORGANIZATION_SUSPENDED`.',
      '409': '`RESOURCE_EXISTS` (the user id is taken), `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS`.',
      '422': "`SCOPE_ABOVE_CEILING`: the operator role outside the operator's organization.",
    },
  },
}, async ({ c, principal, body }) => {
  if (c.get('services').registry.user(body.userId, { fileOnly: true })) throw new Problem('RESOURCE_EXISTS', `the user id ${body.userId} is taken`);
  const ctx = context(c, principal.organizationId);
  precheckCreate(c, resource, body, ctx);
  return runCommand(c, { resource, name: 'create', id: nameBasedId('user', body.userId), payload: body, context: ctx, view: viewFor(resource, principal), ...invitationCode(c, body.userId, false, body) });
});

listRoute(users, resource, managed.list({
  summary: "List the caller's organization's users (every organization's for a protocol operator)",
  description: "The users of the caller's organization (its admins, with `connectors:manage`), by status; a protocol operator (`exchange:admin`) lists every organization's.",
  client: { name: 'users', columns: ['id', 'userId', 'name', 'status', 'roles', 'resourceVersion'] },
}));

getRoute(users, resource, managed.reading, managed.read('Get a user', "A user of the caller's organization (its admins), or any for a protocol operator. Anyone else gets 404."));

commandRoute(users, resource, 'update', {
  method: 'PATCH', body: 'UserUpdateRequest', access,
  context: (c, doc) => context(c, doc.organizationId),
  doc: managed.command('Change a user', 'Its name and roles; a role taken away counts from its next request on, tokens issued before included.', { '422': '`INVALID_STATE_TRANSITION` or `SCOPE_ABOVE_CEILING` (operator outside the operator\u2019s organization).' }),
});
plainCommandRoutes(users, resource, { access, doc: managed.command }, [
  ['disable', 'CommonReasonedCommand', 'Disable a user', 'Its tokens are refused from the next request on, on every replica (401 `USER_INACTIVE`), until it is enabled again.'],
  ['enable', 'CommonCommand', 'Enable a disabled user', 'Active again (or invited again, while its invitation is open).'],
  ['remove', 'CommonReasonedCommand', 'Remove a user for good', 'Its tokens are refused from the next request on; its user id is never given again.'],
]);
commandRoute(users, resource, 'reinvite', {
  body: 'CommonCommand', access,
  hooks: (c, doc, payload) => invitationCode(c, doc.userId, true, payload),
  doc: managed.command('Invite a user again', 'A new invitation for 7 days, for an invited user or one whose invitation expired; with the development identity provider, a new invitation code, shown this once.'),
});

// Personal data erasure before the retention policy's period (issue 34 part 4; docs/retention.md):
// a removed user's name goes from the read model, its events and Temporal's histories; its userId
// stays, the key the audit trail refers to.
operation(users, {
  method: 'POST', path: '/:id/name-erasures', access: managed.reading,
  body: 'UserNameErasureRequest', answers: [200],
  returns: 'User',
  doc: {
    id: 'eraseUserName',
    summary: "Erase a removed user's name",
    description:
      "On the person's request, before the retention policy's personal data period ends (after it the purge does the same): " +
      "the name of a removed user is taken from the user, from the data of its events and from the broker's workflow " +
      'histories. The user records `nameErased` (when, why, what went), gets a new resourceVersion and emits ' +
      '`pcx.user.name-erased.v1` to its organization and the operator. The userId stays: decisions, commands and ' +
      'events refer to it (an identity provider whose subs are e-mail addresses makes it personal data too; ' +
      'docs/retention.md). Only a removed user: remove it first (422 `INVALID_STATE_TRANSITION`). A second erasure ' +
      "changes nothing and answers 200. The user's organization (`connectors:manage`) or a protocol operator.",
    responses: {
      '200': 'The user without its name, and its ETag.',
      '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
      '404': true,
      '422': '`INVALID_STATE_TRANSITION` (the user is not removed).',
    },
  },
}, async ({ c, resource: doc, principal, body }) =>
  answerErasure(c, resource, doc.id, principal, (body as { reason: string }).reason, USER_NAME, (status) =>
    `the user is ${status}: its name can be erased once it is removed`)
);
