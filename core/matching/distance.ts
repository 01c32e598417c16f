// The kilometre baseline of matching (the specification leaves "kilometre baseline calculation"
// open; docs/decisions.md, "Kilometre baseline"). Behind an interface, so that a road-network
// distance service can replace it: everything in matching asks a DistanceModel.
import type { Box } from '../areas';

export type Point = [number, number]; // [lon, lat]

export interface DistanceModel {
  /** Shown in every explanation, so a reader knows how the figures were computed. */
  readonly name: string;
  /** Road kilometres between two points. */
  km(a: Point, b: Point): number;
  /** Road kilometres between the nearest points of two boxes (0 when they overlap). */
  boxKm(a: Box, b: Box): number;
}

const EARTH_RADIUS_KM = 6371.0088; // mean radius (IUGG)
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in kilometres (haversine). */
export function greatCircleKm([lon1, lat1]: Point, [lon2, lat2]: Point): number {
  const dLat = rad(lat2 - lat1);
  const dLon = rad(lon2 - lon1);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The pair of points, one in each box, that are nearest in longitude and latitude. */
export function nearestPoints(a: Box, b: Box): [Point, Point] {
  const axis = (aMin: number, aMax: number, bMin: number, bMax: number): [number, number] => {
    if (aMax < bMin) return [aMax, bMin];
    if (bMax < aMin) return [aMin, bMax];
    const shared = (Math.max(aMin, bMin) + Math.min(aMax, bMax)) / 2; // the intervals overlap
    return [shared, shared];
  };
  const [lonA, lonB] = axis(a[0], a[2], b[0], b[2]);
  const [latA, latB] = axis(a[1], a[3], b[1], b[3]);
  return [[lonA, latA], [lonB, latB]];
}

/**
 * Great-circle distance times a road factor: roads are longer than the great circle; 1.3 is the
 * usual European average (road over straight-line distance between towns). No road network.
 */
export function greatCircleModel(roadFactor = 1.3): DistanceModel {
  return {
    name: `great-circle x ${roadFactor}`,
    km: (a, b) => greatCircleKm(a, b) * roadFactor,
    boxKm: (a, b) => {
      const [p, q] = nearestPoints(a, b);
      return greatCircleKm(p, q) * roadFactor;
    },
  };
}

/** Grows a box by `km` on every side (degrees of latitude and of longitude at its widest latitude). */
export function growBox(box: Box, km: number): Box {
  if (km <= 0) return box;
  const dLat = km / ((Math.PI * EARTH_RADIUS_KM) / 180);
  const widest = Math.max(Math.abs(box[1]), Math.abs(box[3]));
  const cos = Math.cos(rad(Math.min(89, widest + dLat)));
  const dLon = Math.min(360, dLat / Math.max(cos, 0.01));
  return [Math.max(-180, box[0] - dLon), Math.max(-90, box[1] - dLat), Math.min(180, box[2] + dLon), Math.min(90, box[3] + dLat)];
}
