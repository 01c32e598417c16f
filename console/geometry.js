// The map's pure geometry (no browser, no MapLibre; test/unit/console-geometry.test.ts): a circle
// as a ring, a circle from a drag on the map (its centre where the drag began, its radius the
// distance to where it is now), and how listing ends are clustered at low zoom.

const EARTH_KM = 6371.0088;
const RAD = Math.PI / 180;
/** The broker's bounds for a circle area (core/areas.ts): smaller would be an exact location. */
export const MIN_RADIUS_KM = 1;
export const MAX_RADIUS_KM = 1000;

/**
 * Listing ends (where from, where to) within CLUSTER.radius pixels of each other are drawn as one
 * bubble with their count until CLUSTER.maxZoom; from the next zoom level on each is drawn alone.
 */
export const CLUSTER = { radius: 36, maxZoom: 6, minPoints: 2 };

/** Great-circle distance in km. */
export function distanceKm([lon1, lat1], [lon2, lat2]) {
  const a = Math.sin(((lat2 - lat1) * RAD) / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(((lon2 - lon1) * RAD) / 2) ** 2;
  return 2 * EARTH_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The point `km` away from `[lon, lat]` in the direction `bearing` (degrees from north). */
export function destination([lon, lat], km, bearing) {
  const d = km / EARTH_KM;
  const b = bearing * RAD;
  const [l1, p1] = [lon * RAD, lat * RAD];
  const p2 = Math.asin(Math.sin(p1) * Math.cos(d) + Math.cos(p1) * Math.sin(d) * Math.cos(b));
  const l2 = l1 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(p1), Math.cos(d) - Math.sin(p1) * Math.sin(p2));
  return [((((l2 / RAD + 540) % 360) - 180)), p2 / RAD];
}

/** A circle on the ground as a closed ring of `steps` + 1 positions. */
export function circleRing(center, radiusKm, steps = 64) {
  const ring = [];
  for (let i = 0; i < steps; i++) ring.push(destination(center, radiusKm, (i / steps) * 360));
  ring.push(ring[0]);
  return ring;
}

/**
 * The circle area a drag draws: centred where it began (4 decimals, about 10 m), its radius the
 * distance to where it is (whole km, or tenths under 10 km), within the broker's bounds.
 */
export function circleFromDrag(start, end) {
  const km = distanceKm(start, end);
  const radiusKm = Math.min(MAX_RADIUS_KM, Math.max(MIN_RADIUS_KM, km < 10 ? Math.round(km * 10) / 10 : Math.round(km)));
  return { kind: 'circle', center: [Math.round(start[0] * 1e4) / 1e4, Math.round(start[1] * 1e4) / 1e4], radiusKm };
}

/**
 * A cluster's image name (a MapLibre expression over the cluster's `point_count` and `offers`, the
 * number of its ends that are trucks'): `pcx-cluster-<count>-<offer|request|mixed>`. The images are
 * drawn when first asked for (no glyphs needed: the shipped basemap has no font).
 */
export const CLUSTER_IMAGE = ['concat', 'pcx-cluster-', ['to-string', ['get', 'point_count']], '-', ['case', ['==', ['get', 'offers'], ['get', 'point_count']], 'offer', ['==', ['get', 'offers'], 0], 'request', 'mixed']];

/** What a cluster image's name asks for: its count, whose ends (offer, request, mixed) and its size in pixels; null for another image. */
export function clusterImageOf(id) {
  const m = /^pcx-cluster-(\d+)-(offer|request|mixed)$/.exec(id);
  if (!m) return null;
  const count = Number(m[1]);
  return { count, mix: m[2], size: count < 10 ? 26 : count < 100 ? 32 : 40, label: count > 999 ? `${Math.floor(count / 1000)}k` : String(count) };
}
