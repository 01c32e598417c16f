// PartnerRelationship: bilateral authorization between two organizations. The state machine of
// the specification's "PartnerRelationship" table and rules 1-7, and its entity workflow.
import {
  bump,
  Command,
  Envelope,
  firstVersion,
  invalidTransition,
  Machine,
  refuse,
  Transition,
} from './machine';
import { defineResource } from './resource';
import { FLOWS, type EndRelationshipProposalsInput, type MatchRelationshipInput } from './flows';

/**
 * A relationship coming into force brings new candidates: matching runs for both organizations'
 * listings, at effectiveFrom when that lies ahead (before it, the relationship is not in force).
 */
const matchBoth = (state: PartnerRelationship, now: string) => [
  {
    flow: FLOWS.matchRelationship,
    input: {
      organizationIds: [state.requestingOrganizationId, state.acceptingOrganizationId],
      ...(state.effectiveFrom && Date.parse(state.effectiveFrom) > Date.parse(now) ? { notBefore: state.effectiveFrom } : {}),
    } satisfies MatchRelationshipInput,
  },
];

export type RelationshipStatus = 'draft' | 'requested' | 'active' | 'suspended' | 'terminated';
export type TerminationCause = 'rejected' | 'withdrawn' | 'terminated' | 'expired';

export interface RelationshipReason {
  kind: 'rejection' | 'withdrawal' | 'suspension' | 'termination' | 'expiry';
  reason: string;
  reasonCode?: string;
  organizationId?: string;
  at: string;
}

export interface PartnerRelationship extends Envelope {
  status: RelationshipStatus;
  requestingOrganizationId: string;
  acceptingOrganizationId: string;
  /** Scopes asked for by the requesting organization. */
  requestedScopes: string[];
  /** Scopes in force: on acceptance, the requested scopes both partnering policies grant. */
  scopes: string[];
  visibilityPolicy: { groups: string[] };
  /** Who must accept a match (MatchDecision), and optionally which connector roles may decide. */
  decisionPolicy: { mode: 'BILATERAL_REQUIRED' | 'INITIATOR_ONLY'; decidingRoles?: string[] };
  effectiveFrom?: string;
  effectiveUntil?: string;
  retentionPolicyRef?: string;
  submittedAt?: string;
  activatedAt?: string;
  suspendedAt?: string;
  suspendedByOrganizationId?: string;
  reactivatedAt?: string;
  terminatedAt?: string;
  terminationCause?: TerminationCause;
  reasons: RelationshipReason[];
}

/** Facts the API looks up in the partnering policies and passes to the workflow. */
export interface RelationshipContext {
  requestingGrantedScopes?: string[];
  acceptingGrantedScopes?: string[];
  /** Create: whether acceptingOrganizationId is an organization known to the broker. */
  acceptingOrganizationKnown?: boolean;
  /** The retention policies retentionPolicyRef may name (config/retention-policies.json); absent in commands recorded before they were named. */
  retentionPolicies?: string[];
}

/** A retentionPolicyRef must name one of the broker's retention policies (domain/retention.ts). */
function checkRetentionPolicy(ref: unknown, context: RelationshipContext | undefined) {
  if (typeof ref !== 'string' || !context?.retentionPolicies) return;
  if (!context.retentionPolicies.includes(ref)) {
    refuse('VALIDATION_FAILED', `retentionPolicyRef names no retention policy of this broker (GET /retention-policies: ${context.retentionPolicies.join(', ')})`, {
      errors: [{ pointer: '/retentionPolicyRef', message: `must be one of ${context.retentionPolicies.join(', ')}` }],
    });
  }
}

export const KIND = 'partner-relationship';
const EVENT = (name: string) => `pcx.partner-relationship.${name}.v1`;

const both = (s: PartnerRelationship) => [s.requestingOrganizationId, s.acceptingOrganizationId];

function actorOrg(command: Command): string {
  return command.actor.organizationId ?? '';
}

function requireRequester(state: PartnerRelationship, command: Command) {
  if (actorOrg(command) !== state.requestingOrganizationId) {
    refuse('ACTOR_NOT_PERMITTED', `only the requesting organization may ${command.name} this relationship`);
  }
}

function requireAccepter(state: PartnerRelationship, command: Command) {
  if (actorOrg(command) !== state.acceptingOrganizationId) {
    refuse('ACTOR_NOT_PERMITTED', `only the accepting organization may ${command.name} this relationship`);
  }
}

function requireParticipant(state: PartnerRelationship, command: Command) {
  if (!both(state).includes(actorOrg(command))) {
    refuse('ACTOR_NOT_PERMITTED', `only a party to the relationship may ${command.name} it`);
  }
}

function requireStatus(state: PartnerRelationship, command: Command, allowed: RelationshipStatus[]) {
  if (!allowed.includes(state.status)) invalidTransition(KIND, command.name, state.status);
}

function reasonOf(command: Command, kind: RelationshipReason['kind'], now: string, required: boolean): RelationshipReason[] {
  const reason = command.payload?.reason;
  if (typeof reason !== 'string' || reason.trim() === '') {
    if (required) refuse('VALIDATION_FAILED', `a reason is required to ${command.name}`, { errors: [{ pointer: '/reason', message: 'is required' }] });
    return [];
  }
  return [
    {
      kind,
      reason,
      ...(command.payload.reasonCode ? { reasonCode: command.payload.reasonCode } : {}),
      organizationId: command.actor.organizationId,
      at: now,
    },
  ];
}

function hasPassed(at: string | undefined, now: string) {
  return at !== undefined && Date.parse(at) <= Date.parse(now);
}

function checkWindow(effectiveFrom: string | undefined, effectiveUntil: string | undefined) {
  if (effectiveFrom && effectiveUntil && Date.parse(effectiveFrom) >= Date.parse(effectiveUntil)) {
    refuse('VALIDATION_FAILED', 'effectiveFrom must be before effectiveUntil', {
      errors: [{ pointer: '/effectiveUntil', message: 'must be after effectiveFrom' }],
    });
  }
}

function terminate(
  state: PartnerRelationship,
  now: string,
  cause: TerminationCause,
  reasons: RelationshipReason[],
): Transition<PartnerRelationship> {
  const next = bump(state, now, {
    status: 'terminated',
    terminatedAt: now,
    terminationCause: cause,
    reasons: [...state.reasons, ...reasons],
  } as Partial<PartnerRelationship>);
  // A draft was never shown to the accepting organization (rule 7); its end is not either.
  const audience = state.status === 'draft' ? [state.requestingOrganizationId] : both(state);
  return { state: next, events: [{ type: EVENT('terminated'), audience }], effects: state.status === 'active' ? endProposals(state, now, `the partner relationship ended (${cause})`) : [] };
}

/**
 * Sharing stops with the relationship: its open proposals end (withdrawn, their reservations and
 * requests released).
 */
const endProposals = (state: PartnerRelationship, now: string, reason: string) => [
  { flow: FLOWS.endRelationshipProposals, input: { relationshipId: state.id, at: now, reason } satisfies EndRelationshipProposalsInput },
];

const PATCHABLE = ['scopes', 'visibilityPolicy', 'decisionPolicy', 'effectiveFrom', 'effectiveUntil', 'retentionPolicyRef', 'externalReferences', 'extensions'] as const;

/** Payload of suspend, terminate, withdraw (reason required) and reject (reason optional). */
export interface ReasonPayload {
  reason?: string;
  reasonCode?: string;
}

export const partnerRelationshipMachine = {
  kind: KIND,
  brokerCommands: ['expire'],

  create(command: Command<any, RelationshipContext>, id: string, now: string): Transition<PartnerRelationship> {
    const p = command.payload;
    if (p.requestingOrganizationId !== actorOrg(command)) {
      refuse('ORGANIZATION_BINDING_VIOLATION', 'requestingOrganizationId must be the organization of the caller');
    }
    if (command.context?.acceptingOrganizationKnown === false) {
      refuse('UNKNOWN_ORGANIZATION', 'acceptingOrganizationId is not an organization known to the broker', {
        errors: [{ pointer: '/acceptingOrganizationId', message: 'is not a known organization' }],
      });
    }
    if (p.acceptingOrganizationId === p.requestingOrganizationId) {
      refuse('VALIDATION_FAILED', 'an organization cannot partner with itself', {
        errors: [{ pointer: '/acceptingOrganizationId', message: 'must differ from requestingOrganizationId' }],
      });
    }
    checkWindow(p.effectiveFrom, p.effectiveUntil);
    checkRetentionPolicy(p.retentionPolicyRef, command.context);
    const context: RelationshipContext = command.context ?? {};
    const notGranted = (p.scopes as string[]).filter((s) => !(context.requestingGrantedScopes ?? []).includes(s));
    if (notGranted.length) {
      refuse('SCOPES_NOT_GRANTED', `the partnering policy of the requesting organization does not grant ${notGranted.join(', ')}`);
    }
    const state: PartnerRelationship = {
      ...firstVersion(id, p.requestingOrganizationId, now),
      ...(p.externalReferences ? { externalReferences: p.externalReferences } : {}),
      ...(p.extensions ? { extensions: p.extensions } : {}),
      status: 'draft',
      requestingOrganizationId: p.requestingOrganizationId,
      acceptingOrganizationId: p.acceptingOrganizationId,
      requestedScopes: [...new Set<string>(p.scopes)].sort(),
      scopes: [],
      visibilityPolicy: p.visibilityPolicy ?? { groups: [] },
      decisionPolicy: p.decisionPolicy ?? { mode: 'BILATERAL_REQUIRED' },
      ...(p.effectiveFrom ? { effectiveFrom: p.effectiveFrom } : {}),
      ...(p.effectiveUntil ? { effectiveUntil: p.effectiveUntil } : {}),
      ...(p.retentionPolicyRef ? { retentionPolicyRef: p.retentionPolicyRef } : {}),
      reasons: [],
    };
    return { state, events: [] };
  },

  commands: {
    update(state: PartnerRelationship, command: Command<Record<string, any>, RelationshipContext>, now: string): Transition<PartnerRelationship> {
      const patch = command.payload ?? {};
      if (state.status !== 'draft') {
        if (
          patch.decisionPolicy !== undefined &&
          state.status === 'active' &&
          patch.decisionPolicy?.mode !== state.decisionPolicy.mode
        ) {
          refuse('INCOMPATIBLE_DECISION_POLICY', 'the decision policy of an active relationship cannot be changed');
        }
        invalidTransition(KIND, 'update', state.status);
      }
      requireRequester(state, command);
      checkRetentionPolicy(patch.retentionPolicyRef, command.context);
      const changes: Record<string, unknown> = {};
      for (const field of PATCHABLE) {
        if (!(field in patch)) continue;
        // JSON merge patch: null removes an optional field.
        changes[field] = patch[field] === null ? undefined : patch[field];
      }
      if (Array.isArray(changes.scopes)) {
        const granted = (command.context as RelationshipContext | undefined)?.requestingGrantedScopes ?? [];
        const notGranted = (changes.scopes as string[]).filter((s) => !granted.includes(s));
        if (notGranted.length) refuse('SCOPES_NOT_GRANTED', `the partnering policy of the requesting organization does not grant ${notGranted.join(', ')}`);
        changes.requestedScopes = [...new Set(changes.scopes as string[])].sort();
        delete changes.scopes;
      }
      if ('decisionPolicy' in changes && changes.decisionPolicy === undefined) changes.decisionPolicy = { mode: 'BILATERAL_REQUIRED' };
      if ('visibilityPolicy' in changes && changes.visibilityPolicy === undefined) changes.visibilityPolicy = { groups: [] };
      const next = bump(state, now, changes as Partial<PartnerRelationship>);
      for (const field of PATCHABLE) if ((next as any)[field] === undefined) delete (next as any)[field];
      checkWindow(next.effectiveFrom, next.effectiveUntil);
      return { state: next, events: [] };
    },

    request(state: PartnerRelationship, command: Command<Record<string, never>, RelationshipContext>, now: string): Transition<PartnerRelationship> {
      requireRequester(state, command);
      requireStatus(state, command, ['draft']);
      if (hasPassed(state.effectiveUntil, now)) refuse('RESOURCE_EXPIRED', 'effectiveUntil has passed');
      return {
        state: bump(state, now, { status: 'requested', submittedAt: now }),
        events: [{ type: EVENT('requested'), audience: both(state) }],
      };
    },

    accept(state: PartnerRelationship, command: Command<Record<string, never>, RelationshipContext>, now: string): Transition<PartnerRelationship> {
      requireAccepter(state, command);
      requireStatus(state, command, ['requested']);
      if (hasPassed(state.effectiveUntil, now)) refuse('RESOURCE_EXPIRED', 'effectiveUntil has passed');
      const context: RelationshipContext = command.context ?? {};
      const scopes = state.requestedScopes.filter(
        (s) => (context.requestingGrantedScopes ?? []).includes(s) && (context.acceptingGrantedScopes ?? []).includes(s),
      );
      if (scopes.length === 0) {
        refuse('SCOPES_NOT_GRANTED', 'the partnering policies of the two organizations grant none of the requested scopes');
      }
      return {
        state: bump(state, now, {
          status: 'active',
          scopes,
          activatedAt: now,
          effectiveFrom: state.effectiveFrom ?? now,
        }),
        events: [{ type: EVENT('activated'), audience: both(state) }],
        effects: matchBoth(state, now),
      };
    },

    reject(state: PartnerRelationship, command: Command<ReasonPayload, RelationshipContext>, now: string): Transition<PartnerRelationship> {
      requireAccepter(state, command);
      requireStatus(state, command, ['requested']);
      return terminate(state, now, 'rejected', reasonOf(command, 'rejection', now, false));
    },

    withdraw(state: PartnerRelationship, command: Command<ReasonPayload, RelationshipContext>, now: string): Transition<PartnerRelationship> {
      requireRequester(state, command);
      requireStatus(state, command, ['draft', 'requested']);
      return terminate(state, now, 'withdrawn', reasonOf(command, 'withdrawal', now, true));
    },

    suspend(state: PartnerRelationship, command: Command<ReasonPayload, RelationshipContext>, now: string): Transition<PartnerRelationship> {
      requireParticipant(state, command);
      requireStatus(state, command, ['active']);
      const reasons = reasonOf(command, 'suspension', now, true);
      return {
        state: bump(state, now, {
          status: 'suspended',
          suspendedAt: now,
          suspendedByOrganizationId: actorOrg(command),
          reasons: [...state.reasons, ...reasons],
        }),
        events: [{ type: EVENT('suspended'), audience: both(state) }],
        effects: endProposals(state, now, 'the partner relationship was suspended'),
      };
    },

    reactivate(state: PartnerRelationship, command: Command<Record<string, never>, RelationshipContext>, now: string): Transition<PartnerRelationship> {
      requireStatus(state, command, ['suspended']);
      if (actorOrg(command) !== state.suspendedByOrganizationId) {
        refuse('ACTOR_NOT_PERMITTED', 'only the organization that suspended the relationship may reactivate it');
      }
      if (hasPassed(state.effectiveUntil, now)) refuse('RESOURCE_EXPIRED', 'effectiveUntil has passed; create a new relationship');
      const next = bump(state, now, { status: 'active', reactivatedAt: now });
      delete next.suspendedByOrganizationId;
      return { state: next, events: [{ type: EVENT('reactivated'), audience: both(state) }], effects: matchBoth(state, now) };
    },

    terminate(state: PartnerRelationship, command: Command<ReasonPayload, RelationshipContext>, now: string): Transition<PartnerRelationship> {
      requireParticipant(state, command);
      requireStatus(state, command, ['active', 'suspended']);
      return terminate(state, now, 'terminated', reasonOf(command, 'termination', now, true));
    },

    expire(state: PartnerRelationship, _command: Command, now: string): Transition<PartnerRelationship> {
      if (state.status === 'terminated' || !hasPassed(state.effectiveUntil, now)) invalidTransition(KIND, 'expire', state.status);
      return terminate(state, now, 'expired', [{ kind: 'expiry', reason: 'effectiveUntil has passed', at: now }]);
    },
  },

  deadline(state: PartnerRelationship) {
    if (state.status === 'terminated' || !state.effectiveUntil) return undefined;
    return { at: state.effectiveUntil, command: 'expire' };
  },
} satisfies Machine<PartnerRelationship>;

export const partnerRelationship = defineResource({
  kind: KIND,
  retention: { purged: 'relationship', relationship: { self: true }, ownPolicyRef: true },
  collection: 'partner-relationships',
  workflowType: 'partnerRelationshipWorkflow',
  table: 'partner_relationships',
  readModel: 'own',
  statuses: ['draft', 'requested', 'active', 'suspended', 'terminated'],
  terminalStatuses: ['terminated'],
  // There is no relationships:read among the recommended scopes: reads need manage too.
  scopes: { read: 'relationships:manage', write: 'relationships:manage' },
  // Both organizations see the whole relationship: it holds nothing one may not know of the other.
  fields: Object.fromEntries(
    [
      'id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'externalReferences', 'extensions', 'status',
      'requestingOrganizationId', 'acceptingOrganizationId', 'requestedScopes', 'scopes', 'visibilityPolicy', 'decisionPolicy',
      'effectiveFrom', 'effectiveUntil', 'retentionPolicyRef', 'submittedAt', 'activatedAt', 'suspendedAt',
      'suspendedByOrganizationId', 'reactivatedAt', 'terminatedAt', 'terminationCause', 'reasons',
    ].map((field) => [field, 'shared' as const]),
  ),
  // The accepting organization takes part once the relationship has been requested (rule 7: a
  // draft, even one withdrawn before it was requested, stays invisible to it).
  participants: (state) => (state.submittedAt !== undefined ? [state.requestingOrganizationId, state.acceptingOrganizationId] : [state.requestingOrganizationId]),
  searchAttributes: (state) => ({
    owner: state.requestingOrganizationId,
    partner: state.acceptingOrganizationId,
    status: state.status,
  }),
  machine: partnerRelationshipMachine,
  // The events its transitions emit (domain/events.ts gathers every kind's), and what emits each.
  events: {
    'pcx.partner-relationship.requested.v1': { emittedBy: 'submit of a relationship (POST /partner-relationships/{id}/request)' },
    'pcx.partner-relationship.activated.v1': { emittedBy: 'accept' },
    'pcx.partner-relationship.suspended.v1': { emittedBy: 'suspend' },
    'pcx.partner-relationship.reactivated.v1': { emittedBy: 'reactivate' },
    'pcx.partner-relationship.terminated.v1': { emittedBy: 'reject, withdraw, terminate, or the end of effectiveUntil' },
  },
});
