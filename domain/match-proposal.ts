// MatchProposal: an explainable, non-binding match of one capacity offer and one load request
// (protocol rules 3, 4), and the decisions of its two organizations under the relationship's
// decision policy (MatchDecision). Its content is immutable once created; only its status, its
// decision state and the append-only list of decisions change. Transition table: docs/decisions.md,
// "MatchProposal transitions".
//
// status         decisionState               how it gets there
// open           PENDING_INITIATOR_ACCEPT    created (or the acceptor accepted first)
// open           PENDING_ACCEPTOR_ACCEPT     the initiator accepted, BILATERAL_REQUIRED
// open           COMMITTING                  every required accept is in: the acceptance flow runs
// accepted       COMMITTED                   the flow committed the offer's capacity and matched the request
// rejected       REJECTED                    either organization rejected
// withdrawn      CANCELLED                   either organization withdrew, a listing ended, or the
//                                            acceptance could not be committed (the request changed)
// superseded     CANCELLED                   another proposal of the request was accepted
// expired        EXPIRED                     validUntil passed before the decision completed
import type { Rationale } from './matching';
import { bump, Command, Envelope, EventDraft, isBroker, Machine, Refusal, refuse, Transition, firstVersion } from './machine';
import { defineResource } from './resource';
import { FLOW_DEADLINE_MS, FLOW_TIMEOUT_MS, FLOWS, type AcceptInput, type ReleaseInput } from './flows';
import { listRecords } from './transparency-log';

export type ProposalStatus = 'open' | 'accepted' | 'rejected' | 'expired' | 'superseded' | 'withdrawn';
export type DecisionState =
  | 'PENDING_INITIATOR_ACCEPT'
  | 'PENDING_ACCEPTOR_ACCEPT'
  | 'COMMITTING'
  | 'COMMITTED'
  | 'REJECTED'
  | 'EXPIRED'
  | 'CANCELLED';
export type DecisionPolicyMode = 'BILATERAL_REQUIRED' | 'INITIATOR_ONLY';
export type DecisionValue = 'accept' | 'reject' | 'withdraw';

/** An append-only record of one organization's decision (MatchDecision). */
export interface MatchDecision {
  id: string;
  proposalId: string;
  organizationId: string;
  decision: DecisionValue;
  decidedAt: string;
  /** The actor reference: the deciding connector and its roles. */
  decidedBy: { organizationId: string; clientId?: string; userId?: string; actorRoles?: string[] };
  reasonCode?: string;
  comment?: string;
  observedProposalVersion: number;
}

export interface RequiredDecisionPolicy {
  mode: DecisionPolicyMode;
  /** The organization whose accept INITIATOR_ONLY needs (docs/decisions.md, "The initiator"). */
  initiatorOrganizationId: string;
  acceptorOrganizationId: string;
  /** Connector roles allowed to decide; absent: any connector of the two organizations. */
  decidingRoles?: string[];
  /** The relationship the policy comes from, and its version when the proposal was made. */
  relationshipId: string;
  relationshipVersion: number;
}

export interface MatchProposal extends Envelope {
  status: ProposalStatus;
  decisionState: DecisionState;
  capacityOfferId: string;
  /** The offer version the match observed (optimistic concurrency of the reservation). */
  capacityOfferVersion: number;
  offerOwnerOrganizationId: string;
  loadRequestId: string;
  loadRequestVersion: number;
  requestOwnerOrganizationId: string;
  validUntil: string;
  score: number;
  compatibility: unknown[];
  routeCompatibility: Record<string, unknown>;
  capacityCompatibility: Record<string, unknown>;
  rationale: Rationale;
  requiredDecisionPolicy: RequiredDecisionPolicy;
  createdBy: { kind: 'broker' } | { kind: 'participant'; organizationId: string; clientId?: string };
  schemaVersion: string;
  decisions: MatchDecision[];
  acceptedAt?: string;
  rejectedAt?: string;
  expiredAt?: string;
  withdrawnAt?: string;
  supersededAt?: string;
  supersededByProposalId?: string;
  /** Why a proposal ended without acceptance when no decision says it (a listing ended, ...). */
  endReason?: { reason: string; code?: string };
}

export const KIND = 'match-proposal';
const COLLECTION = 'match-proposals';
export const SCHEMA_VERSION = 'v0';

/** What the matching flow hands to create (the evaluation and the pair it observed). */
export type CreatePayload = Omit<MatchProposal, keyof Envelope | 'status' | 'decisionState' | 'decisions' | 'schemaVersion'>;

export interface DecisionPayload {
  decision: DecisionValue;
  reasonCode?: string;
  comment?: string;
}

/** Facts the API gathers for a decision: the roles the registry gives the deciding connector. */
export interface DecisionContext {
  actorRoles?: string[];
  /**
   * Whether a relationship granting the matching scopes is in force between the two organizations
   * now (the API reads it). Absent in commands recorded before it existed: taken as in force.
   */
  relationshipInForce?: boolean;
}

const TERMINAL: readonly ProposalStatus[] = ['accepted', 'rejected', 'expired', 'superseded', 'withdrawn'];
const both = (p: MatchProposal) => [p.offerOwnerOrganizationId, p.requestOwnerOrganizationId];
const event = (p: MatchProposal, name: string): EventDraft => ({ type: `pcx.${KIND}.${name}.v1`, audience: both(p) });
/** The decision is the subject of its own event, at version 1 (a decision never changes). */
const decisionEvent = (p: MatchProposal, decision: MatchDecision): EventDraft => ({
  type: 'pcx.match-decision.recorded.v1',
  audience: both(p),
  record: { subject: `${COLLECTION}/${p.id}/decisions/${decision.id}`, version: 1, schema: `${KIND}#/$defs/MatchDecision`, data: decision },
});

function release(p: MatchProposal, releaseRequest = true) {
  return [{ flow: FLOWS.release, input: { proposalId: p.id, offerId: p.capacityOfferId, requestId: p.loadRequestId, releaseRequest } satisfies ReleaseInput }];
}

/** The decision is over: 409 with currentState (specification, Errors). */
function requireOpen(p: MatchProposal, allowCommitting = false) {
  if (p.status !== 'open') refuse('DECISION_TERMINAL', `the decision on this proposal has ended (${p.decisionState})`, { currentState: p.decisionState });
  if (p.decisionState === 'COMMITTING' && !allowCommitting) {
    refuse('DECISION_IN_PROGRESS', 'every required organization has accepted; the acceptance is being committed', { currentState: p.decisionState });
  }
}

function requireSystemCommitting(p: MatchProposal) {
  requireOpen(p, true);
  if (p.decisionState !== 'COMMITTING') refuse('INVALID_STATE_TRANSITION', 'the proposal is not being committed', { currentState: p.decisionState });
}

/** Which organizations have accepted, and whether the policy is satisfied. */
export function acceptance(p: Pick<MatchProposal, 'decisions' | 'requiredDecisionPolicy'>) {
  const accepted = new Set(p.decisions.filter((d) => d.decision === 'accept').map((d) => d.organizationId));
  const { mode, initiatorOrganizationId, acceptorOrganizationId } = p.requiredDecisionPolicy;
  const initiator = accepted.has(initiatorOrganizationId);
  const acceptor = accepted.has(acceptorOrganizationId);
  const satisfied = mode === 'INITIATOR_ONLY' ? initiator : initiator && acceptor;
  const state: DecisionState = satisfied ? 'COMMITTING' : initiator ? 'PENDING_ACCEPTOR_ACCEPT' : 'PENDING_INITIATOR_ACCEPT';
  return { accepted, satisfied, state };
}

function end(p: MatchProposal, now: string, changes: Partial<MatchProposal>, name: string, releaseRequest = true, decision?: EventDraft): Transition<MatchProposal> {
  const next = bump(p, now, changes);
  return { state: next, events: [...(decision ? [decision] : []), event(next, name)], effects: release(next, releaseRequest) };
}

// Its offer or request was withdrawn, expired or cancelled.
function withdrawByBroker(p: MatchProposal, command: Command<{ reason: string }>, now: string): Transition<MatchProposal> {
  requireOpen(p);
  return end(p, now, { status: 'withdrawn', decisionState: 'CANCELLED', withdrawnAt: now, endReason: { reason: command.payload.reason } }, 'withdrawn');
}

export const matchProposalMachine = {
  kind: KIND,
  brokerCommands: ['commit', 'abandonCommit', 'expire', 'withdrawByBroker', 'withdrawBySystem', 'supersede'],

  create(command: Command<CreatePayload>, id: string, now: string): Transition<MatchProposal> {
    // Broker-made (matching) or on a participant's request; either way the matching flow sends it.
    if (!isBroker(command.actor)) refuse('ACTOR_NOT_PERMITTED', 'proposals are created by the broker');
    const p = command.payload;
    for (const field of ['capacityOfferId', 'loadRequestId', 'offerOwnerOrganizationId', 'requestOwnerOrganizationId', 'validUntil', 'requiredDecisionPolicy'] as const) {
      if (p?.[field] === undefined) refuse('VALIDATION_FAILED', `${field} is required`);
    }
    const state: MatchProposal = {
      ...p,
      ...firstVersion(id, p.requiredDecisionPolicy.initiatorOrganizationId, now),
      status: 'open',
      decisionState: 'PENDING_INITIATOR_ACCEPT',
      schemaVersion: SCHEMA_VERSION,
      decisions: [],
    };
    return { state, events: [event(state, 'created')] };
  },

  commands: {
    // POST /match-proposals/{id}/decisions. Gate 10 (actor role) and the policy live here.
    decide(p: MatchProposal, command: Command<DecisionPayload, DecisionContext>, now: string): Transition<MatchProposal> {
      const org = command.actor.organizationId ?? '';
      if (command.actor.kind !== 'connector' || !both(p).includes(org)) refuse('ACTOR_NOT_PERMITTED', 'only the two organizations of the proposal decide on it');
      const roles = command.context?.actorRoles ?? [];
      const allowed = p.requiredDecisionPolicy.decidingRoles;
      if (allowed && !allowed.some((r) => roles.includes(r))) {
        refuse('ACTOR_NOT_PERMITTED', `the decision policy lets only connectors with the role ${allowed.join(' or ')} decide`);
      }
      requireOpen(p);
      if (Date.parse(now) >= Date.parse(p.validUntil)) refuse('RESOURCE_EXPIRED', 'the proposal is past its validUntil', { currentState: p.decisionState });
      const { decision, reasonCode, comment } = command.payload;
      // Sharing stops when the relationship does (suspended, terminated, past effectiveUntil): an
      // open proposal can still be rejected or withdrawn, never accepted into a new match.
      if (decision === 'accept' && command.context?.relationshipInForce === false) {
        refuse('RELATIONSHIP_INACTIVE', 'no partner relationship granting matching is in force between the two organizations; the proposal can only be rejected or withdrawn', { currentState: p.decisionState });
      }
      // A repeated accept by one organization is idempotent: nothing is recorded, nothing advances.
      if (decision === 'accept' && acceptance(p).accepted.has(org)) return { state: p, events: [] };
      const record: MatchDecision = {
        id: command.commandId,
        proposalId: p.id,
        organizationId: org,
        decision,
        decidedAt: now,
        decidedBy: { organizationId: org, clientId: command.actor.clientId, ...(command.actor.userId ? { userId: command.actor.userId } : {}), ...(roles.length ? { actorRoles: roles } : {}) },
        ...(reasonCode ? { reasonCode } : {}),
        ...(comment ? { comment } : {}),
        observedProposalVersion: command.expectedVersion ?? p.resourceVersion,
      };
      const decisions = [...p.decisions, record];
      if (decision === 'reject') return end(p, now, { decisions, status: 'rejected', decisionState: 'REJECTED', rejectedAt: now }, 'rejected', true, decisionEvent(p, record));
      if (decision === 'withdraw') return end(p, now, { decisions, status: 'withdrawn', decisionState: 'CANCELLED', withdrawnAt: now }, 'withdrawn', true, decisionEvent(p, record));
      const { satisfied, state: decisionState } = acceptance({ decisions, requiredDecisionPolicy: p.requiredDecisionPolicy });
      const next = bump(p, now, { decisions, decisionState });
      const accept: AcceptInput = {
        proposalId: p.id,
        offerId: p.capacityOfferId,
        requestId: p.loadRequestId,
        requestOwnerOrganizationId: p.requestOwnerOrganizationId,
        offerOwnerOrganizationId: p.offerOwnerOrganizationId,
      };
      return { state: next, events: [decisionEvent(p, record)], effects: satisfied ? [{ flow: FLOWS.accept, input: accept, timeoutMs: FLOW_TIMEOUT_MS }] : [] };
    },

    // The acceptance flow committed the offer's capacity and matched the request.
    commit(p: MatchProposal, _command: Command, now: string): Transition<MatchProposal> {
      requireSystemCommitting(p);
      const next = bump(p, now, { status: 'accepted', decisionState: 'COMMITTED', acceptedAt: now });
      return { state: next, events: [event(next, 'accepted')] };
    },

    // The acceptance could not be committed (the offer or the request changed or ended first), or
    // its flow never finished it (the COMMITTING deadline: no reason given).
    abandonCommit(p: MatchProposal, command: Command<{ reason?: string; code?: string }>, now: string): Transition<MatchProposal> {
      requireSystemCommitting(p);
      const reason = command.payload?.reason ?? 'the acceptance was not committed in time';
      const code = command.payload?.reason ? command.payload.code : 'COMMIT_TIMEOUT';
      return end(p, now, { status: 'withdrawn', decisionState: 'CANCELLED', withdrawnAt: now, endReason: { reason, ...(code ? { code } : {}) } }, 'withdrawn');
    },

    // validUntil passed while the decision was still open.
    expire(p: MatchProposal, _command: Command, now: string): Transition<MatchProposal> {
      requireOpen(p);
      if (Date.parse(now) < Date.parse(p.validUntil)) refuse('INVALID_STATE_TRANSITION', 'validUntil has not passed', { currentState: p.decisionState });
      return end(p, now, { status: 'expired', decisionState: 'EXPIRED', expiredAt: now }, 'expired');
    },

    withdrawByBroker,
    // The name withdrawByBroker had before (recorded histories, and flows started then, send it).
    withdrawBySystem: withdrawByBroker,

    // Another proposal of the same request was accepted: this one's reservation is released; the
    // request is matched by the other, so it is not released.
    supersede(p: MatchProposal, command: Command<{ byProposalId?: string; reason: string }>, now: string): Transition<MatchProposal> {
      requireOpen(p);
      return end(
        p,
        now,
        { status: 'superseded', decisionState: 'CANCELLED', supersededAt: now, ...(command.payload.byProposalId ? { supersededByProposalId: command.payload.byProposalId } : {}), endReason: { reason: command.payload.reason } },
        'superseded',
        false,
      );
    },
  },

  // An action on a terminal decision is 409 with currentState (specification, Errors).
  ended: (p: MatchProposal) => ({
    code: 'DECISION_TERMINAL',
    detail: `the decision on this proposal has ended (${p.decisionState})`,
    extensions: { currentState: p.decisionState },
  }),

  deadline(p: MatchProposal) {
    if (p.status !== 'open') return undefined;
    // COMMITTING began at updatedAt (nothing else changes the proposal meanwhile); its flow has
    // ended long before this, so the proposal ends itself and releases what the flow left held.
    if (p.decisionState === 'COMMITTING') return { at: new Date(Date.parse(p.updatedAt) + FLOW_DEADLINE_MS).toISOString(), command: 'abandonCommit' };
    return { at: p.validUntil, command: 'expire' };
  },
} satisfies Machine<MatchProposal>;

const FIELDS = [
  'id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'status', 'decisionState',
  'capacityOfferId', 'capacityOfferVersion', 'offerOwnerOrganizationId', 'loadRequestId', 'loadRequestVersion', 'requestOwnerOrganizationId',
  'validUntil', 'score', 'compatibility', 'routeCompatibility', 'capacityCompatibility', 'rationale', 'requiredDecisionPolicy',
  'createdBy', 'schemaVersion', 'decisions', 'acceptedAt', 'rejectedAt', 'expiredAt', 'withdrawnAt', 'supersededAt',
  'supersededByProposalId', 'endReason',
];

export const matchProposal = defineResource({
  kind: KIND,
  retention: { purged: 'proposal', relationship: { field: ['requiredDecisionPolicy', 'relationshipId'] } },
  collection: COLLECTION,
  workflowType: 'matchProposalWorkflow',
  table: 'match_proposals',
  indexedFields: ['capacityOfferId', 'loadRequestId'],
  statuses: ['open', 'accepted', 'rejected', 'expired', 'superseded', 'withdrawn'],
  terminalStatuses: TERMINAL,
  scopes: { read: 'matches:read', write: 'matches:decide' },
  // The two organizations see all of it; nobody else sees a proposal at all (rule 2).
  fields: Object.fromEntries(FIELDS.map((f) => [f, 'shared' as const])),
  participants: (p) => both(p),
  ledger: (p) => listRecords(`${COLLECTION}/${p.id}`, 'decisions', p.decisions),
  // The owner is the initiator (ownerOrganizationId), as everywhere else; the partner the acceptor.
  searchAttributes: (p) => ({ owner: p.ownerOrganizationId, partner: p.requiredDecisionPolicy.acceptorOrganizationId, status: p.status }),
  machine: matchProposalMachine,
  // The events its transitions emit (domain/events.ts gathers every kind's), and what emits each.
  events: {
    'pcx.match-proposal.created.v1': { emittedBy: 'propose (matching, or POST /match-proposals by a participant)' },
    'pcx.match-proposal.accepted.v1': { emittedBy: 'the decision that completes the decision policy' },
    'pcx.match-proposal.rejected.v1': { emittedBy: 'a reject decision' },
    'pcx.match-proposal.expired.v1': { emittedBy: 'validUntil reached while open' },
    'pcx.match-proposal.superseded.v1': { emittedBy: 'another proposal of its load request accepted' },
    'pcx.match-proposal.withdrawn.v1': { emittedBy: 'a withdraw decision, or its offer or request ended' },
    'pcx.match-decision.recorded.v1': { emittedBy: 'POST /match-proposals/{id}/decisions', data: 'match-proposal#/$defs/MatchDecision' },
  },
});

/** A pair a participant proposes (POST /match-proposals): proposePairFlow's input. */
export interface ProposePairInput {
  offerId: string;
  requestId: string;
  /** The participant who asks for the pair: the proposal's initiator. */
  proposedBy: { organizationId: string; clientId?: string };
}

/** What proposing a pair gave: the proposal, or the refusal of the step that stopped it. */
export type ProposeOutcome = { ok: true; proposal: MatchProposal } | { ok: false; refusal: Refusal };
