// The freight grid's model (console/grid-model.js): filters in the board's units, orders, pages.
// The console's files are plain browser modules without type declarations (served as they are).
// @ts-ignore
import { distanceKm, filterRows, pageOf, pointOf, rowOf, sortRows } from '../../console/grid-model.js';
// @ts-ignore
import { settings } from '../../console/format.js';

beforeAll(() => Object.assign(settings, { locale: 'en-GB', timeZone: 'Europe/Berlin' }));

const places = { DEHAM: { name: 'Hamburg', point: [9.93, 53.55] }, NLRTM: { name: 'Rotterdam', point: [4.47, 51.92] }, PLGDN: { name: 'Gdańsk', point: [18.65, 54.35] }, BEANR: { name: 'Antwerpen', point: [4.4, 51.22] } };
const names = { 'org-a': 'Alpine Freight', 'org-b': 'Baltic Shippers' };
const unlocode = (code: string) => ({ kind: 'unlocode', code });
const truck = (id: string, from: string, to: string, t: number, start: string, extra: Record<string, unknown> = {}) => ({
  id, kind: 'offer', ownerOrganizationId: 'org-a', status: 'published', originArea: unlocode(from), destinationArea: unlocode(to),
  availabilityWindow: { start, end: new Date(Date.parse(start) + 8 * 3600_000).toISOString() },
  availableCapacity: { weight: { value: t, unitCode: 'TNE' }, palletSpaces: 33 }, vehicleProfile: { bodyType: 'curtainsider' }, ...extra,
});
const load = (id: string, from: string, to: string, kg: number, start: string, extra: Record<string, unknown> = {}) => ({
  id, kind: 'request', ownerOrganizationId: 'org-b', status: 'published', pickupArea: unlocode(from), deliveryArea: unlocode(to),
  pickupWindow: { start, end: new Date(Date.parse(start) + 4 * 3600_000).toISOString() }, deliveryWindow: { start, end: start },
  requiredCapacity: { weight: { value: kg, unitCode: 'KGM' }, palletSpaces: 10 }, vehicleRequirements: { bodyTypes: ['box', 'curtainsider'] }, ...extra,
});
const listings = [
  truck('t1', 'DEHAM', 'NLRTM', 24, '2026-12-01T07:00:00Z'),
  truck('t2', 'PLGDN', 'BEANR', 12, '2026-12-03T07:00:00Z', { vehicleProfile: { bodyType: 'tanker' } }),
  truck('t3', 'DEHAM', 'NLRTM', 24, '2026-12-02T07:00:00Z', { status: 'withdrawn' }),
  truck('t4', 'DEHAM', 'PLGDN', 5, '2026-12-05T07:00:00Z', { status: 'draft' }),
  load('l1', 'DEHAM', 'NLRTM', 8000, '2026-12-01T09:00:00Z'),
  load('l2', 'NLRTM', 'PLGDN', 22000, '2026-12-04T09:00:00Z', { status: 'draft' }),
];
const rows = (me = 'org-a') => listings.map((l) => rowOf(l, { places, names, me }));
const ids = (rs: any[]) => rs.map((r) => r.id);
const open = { status: 'open' };

test('rows in the board\'s words: lane by names, weight in kg, bodies, partner by name', () => {
  const [t1, , , , l1] = rows();
  expect(t1).toMatchObject({ lane: 'Hamburg → Rotterdam', weightKg: 24000, pallets: 33, capacity: '24 t, 33 pallets', body: 'curtainsider', partner: 'Alpine Freight', ours: true });
  expect(l1).toMatchObject({ lane: 'Hamburg → Rotterdam', weightKg: 8000, body: 'box or curtainsider', partner: 'Baltic Shippers', ours: false });
});

test('open means open listings and our own drafts, not a partner\'s', () => {
  expect(ids(filterRows(rows('org-a'), open, places))).toEqual(['t1', 't2', 't4', 'l1']);
  expect(ids(filterRows(rows('org-b'), open, places))).toEqual(['t1', 't2', 'l1', 'l2']);
  expect(filterRows(rows(), { status: 'all' }, places)).toHaveLength(6);
});

test('filters: kind, partner, body, dates overlapping, weight and pallets at least, words of lane and partner', () => {
  const all = { status: 'all' };
  expect(ids(filterRows(rows(), { ...all, kind: 'request' }, places))).toEqual(['l1', 'l2']);
  expect(ids(filterRows(rows(), { ...all, partner: 'org-b' }, places))).toEqual(['l1', 'l2']);
  expect(ids(filterRows(rows(), { ...all, body: 'tanker' }, places))).toEqual(['t2']);
  expect(ids(filterRows(rows(), { ...all, body: 'box' }, places))).toEqual(['l1', 'l2']);
  expect(ids(filterRows(rows(), { ...all, from: Date.parse('2026-12-03T00:00:00Z'), until: Date.parse('2026-12-04T00:00:00Z') }, places))).toEqual(['t2']);
  expect(ids(filterRows(rows(), { ...all, minWeightKg: 20000 }, places))).toEqual(['t1', 't3', 'l2']);
  expect(ids(filterRows(rows(), { ...all, minPallets: 30 }, places))).toEqual(['t1', 't2', 't3', 't4']);
  // Typed without the accent (or with it), Gdańsk is found.
  expect(ids(filterRows(rows(), { ...all, text: 'gdansk TANKER' }, places))).toEqual(['t2']);
  expect(ids(filterRows(rows(), { ...all, text: 'Gdańsk tanker' }, places))).toEqual(['t2']);
  expect(ids(filterRows(rows(), { ...all, text: 'baltic rotterdam' }, places))).toEqual(['l1', 'l2']);
});

test('near a place: either end within the radius, great-circle', () => {
  expect(distanceKm([9.93, 53.55], [4.47, 51.92])).toBeGreaterThan(390);
  expect(distanceKm([9.93, 53.55], [4.47, 51.92])).toBeLessThan(410);
  const nearAntwerp = { status: 'all', near: { point: places.BEANR.point, radiusKm: 100 } };
  // Rotterdam is about 78 km from Antwerp: every lane touching Rotterdam or Antwerp.
  expect(ids(filterRows(rows(), nearAntwerp, places))).toEqual(['t1', 't2', 't3', 'l1', 'l2']);
  expect(ids(filterRows(rows(), { ...nearAntwerp, near: { point: places.BEANR.point, radiusKm: 50 } }, places))).toEqual(['t2']);
  expect(pointOf({ kind: 'circle', center: [1, 2], radiusKm: 5 }, places)).toEqual([1, 2]);
  expect(pointOf({ kind: 'country', code: 'XX' }, places)).toBeUndefined();
});

test('sorted by any column both ways, ties by date then id; paged', () => {
  expect(ids(sortRows(rows(), 'dates'))).toEqual(['t1', 'l1', 't3', 't2', 'l2', 't4']);
  expect(ids(sortRows(rows(), 'capacity', 'descending'))).toEqual(['t1', 't3', 'l2', 't2', 'l1', 't4']);
  expect(ids(sortRows(rows(), 'lane')).slice(0, 5)).toEqual(['t2', 't4', 't1', 'l1', 't3']);
  const page = pageOf(sortRows(rows()), 2, 4);
  expect(page).toMatchObject({ page: 2, pages: 2 });
  expect(ids(page.rows)).toEqual(['l2', 't4']);
  expect(pageOf([], 3, 25)).toMatchObject({ page: 1, pages: 1, rows: [] });
});

test("a truck its matches hold part of shows what is left beside its capacity", () => {
  // @ts-ignore
  const { remainingOf } = require('../../console/grid-model.js');
  const held = truck('o-held', 'DEHAM', 'NLRTM', 24, '2026-12-12T08:00:00Z', { allocations: [{ capacity: { weightKg: 8000, palletSpaces: 10 }, state: 'committed' }, { capacity: { weightKg: 4500, palletSpaces: 6 }, state: 'tentative' }] });
  expect(remainingOf(held)).toEqual({ weight: { value: 11.5, unitCode: 'TNE' }, palletSpaces: 17 });
  expect(rowOf(held, { places, names, me: 'org-a' }).capacity).toBe('24 t, 33 pallets (11.5 t, 17 pallets left)');
  expect(remainingOf(truck('o-free', 'DEHAM', 'NLRTM', 24, '2026-12-12T08:00:00Z'))).toBeUndefined();
});
