// HTTP API of CapacityOffer (the listing API of api/listings.ts, configured for offers).
import { capacityOffer } from '../domain/capacity-offer';
import { listingRouter, type ListingApi } from './listings';

/** How the listing API serves offers (also read by api/listing-series.ts to check a series' terms). */
export const CAPACITY_OFFER_API: ListingApi = {
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
};

export const capacityOffers = listingRouter(CAPACITY_OFFER_API);
