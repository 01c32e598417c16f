// HTTP API of PartnerRelationship: create, draft update, the seven lifecycle commands, reads.
// Rules live in the machine (domain/partner-relationship.ts); this router gathers the facts it
// needs (partnering policies, known organizations), authorizes, and keeps the pair claims.
import { Hono } from 'hono';
import { Problem } from '../domain/problems';
import { listRelationships } from '../read-model/partner-relationship';
import { partnerRelationship, type PartnerRelationship, type RelationshipContext } from '../domain/partner-relationship';
import { hit } from '../read-model/rate-counters';
import { holdOf, liftHold, placeHold } from '../read-model/retention-holds';
import { claim, draftKey, pairKey, release } from './relationship-pairs';
import { precheckCreate, runCommand } from './commands';

import type { AppEnv } from './context';
import { pageParams, querySingle, type Ctx } from './http';
import { commandRoute, getRoute, page, participantAccess, statusQuery, viewFor, type CommandRoute } from './resource-routes';
import { operation, type BodyName } from './operations';


const resource = partnerRelationship;
const ORG = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** Gate 4: the requester always; the accepter once the relationship has been requested (its participants, rule 7). */
const access = participantAccess<PartnerRelationship>(resource, resource.scopes.write);

/** Facts the machine needs: both partnering policies, and whether the counterpart exists. */
function context(c: Ctx, r: { requestingOrganizationId: string; acceptingOrganizationId: string }): RelationshipContext {
  const { registry } = c.get('services');
  return {
    requestingGrantedScopes: registry.grantedScopes(r.requestingOrganizationId),
    acceptingGrantedScopes: registry.grantedScopes(r.acceptingOrganizationId),
    acceptingOrganizationKnown: registry.organization(r.acceptingOrganizationId) !== undefined,
    retentionPolicies: Object.keys(c.get('services').config.retention.policies),
  };
}

export const partnerRelationships = new Hono<AppEnv>();

operation(partnerRelationships, {
  method: 'POST', path: '/', access: { scope: resource.scopes.write }, body: 'PartnerRelationshipCreateRequest', answers: [201],
  idempotent: true,
  returns: 'PartnerRelationship',
  doc: {
    id: 'createPartnerRelationship',
    summary: 'Create a partner relationship (draft)',
    description:
      'Creates a relationship in status `draft`, resourceVersion 1, visible only to the requesting ' +
      "organization until it is requested. `requestingOrganizationId` must be the caller's " +
      'organization; `acceptingOrganizationId` must be another organization known to the broker; ' +
      "the requested scopes must be granted by the requesting organization's partnering policy. At " +
      'most one non-terminated relationship exists per pair of organizations, and pending outbound ' +
      'relationships and invites per minute and hour are limited per organization. No version ' +
      'check.',
    responses: {
      '201': 'Created, in status draft.',
      '400':
        '`VALIDATION_FAILED` (body does not match the schema, an organization partnering with itself, ' +
        'effectiveFrom not before effectiveUntil, bad Idempotency-Key) or `MALFORMED_REQUEST` (not ' +
        'JSON).',
      '403':
        '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `ORGANIZATION_BINDING_VIOLATION` ' +
        "(requestingOrganizationId is not the caller's organization).",
      '409':
        '`DUPLICATE_RELATIONSHIP` (a non-terminated relationship exists for the pair), ' +
        '`PENDING_RELATIONSHIP_LIMIT`, `IDEMPOTENCY_CONFLICT` or `IDEMPOTENCY_IN_PROGRESS` (with ' +
        'Retry-After).',
      '422':
        '`UNKNOWN_ORGANIZATION` (acceptingOrganizationId) or `SCOPES_NOT_GRANTED` (the requesting ' +
        "organization's partnering policy does not grant a requested scope).",
      '429':
        '`RATE_LIMITED`: request limits per organization or token, or the invite limits per minute ' +
        'and hour.',
    },
  },
}, async ({ c, principal, body }) => {
  const { config, db } = c.get('services');
  // The machine's create rules, asked before a workflow is started for a create they refuse.
  precheckCreate(c, resource, body, context(c, body));

  const org = principal.organizationId;
  const key = draftKey(org, body.acceptingOrganizationId);
  let claimed = false;
  return runCommand(c, {
    resource,
    name: 'create',
    payload: body,
    context: context(c, body),
    view: viewFor(resource, principal),
    async before(id) {
      // Invites are limited per organization (specification, Limits).
      await hit(db, [
        { key: `invites-minute:${org}`, limit: config.limits.invitesPerMinute, windowSeconds: 60 },
        { key: `invites-hour:${org}`, limit: config.limits.invitesPerHour, windowSeconds: 3600 },
      ]);
      claimed = await claim(c, key, id, org, true);
    },
    async refused(id) {
      if (claimed) await release(c, key, id);
    },
  });
});

operation(partnerRelationships, {
  method: 'GET', path: '/', access: { scope: resource.scopes.read }, answers: [200],
  returns: 'PartnerRelationshipPage',
  doc: {
    id: 'listPartnerRelationships',
    summary: 'List partner relationships',
    description:
      "Relationships in which the caller's organization is the requesting organization, or the " +
      'accepting organization once the relationship has been requested (drafts of others are never ' +
      'listed). Ordered by id (creation order).',
    client: {
      name: 'relationships',
      columns: ['id', 'status', 'requestingOrganizationId', 'acceptingOrganizationId', 'resourceVersion'],
    },
    parameters: ['StatusQuery', 'CounterpartQuery', 'CursorQuery', 'LimitQuery'],
    responses: {
      '200': 'One page of relationships; nextCursor is null on the last page.',
      '400':
        '`VALIDATION_FAILED`: an unknown status, a limit outside 1..200 or a cursor this broker did ' +
        'not issue.',
      '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.',
    },
  },
}, async ({ c, principal }) => {
  const { after, limit } = pageParams(c);
  const statuses = statusQuery(c, resource);
  const counterpart = querySingle(c, 'counterpart');
  if (counterpart !== undefined && !ORG.test(counterpart)) {
    throw new Problem('VALIDATION_FAILED', 'counterpart must be an organization id', { errors: [{ pointer: '/query/counterpart', message: 'is not an organization id' }] });
  }
  const docs = await listRelationships(c.get('services').db, principal.organizationId, { statuses, counterpart, after, limit });
  return c.json(page(resource, principal, docs, limit));
});

getRoute(partnerRelationships, resource, access, {
  summary: 'Read a partner relationship',
  description:
    'Visible to the requesting organization, and to the accepting organization once the ' +
    'relationship has been requested. Both parties see the whole record.',
  responses: { '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.' },
});

// The lifecycle commands, with the schema of each body. Every one gets the partnering policies,
// and answers with the relationship (the document's RelationshipCommandResult).
const RESULT = { $ref: '#/components/responses/RelationshipCommandResult' };
const command = <N extends BodyName>(name: string, body: N, extra: Partial<CommandRoute<PartnerRelationship, N>> & Pick<CommandRoute<PartnerRelationship, N>, 'doc'>) =>
  commandRoute<PartnerRelationship, N>(partnerRelationships, resource, name, {
    body,
    access,
    context: (c, doc) => context(c, doc),
    ...extra,
    doc: { ...extra.doc, responses: { '200': RESULT, ...extra.doc.responses } },
  });

command('update', 'PartnerRelationshipUpdateRequest', {
  method: 'PATCH',
  doc: {
    summary: 'Change draft data of a partner relationship',
    description:
      'JSON merge patch of the non-decision draft fields; `null` removes an optional field. Allowed ' +
      'only in status `draft` and only for the requesting organization. Changing the decision ' +
      'policy of an active relationship answers 422 `INCOMPATIBLE_DECISION_POLICY`; any other ' +
      'change outside draft answers 422 `INVALID_STATE_TRANSITION`.',
    responses: {
        '403':
        '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE` (a draft is visible only to the requesting ' +
        'organization; others get 404).',
      '422':
        '`INVALID_STATE_TRANSITION` (not a draft), `INCOMPATIBLE_DECISION_POLICY` or ' +
        '`SCOPES_NOT_GRANTED`.',
    },
  },
});
command('request', 'CommonCommand', {
  // Submitting makes the invite visible to both: from then on the pair, in either direction.
  hooks: (c, doc) => {
    if (doc.status !== 'draft') return {};
    const key = pairKey(doc.requestingOrganizationId, doc.acceptingOrganizationId);
    let claimed = false;
    return {
      before: async (id: string) => void (claimed = await claim(c, key, id, doc.requestingOrganizationId, false)),
      refused: async (id: string) => void (claimed && (await release(c, key, id))),
    };
  },
  doc: {
    summary: 'Submit a draft relationship to the accepting organization',
    description:
      'draft → requested. Requesting organization only. Records submittedAt and emits ' +
      '`pcx.partner-relationship.requested.v1`; from now on the accepting organization sees the ' +
      'relationship. Refused with `RESOURCE_EXPIRED` when effectiveUntil has passed.',
    responses: {
        '403':
        '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `ACTOR_NOT_PERMITTED` (not the requesting ' +
        'organization).',
      '422': '`INVALID_STATE_TRANSITION` (not a draft) or `RESOURCE_EXPIRED` (effectiveUntil has passed).',
    },
  },
});
command('accept', 'CommonCommand', { doc: {
  summary: 'Accept a requested relationship',
  description:
    'requested → active. Accepting organization only. The scopes in force become the requested ' +
    "scopes that both organizations' partnering policies grant (none granted: 422 " +
    '`SCOPES_NOT_GRANTED`); effectiveFrom is set to now unless preset. Emits ' +
    '`pcx.partner-relationship.activated.v1`.',
  responses: {
    '403':
      '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `ACTOR_NOT_PERMITTED` (not the accepting ' +
      'organization).',
    '422':
      '`INVALID_STATE_TRANSITION` (not requested), `RESOURCE_EXPIRED` (effectiveUntil has passed) ' +
      'or `SCOPES_NOT_GRANTED`.',
  },
} });
command('reject', 'CommonOptionallyReasonedCommand', { doc: {
  summary: 'Reject a requested relationship',
  description:
    'requested → terminated (terminationCause `rejected`). Accepting organization only; the ' +
    'reason is optional and stored when given. Emits `pcx.partner-relationship.terminated.v1`.',
  requestBody: {
    required: false,
    content: { 'application/json': { schema: { $ref: './common.json#/$defs/OptionallyReasonedCommand' } } },
  },
  responses: {
    '403':
      '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `ACTOR_NOT_PERMITTED` (not the accepting ' +
      'organization).',
    '422': '`INVALID_STATE_TRANSITION` (not requested).',
  },
} });
command('withdraw', 'CommonReasonedCommand', { doc: {
  summary: 'Withdraw a draft or requested relationship',
  description:
    'draft or requested → terminated (terminationCause `withdrawn`). Requesting organization ' +
    'only; a reason is required. Emits `pcx.partner-relationship.terminated.v1` (to the ' +
    'requesting organization only when the relationship was still a draft).',
  responses: {
    '403':
      '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `ACTOR_NOT_PERMITTED` (not the requesting ' +
      'organization).',
    '422': '`INVALID_STATE_TRANSITION` (neither draft nor requested).',
  },
} });
command('suspend', 'CommonReasonedCommand', { doc: {
  summary: 'Suspend an active relationship',
  description:
    'active → suspended. Either organization; a reason is required. Records suspendedAt and the ' +
    'suspending organization; sharing stops at once: the open match proposals made under it are ' +
    'withdrawn (their reservations and requests released). Emits ' +
    '`pcx.partner-relationship.suspended.v1`.',
  responses: {
    '422': '`INVALID_STATE_TRANSITION` (not active).',
  },
} });
command('terminate', 'CommonReasonedCommand', { doc: {
  summary: 'Terminate an active or suspended relationship',
  description:
    'active or suspended → terminated (terminationCause `terminated`). Either organization; a ' +
    'reason is required. Records terminatedAt; sharing stops at once (open match proposals made ' +
    'under an active relationship are withdrawn); the record is kept for audit and never moves ' +
    'again. The same happens at effectiveUntil (terminationCause `expired`). Emits ' +
    '`pcx.partner-relationship.terminated.v1`.',
  responses: {
    '422': '`INVALID_STATE_TRANSITION` (neither active nor suspended).',
  },
} });
command('reactivate', 'CommonCommand', { doc: {
  summary: 'Reactivate a suspended relationship',
  description:
    'suspended → active. Only the organization that issued the suspension; refused with ' +
    '`RESOURCE_EXPIRED` when effectiveUntil has passed. Records reactivatedAt. Emits ' +
    '`pcx.partner-relationship.reactivated.v1`.',
  responses: {
    '403':
      '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE`, or `ACTOR_NOT_PERMITTED` (not the ' +
      'organization that suspended).',
    '422': '`INVALID_STATE_TRANSITION` (not suspended) or `RESOURCE_EXPIRED` (effectiveUntil has passed).',
  },
} });

// Retention holds (issue 34 part 4; docs/retention.md): a protocol operator holds what is linked to
// a relationship against the retention purge, whatever its policy and also after it ended (its
// retentionPolicyRef changes in draft only); both parties read the hold.
const holding = participantAccess<PartnerRelationship>(resource, resource.scopes.read, { anyScope: [resource.scopes.read, 'exchange:admin'], operator: true });
const holdMissing = () => new Problem('RESOURCE_NOT_FOUND', 'this relationship is under no retention hold');
const operatorOnly = (principal: { operator: boolean }) => {
  if (!principal.operator) throw new Problem('ACTOR_NOT_PERMITTED', "a retention hold is placed and lifted by the protocol operator; the parties read it");
};

operation(partnerRelationships, {
  method: 'GET', path: '/:id/retention-hold', access: holding, answers: [200],
  returns: 'RetentionHold',
  doc: {
    id: 'getRetentionHold',
    summary: "A relationship's retention hold",
    description: 'The hold a protocol operator placed on the relationship, if any (404 `RESOURCE_NOT_FOUND` when there is none). Either party of the relationship, or an operator.',
    responses: { '200': 'The hold.', '403': '`INSUFFICIENT_SCOPE` or `ORGANIZATION_INACTIVE`.', '404': true },
  },
}, async ({ c, resource: doc }) => {
  const hold = await holdOf(c.get('services').db, doc.id);
  if (!hold) throw holdMissing();
  return c.json(hold);
});

operation(partnerRelationships, {
  method: 'POST', path: '/:id/retention-hold', access: holding, body: 'RetentionHoldPlaceRequest', answers: [200],
  returns: 'RetentionHold',
  doc: {
    id: 'placeRetentionHold',
    summary: 'Place a retention hold on a relationship',
    description:
      'While the hold is there the retention purge removes nothing linked to the relationship (the relationship, ' +
      'its proposals, tenders, commitments, handovers and execution records) and erases none of its handovers\u2019 ' +
      'contact persons, whatever its `retentionPolicyRef`, also after the relationship ended. Placed again, the ' +
      'hold keeps its first placement\u2019s time and takes the new reason. A protocol operator (`exchange:admin`) ' +
      'only: a party is refused with 403 `ACTOR_NOT_PERMITTED`.',
    responses: { '200': 'The hold.', '400': '`VALIDATION_FAILED`: no reason.', '403': '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE` or `ACTOR_NOT_PERMITTED`.', '404': true },
  },
}, async ({ c, resource: doc, principal, body }) => {
  operatorOnly(principal);
  const placedBy = { organizationId: principal.organizationId, clientId: principal.clientId, ...(principal.userId ? { userId: principal.userId } : {}) };
  const hold = await placeHold(c.get('services').db, { relationshipId: doc.id, reason: (body as { reason: string }).reason, placedAt: new Date().toISOString(), placedBy });
  return c.json(hold);
});

operation(partnerRelationships, {
  method: 'DELETE', path: '/:id/retention-hold', access: holding, answers: [204],
  doc: {
    id: 'liftRetentionHold',
    summary: "Lift a relationship's retention hold",
    description: 'The relationship\u2019s policy applies again from the purge\u2019s next round (what fell due meanwhile goes then). A protocol operator only; 404 `RESOURCE_NOT_FOUND` when there is no hold.',
    responses: { '204': 'Lifted.', '403': '`INSUFFICIENT_SCOPE`, `ORGANIZATION_INACTIVE` or `ACTOR_NOT_PERMITTED`.', '404': true },
  },
}, async ({ c, resource: doc, principal }) => {
  operatorOnly(principal);
  if (!(await liftHold(c.get('services').db, doc.id))) throw holdMissing();
  return c.body(null, 204);
});
