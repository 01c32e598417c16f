// Gate 9, field disclosure. For each resource kind and disclosure phase, the fields a partner
// (an organization other than the owner) may see. Allow-lists, not deny-lists: a field added to a
// resource stays hidden from partners until someone decides to disclose it here.
//
// Phases (docs/decisions.md, "Disclosure phases"):
//   discovery  the resource is published and shared with the partner
//   proposed   a match proposal between the partner and the owner is open
//   accepted   the proposal was accepted by the parties its decision policy requires
//   committed  a transport commitment exists
// Before acceptance a partner never sees restrictedDetails (exact addresses, customer identity,
// price, complete goods details: protocol rule 11, LoadRequest rule 8), nor the owner's private
// bookkeeping (external references, extensions, visibility list, reasons, proposals, allocations).
// The owner and the protocol operator see everything.

export type Phase = 'discovery' | 'proposed' | 'accepted' | 'committed';

const ENVELOPE = ['id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'status'];
const LISTING_TIMES = ['expiresAt', 'publishedAt', 'matchedAt', 'withdrawnAt', 'expiredAt', 'cancelledAt'];

const OFFER_DISCOVERY = [
  ...ENVELOPE, ...LISTING_TIMES,
  'availabilityWindow', 'originArea', 'destinationArea', 'direction', 'vehicleProfile', 'availableCapacity', 'constraints', 'maximumDetour',
];

const REQUEST_DISCOVERY = [
  ...ENVELOPE, ...LISTING_TIMES,
  'pickupArea', 'pickupWindow', 'deliveryArea', 'deliveryWindow', 'requiredCapacity', 'vehicleRequirements', 'goodsProfile', 'handlingRequirements',
];

export const PARTNER_FIELDS: Record<string, Record<Phase, readonly string[]>> = {
  'capacity-offer': {
    discovery: OFFER_DISCOVERY,
    proposed: OFFER_DISCOVERY,
    accepted: [...OFFER_DISCOVERY, 'restrictedDetails'],
    committed: [...OFFER_DISCOVERY, 'restrictedDetails', 'externalReferences'],
  },
  'load-request': {
    discovery: REQUEST_DISCOVERY,
    proposed: REQUEST_DISCOVERY,
    accepted: [...REQUEST_DISCOVERY, 'restrictedDetails'],
    committed: [...REQUEST_DISCOVERY, 'restrictedDetails', 'externalReferences'],
  },
};

/**
 * The phase a partner is in for a resource. Proposals and commitments do not exist yet (they
 * arrive with the matching and tender issues), so every partner is in discovery; those issues
 * derive the later phases from the resource's accepted proposal and commitment.
 */
export function phaseFor(_kind: string, _doc: Record<string, unknown>, _viewer: string): Phase {
  return 'discovery';
}

export function partnerView(kind: string, doc: Record<string, unknown>, phase: Phase): Record<string, unknown> {
  const allowed = PARTNER_FIELDS[kind]?.[phase];
  if (!allowed) throw new Error(`no disclosure rules for ${kind}`);
  const out: Record<string, unknown> = {};
  for (const field of allowed) if (doc[field] !== undefined) out[field] = doc[field];
  return out;
}
