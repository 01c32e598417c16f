// The market map: MapLibre GL over the shipped basemap (country outlines), or an external style
// when one is configured; offers and requests drawn as their areas are defined: a UN/LOCODE as a
// point, a circle as a circle, a subdivision or country as its bounding box, a polygon as itself,
// and a line from where each goes from to where it goes to.
import * as maplibregl from '../vendor/maplibre-gl.mjs';

maplibregl.setWorkerUrl(new URL('../vendor/maplibre-gl-worker.mjs', import.meta.url).href);

const BASE_STYLE = {
  version: 8,
  sources: { countries: { type: 'geojson', data: 'basemap.geojson' } },
  layers: [
    { id: 'water', type: 'background', paint: { 'background-color': '#cfe3f3' } },
    { id: 'land', type: 'fill', source: 'countries', paint: { 'fill-color': '#f4f1ea' } },
    { id: 'borders', type: 'line', source: 'countries', paint: { 'line-color': '#8a8a8a', 'line-width': 0.6 } },
  ],
};

export function createMap(container, mapStyleUrl) {
  const map = new maplibregl.Map({
    container,
    style: mapStyleUrl || BASE_STYLE,
    center: [9, 51],
    zoom: 3.4,
    attributionControl: false,
    // Kept so that the test (and a screenshot) can read what was drawn.
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }));
  const ready = new Promise((resolve) => map.on('load', resolve));
  return { map, ready };
}

function circle([lon, lat], radiusKm, steps = 48) {
  const ring = [];
  for (let i = 0; i <= steps; i++) {
    const a = (i / steps) * 2 * Math.PI;
    const dLat = (radiusKm / 111.32) * Math.sin(a);
    const dLon = (radiusKm / (111.32 * Math.cos((lat * Math.PI) / 180))) * Math.cos(a);
    ring.push([lon + dLon, lat + dLat]);
  }
  return ring;
}

/** An area's drawn shapes and its representative point (for the route line). */
export function areaShapes(area, places) {
  if (!area) return { shapes: [], point: null };
  if (area.kind === 'list') {
    const parts = area.areas.map((a) => areaShapes(a, places));
    return { shapes: parts.flatMap((p) => p.shapes), point: parts.find((p) => p.point)?.point ?? null };
  }
  if (area.kind === 'unlocode') {
    const p = places[area.code]?.point;
    return p ? { shapes: [{ type: 'Point', coordinates: p }], point: p } : { shapes: [], point: null };
  }
  if (area.kind === 'circle') return { shapes: [{ type: 'Polygon', coordinates: [circle(area.center, area.radiusKm)] }], point: area.center };
  if (area.kind === 'polygon' || area.kind === 'geometry') {
    const g = area.geometry ?? area;
    const ring = g.coordinates?.[0] ?? [];
    const point = ring.length ? [ring.reduce((s, p) => s + p[0], 0) / ring.length, ring.reduce((s, p) => s + p[1], 0) / ring.length] : null;
    return { shapes: g.type ? [g] : [], point };
  }
  const box = places[area.code]?.box;
  if (!box) return { shapes: [], point: null };
  const [w, s, e, n] = box;
  return { shapes: [{ type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] }], point: [(w + e) / 2, (s + n) / 2] };
}

/** The UN/LOCODEs, subdivisions and countries the listings' areas name. */
export function codesOf(listings) {
  const codes = new Set();
  const visit = (area) => {
    if (!area) return;
    if (area.kind === 'list') area.areas.forEach(visit);
    else if (area.code) codes.add(area.code);
  };
  for (const l of listings) [l.originArea, l.destinationArea, l.pickupArea, l.deliveryArea].forEach(visit);
  return [...codes];
}

export function showListings(map, listings, places) {
  const features = [];
  for (const l of listings) {
    const from = areaShapes(l.kind === 'offer' ? l.originArea : l.pickupArea, places);
    const to = areaShapes(l.kind === 'offer' ? l.destinationArea : l.deliveryArea, places);
    for (const shape of [...from.shapes, ...to.shapes]) features.push({ type: 'Feature', geometry: shape, properties: { kind: l.kind, id: l.id } });
    if (from.point && to.point) features.push({ type: 'Feature', geometry: { type: 'LineString', coordinates: [from.point, to.point] }, properties: { kind: l.kind, id: l.id } });
  }
  const data = { type: 'FeatureCollection', features };
  const source = map.getSource('listings');
  if (source) return source.setData(data);
  map.addSource('listings', { type: 'geojson', data });
  const color = ['match', ['get', 'kind'], 'offer', '#1d5fa8', '#b34700'];
  map.addLayer({ id: 'listing-areas', type: 'fill', source: 'listings', filter: ['==', ['geometry-type'], 'Polygon'], paint: { 'fill-color': color, 'fill-opacity': 0.25 } });
  map.addLayer({ id: 'listing-routes', type: 'line', source: 'listings', filter: ['==', ['geometry-type'], 'LineString'], paint: { 'line-color': color, 'line-width': 2.5 } });
  map.addLayer({ id: 'listing-points', type: 'circle', source: 'listings', filter: ['==', ['geometry-type'], 'Point'], paint: { 'circle-color': color, 'circle-radius': 6, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 1.5 } });
}
