// The names and inputs of the cross-resource flows, as the machines that declare them as effects
// and the API that starts one see them (pure: no flow code is imported into a machine). Every
// flow of workflows/flows/ is named here, and registered by this name.

export const FLOWS = {
  /** Matching for one listing (published, capacity released, back to published). */
  match: 'matchListingFlow',
  /** A pair a participant proposes (POST /match-proposals), evaluated and proposed as matching does. */
  proposePair: 'proposePairFlow',
  /** Matching for the listings of two organizations whose relationship came into force. */
  matchRelationship: 'matchRelationshipFlow',
  /** The acceptance of a proposal: commit the offer's allocation, match the request, commit the proposal. */
  accept: 'acceptProposalFlow',
  /** A proposal ended without acceptance: release the offer's allocation and the request. */
  release: 'releaseProposalFlow',
  /** Proposals that end because their listing ended or another proposal was accepted. */
  endProposals: 'endProposalsFlow',
  /** Open proposals made under a relationship that is no longer in force (suspended, terminated, expired). */
  endRelationshipProposals: 'endRelationshipProposalsFlow',
  /** An accepted tender revision becomes a transport commitment (or its next version). */
  commitTender: 'commitTenderFlow',
  /** A cancelled commitment releases the offer's capacity and the request, and closes the tender. */
  commitmentCancelled: 'commitmentCancelledFlow',
  /** A handover (or its successful acknowledgement) is recorded on the match's execution reference. */
  handoverToReference: 'handoverToReferenceFlow',
  /** An organization that ended: its open listings cancelled by the exchange, their proposals ending with them. */
  organizationEnded: 'organizationEndedFlow',
  /** A series' due occurrences: each created and published as its own listing, in its owner's name. */
  publishOccurrences: 'publishOccurrencesFlow',
  /** A series that ended: its occurrences not yet begun withdrawn with the reason. */
  withdrawOccurrences: 'withdrawOccurrencesFlow',
} as const;

const FLOW_TYPES: ReadonlySet<string> = new Set(Object.values(FLOWS));

/** Whether a workflow type is one of the flows (not an entity workflow). */
export function isFlow(workflowType: string): boolean {
  return FLOW_TYPES.has(workflowType);
}

/**
 * The sink through which flows report how they ended (workflows/interceptors.ts), outside the
 * workflow sandbox and never during replay: the worker turns it into pcx_flow_duration_seconds.
 */
export type FlowMetricsSink = {
  flowEnded(flow: string, outcome: string, seconds: number): void;
};

/**
 * The longest a flow that an intermediate state waits for may run (its workflowExecutionTimeout):
 * the acceptance of a proposal, the commitment of a tender. Its activities give up well before
 * (workflows/flows/commands.ts, FLOW_ACTIVITIES), so it ends by itself, compensated, first.
 */
export const FLOW_TIMEOUT_MS = 30 * 60_000;
/**
 * How long after it began an intermediate state (a proposal COMMITTING, a tender accepting) ends
 * itself if its flow never finished it: after the flow's whole life, so the two never race.
 */
export const FLOW_DEADLINE_MS = 45 * 60_000;

export interface OrganizationEndedInput {
  organizationId: string;
  reason: string;
}

export interface MatchInput {
  kind: 'capacity-offer' | 'load-request';
  id: string;
}

export interface MatchRelationshipInput {
  organizationIds: [string, string];
  /** The relationship's effectiveFrom when it lies ahead: matching waits until it is in force. */
  notBefore?: string;
}

export interface AcceptInput {
  proposalId: string;
  offerId: string;
  requestId: string;
  requestOwnerOrganizationId: string;
  offerOwnerOrganizationId: string;
}

export interface ReleaseInput {
  proposalId: string;
  offerId: string;
  requestId: string;
  /** Release the request too (not when it was matched by another proposal). */
  releaseRequest: boolean;
}

export interface EndProposalsInput {
  proposalIds: string[];
  /** The proposal's command: withdrawn because a listing ended, or superseded by an accepted one. */
  /** withdrawBySystem: the same as withdrawByBroker, in inputs of flows started before it was renamed. */
  command: 'withdrawByBroker' | 'withdrawBySystem' | 'supersede';
  reason: string;
  byProposalId?: string;
}

export interface EndRelationshipProposalsInput {
  relationshipId: string;
  /** The transition's instant: proposals made after it (under a reactivated relationship) stay. */
  at: string;
  reason: string;
}

export interface CommitTenderInput {
  tenderId: string;
  revision: number;
  /** The commitment an accepted amendment replaces. */
  previousCommitmentId?: string;
  originatingProposalId?: string;
  capacityOfferId?: string;
  loadRequestId?: string;
  requiredDecisions: Array<{ id: string; organizationId: string; decision: 'accept' | 'reject'; revision: number; decidedAt: string; decidedBy: { organizationId: string; clientId?: string } }>;
}

export interface CommitmentCancelledInput {
  commitmentId: string;
  tenderId: string;
  reason: string;
  proposalId?: string;
  offerId?: string;
  requestId?: string;
}

export interface HandoverToReferenceInput {
  referenceId: string;
  handoverId?: string;
  sourceExternalReferences?: Array<{ system: string; type: string; value: string }>;
  destinationExternalReferences?: Array<{ system: string; type: string; value: string }>;
}

