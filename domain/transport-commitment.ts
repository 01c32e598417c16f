// TransportCommitment: immutable proof that every decision the tender's policy requires accepted
// one revision before expiry or withdrawal (protocol rule 5). Created by the broker only (the
// tender's commit flow), never by an HTTP create. Its decision-relevant payload is digested
// (RFC 8785 canonical JSON, SHA-256; core/digest.ts) so that any party can recompute it. An
// amendment accepted later creates a new commitment version with a new digest; this one then
// becomes `superseded` and stays readable (rule 15). A cancel by either party, under the
// cancellation policy, releases the capacity and the request. A commitment proves agreement only,
// not that the executing system imported the work (that is the handover's acknowledgement).
//
// status      how it gets there
// active      created by the commit flow (pcx.transport-commitment.created.v1, or .amended.v1
//             for a version that replaces another)
// superseded  an accepted amendment created the next version
// cancelled   either party cancelled it (pcx.transport-commitment.cancelled.v1)
// Both superseded and cancelled are terminal.
import type { BaseCapacity } from './capacity';
import { bump, Command, Envelope, EventDraft, isBroker, Machine, refuse, Transition, firstVersion } from './machine';
import { defineResource } from './resource';
import { FLOWS, type CommitmentCancelledInput } from './flows';
import type { CancellationPolicy, TenderDecision, TenderTerms } from './transport-tender';

export type CommitmentStatus = 'active' | 'superseded' | 'cancelled';

export interface CommitmentDigest {
  algorithm: 'SHA-256';
  canonicalization: 'RFC 8785';
  /** The members of the digest input, in the documented order (core/digest.ts). */
  fields: string[];
  /** Lower-case hex of SHA-256 over the canonical UTF-8 bytes of the digest input. */
  value: string;
}

export interface TransportCommitment extends Envelope {
  status: CommitmentStatus;
  /** 1 for the first, n+1 for the version an accepted amendment creates. */
  commitmentVersion: number;
  previousCommitmentId?: string;
  supersededByCommitmentId?: string;
  supersededAt?: string;
  tenderId: string;
  issuingOrganizationId: string;
  executingOrganizationId: string;
  movementScope: string;
  /** The accepted tender revision: its number, author and the terms exactly as presented. */
  acceptedRevision: { number: number; authorOrganizationId: string; terms: TenderTerms };
  /** The decisions the policy required, with their actors and timestamps. */
  requiredDecisions: TenderDecision[];
  decisionPolicy: { mode: string };
  acceptedAt: string;
  /** The relationship and its version at acceptance: the policy version the agreement was made under. */
  relationshipId: string;
  relationshipVersion: number;
  /** What it consumes: the offer's capacity committed by the accepted proposal, if the tender came from one. */
  capacity: { state: 'consumed' | 'none'; originatingProposalId?: string; capacityOfferId?: string; loadRequestId?: string; allocation?: BaseCapacity };
  cancellationPolicy: CancellationPolicy;
  digest: CommitmentDigest;
  cancelledAt?: string;
  cancellation?: { reason: string; reasonCode?: string; organizationId: string; clientId?: string; at: string };
}

export const KIND = 'transport-commitment';

export type CreatePayload = Omit<TransportCommitment, keyof Envelope | 'status'>;

const both = (c: TransportCommitment) => [c.issuingOrganizationId, c.executingOrganizationId];
const event = (c: TransportCommitment, name: string): EventDraft => ({ type: `pcx.${KIND}.${name}.v1`, audience: both(c) });

/** Whether the cancellation policy lets `org` cancel now (docs/decisions.md, "Cancellation policy"). */
export function cancellationAllowed(c: TransportCommitment, org: string, now: string): string | undefined {
  const policy = c.cancellationPolicy;
  if (policy.mode === 'none') return 'the cancellation policy allows no cancellation';
  if (policy.mode === 'issuerOnly' && org !== c.issuingOrganizationId) return 'the cancellation policy lets only the issuing organization cancel';
  if (policy.noticeHours !== undefined) {
    const firstStart = Math.min(...c.acceptedRevision.terms.stops.map((s) => Date.parse(s.timeWindow.start)));
    if (Number.isFinite(firstStart) && Date.parse(now) > firstStart - policy.noticeHours * 3600_000) {
      return `the cancellation policy needs ${policy.noticeHours} hours' notice before the first stop`;
    }
  }
  return undefined;
}

export const transportCommitmentMachine = {
  kind: KIND,
  brokerCommands: ['supersede'],

  create(command: Command<CreatePayload>, id: string, now: string): Transition<TransportCommitment> {
    if (!isBroker(command.actor)) refuse('ACTOR_NOT_PERMITTED', 'commitments are created by the broker when a tender is accepted');
    const p = command.payload;
    const state: TransportCommitment = {
      ...p,
      ...firstVersion(id, p.issuingOrganizationId, now),
      status: 'active',
    };
    return { state, events: [event(state, p.previousCommitmentId ? 'amended' : 'created')] };
  },

  commands: {
    // An accepted amendment created the next version; this one stays readable (rule 15).
    supersede(c: TransportCommitment, command: Command<{ byCommitmentId: string }>, now: string): Transition<TransportCommitment> {
      if (c.status !== 'active') refuse('INVALID_STATE_TRANSITION', `a ${c.status} commitment cannot be superseded`, { currentState: c.status });
      return { state: bump(c, now, { status: 'superseded', supersededByCommitmentId: command.payload.byCommitmentId, supersededAt: now }), events: [] };
    },

    // POST /transport-commitments/{id}/cancel: either party, a reason, the cancellation policy.
    cancel(c: TransportCommitment, command: Command<{ reason: string; reasonCode?: string }>, now: string): Transition<TransportCommitment> {
      const org = command.actor.organizationId ?? '';
      if (command.actor.kind !== 'connector' || !both(c).includes(org)) refuse('ACTOR_NOT_PERMITTED', 'only the two organizations of the commitment may cancel it');
      if (c.status !== 'active') refuse('INVALID_STATE_TRANSITION', `a ${c.status} commitment cannot be cancelled`, { currentState: c.status });
      const { reason, reasonCode } = command.payload ?? {};
      if (typeof reason !== 'string' || reason.trim() === '') refuse('VALIDATION_FAILED', 'a reason is required to cancel', { errors: [{ pointer: '/reason', message: 'is required' }] });
      const refused = cancellationAllowed(c, org, now);
      if (refused) refuse('CANCELLATION_NOT_ALLOWED', refused);
      const next = bump(c, now, {
        status: 'cancelled',
        cancelledAt: now,
        cancellation: { reason, ...(reasonCode ? { reasonCode } : {}), organizationId: org, clientId: command.actor.clientId, at: now },
      });
      const input: CommitmentCancelledInput = {
        commitmentId: c.id,
        tenderId: c.tenderId,
        reason,
        ...(c.capacity.originatingProposalId ? { proposalId: c.capacity.originatingProposalId, offerId: c.capacity.capacityOfferId!, requestId: c.capacity.loadRequestId! } : {}),
      };
      return { state: next, events: [event(next, 'cancelled')], effects: [{ flow: FLOWS.commitmentCancelled, input }] };
    },
  },

  deadline: () => undefined,
} satisfies Machine<TransportCommitment>;

const FIELDS = [
  'id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'externalReferences', 'extensions', 'status',
  'commitmentVersion', 'previousCommitmentId', 'supersededByCommitmentId', 'supersededAt', 'tenderId', 'issuingOrganizationId',
  'executingOrganizationId', 'movementScope', 'acceptedRevision', 'requiredDecisions', 'decisionPolicy', 'acceptedAt',
  'relationshipId', 'relationshipVersion', 'capacity', 'cancellationPolicy', 'digest', 'cancelledAt', 'cancellation',
];

export const transportCommitment = defineResource({
  kind: KIND,
  retention: { purged: 'commitment', relationship: { field: ['relationshipId'] } },
  collection: 'transport-commitments',
  workflowType: 'transportCommitmentWorkflow',
  table: 'transport_commitments',
  indexedFields: ['tenderId'],
  statuses: ['active', 'superseded', 'cancelled'],
  terminalStatuses: ['superseded', 'cancelled'],
  scopes: { read: 'commitments:read', write: 'tenders:decide' },
  fields: Object.fromEntries(FIELDS.map((f) => [f, 'shared' as const])),
  participants: (c) => both(c),
  // The digest stands for the decision-relevant payload (core/digest.ts), which anyone recomputes.
  ledger: (c) => [{ key: `transport-commitments/${c.id}#/digest`, record: c.digest }],
  searchAttributes: (c) => ({ owner: c.issuingOrganizationId, partner: c.executingOrganizationId, status: c.status }),
  machine: transportCommitmentMachine,
  // The events its transitions emit (domain/events.ts gathers every kind's), and what emits each.
  events: {
    'pcx.transport-commitment.created.v1': { emittedBy: 'the accept that completes the tender policy' },
    'pcx.transport-commitment.amended.v1': { emittedBy: 'the accept of an amendment (a new commitment version)' },
    'pcx.transport-commitment.cancelled.v1': { emittedBy: 'cancel' },
  },
});
