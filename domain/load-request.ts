// LoadRequest: demand for transport capacity. The shared listing lifecycle (domain/listing.ts)
// plus the broker-only transitions propose, accept and proposalEnded, which no public endpoint
// and no connector can call; the matching flows do (workflows/flows/).
import { bump, Command, invalidTransition, Machine, refuse } from './machine';
import { FLOWS, type EndProposalsInput, type MatchInput } from './flows';
import { Listing, LISTING_DEFINITION, LISTING_FIELDS, listingMachine, requireStatus } from './listing';
import { defineResource } from './resource';

export type RequestStatus = 'draft' | 'published' | 'proposed' | 'matched' | 'withdrawn' | 'expired' | 'cancelled';

export interface LoadRequest extends Listing {
  status: RequestStatus;
  pickupArea?: unknown;
  pickupWindow?: { start: string; end: string; timeZone?: string };
  deliveryArea?: unknown;
  deliveryWindow?: { start: string; end: string; timeZone?: string };
  requiredCapacity?: Record<string, unknown>;
  vehicleRequirements?: unknown;
  goodsProfile?: unknown;
  handlingRequirements?: unknown;
  restrictedDetails?: unknown;
  proposalIds: string[];
  openProposalIds: string[];
  acceptedProposalId?: string;
  /** The offer and its owner of the accepted proposal: that organization reads it in the accepted phase. */
  matchedOfferId?: string;
  matchedOrganizationId?: string;
  /** The transport commitment recording the match: its counterpart reads in the committed phase. */
  matchedCommitmentId?: string;
  /** The match released when its commitment was cancelled (the request is published again). */
  releasedMatches?: Array<{ proposalId: string; commitmentId?: string; at: string }>;
}

export const KIND = 'load-request';

export const REQUEST_FIELDS = [
  'pickupArea', 'pickupWindow', 'deliveryArea', 'deliveryWindow', 'requiredCapacity', 'vehicleRequirements',
  'goodsProfile', 'handlingRequirements', 'expiresAt', 'visibility', 'restrictedDetails',
] as const;

const listing = listingMachine<LoadRequest>({
  kind: KIND,
  fields: REQUEST_FIELDS,
  requiredToPublish: ['pickupArea', 'pickupWindow', 'deliveryArea', 'deliveryWindow', 'requiredCapacity', 'vehicleRequirements', 'goodsProfile', 'expiresAt', 'visibility'],
  nonEmptyToPublish: ['requiredCapacity'],
  windows: ['pickupWindow', 'deliveryWindow'],
  lapseWindows: ['pickupWindow', 'deliveryWindow'],
  live: ['published', 'proposed'],
  cancellable: ['draft', 'published', 'proposed'],
  publishChecks: (state) =>
    state.pickupWindow && state.deliveryWindow && Date.parse(state.deliveryWindow.end) <= Date.parse(state.pickupWindow.start)
      ? [{ pointer: '/deliveryWindow/end', message: 'must be after the start of the pickup window' }]
      : [],
  initial: { proposalIds: [], openProposalIds: [] },
  onPublished: (state) => [{ flow: FLOWS.match, input: { kind: KIND, id: state.id } satisfies MatchInput }],
  // Its open proposals end with it, before the command answers (specification: "set to withdrawn
  // before or atomically with it"); the request no longer counts them as open.
  onEnded: (state) => endProposals(state.openProposalIds ?? [], 'withdrawByBroker', 'the load request ended', undefined, true),
  ending: () => ({ openProposalIds: [] }),
});

function endProposals(proposalIds: string[], command: EndProposalsInput['command'], reason: string, byProposalId?: string, awaited = false) {
  return proposalIds.length
    ? [{ flow: FLOWS.endProposals, input: { proposalIds, command, reason, ...(byProposalId ? { byProposalId } : {}) } satisfies EndProposalsInput, ...(awaited ? { awaited } : {}) }]
    : [];
}

/** Payload of the broker's matching commands on a request. */
export interface ProposalPayload {
  proposalId: string;
  /** propose and accept: the offer of the proposal and its owner. */
  offerId?: string;
  organizationId?: string;
}

function proposalIdOf(payload: Partial<ProposalPayload> | undefined): string {
  if (typeof payload?.proposalId !== 'string') refuse('VALIDATION_FAILED', 'proposalId is required');
  return payload.proposalId;
}

// An open proposal ended (expired, rejected, withdrawn); with none left the request is published
// again and matching runs for it.
function proposalEnded(state: LoadRequest, command: Command<ProposalPayload>, now: string) {
  requireStatus(KIND, state, command, ['proposed']);
  const proposalId = proposalIdOf(command.payload);
  if (!state.openProposalIds.includes(proposalId)) invalidTransition(KIND, 'proposalEnded', state.status);
  const openProposalIds = state.openProposalIds.filter((id) => id !== proposalId);
  const next = bump(state, now, { status: openProposalIds.length ? 'proposed' : 'published', openProposalIds });
  return { state: next, events: [], effects: openProposalIds.length ? [] : [{ flow: FLOWS.match, input: { kind: KIND, id: state.id } satisfies MatchInput }] };
}

export const loadRequestMachine = {
  ...listing,
  brokerCommands: ['expire', 'lapse', 'propose', 'accept', 'proposalEnded', 'proposalExpired', 'linkCommitment', 'unlinkCommitment', 'unmatch'],
  commands: {
    ...listing.commands,

    // A proposal referencing this request was created (rule 10: only proposals of this request).
    propose(state: LoadRequest, command: Command<ProposalPayload>, now: string) {
      requireStatus(KIND, state, command, ['published', 'proposed']);
      const proposalId = proposalIdOf(command.payload);
      if (state.proposalIds.includes(proposalId)) invalidTransition(KIND, 'propose', state.status);
      const next = bump(state, now, {
        status: 'proposed',
        proposalIds: [...state.proposalIds, proposalId],
        openProposalIds: [...state.openProposalIds, proposalId],
      });
      return { state: next, events: [] };
    },

    // A proposal was accepted by all required parties: exactly one accepted proposal (rule 4).
    // Its other open proposals are superseded.
    accept(state: LoadRequest, command: Command<ProposalPayload>, now: string) {
      requireStatus(KIND, state, command, ['proposed']);
      const proposalId = proposalIdOf(command.payload);
      if (!state.openProposalIds.includes(proposalId)) invalidTransition(KIND, 'accept', state.status);
      const next = bump(state, now, {
        status: 'matched',
        matchedAt: now,
        acceptedProposalId: proposalId,
        openProposalIds: [],
        ...(command.payload.offerId ? { matchedOfferId: command.payload.offerId } : {}),
        ...(command.payload.organizationId ? { matchedOrganizationId: command.payload.organizationId } : {}),
      });
      const others = state.openProposalIds.filter((id) => id !== proposalId);
      return {
        state: next,
        events: [{ type: `pcx.${KIND}.matched.v1`, audience: [state.ownerOrganizationId], shareWithPartners: true }],
        effects: endProposals(others, 'supersede', 'another proposal of the load request was accepted', proposalId),
      };
    },

    // A transport commitment records the match (idempotent for the same commitment).
    linkCommitment(state: LoadRequest, command: Command<{ proposalId: string; commitmentId: string }>, now: string) {
      requireStatus(KIND, state, command, ['matched']);
      if (state.acceptedProposalId !== command.payload?.proposalId) invalidTransition(KIND, 'linkCommitment', state.status);
      if (state.matchedCommitmentId === command.payload.commitmentId) return { state, events: [] };
      return { state: bump(state, now, { matchedCommitmentId: command.payload.commitmentId }), events: [] };
    },

    // The commitment named by linkCommitment was never made (its tender's acceptance was abandoned).
    unlinkCommitment(state: LoadRequest, command: Command<{ proposalId: string; commitmentId: string }>, now: string) {
      if (state.matchedCommitmentId === undefined || state.matchedCommitmentId !== command.payload?.commitmentId) return { state, events: [] };
      const next = bump(state, now, {});
      delete next.matchedCommitmentId;
      return { state: next, events: [] };
    },

    // The commitment of its match was cancelled: the request is open again and matching runs.
    unmatch(state: LoadRequest, command: Command<{ proposalId: string; commitmentId?: string }>, now: string) {
      requireStatus(KIND, state, command, ['matched']);
      if (state.acceptedProposalId !== command.payload?.proposalId) invalidTransition(KIND, 'unmatch', state.status);
      const released = { proposalId: state.acceptedProposalId, ...(state.matchedCommitmentId ? { commitmentId: state.matchedCommitmentId } : {}), at: now };
      const next = bump(state, now, { status: 'published', releasedMatches: [...(state.releasedMatches ?? []), released] });
      for (const field of ['matchedAt', 'acceptedProposalId', 'matchedOfferId', 'matchedOrganizationId', 'matchedCommitmentId'] as const) delete next[field];
      return { state: next, events: [], effects: [{ flow: FLOWS.match, input: { kind: KIND, id: state.id } satisfies MatchInput }] };
    },

    proposalEnded,
    // The name proposalEnded had before (recorded histories, and flows started then, send it).
    proposalExpired: proposalEnded,
  },
} satisfies Machine<LoadRequest>;

export const loadRequest = defineResource({
  kind: KIND,
  ...LISTING_DEFINITION,
  collection: 'load-requests',
  workflowType: 'loadRequestWorkflow',
  table: 'load_requests',
  statuses: ['draft', 'published', 'proposed', 'matched', 'withdrawn', 'expired', 'cancelled'],
  scopes: { read: 'loads:read', write: 'loads:publish' },
  fields: {
    ...LISTING_FIELDS,
    pickupArea: 'terms', pickupWindow: 'terms', deliveryArea: 'terms', deliveryWindow: 'terms', requiredCapacity: 'terms',
    vehicleRequirements: 'terms', goodsProfile: 'terms', handlingRequirements: 'terms',
    proposalIds: 'private', openProposalIds: 'private', acceptedProposalId: 'private', matchedOfferId: 'private', matchedOrganizationId: 'private', matchedCommitmentId: 'private', releasedMatches: 'private',
  },
  partnerStatuses: ['published', 'proposed'],
  counterparts: (state) => (state.matchedOrganizationId ? [state.matchedOrganizationId] : []),
  committedCounterparts: (state) => (state.matchedOrganizationId && state.matchedCommitmentId ? [state.matchedOrganizationId] : []),
  machine: loadRequestMachine,
  // The events its transitions emit (domain/events.ts gathers every kind's), and what emits each.
  events: {
    'pcx.load-request.published.v1': { emittedBy: 'publish' },
    'pcx.load-request.matched.v1': { emittedBy: 'accept (a proposal accepted by every party the policy requires)' },
    'pcx.load-request.withdrawn.v1': { emittedBy: 'withdraw' },
    'pcx.load-request.expired.v1': { emittedBy: 'expire (expiresAt reached)' },
    'pcx.load-request.lapsed.v1': { emittedBy: 'lapse (the pickup or delivery window can no longer be met: less than an hour of it left)' },
    'pcx.load-request.cancelled.v1': { emittedBy: 'cancel by a protocol operator' },
  },
});
