// The freight grid's rows, filters and order as pure functions of the listings (console/grid.js
// draws them; test/unit/console-grid.test.ts checks them): what a planner filters a freight board
// by, in the board's own units.
import { anyOf, capacityOf, endsOf, laneOf, nameOf, settings, statusOf, t, windowOf } from './format.js';

export const OPEN = ['published', 'partiallyMatched', 'proposed'];
const KG_PER = { KGM: 1, TNE: 1000, GRM: 0.001, LBR: 0.45359237 };

/** One row: what the grid shows and sorts by. */
export function rowOf(l, ctx) {
  const window = l.kind === 'offer' ? l.availabilityWindow : l.pickupWindow;
  const capacity = (l.kind === 'offer' ? l.availableCapacity : l.requiredCapacity) ?? {};
  const bodies = l.kind === 'offer' ? [l.vehicleProfile?.bodyType].filter(Boolean) : (l.vehicleRequirements?.bodyTypes ?? []);
  const [from, to] = endsOf(l);
  return {
    id: l.id,
    kind: l.kind,
    listing: l,
    from,
    to,
    lane: laneOf(l, ctx.places),
    start: window?.start ? Date.parse(window.start) : NaN,
    end: window?.end ? Date.parse(window.end) : NaN,
    dates: windowOf(window),
    weightKg: capacity.weight ? capacity.weight.value * (KG_PER[capacity.weight.unitCode] ?? 1) : undefined,
    pallets: capacity.palletSpaces,
    capacity: l.kind === 'offer' && remainingOf(l, capacity) ? t('grid.capacityLeft', { capacity: capacityOf(capacity), left: capacityOf(remainingOf(l, capacity)) }) : capacityOf(capacity),
    bodies,
    body: bodies.length ? anyOf(bodies.map(statusOf)) : '',
    status: l.status,
    statusText: statusOf(l.status),
    owner: l.ownerOrganizationId,
    partner: nameOf(l.ownerOrganizationId, ctx.names),
    ours: l.ownerOrganizationId === ctx.me,
  };
}

/**
 * What is left of a truck once its matches hold part of it (its allocations, in base units;
 * visible to its owner): undefined when nothing is held. Weight in tonnes, pallets, loading metres.
 */
export function remainingOf(l, capacity = l.availableCapacity ?? {}) {
  const held = (l.allocations ?? []).map((a) => a.capacity ?? {});
  if (!held.length) return undefined;
  const sum = (key) => held.reduce((n, c) => n + (c[key] ?? 0), 0);
  const left = {};
  if (capacity.weight) left.weight = { value: Math.max(0, Math.round((capacity.weight.value * (KG_PER[capacity.weight.unitCode] ?? 1) - sum('weightKg')) / 10) / 100), unitCode: 'TNE' };
  if (capacity.palletSpaces !== undefined) left.palletSpaces = Math.max(0, capacity.palletSpaces - sum('palletSpaces'));
  if (capacity.loadingMetres) left.loadingMetres = { value: Math.max(0, Math.round((capacity.loadingMetres.value - sum('loadingMetres')) * 10) / 10), unitCode: 'MTR' };
  return left;
}

/** Great-circle distance in km. */
export function distanceKm([lon1, lat1], [lon2, lat2]) {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Where an area lies, as one point: a UN/LOCODE's position, a circle's centre, a box's middle. */
export function pointOf(area, places) {
  if (!area) return undefined;
  if (area.kind === 'list') return area.areas.map((a) => pointOf(a, places)).find(Boolean);
  if (area.kind === 'circle') return area.center;
  const place = places?.[area.code];
  if (place?.point) return place.point;
  if (place?.box) return [(place.box[0] + place.box[2]) / 2, (place.box[1] + place.box[3]) / 2];
  return undefined;
}

/** Lower case without accents, and ł as l: "gdansk" finds Gdańsk, "lodz" Łódź, "Düsseldorf" Dusseldorf. */
export const searchable = (text) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/ł/g, 'l').replace(/ø/g, 'o').replace(/ß/g, 'ss');

/**
 * The rows the filters let through. Filters: status (open: open listings and our drafts; all),
 * kind (offer, request), partner (an organization id), body (a body type), text (any word of the
 * lane, partner, body or status), from / until (ms: the window overlaps them), minWeightKg,
 * minPallets, near ({ point, radiusKm }: the pickup or the delivery end within the radius).
 */
export function filterRows(rows, f, places) {
  const words = searchable(String(f.text ?? '')).split(/\s+/).filter(Boolean);
  return rows.filter((r) => {
    if (f.status !== 'all' && !(OPEN.includes(r.status) || (r.ours && r.status === 'draft'))) return false;
    if (f.kind && r.kind !== f.kind) return false;
    if (f.partner && r.owner !== f.partner) return false;
    if (f.body && !r.bodies.includes(f.body)) return false;
    if (f.from !== undefined && !(r.end > f.from)) return false;
    if (f.until !== undefined && !(r.start < f.until)) return false;
    if (f.minWeightKg !== undefined && !((r.weightKg ?? -1) >= f.minWeightKg)) return false;
    if (f.minPallets !== undefined && !((r.pallets ?? -1) >= f.minPallets)) return false;
    if (f.near) {
      const ends = [pointOf(r.from, places), pointOf(r.to, places)].filter(Boolean);
      if (!ends.some((p) => distanceKm(p, f.near.point) <= f.near.radiusKm)) return false;
    }
    if (words.length) {
      const hay = searchable(`${r.lane} ${r.partner} ${r.body} ${r.statusText} ${t(r.kind === 'offer' ? 'grid.search.offer' : 'grid.search.request')}`);
      if (!words.every((w) => hay.includes(w))) return false;
    }
    return true;
  });
}

const KEYS = {
  lane: (r) => r.lane,
  dates: (r) => r.start,
  capacity: (r) => r.weightKg ?? r.pallets ?? -1,
  body: (r) => r.body,
  status: (r) => r.statusText,
  partner: (r) => r.partner,
  kind: (r) => r.kind,
};

/** Rows in the order of a column, ascending or descending; ties by date, then id (a stable order). */
export function sortRows(rows, key = 'dates', direction = 'ascending') {
  const of = KEYS[key] ?? KEYS.dates;
  const sign = direction === 'descending' ? -1 : 1;
  const compare = (a, b) => {
    const [x, y] = [of(a), of(b)];
    if (typeof x === 'number' && typeof y === 'number') return (Number.isNaN(x) ? Infinity : x) - (Number.isNaN(y) ? Infinity : y);
    return String(x).localeCompare(String(y), settings.locale);
  };
  return [...rows].sort((a, b) => sign * compare(a, b) || (a.start - b.start || 0) || a.id.localeCompare(b.id));
}

/** One page of rows (1-based), with how many pages there are. */
export function pageOf(rows, page, size = 25) {
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const current = Math.min(Math.max(1, page), pages);
  return { rows: rows.slice((current - 1) * size, current * size), page: current, pages };
}
