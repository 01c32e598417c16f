// LoadRequest: demand for transport capacity. The shared listing lifecycle (workflows/listing.ts)
// plus the broker-only transitions propose, accept and proposalExpired, which no public endpoint
// and no connector can call (the matching issue drives them).
import { bump, invalidTransition, Machine, refuse } from './machine';
import { Listing, listingMachine, requireStatus } from './listing';
import { EntityInput, runEntity } from './entity';

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
  live: ['published', 'proposed'],
  cancellable: ['draft', 'published', 'proposed'],
  publishChecks: (state) =>
    state.pickupWindow && state.deliveryWindow && Date.parse(state.deliveryWindow.end) <= Date.parse(state.pickupWindow.start)
      ? [{ pointer: '/deliveryWindow/end', message: 'must be after the start of the pickup window' }]
      : [],
  initial: { proposalIds: [], openProposalIds: [] },
});

function proposalIdOf(payload: any): string {
  if (typeof payload?.proposalId !== 'string') refuse('VALIDATION_FAILED', 'proposalId is required');
  return payload.proposalId;
}

export const loadRequestMachine: Machine<LoadRequest> = {
  ...listing,
  systemCommands: ['expire', 'propose', 'accept', 'proposalExpired'],
  commands: {
    ...listing.commands,

    // A proposal referencing this request was created (rule 10: only proposals of this request).
    propose(state, command, now) {
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
    accept(state, command, now) {
      requireStatus(KIND, state, command, ['proposed']);
      const proposalId = proposalIdOf(command.payload);
      if (!state.openProposalIds.includes(proposalId)) invalidTransition(KIND, 'accept', state.status);
      const next = bump(state, now, { status: 'matched', matchedAt: now, acceptedProposalId: proposalId, openProposalIds: [] });
      return { state: next, events: [{ type: `pcx.${KIND}.matched.v1`, audience: [state.ownerOrganizationId], shareWithPartners: true }] };
    },

    // An open proposal expired or was rejected; with none left the request is published again.
    proposalExpired(state, command, now) {
      requireStatus(KIND, state, command, ['proposed']);
      const proposalId = proposalIdOf(command.payload);
      if (!state.openProposalIds.includes(proposalId)) invalidTransition(KIND, 'proposalExpired', state.status);
      const openProposalIds = state.openProposalIds.filter((id) => id !== proposalId);
      const next = bump(state, now, { status: openProposalIds.length ? 'proposed' : 'published', openProposalIds });
      return { state: next, events: [] };
    },
  },
};

export async function loadRequestWorkflow(input: EntityInput<LoadRequest>) {
  return runEntity(loadRequestMachine, input);
}
