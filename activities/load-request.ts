// Read model of LoadRequest. Its time filter spans pickup start to delivery end.
import type { Queryable } from '../core/db';
import type { LoadRequest } from '../workflows/load-request';
import { projectListing } from './listing';

export function projectLoadRequest(tx: Queryable, request: LoadRequest): Promise<number | undefined> {
  const start = request.pickupWindow?.start ?? request.deliveryWindow?.start;
  const end = request.deliveryWindow?.end ?? request.pickupWindow?.end;
  return projectListing(tx, 'load_requests', request, {
    window: start && end ? { start, end } : undefined,
    origin: request.pickupArea,
    destination: request.deliveryArea,
  });
}
