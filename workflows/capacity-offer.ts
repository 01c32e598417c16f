// CapacityOffer: free vehicle or trip capacity. The shared listing lifecycle (workflows/listing.ts)
// plus the broker-only matching transitions partialMatch, fullMatch and unmatch, which no public
// endpoint and no connector can call (the matching issue drives them).
import { bump, invalidTransition, Machine, refuse } from './machine';
import { Listing, listingMachine, requireStatus } from './listing';
import { EntityInput, runEntity } from './entity';

export type OfferStatus = 'draft' | 'published' | 'partiallyMatched' | 'matched' | 'withdrawn' | 'expired' | 'cancelled';

export interface Allocation {
  proposalId: string;
  capacity?: Record<string, unknown>;
  at: string;
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
  live: ['published', 'partiallyMatched'],
  cancellable: ['draft', 'published', 'partiallyMatched'],
  initial: { allocations: [] },
});

function allocation(payload: any, now: string): Allocation {
  if (typeof payload?.proposalId !== 'string') refuse('VALIDATION_FAILED', 'proposalId is required');
  return { proposalId: payload.proposalId, ...(payload.capacity ? { capacity: payload.capacity } : {}), at: now };
}

const event = (name: string, owner: string) => ({ type: `pcx.${KIND}.${name}.v1`, audience: [owner], shareWithPartners: true });

export const capacityOfferMachine: Machine<CapacityOffer> = {
  ...listing,
  systemCommands: ['expire', 'partialMatch', 'fullMatch', 'unmatch'],
  commands: {
    ...listing.commands,

    // Some capacity tentatively matched by a proposal; matching continues.
    partialMatch(state, command, now) {
      requireStatus(KIND, state, command, ['published', 'partiallyMatched']);
      const next = bump(state, now, { status: 'partiallyMatched', allocations: [...state.allocations, allocation(command.payload, now)] });
      return { state: next, events: [event('partially-matched', state.ownerOrganizationId)] };
    },

    // All remaining capacity committed; matching blocked.
    fullMatch(state, command, now) {
      requireStatus(KIND, state, command, ['published', 'partiallyMatched']);
      const next = bump(state, now, { status: 'matched', matchedAt: now, allocations: [...state.allocations, allocation(command.payload, now)] });
      return { state: next, events: [event('matched', state.ownerOrganizationId)] };
    },

    // An accepted match was cancelled: back to partiallyMatched, or published when none remain.
    unmatch(state, command, now) {
      requireStatus(KIND, state, command, ['matched', 'partiallyMatched']);
      const allocations = state.allocations.filter((a) => a.proposalId !== command.payload?.proposalId);
      if (allocations.length === state.allocations.length) invalidTransition(KIND, 'unmatch', state.status);
      const next = bump(state, now, { status: allocations.length ? 'partiallyMatched' : 'published', allocations });
      delete next.matchedAt;
      return { state: next, events: [] };
    },
  },
};

export async function capacityOfferWorkflow(input: EntityInput<CapacityOffer>) {
  return runEntity(capacityOfferMachine, input);
}
