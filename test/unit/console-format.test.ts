// The console's words (console/format.js): places by name and flag, times in the planner's zone
// (pinned here), capacity in units, money, criteria and reasons as sentences.
// The console's files are plain browser modules without type declarations (served as they are).
// @ts-ignore
import { codesOf, loadPlaces } from '../../console/places.js';
// @ts-ignore
import { countryOf, flag, capacityOf, explanationOf, laneOf, moneyOf, placeOf, settings, statusOf, when, windowOf, criterionName, addressOf } from '../../console/format.js';

beforeAll(() => Object.assign(settings, { locale: 'en-GB', timeZone: 'Europe/Berlin' }));

const places = { DEHAM: { name: 'Hamburg' }, NLRTM: { name: 'Rotterdam' } };

test('places by name, with the country their flag is drawn for; circles in degrees; lists joined', () => {
  expect(placeOf({ kind: 'unlocode', code: 'DEHAM' }, places)).toBe('Hamburg');
  expect(placeOf({ kind: 'unlocode', code: 'PLGDN' }, places)).toBe('PLGDN');
  expect(placeOf({ kind: 'country', code: 'FR' })).toBe('France');
  expect(placeOf({ kind: 'subdivision', code: 'DE-BY' })).toBe('DE-BY, Germany');
  // With the shipped names (GET /console/places): the name, not the code.
  expect(placeOf({ kind: 'subdivision', code: 'DE-BY' }, { 'DE-BY': { names: { en: 'Bavaria', de: 'Bayern', pl: 'Bawaria' } } })).toBe('Bavaria, Germany');
  expect(placeOf({ kind: 'circle', center: [4.47, 51.92], radiusKm: 50 })).toBe('50 km around 51.92° N, 4.47° E');
  // A circle whose centre has a named place near it (GET /console/places?near=..., console/places.js): by that name.
  expect(placeOf({ kind: 'circle', center: [4.47, 51.92], radiusKm: 50 }, { '@4.47,51.92': { code: 'NLRTM', name: 'Rotterdam', distanceKm: 0.4 } })).toBe('50 km around Rotterdam');
  expect(placeOf({ kind: 'circle', center: [4.47, 51.92], radiusKm: 50 }, { '@4.47,51.92': null })).toBe('50 km around 51.92° N, 4.47° E');
  expect(placeOf({ kind: 'list', areas: [{ kind: 'unlocode', code: 'DEHAM' }, { kind: 'country', code: 'NL' }] }, places)).toBe('Hamburg or Netherlands');
  expect(laneOf({ kind: 'request', pickupArea: { kind: 'unlocode', code: 'DEHAM' }, deliveryArea: { kind: 'unlocode', code: 'NLRTM' } }, places)).toBe('Hamburg → Rotterdam');
  expect([countryOf({ kind: 'unlocode', code: 'DEHAM' }), countryOf({ kind: 'subdivision', code: 'NL-ZH' }), countryOf({ kind: 'circle', center: [0, 0], radiusKm: 5 })]).toEqual(['DE', 'NL', undefined]);
  expect(flag('DE')).toBe('🇩🇪');
});

test("times in the planner's zone, across a daylight-saving change; windows within a day and across days", () => {
  expect(when('2026-12-12T07:00:00Z')).toBe('12 Dec 2026, 08:00 CET');
  expect(when('2026-07-01T07:00:00Z')).toBe('1 Jul 2026, 09:00 CEST');
  expect(windowOf({ start: '2026-12-12T07:00:00Z', end: '2026-12-12T13:00:00Z' })).toBe('12 Dec, 08:00 – 14:00 CET');
  expect(windowOf({ start: '2026-12-12T07:00:00Z', end: '2026-12-14T17:00:00Z' })).toBe('12 Dec, 08:00 – 14 Dec, 18:00 CET');
});

test('capacity in units, money, addresses, statuses and criteria in words', () => {
  expect(capacityOf({ weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33, loadingMetres: { value: 13.6, unitCode: 'MTR' } })).toBe('24 t, 33 pallets, 13.6 ldm');
  expect(capacityOf({ weight: { value: 800, unitCode: 'KGM' }, volume: { value: 80, unitCode: 'MTQ' } })).toBe('800 kg, 80 m³');
  expect(moneyOf({ amount: 875, currency: 'EUR' })).toBe('€875.00');
  expect(addressOf({ lines: ['Kade 4'], postalCode: '3011', city: 'Rotterdam', countryCode: 'NL' })).toBe('Kade 4, 3011 Rotterdam, Netherlands');
  expect(statusOf('partiallyMatched')).toBe('partially matched');
  expect(statusOf('PENDING_INITIATOR_ACCEPT')).toBe('pending initiator accept');
  expect(criterionName('pickupArea')).toBe('Pickup area');
  expect(criterionName('capacity.weightKg')).toBe('Capacity: weight');
});

test('the explanation as sentences with units, places and local times, failing criteria marked', () => {
  const proposal = {
    compatibility: [
      { criterion: 'pickupArea', result: 'pass', reasonCode: 'PICKUP_AREA_ON_ROUTE', figures: { pickupOffsetKm: 0, allowanceKm: 150 } },
      { criterion: 'timeWindow', result: 'pass', reasonCode: 'TIME_WINDOW_FEASIBLE', figures: { transitMinutes: 330, earliestPickup: '2026-12-12T07:00:00Z', latestDelivery: '2026-12-13T17:00:00Z' } },
      { criterion: 'capacity.weightKg', result: 'pass', reasonCode: 'CAPACITY_WEIGHT_FITS', figures: { required: 8000, remaining: 24000, unit: 'KGM' } },
      { criterion: 'bodyType', result: 'fail', reasonCode: 'BODY_TYPE_MISMATCH', figures: { offered: 'box', accepted: ['curtainsider'] } },
      { criterion: 'equipment', result: 'pass', reasonCode: 'EQUIPMENT_AVAILABLE', figures: {} },
      { criterion: 'temperature', result: 'notApplicable', reasonCode: 'TEMPERATURE_NOT_REQUIRED', figures: {} },
    ],
  };
  const request = { pickupArea: { kind: 'unlocode', code: 'DEHAM' }, deliveryArea: { kind: 'unlocode', code: 'NLRTM' } };
  expect(explanationOf(proposal, { places, request })).toEqual([
    { ok: true, applies: true, criterion: 'pickupArea', text: "Pickup in Hamburg is 0 km off the truck's way (150 km allowed)." },
    { ok: true, applies: true, criterion: 'timeWindow', text: 'Loading from 12 Dec 2026, 08:00 CET, delivered by 13 Dec 2026, 18:00 CET; the drive takes about 5.5 h.' },
    { ok: true, applies: true, criterion: 'capacity.weightKg', text: 'Capacity, weight: 8 t needed, 24 t free.' },
    { ok: false, applies: true, criterion: 'bodyType', text: 'Body: box (curtainsider wanted).' },
    { ok: true, applies: true, criterion: 'equipment', text: 'Equipment: equipment available.' },
    { ok: true, applies: false, criterion: 'temperature', text: 'No temperature control is needed.' },
  ]);
});

test('places.js: what a page asks GET /console/places for, circles by their centres, each asked once', async () => {
  const listings = [
    { kind: 'offer', originArea: { kind: 'unlocode', code: 'DEHAM' }, destinationArea: { kind: 'circle', center: [4.4, 51.22], radiusKm: 40 } },
    { kind: 'request', pickupArea: { kind: 'list', areas: [{ kind: 'country', code: 'NL' }, { kind: 'circle', center: [1e-7, 0], radiusKm: 10 }] }, deliveryArea: { kind: 'subdivision', code: 'DE-BY' } },
  ];
  // A centre the broker's parameter cannot carry ("1e-7") is left to show its coordinates.
  expect(codesOf(listings)).toEqual(['DEHAM', '@4.4,51.22', 'NL', 'DE-BY']);
  const asked: string[] = [];
  const api = { get: async (path: string) => (asked.push(path), { places: { DEHAM: { name: 'Hamburg' } }, nearby: { '4.4,51.22': { code: 'BEANR', name: 'Antwerpen', distanceKm: 1.2 } } }) };
  const known: Record<string, unknown> = { NL: {}, 'DE-BY': {} };
  await loadPlaces(api, listings, known);
  expect(asked).toEqual(['/console/places?codes=DEHAM&near=4.4,51.22']);
  expect(placeOf(listings[0].destinationArea, known)).toBe('40 km around Antwerpen');
  await loadPlaces(api, listings, known);
  expect(asked).toHaveLength(1);
});
