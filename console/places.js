// The places a page names, asked of the broker once each (GET /console/places): a UN/LOCODE's name
// and position, a subdivision's or country's shape, and for a circle drawn on the map the named
// place nearest its centre (kept under "@lon,lat", null when none is near), so that a planner reads
// "40 km around Schoten" rather than coordinates (format.js, placeOf).

/** A circle's centre as the broker's `near` parameter takes it; undefined for one it would not ("1e-7"). */
export function pointKey(center) {
  const text = `${center?.[0]},${center?.[1]}`;
  return /^-?[0-9]{1,3}(\.[0-9]{1,12})?,-?[0-9]{1,2}(\.[0-9]{1,12})?$/.test(text) ? text : undefined;
}

/** What the listings' areas name: codes, and circles' centres as "@lon,lat". */
export function codesOf(listings) {
  const codes = new Set();
  const visit = (area) => {
    if (!area) return;
    if (area.kind === 'list') area.areas.forEach(visit);
    else if (area.code) codes.add(area.code);
    else if (area.kind === 'circle' && pointKey(area.center)) codes.add(`@${pointKey(area.center)}`);
  };
  for (const l of listings) [l.originArea, l.destinationArea, l.pickupArea, l.deliveryArea].forEach(visit);
  return [...codes];
}

/** Asks for what `places` does not know yet of the listings' areas and adds the answer to it. */
export async function loadPlaces(api, listings, places) {
  const wanted = codesOf(listings).filter((c) => !(c in places));
  const codes = wanted.filter((c) => !c.startsWith('@')).slice(0, 200);
  const near = wanted.filter((c) => c.startsWith('@')).map((c) => c.slice(1)).slice(0, 50);
  if (!codes.length && !near.length) return;
  const answer = await api.get(`/console/places?codes=${codes.join(',')}${near.length ? `&near=${near.join(';')}` : ''}`);
  Object.assign(places, answer.places);
  for (const point of near) places[`@${point}`] = answer.nearby?.[point] ?? null;
}
