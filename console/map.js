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

/** An arrow drawn once as an image (no glyphs needed): the direction of travel along a lane. */
function addArrow(map) {
  if (map.hasImage('lane-arrow')) return;
  const size = 16;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.strokeStyle = '#333333';
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(3, 3);
  ctx.lineTo(13, 8);
  ctx.lineTo(3, 13);
  ctx.closePath();
  ctx.fill();
  ctx.stroke();
  map.addImage('lane-arrow', ctx.getImageData(0, 0, size, size));
}

/**
 * Draws the listings: areas as shapes, the lane as a line with arrows in the direction of travel,
 * where from as a hollow circle and where to as a filled one; lanes that share their ends fanned
 * apart; the chosen listing highlighted. `onPick(id)` when a listing is clicked on the map.
 */
export function showListings(map, listings, places, { chosen, onPick } = {}) {
  const features = [];
  const lanes = new Map();
  for (const l of listings) {
    const from = areaShapes(l.kind === 'offer' ? l.originArea : l.pickupArea, places);
    const to = areaShapes(l.kind === 'offer' ? l.destinationArea : l.deliveryArea, places);
    for (const shape of from.shapes) features.push({ type: 'Feature', geometry: shape, properties: { kind: l.kind, id: l.id, end: 'from' } });
    for (const shape of to.shapes) features.push({ type: 'Feature', geometry: shape, properties: { kind: l.kind, id: l.id, end: 'to' } });
    if (from.point && to.point) {
      const key = [from.point, to.point].map((p) => p.map((x) => x.toFixed(3)).join(',')).join('>');
      const line = { type: 'Feature', geometry: { type: 'LineString', coordinates: [from.point, to.point] }, properties: { kind: l.kind, id: l.id, fan: 0 } };
      if (!lanes.has(key)) lanes.set(key, []);
      lanes.get(key).push(line);
      features.push(line);
    }
  }
  // Six listings of one lane draw as six lines side by side, not one.
  for (const group of lanes.values()) group.forEach((line, i) => (line.properties.fan = i - (group.length - 1) / 2));
  const data = { type: 'FeatureCollection', features };
  const source = map.getSource('listings');
  if (source) {
    source.setData(data);
  } else {
    addArrow(map);
    map.addSource('listings', { type: 'geojson', data });
    const color = ['match', ['get', 'kind'], 'offer', '#1d5fa8', '#b34700'];
    const polygon = ['==', ['geometry-type'], 'Polygon'];
    const line = ['==', ['geometry-type'], 'LineString'];
    const point = ['==', ['geometry-type'], 'Point'];
    map.addLayer({ id: 'listing-areas', type: 'fill', source: 'listings', filter: polygon, paint: { 'fill-color': color, 'fill-opacity': 0.2 } });
    map.addLayer({ id: 'listing-chosen', type: 'line', source: 'listings', filter: ['==', ['get', 'id'], ''], paint: { 'line-color': '#f2a900', 'line-width': 7, 'line-offset': ['*', ['get', 'fan'], 5] } });
    map.addLayer({ id: 'listing-routes', type: 'line', source: 'listings', filter: line, paint: { 'line-color': color, 'line-width': 2.5, 'line-offset': ['*', ['get', 'fan'], 5] } });
    map.addLayer({ id: 'listing-arrows', type: 'symbol', source: 'listings', filter: line, layout: { 'symbol-placement': 'line', 'symbol-spacing': 80, 'icon-image': 'lane-arrow', 'icon-size': 0.8, 'icon-allow-overlap': true, 'icon-offset': [0, 0] } });
    map.addLayer({
      id: 'listing-points', type: 'circle', source: 'listings', filter: point,
      paint: {
        'circle-radius': 6,
        'circle-color': ['case', ['==', ['get', 'end'], 'from'], '#ffffff', color],
        'circle-stroke-color': color,
        'circle-stroke-width': 2.5,
      },
    });
    for (const layer of ['listing-routes', 'listing-points', 'listing-areas']) {
      map.on('click', layer, (e) => {
        const id = e.features?.[0]?.properties?.id;
        if (id) map._pcxOnPick?.(id);
      });
      map.on('mouseenter', layer, () => (map.getCanvas().style.cursor = 'pointer'));
      map.on('mouseleave', layer, () => (map.getCanvas().style.cursor = ''));
    }
  }
  map._pcxOnPick = onPick;
  map.setFilter('listing-chosen', ['all', ['==', ['geometry-type'], 'LineString'], ['==', ['get', 'id'], chosen ?? '']]);
}

/** Brings a listing into view. */
export function focusListing(map, listing, places) {
  const ends = [areaShapes(listing.kind === 'offer' ? listing.originArea : listing.pickupArea, places).point, areaShapes(listing.kind === 'offer' ? listing.destinationArea : listing.deliveryArea, places).point].filter(Boolean);
  if (!ends.length) return;
  const lons = ends.map((p) => p[0]);
  const lats = ends.map((p) => p[1]);
  map.fitBounds([[Math.min(...lons), Math.min(...lats)], [Math.max(...lons), Math.max(...lats)]], { padding: 60, maxZoom: 7, duration: 500 });
}
