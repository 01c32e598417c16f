// HTTP API of CapacityOffer (the listing API of api/listings.ts, configured for offers).
import { capacityOffer } from '../domain/capacity-offer';
import { listingRouter } from './listings';

export const capacityOffers = listingRouter({
  resource: capacityOffer,
  bodies: { create: 'CapacityOfferCreateRequest', update: 'CapacityOfferUpdateRequest' },
  // "protocol operator with admin scope plus scope capacity:publish"
  cancelScopes: ['capacity:publish'],
  areaFields: ['originArea', 'destinationArea'],
  windowFields: ['availabilityWindow'],
  handlingFields: ['constraints'],
  words: {
    noun: 'capacity offer',
    client: { name: 'offers', columns: ['id', 'status', 'ownerOrganizationId', 'originArea.code', 'destinationArea.code', 'resourceVersion'] },
    queryPrefix: 'Offer',
    publishNeeds:
      '`availabilityWindow`, `originArea`, `destinationArea`, `vehicleProfile`, `availableCapacity` (with at least one ' +
      'dimension), `expiresAt` (in the future) and `visibility`, with the availability window starting before it ends',
    lapseWindows: 'availability window',
    restricted: 'price, vehicle registration, notes',
    partnerHidden: '`allocations`',
  },
});
