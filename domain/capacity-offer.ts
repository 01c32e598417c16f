// CapacityOffer: free vehicle or trip capacity. The shared listing lifecycle (domain/listing.ts)
// plus the broker-only matching transitions: partialMatch and fullMatch reserve capacity for a
// proposal (tentative), commit makes a reservation final when its proposal is accepted, unmatch
// releases one. No public endpoint and no connector can call them; the matching flows do
// (workflows/flows/). The offer itself keeps its allocations within availableCapacity (rule 10).
import { exhausts, overflow, remainingCapacity, sumCapacity, toBaseCapacity, type BaseCapacity } from './capacity';
import { bump, Command, Machine, refuse } from './machine';
import { FLOWS, type EndProposalsInput, type MatchInput } from './flows';
import { Listing, LISTING_DEFINITION, LISTING_FIELDS, listingMachine, requireStatus } from './listing';
import { defineResource } from './resource';

export type OfferStatus = 'draft' | 'published' | 'partiallyMatched' | 'matched' | 'withdrawn' | 'expired' | 'cancelled';

/** Capacity a proposal holds on the offer: tentative while the proposal is open, committed once accepted. */
export interface Allocation {
  proposalId: string;
  requestId: string;
  /** The request's owner: once committed, its disclosure phase for this offer is `accepted`. */
  organizationId: string;
  /** Base units (kg, m³, m, pallet spaces), the dimensions compared by matching. */
  capacity: BaseCapacity;
  state: 'tentative' | 'committed';
  at: string;
  committedAt?: string;
  /** The transport commitment that records this allocation (its counterpart then reads in the committed phase). */
  commitmentId?: string;
}

export interface CapacityOffer extends Listing {
  status: OfferStatus;
  availabilityWindow?: { start: string; end: string; timeZone?: string };
  originArea?: unknown;
  destinationArea?: unknown;
  direction?: string;
  vehicleProfile?: unknown;
  availableCapacity?: Record<string, unknown>;
  constraints?: unknown;
  maximumDetour?: unknown;
  restrictedDetails?: unknown;
  allocations: Allocation[];
  /** Requests ever proposed with this offer: a pair is proposed by the broker once. */
  proposedRequestIds: string[];
}

export const KIND = 'capacity-offer';

export const OFFER_FIELDS = [
  'availabilityWindow', 'originArea', 'destinationArea', 'direction', 'vehicleProfile', 'availableCapacity',
  'constraints', 'maximumDetour', 'expiresAt', 'visibility', 'restrictedDetails',
] as const;

const listing = listingMachine<CapacityOffer>({
  kind: KIND,
  fields: OFFER_FIELDS,
  requiredToPublish: ['availabilityWindow', 'originArea', 'destinationArea', 'vehicleProfile', 'availableCapacity', 'expiresAt', 'visibility'],
  nonEmptyToPublish: ['availableCapacity'],
  windows: ['availabilityWindow'],
  lapseWindows: ['availabilityWindow'],
  live: ['published', 'partiallyMatched'],
  cancellable: ['draft', 'published', 'partiallyMatched'],
  initial: { allocations: [], proposedRequestIds: [] },
  onPublished: (state) => [{ flow: FLOWS.match, input: { kind: KIND, id: state.id } satisfies MatchInput }],
  onEnded: (state) => endTentative(state, 'the capacity offer ended'),
  // Its open proposals end with it (onEnded), so their reservations go with it; committed stay.
  ending: (state) => ({ allocations: (state.allocations ?? []).filter((a) => a.state !== 'tentative') }),
});

/** Open (tentative) proposals end with the offer; committed matches are not reversed (rule 4). */
function endTentative(state: CapacityOffer, reason: string) {
  const proposalIds = (state.allocations ?? []).filter((a) => a.state === 'tentative').map((a) => a.proposalId);
  // Awaited: when the withdraw (or cancel) answers, none of them is open any more.
  return proposalIds.length ? [{ flow: FLOWS.endProposals, input: { proposalIds, command: 'withdrawByBroker', reason } satisfies EndProposalsInput, awaited: true }] : [];
}

/** What is left of availableCapacity after every allocation, tentative and committed. */
export function offerRemaining(state: CapacityOffer): BaseCapacity {
  return remainingCapacity(toBaseCapacity(state.availableCapacity), sumCapacity(state.allocations.map((a) => a.capacity)));
}

/** Payload of partialMatch and fullMatch: the proposal, its request and the capacity it takes. */
export interface AllocationPayload {
  proposalId: string;
  requestId: string;
  organizationId: string;
  capacity: BaseCapacity;
  /** A participant asked for this pair explicitly: allowed even if the broker proposed it before. */
  explicit?: boolean;
}

function allocate(state: CapacityOffer, payload: AllocationPayload, full: boolean, now: string) {
  if (typeof payload?.proposalId !== 'string' || typeof payload.requestId !== 'string' || !payload.capacity) {
    refuse('VALIDATION_FAILED', 'proposalId, requestId and capacity are required');
  }
  if (state.allocations.some((a) => a.requestId === payload.requestId) || (!payload.explicit && state.proposedRequestIds.includes(payload.requestId))) {
    refuse('DUPLICATE_MATCH', 'this offer already has a proposal for this load request');
  }
  const remaining = offerRemaining(state);
  const over = overflow(remaining, payload.capacity);
  if (over.length) refuse('CAPACITY_EXCEEDED', `the offer's remaining capacity cannot hold ${over.join(', ')}`, { dimensions: over });
  if (exhausts(remaining, payload.capacity) !== full) {
    refuse('INVALID_STATE_TRANSITION', full ? 'fullMatch needs an allocation that uses up the offer' : 'partialMatch would use up the offer: use fullMatch', { currentState: state.status });
  }
  const allocation: Allocation = { proposalId: payload.proposalId, requestId: payload.requestId, organizationId: payload.organizationId, capacity: payload.capacity, state: 'tentative', at: now };
  return {
    allocations: [...state.allocations, allocation],
    proposedRequestIds: state.proposedRequestIds.includes(payload.requestId) ? state.proposedRequestIds : [...state.proposedRequestIds, payload.requestId],
  };
}

const event = (name: string, owner: string) => ({ type: `pcx.${KIND}.${name}.v1`, audience: [owner], shareWithPartners: true });

export const capacityOfferMachine = {
  ...listing,
  brokerCommands: ['expire', 'lapse', 'partialMatch', 'fullMatch', 'commit', 'linkCommitment', 'unlinkCommitment', 'unmatch'],
  commands: {
    ...listing.commands,

    // Some capacity tentatively matched by a proposal; matching continues.
    partialMatch(state: CapacityOffer, command: Command<AllocationPayload>, now: string) {
      requireStatus(KIND, state, command, ['published', 'partiallyMatched']);
      const next = bump(state, now, { status: 'partiallyMatched', ...allocate(state, command.payload, false, now) });
      return { state: next, events: [event('partially-matched', state.ownerOrganizationId)] };
    },

    // The proposal takes what remains; matching is blocked.
    fullMatch(state: CapacityOffer, command: Command<AllocationPayload>, now: string) {
      requireStatus(KIND, state, command, ['published', 'partiallyMatched']);
      const next = bump(state, now, { status: 'matched', matchedAt: now, ...allocate(state, command.payload, true, now) });
      return { state: next, events: [event('matched', state.ownerOrganizationId)] };
    },

    // The proposal was accepted: its reservation becomes final.
    commit(state: CapacityOffer, command: Command<{ proposalId: string }>, now: string) {
      requireStatus(KIND, state, command, ['partiallyMatched', 'matched']);
      const found = state.allocations.find((a) => a.proposalId === command.payload?.proposalId);
      if (!found || found.state !== 'tentative') refuse('INVALID_STATE_TRANSITION', 'no tentative allocation for this proposal', { currentState: state.status });
      const allocations = state.allocations.map((a) => (a === found ? { ...a, state: 'committed' as const, committedAt: now } : a));
      return { state: bump(state, now, { allocations }), events: [] };
    },

    // A transport commitment records this committed allocation (idempotent for the same commitment;
    // an amendment's new commitment version takes it over).
    linkCommitment(state: CapacityOffer, command: Command<{ proposalId: string; commitmentId: string }>, now: string) {
      const found = state.allocations.find((a) => a.proposalId === command.payload?.proposalId);
      if (!found || found.state !== 'committed') refuse('INVALID_STATE_TRANSITION', 'no committed allocation for this proposal', { currentState: state.status });
      if (found.commitmentId === command.payload.commitmentId) return { state, events: [] };
      const allocations = state.allocations.map((a) => (a === found ? { ...a, commitmentId: command.payload.commitmentId } : a));
      return { state: bump(state, now, { allocations }), events: [] };
    },

    // The commitment named by linkCommitment was never made (its tender's acceptance was
    // abandoned): the allocation stays committed to the proposal, without it.
    unlinkCommitment(state: CapacityOffer, command: Command<{ proposalId: string; commitmentId: string }>, now: string) {
      const found = state.allocations.find((a) => a.proposalId === command.payload?.proposalId);
      if (!found || found.commitmentId !== command.payload.commitmentId) return { state, events: [] };
      const allocations = state.allocations.map((a) => {
        if (a !== found) return a;
        const { commitmentId: _c, ...rest } = a;
        return rest;
      });
      return { state: bump(state, now, { allocations }), events: [] };
    },

    // A proposal ended without acceptance, or an accepted match was cancelled: its capacity is
    // free again, and matching runs for it.
    unmatch(state: CapacityOffer, command: Command<{ proposalId: string }>, now: string) {
      requireStatus(KIND, state, command, ['matched', 'partiallyMatched']);
      const allocations = state.allocations.filter((a) => a.proposalId !== command.payload?.proposalId);
      if (allocations.length === state.allocations.length) refuse('INVALID_STATE_TRANSITION', 'no allocation for this proposal', { currentState: state.status });
      const next = bump(state, now, { status: allocations.length ? 'partiallyMatched' : 'published', allocations });
      delete next.matchedAt;
      return { state: next, events: [], effects: [{ flow: FLOWS.match, input: { kind: KIND, id: state.id } satisfies MatchInput }] };
    },
  },
} satisfies Machine<CapacityOffer>;

export const capacityOffer = defineResource({
  kind: KIND,
  ...LISTING_DEFINITION,
  collection: 'capacity-offers',
  workflowType: 'capacityOfferWorkflow',
  table: 'capacity_offers',
  statuses: ['draft', 'published', 'partiallyMatched', 'matched', 'withdrawn', 'expired', 'cancelled'],
  scopes: { read: 'capacity:read', write: 'capacity:publish' },
  fields: {
    ...LISTING_FIELDS,
    availabilityWindow: 'terms', originArea: 'terms', destinationArea: 'terms', direction: 'terms', vehicleProfile: 'terms',
    availableCapacity: 'terms', constraints: 'terms', maximumDetour: 'terms',
    allocations: 'private', proposedRequestIds: 'private',
  },
  partnerStatuses: ['published', 'partiallyMatched'],
  counterparts: (state) => [...new Set(state.allocations.filter((a) => a.state === 'committed').map((a) => a.organizationId))],
  committedCounterparts: (state) => [...new Set(state.allocations.filter((a) => a.commitmentId).map((a) => a.organizationId))],
  machine: capacityOfferMachine,
  // The events its transitions emit (domain/events.ts gathers every kind's), and what emits each.
  events: {
    'pcx.capacity-offer.published.v1': { emittedBy: 'publish' },
    'pcx.capacity-offer.partially-matched.v1': { emittedBy: 'partialMatch (the broker reserves part of the capacity for a proposal)' },
    'pcx.capacity-offer.matched.v1': { emittedBy: 'fullMatch (the broker reserves the rest of the capacity)' },
    'pcx.capacity-offer.withdrawn.v1': { emittedBy: 'withdraw' },
    'pcx.capacity-offer.expired.v1': { emittedBy: 'expire (expiresAt reached)' },
    'pcx.capacity-offer.lapsed.v1': { emittedBy: 'lapse (the availability window can no longer be met: less than an hour of it left)' },
    'pcx.capacity-offer.cancelled.v1': { emittedBy: 'cancel by a protocol operator' },
  },
});
