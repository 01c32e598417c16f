// Every criterion of core/matching/compatibility.ts, table-driven: areas of every kind, detour,
// direction, time windows and zones, units and absent dimensions, vehicle, dangerous goods,
// temperature; and the explanation never carries a protected field.
import { remainingCapacity, toBaseCapacity } from '../../domain/capacity';
import { evaluate, type OfferTerms, type PairFacts, type RequestTerms } from '../../core/matching/compatibility';
import { missingPairTerms, OFFER_TERMS, REQUEST_TERMS } from '../../domain/matching';
import { greatCircleKm, greatCircleModel, growBox, nearestPoints } from '../../core/matching/distance';

const T0 = Date.parse('2030-03-04T06:00:00Z');
const at = (hours: number) => new Date(T0 + hours * 3600_000).toISOString();

const offer = (o: Partial<OfferTerms> = {}): OfferTerms => ({
  id: 'offer', ownerOrganizationId: 'org-carrier', status: 'published',
  availabilityWindow: { start: at(0), end: at(48) },
  originArea: { kind: 'unlocode', code: 'DEHAM' },
  destinationArea: { kind: 'unlocode', code: 'NLRTM' },
  direction: 'oneWay',
  vehicleProfile: { bodyType: 'curtainsider', equipment: ['tailLift', 'straps'] },
  availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33 },
  maximumDetour: { kilometres: 100 },
  ...o,
});

const request = (r: Partial<RequestTerms> = {}): RequestTerms => ({
  id: 'request', ownerOrganizationId: 'org-shipper', status: 'published',
  pickupArea: { kind: 'subdivision', code: 'DE-HH' },
  pickupWindow: { start: at(2), end: at(8) },
  deliveryArea: { kind: 'circle', center: [4.47, 51.92], radiusKm: 20 },
  deliveryWindow: { start: at(12), end: at(30) },
  requiredCapacity: { weight: { value: 12000, unitCode: 'KGM' }, palletSpaces: 12 },
  vehicleRequirements: { bodyTypes: ['curtainsider', 'box'], equipment: ['tailLift'] },
  goodsProfile: { hazardous: false },
  ...r,
});

const facts = (f: Partial<PairFacts> = {}): PairFacts => ({
  relationship: { id: 'rel', scopes: ['capacity:publish', 'loads:read', 'capacity:read'], decisionPolicy: { mode: 'BILATERAL_REQUIRED' }, requestingOrganizationId: 'org-carrier' },
  offerVisibleToRequestOwner: true,
  requestVisibleToOfferOwner: true,
  allocated: {},
  ...f,
});

const codes = (o: OfferTerms, r: RequestTerms, f: PairFacts = facts()) => evaluate(o, r, f).compatibility.map((c) => c.reasonCode);
const failures = (o: OfferTerms, r: RequestTerms, f: PairFacts = facts()) =>
  evaluate(o, r, f).compatibility.filter((c) => c.result === 'fail').map((c) => c.reasonCode);

describe('the kilometre baseline', () => {
  test('great-circle distance Hamburg-Rotterdam is about 410 km; the model multiplies by the road factor', () => {
    const gc = greatCircleKm([9.99, 53.55], [4.48, 51.92]);
    expect(gc).toBeGreaterThan(400);
    expect(gc).toBeLessThan(420);
    expect(greatCircleModel(1.3).km([9.99, 53.55], [4.48, 51.92])).toBeCloseTo(gc * 1.3, 6);
  });

  test('overlapping boxes are 0 km apart; disjoint boxes measure between their nearest points', () => {
    const m = greatCircleModel(1);
    expect(m.boxKm([0, 0, 2, 2], [1, 1, 3, 3])).toBe(0);
    expect(nearestPoints([0, 0, 1, 1], [3, 0, 4, 1])).toEqual([[1, 0.5], [3, 0.5]]);
    expect(m.boxKm([0, 0, 1, 1], [3, 0, 4, 1])).toBeCloseTo(greatCircleKm([1, 0.5], [3, 0.5]), 6);
  });

  test('growing a box by km widens longitude more at high latitude, and stays inside the globe', () => {
    const equator = growBox([0, 0, 0, 0], 111.2);
    const north = growBox([0, 60, 0, 60], 111.2);
    expect(equator[3]).toBeCloseTo(1, 1);
    expect(north[2]).toBeGreaterThan(equator[2] * 1.9);
    expect(growBox([179, 89, 180, 90], 5000)).toEqual([expect.any(Number), expect.any(Number), 180, 90]);
  });
});

describe('a compatible pair', () => {
  test('passes every criterion with figures, and explains itself', () => {
    const e = evaluate(offer(), request(), facts());
    expect(failures(offer(), request())).toEqual([]);
    expect(e.compatible).toBe(true);
    expect(e.score).toBeGreaterThan(0);
    expect(e.score).toBeLessThanOrEqual(1);
    expect(codes(offer(), request())).toEqual([
      'RELATIONSHIP_ACTIVE', 'VISIBILITY_MUTUAL', 'LISTINGS_OPEN', 'AREA_PICKUP_ON_ROUTE', 'AREA_DELIVERY_TOWARDS_DESTINATION', 'DETOUR_WITHIN_LIMIT',
      'TIME_WINDOW_FEASIBLE', 'CAPACITY_WEIGHT_FITS', 'CAPACITY_PALLET_SPACES_FITS', 'BODY_TYPE_MATCH', 'EQUIPMENT_AVAILABLE', 'DANGEROUS_GOODS_NONE', 'TEMPERATURE_NOT_REQUIRED',
    ]);
    expect(e.routeCompatibility).toMatchObject({ distanceModel: 'great-circle x 1.3', orientation: 'forward', allowanceKm: 100, detourKm: 0 });
    expect(e.routeCompatibility.offerDistanceKm).toBeGreaterThan(500);
    expect(e.capacityCompatibility.compared).toEqual([
      { dimension: 'weightKg', unit: 'KGM', required: 12000, remaining: 24000, remainingAfter: 12000, fits: true },
      { dimension: 'palletSpaces', unit: 'pallet spaces', required: 12, remaining: 33, remainingAfter: 21, fits: true },
    ]);
    expect(e.capacityCompatibility.allocation).toEqual({ weightKg: 12000, palletSpaces: 12 });
    expect(e.capacityCompatibility.exhaustsOffer).toBe(false);
    expect(e.rationale.summary).toMatch(/^Compatible: pickup 0 km and delivery 0 km/);
    expect(e.rationale.reasonCodes).not.toContain('DANGEROUS_GOODS_NONE');
  });

  test('the explanation carries no protected field, whatever the listings hold', () => {
    const secretOffer = { ...offer(), restrictedDetails: { price: { amount: 777, currency: 'EUR' }, vehicleRegistration: 'HH-XX 99' } } as OfferTerms;
    const secretRequest = { ...request(), restrictedDetails: { customer: { name: 'ACME Secret' }, pickupAddress: { lines: ['Geheimweg 1'] } } } as RequestTerms;
    const text = JSON.stringify(evaluate(secretOffer, secretRequest, facts()));
    for (const secret of ['777', 'HH-XX 99', 'ACME Secret', 'Geheimweg', 'restrictedDetails', 'price', 'customer']) expect(text).not.toContain(secret);
  });
});

describe('relationship, visibility and status', () => {
  test.each<[string, Partial<PairFacts>, Partial<OfferTerms>, Partial<RequestTerms>, string]>([
    ['no relationship in force', { relationship: undefined }, {}, {}, 'RELATIONSHIP_INACTIVE'],
    ['a relationship without loads:read (offer rule 9)', { relationship: { id: 'r', scopes: ['capacity:publish', 'capacity:read'], decisionPolicy: { mode: 'BILATERAL_REQUIRED' }, requestingOrganizationId: 'x' } }, {}, {}, 'RELATIONSHIP_SCOPES_MISSING'],
    ['an offer not visible to the shipper', { offerVisibleToRequestOwner: false }, {}, {}, 'OFFER_NOT_VISIBLE_TO_REQUESTER'],
    ['a request not visible to the carrier', { requestVisibleToOfferOwner: false }, {}, {}, 'REQUEST_NOT_VISIBLE_TO_CARRIER'],
    ['a matched offer', {}, { status: 'matched' }, {}, 'OFFER_NOT_OPEN'],
    ['a withdrawn request', {}, {}, { status: 'withdrawn' }, 'REQUEST_NOT_OPEN'],
  ])('%s fails with %s', (_name, f, o, r, code) => {
    expect(failures(offer(o), request(r), facts(f))).toEqual([code]);
  });
});

describe('areas and detour', () => {
  test.each<[string, Partial<OfferTerms>, Partial<RequestTerms>, string[]]>([
    ['a country origin contains a UN/LOCODE pickup', { originArea: { kind: 'country', code: 'DE' } }, { pickupArea: { kind: 'unlocode', code: 'DEBRE' } }, []],
    ['a polygon destination contains a circle delivery', { destinationArea: { kind: 'geometry', geometry: { type: 'Polygon', coordinates: [[[3, 51], [6, 51], [6, 53], [3, 53], [3, 51]]] } } }, {}, []],
    ['a list area: one member is enough', { originArea: { kind: 'list', areas: [{ kind: 'unlocode', code: 'PLWAW' }, { kind: 'unlocode', code: 'DEHAM' }] } }, {}, []],
    ['a pickup 300 km from the origin with 100 km allowed', {}, { pickupArea: { kind: 'unlocode', code: 'DEBER' } }, ['AREA_PICKUP_OFF_ROUTE', 'DETOUR_EXCEEDS_LIMIT']],
    ['a delivery in Paris for a Rotterdam destination', {}, { deliveryArea: { kind: 'unlocode', code: 'FRPAR' } }, ['AREA_DELIVERY_OFF_ROUTE', 'DETOUR_EXCEEDS_LIMIT']],
    ['no maximumDetour: the areas must meet', { maximumDetour: undefined }, { pickupArea: { kind: 'unlocode', code: 'DEBRV' } }, ['AREA_PICKUP_OFF_ROUTE', 'DETOUR_EXCEEDS_LIMIT']],
    ['a detour in minutes (90 min at 65 km/h = 97.5 km; Luebeck is about 72 road km away)', { maximumDetour: { minutes: 90 } }, { pickupArea: { kind: 'unlocode', code: 'DELBC' } }, []],
    ['the same detour with 60 minutes (65 km) is too far', { maximumDetour: { minutes: 60 } }, { pickupArea: { kind: 'unlocode', code: 'DELBC' } }, ['AREA_PICKUP_OFF_ROUTE', 'DETOUR_EXCEEDS_LIMIT']],
    ['two offsets each allowed but not together', { maximumDetour: { kilometres: 130 } }, { pickupArea: { kind: 'unlocode', code: 'DEBRE' }, deliveryArea: { kind: 'unlocode', code: 'NLUTC' } }, ['DETOUR_EXCEEDS_LIMIT']],
  ])('%s', (_name, o, r, expected) => {
    expect(failures(offer(o), request(r))).toEqual(expected);
  });

  test('a one-way offer does not carry a load backwards; a round trip or either-way offer does, on its return leg', () => {
    const backwards = request({ pickupArea: { kind: 'unlocode', code: 'NLRTM' }, deliveryArea: { kind: 'unlocode', code: 'DEHAM' } });
    expect(failures(offer(), backwards)).toEqual(['AREA_PICKUP_OFF_ROUTE', 'AREA_DELIVERY_OFF_ROUTE', 'DETOUR_EXCEEDS_LIMIT']);
    for (const direction of ['roundTrip', 'eitherWay'] as const) {
      const e = evaluate(offer({ direction }), backwards, facts());
      expect(e.compatible).toBe(true);
      expect(e.routeCompatibility.orientation).toBe('reverse');
      expect(e.rationale.summary).toContain('on the return leg');
    }
  });

  test('near the antimeridian boxes do not wrap: the documented limitation overestimates the offset', () => {
    // Two circles 0.7° apart across 180° (about 44 road km between their edges): their boxes are
    // clamped at ±180, so the offset is measured from the clamped edges and comes out larger.
    const pacific = offer({ originArea: { kind: 'circle', center: [179.5, -18], radiusKm: 30 }, destinationArea: { kind: 'circle', center: [179.5, -18], radiusKm: 30 } });
    const across = request({ pickupArea: { kind: 'circle', center: [-179.8, -18], radiusKm: 10 }, deliveryArea: { kind: 'circle', center: [179.5, -18], radiusKm: 10 } });
    const e = evaluate(pacific, across, facts());
    expect(e.routeCompatibility.pickupOffsetKm).toBeGreaterThan(100);
    expect(e.routeCompatibility.pickupOffsetKm).toBeLessThan(200);
  });
});

describe('time windows', () => {
  test.each<[string, Partial<OfferTerms>, Partial<RequestTerms>, string[]]>([
    ['pickup before the vehicle is available', { availabilityWindow: { start: at(10), end: at(48) } }, {}, ['PICKUP_OUTSIDE_AVAILABILITY']],
    ['delivery window after the availability ends', { availabilityWindow: { start: at(0), end: at(10) } }, {}, ['DELIVERY_OUTSIDE_AVAILABILITY']],
    ['delivery must start before the trip could arrive', {}, { pickupWindow: { start: at(2), end: at(3) }, deliveryWindow: { start: at(3), end: at(5) } }, ['TRANSIT_TOO_SHORT']],
    ['touching windows are enough', { availabilityWindow: { start: at(8), end: at(30) } }, {}, []],
  ])('%s', (_name, o, r, expected) => {
    expect(failures(offer(o), request(r))).toEqual(expected);
  });

  test('now: a pair whose pickup cannot happen an hour from now is not compatible (PICKUP_WINDOW_PASSED); an hour earlier it is, picked up no sooner', () => {
    const judged = (nowHours: number) => evaluate(offer(), request(), facts({ now: Date.parse(at(nowHours)) }));
    // The pickup window ends at 8: at 7:01 too late, at 7:00 just in time (the truck at the pickup at 8).
    const late = judged(7 + 1 / 60);
    expect(late.compatible).toBe(false);
    expect(late.compatibility.find((c) => c.criterion === 'timeWindow')).toMatchObject({ result: 'fail', reasonCode: 'PICKUP_WINDOW_PASSED', figures: { latestPickup: at(8), leadMinutes: 60 } });
    const inTime = judged(7);
    expect(inTime.compatible).toBe(true);
    expect(inTime.compatibility.find((c) => c.criterion === 'timeWindow')!.figures).toMatchObject({ earliestPickup: at(8) });
    // Long before the windows, now changes nothing.
    expect(judged(-48)).toEqual(evaluate(offer(), request(), facts()));
    // Windows that cannot meet at all say so, whatever the hour.
    expect(failures(offer({ availabilityWindow: { start: at(10), end: at(48) } }), request(), facts({ now: Date.parse(at(9)) }))).toEqual(['PICKUP_OUTSIDE_AVAILABILITY']);
  });

  test('instants decide, whatever the time zones; the figures show local times where zones are given', () => {
    const zoned = request({ pickupWindow: { start: at(2), end: at(8), timeZone: 'Europe/Berlin' }, deliveryWindow: { start: at(12), end: at(30), timeZone: 'Asia/Tokyo' } });
    const time = evaluate(offer(), zoned, facts()).compatibility.find((c) => c.criterion === 'timeWindow')!;
    expect(time.reasonCode).toBe('TIME_WINDOW_FEASIBLE');
    expect(time.figures).toMatchObject({ earliestPickup: at(2), earliestPickupLocal: '2030-03-04 09:00 Europe/Berlin', latestDeliveryLocal: '2030-03-05 21:00 Asia/Tokyo' });
    expect(time.figures!.transitMinutes).toBeGreaterThan(300);
  });
});

describe('capacity', () => {
  test('units are converted before comparing: 12,000 KGM against 12 TNE fits exactly and exhausts the offer', () => {
    const e = evaluate(offer({ availableCapacity: { weight: { value: 12, unitCode: 'TNE' } } }), request({ requiredCapacity: { weight: { value: 12000, unitCode: 'KGM' } } }), facts());
    expect(e.compatible).toBe(true);
    expect(e.capacityCompatibility.exhaustsOffer).toBe(true);
  });

  test.each<[string, Record<string, unknown>, Record<string, unknown>, string[]]>([
    ['too heavy', { weight: { value: 10, unitCode: 'TNE' } }, { weight: { value: 26455, unitCode: 'LBR' } }, ['CAPACITY_WEIGHT_EXCEEDS']],
    ['litres against cubic metres', { volume: { value: 80, unitCode: 'MTQ' } }, { volume: { value: 80001, unitCode: 'LTR' } }, ['CAPACITY_VOLUME_EXCEEDS']],
    ['feet against metres of loading length', { loadingMetres: { value: 13.6, unitCode: 'MTR' } }, { loadingMetres: { value: 44, unitCode: 'FOT' } }, []],
    ['pallet spaces', { palletSpaces: 10 }, { palletSpaces: 11 }, ['CAPACITY_PALLET_SPACES_EXCEEDS']],
    ['no dimension in common: never inferred', { weight: { value: 24, unitCode: 'TNE' } }, { volume: { value: 40, unitCode: 'MTQ' } }, ['NO_COMMON_CAPACITY_DIMENSION']],
  ])('%s', (_name, available, required, expected) => {
    expect(failures(offer({ availableCapacity: available }), request({ requiredCapacity: required }))).toEqual(expected);
  });

  test('a dimension absent on one side is reported as not compared, never assumed', () => {
    const e = evaluate(offer({ availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, volume: { value: 80, unitCode: 'MTQ' } } }), request({ requiredCapacity: { weight: { value: 1, unitCode: 'TNE' }, palletSpaces: 4 } }), facts());
    expect(e.capacityCompatibility.notCompared).toEqual([{ dimension: 'volumeM3', reason: 'absentInRequest' }, { dimension: 'palletSpaces', reason: 'absentInOffer' }]);
    expect(e.capacityCompatibility.allocation).toEqual({ weightKg: 1000 });
  });

  test('capacity already allocated to other proposals is not offered again (offer rule 10)', () => {
    const allocated = { weightKg: 15000, palletSpaces: 5 };
    expect(remainingCapacity(toBaseCapacity(offer().availableCapacity), allocated)).toEqual({ weightKg: 9000, palletSpaces: 28 });
    expect(failures(offer(), request(), facts({ allocated }))).toEqual(['CAPACITY_WEIGHT_EXCEEDS']);
  });
});

describe('vehicle, dangerous goods and temperature', () => {
  test.each<[string, Partial<OfferTerms>, Partial<RequestTerms>, string[]]>([
    ['a body type not accepted', { vehicleProfile: { bodyType: 'tanker', equipment: ['tailLift'] } }, {}, ['BODY_TYPE_MISMATCH']],
    ['missing equipment', { vehicleProfile: { bodyType: 'curtainsider' } }, {}, ['EQUIPMENT_MISSING']],
    ['ADR classes the vehicle may carry', { constraints: { dangerousGoods: { adrClasses: ['3', '8'] } } }, { handlingRequirements: { dangerousGoods: { adrClasses: ['3'] } } }, []],
    ['an ADR class it may not carry', { constraints: { dangerousGoods: { adrClasses: ['3'] } } }, { handlingRequirements: { dangerousGoods: { adrClasses: ['3', '2'] } } }, ['DANGEROUS_GOODS_NOT_PERMITTED']],
    ['hazardous goods without classes need a vehicle that accepts some', {}, { goodsProfile: { hazardous: true } }, ['DANGEROUS_GOODS_NOT_PERMITTED']],
    ['a temperature range inside the vehicle\u2019s', { constraints: { temperature: { minCelsius: 0, maxCelsius: 25 } } }, { handlingRequirements: { temperature: { minCelsius: 2, maxCelsius: 8 } } }, []],
    ['a temperature range beyond it', { constraints: { temperature: { minCelsius: 5, maxCelsius: 25 } } }, { handlingRequirements: { temperature: { minCelsius: 2, maxCelsius: 8 } } }, ['TEMPERATURE_NOT_SATISFIED']],
    ['temperature-controlled goods and no controlled vehicle', {}, { goodsProfile: { temperatureControlled: true } }, ['TEMPERATURE_NOT_SATISFIED']],
    ['any body type accepted', { vehicleProfile: { bodyType: 'flatbed', equipment: ['tailLift'] } }, { vehicleRequirements: { equipment: ['tailLift'] } }, []],
  ])('%s', (_name, o, r, expected) => {
    expect(failures(offer(o), request(r))).toEqual(expected);
  });
});

test('the score prefers the fuller load and the smaller detour', () => {
  const full = evaluate(offer(), request({ requiredCapacity: { weight: { value: 22, unitCode: 'TNE' } } }), facts());
  const light = evaluate(offer(), request({ requiredCapacity: { weight: { value: 2, unitCode: 'TNE' } } }), facts());
  expect(full.score).toBeGreaterThan(light.score);
  const near = evaluate(offer(), request(), facts());
  const far = evaluate(offer(), request({ pickupArea: { kind: 'unlocode', code: 'DELBC' } }), facts());
  expect(near.score).toBeGreaterThan(far.score);
});

describe('terms a pair lacks', () => {
  test('a complete pair lacks nothing; a draft names each missing term, side by side', () => {
    expect(missingPairTerms(offer(), request())).toBeUndefined();
    expect(missingPairTerms({}, {})).toEqual({ capacityOffer: [...OFFER_TERMS], loadRequest: [...REQUEST_TERMS] });
    const { pickupWindow: _p, ...noWindow } = request();
    expect(missingPairTerms(offer(), noWindow)).toEqual({ capacityOffer: [], loadRequest: ['pickupWindow'] });
    expect(missingPairTerms({ ...offer(), originArea: null }, request())).toEqual({ capacityOffer: ['originArea'], loadRequest: [] });
  });
});
