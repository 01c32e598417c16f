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
});
