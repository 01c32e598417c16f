// Read model of LoadRequest. Its time filter spans pickup start to delivery end; the matching
// index searches its pickup and delivery boxes and its pickup window.
import type { Queryable } from '../core/db';
import { boundingBox, type Area } from '../core/areas';
import { loadRequest, type LoadRequest } from '../domain/load-request';
import { projectListing } from './listing';

export function projectLoadRequest(tx: Queryable, request: LoadRequest): Promise<number | undefined> {
  const start = request.pickupWindow?.start ?? request.deliveryWindow?.start;
  const end = request.deliveryWindow?.end ?? request.pickupWindow?.end;
  const { pickupArea, deliveryArea, pickupWindow } = request;
  return projectListing(tx, 'load_requests', request, {
    window: start && end ? { start, end } : undefined,
    origin: pickupArea,
    destination: deliveryArea,
    match: pickupArea && deliveryArea && pickupWindow ? { origin: boundingBox(pickupArea as Area), destination: boundingBox(deliveryArea as Area), window: pickupWindow } : undefined,
    counterparts: loadRequest.counterparts!(request),
  });
}
