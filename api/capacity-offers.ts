// HTTP API of CapacityOffer (the listing API of api/listings.ts, configured for offers).
import { KIND } from '../workflows/capacity-offer';
import { listingRouter } from './listings';

export const capacityOffers = listingRouter({
  kind: KIND,
  workflowType: 'capacityOfferWorkflow',
  schema: 'capacity-offer',
  statuses: ['draft', 'published', 'partiallyMatched', 'matched', 'withdrawn', 'expired', 'cancelled'],
  publishScope: 'capacity:publish',
  readScope: 'capacity:read',
  // "protocol operator with admin scope plus scope capacity:publish"
  cancelScopes: ['capacity:publish'],
  areaFields: ['originArea', 'destinationArea'],
  windowFields: ['availabilityWindow'],
  handlingFields: ['constraints'],
});
