// Read model of CapacityOffer.
import type { Queryable } from '../core/db';
import type { CapacityOffer } from '../workflows/capacity-offer';
import { projectListing } from './listing';

export function projectCapacityOffer(tx: Queryable, offer: CapacityOffer): Promise<number | undefined> {
  return projectListing(tx, 'capacity_offers', offer, {
    window: offer.availabilityWindow,
    origin: offer.originArea,
    destination: offer.destinationArea,
  });
}
