// Read model of CapacityOffer, with the columns the matching index searches: the reach of its
// origin and destination (their boxes grown by the maximum detour) and its availability window.
import type { Queryable } from '../core/db';
import { boundingBox, type Area } from '../core/areas';
import { allowanceKm, DEFAULT_MATCH_SETTINGS } from '../core/matching/compatibility';
import { growBox } from '../core/matching/distance';
import { capacityOffer, type CapacityOffer } from '../domain/capacity-offer';
import { projectListing } from './listing';

export function projectCapacityOffer(tx: Queryable, offer: CapacityOffer): Promise<number | undefined> {
  const { originArea, destinationArea, availabilityWindow } = offer;
  const reach = allowanceKm(offer.maximumDetour as any, DEFAULT_MATCH_SETTINGS.averageSpeedKmh);
  return projectListing(tx, 'capacity_offers', offer, {
    window: availabilityWindow,
    origin: originArea,
    destination: destinationArea,
    match:
      originArea && destinationArea && availabilityWindow
        ? {
            origin: growBox(boundingBox(originArea as Area), reach),
            destination: growBox(boundingBox(destinationArea as Area), reach),
            window: availabilityWindow,
            reversible: offer.direction === 'roundTrip' || offer.direction === 'eitherWay',
          }
        : undefined,
    counterparts: capacityOffer.counterparts!(offer),
  });
}
