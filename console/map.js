// The market map: MapLibre GL over the shipped basemap (country outlines), or an external style
// when one is configured; offers and requests drawn as their areas are defined: a UN/LOCODE as a
// point, a circle as a circle, a subdivision or country as its shape (GET /console/places; its
// bounding box where no shape is known), a polygon as itself, and a line from where each goes from
// to where it goes to. Ends close together at low zoom are drawn as one bubble with their count
// (MapLibre's clustering of a GeoJSON source); a click on it zooms in. While posting, a circle can
// be drawn by dragging on the map (drawCircle).
import * as maplibregl from '../vendor/maplibre-gl.mjs';
import { CLUSTER, CLUSTER_IMAGE, circleFromDrag, circleRing, clusterImageOf } from './geometry.js';
import { t } from './format.js';

maplibregl.setWorkerUrl(new URL('../vendor/maplibre-gl-worker.mjs', import.meta.url).href);

const OFFER = '#1d5fa8';
const REQUEST = '#b34700';
const MIXED = '#4a4a4a';
const DRAFT = '#6b2fa0';

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
    // MapLibre's own words (the canvas's label, the zoom buttons) in the planner's language.
    locale: { 'Map.Title': t('map.title'), 'NavigationControl.ZoomIn': t('map.zoomIn'), 'NavigationControl.ZoomOut': t('map.zoomOut') },
    // Kept so that the test (and a screenshot) can read what was drawn.
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }));
  const ready = new Promise((resolve) => map.on('load', resolve));
  return { map, ready };
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
  if (area.kind === 'circle') return { shapes: [{ type: 'Polygon', coordinates: [circleRing(area.center, area.radiusKm)] }], point: area.center };
  if (area.kind === 'polygon' || area.kind === 'geometry') {
    const g = area.geometry ?? area;
    const ring = g.coordinates?.[0] ?? [];
    const point = ring.length ? [ring.reduce((s, p) => s + p[0], 0) / ring.length, ring.reduce((s, p) => s + p[1], 0) / ring.length] : null;
    return { shapes: g.type ? [g] : [], point };
  }
  // A subdivision or a country: its shape, else its box; the line leaves from the box's middle.
  const { box, shape } = places[area.code] ?? {};
  if (!box && !shape) return { shapes: [], point: null };
  const [w, s, e, n] = box ?? boxOf(shape);
  return { shapes: [shape ?? { type: 'Polygon', coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] }], point: [(w + e) / 2, (s + n) / 2] };
}

function boxOf(shape) {
  const box = [Infinity, Infinity, -Infinity, -Infinity];
  const polygons = shape.type === 'Polygon' ? [shape.coordinates] : shape.coordinates;
  for (const [x, y] of polygons.flatMap((p) => p[0])) {
    box[0] = Math.min(box[0], x);
    box[1] = Math.min(box[1], y);
    box[2] = Math.max(box[2], x);
    box[3] = Math.max(box[3], y);
  }
  return box;
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

/** A cluster's bubble with its count, drawn the first time MapLibre asks for its image. */
function addClusterImage(map, id) {
  const image = clusterImageOf(id);
  if (!image || map.hasImage(id)) return;
  const ratio = 2;
  const px = image.size * ratio;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = px;
  const ctx = canvas.getContext('2d');
  ctx.beginPath();
  ctx.arc(px / 2, px / 2, px / 2 - 3 * ratio, 0, 2 * Math.PI);
  ctx.fillStyle = { offer: OFFER, request: REQUEST, mixed: MIXED }[image.mix];
  ctx.fill();
  ctx.lineWidth = 2.5 * ratio;
  ctx.strokeStyle = '#ffffff';
  ctx.stroke();
  ctx.fillStyle = '#ffffff';
  ctx.font = `bold ${(image.size < 30 ? 12 : 13) * ratio}px sans-serif`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(image.label, px / 2, px / 2 + ratio);
  map.addImage(id, ctx.getImageData(0, 0, px, px), { pixelRatio: ratio });
}

/**
 * Draws the listings: areas as shapes, the lane as a line with arrows in the direction of travel,
 * where from as a hollow circle and where to as a filled one (clustered at low zoom); lanes that
 * share their ends fanned apart; the chosen listing highlighted. `onPick(id)` when a listing is
 * clicked on the map.
 */
export function showListings(map, listings, places, { chosen, onPick } = {}) {
  const features = [];
  const ends = [];
  const lanes = new Map();
  for (const l of listings) {
    const from = areaShapes(l.kind === 'offer' ? l.originArea : l.pickupArea, places);
    const to = areaShapes(l.kind === 'offer' ? l.destinationArea : l.deliveryArea, places);
    for (const [end, drawn] of [['from', from], ['to', to]]) {
      for (const shape of drawn.shapes) (shape.type === 'Point' ? ends : features).push({ type: 'Feature', geometry: shape, properties: { kind: l.kind, id: l.id, end } });
    }
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
  const endData = { type: 'FeatureCollection', features: ends };
  const source = map.getSource('listings');
  if (source) {
    source.setData(data);
    map.getSource('listing-ends').setData(endData);
  } else {
    addArrow(map);
    map.on('styleimagemissing', (e) => addClusterImage(map, e.id));
    map.addSource('listings', { type: 'geojson', data });
    // The ends apart, clustered: MapLibre clusters the points of a source (supercluster inside).
    map.addSource('listing-ends', {
      type: 'geojson',
      data: endData,
      cluster: true,
      clusterRadius: CLUSTER.radius,
      clusterMaxZoom: CLUSTER.maxZoom,
      clusterMinPoints: CLUSTER.minPoints,
      clusterProperties: { offers: ['+', ['case', ['==', ['get', 'kind'], 'offer'], 1, 0]] },
    });
    const color = ['match', ['get', 'kind'], 'offer', OFFER, REQUEST];
    const polygon = ['==', ['geometry-type'], 'Polygon'];
    const line = ['==', ['geometry-type'], 'LineString'];
    map.addLayer({ id: 'listing-areas', type: 'fill', source: 'listings', filter: polygon, paint: { 'fill-color': color, 'fill-opacity': 0.2 } });
    map.addLayer({ id: 'listing-outlines', type: 'line', source: 'listings', filter: polygon, paint: { 'line-color': color, 'line-width': 1, 'line-opacity': 0.6 } });
    map.addLayer({ id: 'listing-chosen', type: 'line', source: 'listings', filter: ['==', ['get', 'id'], ''], paint: { 'line-color': '#f2a900', 'line-width': 7, 'line-offset': ['*', ['get', 'fan'], 5] } });
    map.addLayer({ id: 'listing-routes', type: 'line', source: 'listings', filter: line, paint: { 'line-color': color, 'line-width': 2.5, 'line-offset': ['*', ['get', 'fan'], 5] } });
    map.addLayer({ id: 'listing-arrows', type: 'symbol', source: 'listings', filter: line, layout: { 'symbol-placement': 'line', 'symbol-spacing': 80, 'icon-image': 'lane-arrow', 'icon-size': 0.8, 'icon-allow-overlap': true, 'icon-offset': [0, 0] } });
    map.addLayer({
      id: 'listing-points', type: 'circle', source: 'listing-ends', filter: ['!', ['has', 'point_count']],
      paint: {
        'circle-radius': 6,
        'circle-color': ['case', ['==', ['get', 'end'], 'from'], '#ffffff', color],
        'circle-stroke-color': color,
        'circle-stroke-width': 2.5,
      },
    });
    map.addLayer({
      id: 'listing-clusters', type: 'symbol', source: 'listing-ends', filter: ['has', 'point_count'],
      layout: { 'icon-image': CLUSTER_IMAGE, 'icon-allow-overlap': true, 'icon-ignore-placement': true },
    });
    for (const layer of ['listing-routes', 'listing-points', 'listing-areas']) {
      map.on('click', layer, (e) => {
        // A cluster over the same spot takes the click (it zooms in).
        if (map.queryRenderedFeatures(e.point, { layers: ['listing-clusters'] }).length) return;
        const id = e.features?.[0]?.properties?.id;
        if (id) map._pcxOnPick?.(id);
      });
    }
    // A cluster clicked: zoomed in to where its ends come apart.
    map.on('click', 'listing-clusters', async (e) => {
      const cluster = e.features?.[0];
      if (!cluster) return;
      const zoom = await map.getSource('listing-ends').getClusterExpansionZoom(cluster.properties.cluster_id);
      map.easeTo({ center: cluster.geometry.coordinates, zoom: Math.max(zoom, map.getZoom() + 1), duration: 400 });
    });
    for (const layer of ['listing-routes', 'listing-points', 'listing-areas', 'listing-clusters']) {
      map.on('mouseenter', layer, () => (map.getCanvas().style.cursor = 'pointer'));
      map.on('mouseleave', layer, () => (map.getCanvas().style.cursor = map._pcxDrawing ? 'crosshair' : ''));
    }
  }
  map._pcxOnPick = onPick;
  map.setFilter('listing-chosen', ['all', ['==', ['geometry-type'], 'LineString'], ['==', ['get', 'id'], chosen ?? '']]);
}

/** The areas being posted (circles drawn on the map), drawn apart from the listings. */
export function showDraftAreas(map, areas) {
  const data = {
    type: 'FeatureCollection',
    features: areas.filter((a) => a?.kind === 'circle').map((a) => ({ type: 'Feature', geometry: { type: 'Polygon', coordinates: [circleRing(a.center, a.radiusKm)] }, properties: {} })),
  };
  const source = map.getSource('draft-areas');
  if (source) return source.setData(data);
  map.addSource('draft-areas', { type: 'geojson', data });
  map.addLayer({ id: 'draft-areas', type: 'fill', source: 'draft-areas', paint: { 'fill-color': DRAFT, 'fill-opacity': 0.15 } });
  map.addLayer({ id: 'draft-area-outlines', type: 'line', source: 'draft-areas', paint: { 'line-color': DRAFT, 'line-width': 2, 'line-dasharray': [2, 1] } });
}

/**
 * Lets the planner draw a circle: pressed where its centre is, dragged outwards, released. The
 * map does not pan meanwhile. `onChange(circle)` while dragging, `onDone(circle)` on release (null
 * when cancelled: Escape, or `cancel()`). Returns `cancel`.
 */
export function drawCircle(map, { onChange, onDone }) {
  const canvas = map.getCanvasContainer();
  let start = null;
  let last = null;
  map._pcxDrawing = true;
  map.dragPan.disable();
  map.getCanvas().style.cursor = 'crosshair';
  const at = (e) => {
    const box = canvas.getBoundingClientRect();
    const lngLat = map.unproject([e.clientX - box.left, e.clientY - box.top]);
    return [lngLat.lng, lngLat.lat];
  };
  const down = (e) => {
    if (e.button !== 0) return;
    e.preventDefault();
    start = at(e);
    last = circleFromDrag(start, start);
    onChange?.(last);
  };
  const move = (e) => {
    if (!start) return;
    last = circleFromDrag(start, at(e));
    onChange?.(last);
  };
  const up = (e) => {
    if (!start) return;
    last = circleFromDrag(start, at(e));
    finish(last);
  };
  const key = (e) => e.key === 'Escape' && finish(null);
  function finish(circle) {
    canvas.removeEventListener('mousedown', down, true);
    window.removeEventListener('mousemove', move, true);
    window.removeEventListener('mouseup', up, true);
    window.removeEventListener('keydown', key, true);
    map._pcxDrawing = false;
    map.dragPan.enable();
    map.getCanvas().style.cursor = '';
    onDone?.(circle);
  }
  canvas.addEventListener('mousedown', down, true);
  window.addEventListener('mousemove', move, true);
  window.addEventListener('mouseup', up, true);
  window.addEventListener('keydown', key, true);
  return () => finish(null);
}

/** Brings a listing into view. */
export function focusListing(map, listing, places) {
  const ends = [areaShapes(listing.kind === 'offer' ? listing.originArea : listing.pickupArea, places).point, areaShapes(listing.kind === 'offer' ? listing.destinationArea : listing.deliveryArea, places).point].filter(Boolean);
  if (!ends.length) return;
  const lons = ends.map((p) => p[0]);
  const lats = ends.map((p) => p[1]);
  map.fitBounds([[Math.min(...lons), Math.min(...lats)], [Math.max(...lons), Math.max(...lats)]], { padding: 60, maxZoom: 7, duration: 500 });
}
