// Pure unit tests of core/areas.ts against the committed UN/LOCODE index (no servers needed).
import {
  boundingBox, boxesOverlap, loadAreaIndex, parseAreaQuery, validateArea,
  type Area, type Box, type Position,
} from '../../core/areas';
import { parseCsvLine, repairRecords, toRow } from '../../scripts/build-unlocode';

const square = (lon: number, lat: number, size = 1): Position[] =>
  [[lon, lat], [lon + size, lat], [lon + size, lat + size], [lon, lat + size], [lon, lat]];
const polygon = (...rings: Position[][]) => ({ kind: 'geometry', geometry: { type: 'Polygon', coordinates: rings } });
const pointers = (area: unknown, at = '/originArea') => validateArea(area, at).map((e) => e.pointer);

describe('the UN/LOCODE index', () => {
  it('is loaded once and cached', () => {
    expect(loadAreaIndex()).toBe(loadAreaIndex());
  });

  it('knows Hamburg and Rotterdam with their coordinates and subdivisions', () => {
    const hamburg = loadAreaIndex().unlocode('DEHAM')!;
    expect(hamburg.subdivision).toBe('HH');
    expect(Math.abs(hamburg.position![0] - 9.98)).toBeLessThan(0.1);
    expect(Math.abs(hamburg.position![1] - 53.55)).toBeLessThan(0.1);
    const rotterdam = loadAreaIndex().unlocode('NLRTM')!;
    expect(Math.abs(rotterdam.position![0] - 4.48)).toBeLessThan(0.1);
    expect(Math.abs(rotterdam.position![1] - 51.92)).toBeLessThan(0.1);
  });
});

describe('validateArea: geometry', () => {
  it('accepts a closed polygon, with a hole and altitudes', () => {
    expect(validateArea(polygon(square(9, 53)), '/originArea')).toEqual([]);
    const hole: Position[] = [[9.2, 53.2, 10], [9.2, 53.4, 10], [9.4, 53.4, 10], [9.2, 53.2, 10]];
    expect(validateArea(polygon(square(9, 53), hole), '/originArea')).toEqual([]);
  });

  it('refuses an open ring, naming the ring', () => {
    const open = square(9, 53).slice(0, 4).concat([[9.5, 53]]);
    expect(validateArea(polygon(open), '/originArea')).toEqual([
      { pointer: '/originArea/geometry/coordinates/0', message: expect.stringMatching(/closed/) },
    ]);
  });

  it('refuses a ring of fewer than 4 positions', () => {
    const errors = validateArea(polygon([[0, 0], [1, 1], [0, 0]]), '/originArea');
    expect(errors).toEqual([{ pointer: '/originArea/geometry/coordinates/0', message: expect.stringMatching(/at least 4/) }]);
  });

  it('refuses longitude 181 and latitude -91, naming the number', () => {
    const east = square(9, 53);
    east[1] = [181, 53];
    expect(pointers(polygon(east))).toEqual(['/originArea/geometry/coordinates/0/1/0']);
    const south = square(9, 53);
    south[2] = [10, -91];
    expect(pointers(polygon(south))).toEqual(['/originArea/geometry/coordinates/0/2/1']);
  });

  it('refuses malformed positions', () => {
    expect(pointers(polygon([[0, 0], [1, '1'], [1, 1], [0, 0]] as never))).toEqual(['/originArea/geometry/coordinates/0/1']);
    expect(pointers(polygon([[0, 0, 0, 0], [1, 0], [1, 1], [0, 0]] as never))).toEqual(['/originArea/geometry/coordinates/0/0']);
  });

  it('names the bad ring of a MultiPolygon', () => {
    const openHole: Position[] = [[4.1, 52.1], [4.1, 52.3], [4.3, 52.3], [4.2, 52.1]];
    const area = { kind: 'geometry', geometry: { type: 'MultiPolygon', coordinates: [[square(9, 53)], [square(4, 52), openHole]] } };
    expect(pointers(area)).toEqual(['/originArea/geometry/coordinates/1/1']);
  });

  it('refuses more than 1000 positions, other geometry types and empty polygons', () => {
    const ring: Position[] = Array.from({ length: 1000 }, (_, i) => [i / 1000, Math.sin(i)]);
    ring.push(ring[0]);
    expect(validateArea(polygon(ring), '/a')).toEqual([{ pointer: '/a/geometry/coordinates', message: expect.stringMatching(/1001 positions/) }]);
    expect(pointers({ kind: 'geometry', geometry: { type: 'Point', coordinates: [0, 0] } }, '/a')).toEqual(['/a/geometry/type']);
    expect(pointers(polygon(), '/a')).toEqual(['/a/geometry/coordinates']);
    expect(pointers({ kind: 'geometry', geometry: { type: 'MultiPolygon', coordinates: [] } }, '/a')).toEqual(['/a/geometry/coordinates']);
  });
});

describe('validateArea: circle', () => {
  const circle = (radiusKm: unknown, center: unknown = [9.99, 53.55]) => ({ kind: 'circle', center, radiusKm });

  it('accepts radii from 1 to 1000 km', () => {
    expect(validateArea(circle(1), '/a')).toEqual([]);
    expect(validateArea(circle(1000), '/a')).toEqual([]);
  });

  it('refuses a radius under 1 km (an exact location) or over 1000 km', () => {
    expect(validateArea(circle(0.5), '/a')).toEqual([{ pointer: '/a/radiusKm', message: expect.stringMatching(/exact location/) }]);
    expect(pointers(circle(1000.5), '/a')).toEqual(['/a/radiusKm']);
    expect(pointers(circle('5'), '/a')).toEqual(['/a/radiusKm']);
  });

  it('refuses a centre out of range or with an altitude', () => {
    expect(pointers(circle(5, [9, 91]), '/a')).toEqual(['/a/center/1']);
    expect(pointers(circle(5, [-180.5, 0]), '/a')).toEqual(['/a/center/0']);
    expect(pointers(circle(5, [9, 53, 0]), '/a')).toEqual(['/a/center']);
  });
});

describe('validateArea: codes', () => {
  it('accepts known UN/LOCODEs, countries and subdivisions', () => {
    for (const area of [
      { kind: 'unlocode', code: 'DEHAM' }, { kind: 'unlocode', code: 'NLRTM' },
      { kind: 'country', code: 'DE' }, { kind: 'country', code: 'FR' },
      { kind: 'subdivision', code: 'DE-HH' }, { kind: 'subdivision', code: 'NL-ZH' },
    ]) expect(validateArea(area, '/a')).toEqual([]);
  });

  it('refuses unknown UN/LOCODEs instead of guessing', () => {
    expect(validateArea({ kind: 'unlocode', code: 'DEQQQ' }, '/a')).toEqual([{ pointer: '/a/code', message: 'unknown UN/LOCODE DEQQQ' }]);
    expect(pointers({ kind: 'unlocode', code: 'ZZZZZ' }, '/a')).toEqual(['/a/code']);
    expect(pointers({ kind: 'unlocode', code: 'deham' }, '/a')).toEqual(['/a/code']);
    expect(pointers({ kind: 'unlocode', code: 'DE-HAM' }, '/a')).toEqual(['/a/code']);
    expect(pointers({ kind: 'unlocode' }, '/a')).toEqual(['/a/code']);
  });

  it('refuses unknown or user-assigned countries and countries without coordinates', () => {
    expect(pointers({ kind: 'country', code: 'QQ' }, '/a')).toEqual(['/a/code']);
    expect(pointers({ kind: 'country', code: 'de' }, '/a')).toEqual(['/a/code']);
    expect(pointers({ kind: 'country', code: 'DEU' }, '/a')).toEqual(['/a/code']);
    // XZ is UN/LOCODE's "international waters": its codes are fine, the "country" is not.
    expect(pointers({ kind: 'country', code: 'XZ' }, '/a')).toEqual(['/a/code']);
    expect(validateArea({ kind: 'unlocode', code: 'XZOCA' }, '/a')).toEqual([]);
    // Norfolk Island's only UN/LOCODE has no coordinates; its Natural Earth box locates it.
    expect(validateArea({ kind: 'country', code: 'NF' }, '/a')).toEqual([]);
  });

  it('refuses unknown subdivisions', () => {
    expect(pointers({ kind: 'subdivision', code: 'DE-ZZ' }, '/a')).toEqual(['/a/code']);
    expect(pointers({ kind: 'subdivision', code: 'DEHH' }, '/a')).toEqual(['/a/code']);
    expect(pointers({ kind: 'subdivision', code: 'DE-HAMB' }, '/a')).toEqual(['/a/code']);
  });
});

describe('validateArea: lists and kinds', () => {
  it('accepts a list of up to 20 areas', () => {
    const members = Array.from({ length: 20 }, () => ({ kind: 'unlocode', code: 'DEHAM' }));
    expect(validateArea({ kind: 'list', areas: members }, '/a')).toEqual([]);
    expect(pointers({ kind: 'list', areas: [...members, { kind: 'country', code: 'DE' }] }, '/a')).toEqual(['/a/areas']);
    expect(pointers({ kind: 'list', areas: [] }, '/a')).toEqual(['/a/areas']);
  });

  it('points into the list at a bad member', () => {
    const area = { kind: 'list', areas: [{ kind: 'country', code: 'DE' }, polygon(square(9, 53)), { kind: 'unlocode', code: 'DEQQQ' }] };
    expect(pointers(area)).toEqual(['/originArea/areas/2/code']);
  });

  it('refuses a list in a list', () => {
    const area = { kind: 'list', areas: [{ kind: 'country', code: 'DE' }, { kind: 'list', areas: [{ kind: 'country', code: 'FR' }] }] };
    expect(validateArea(area, '/a')).toEqual([{ pointer: '/a/areas/1/kind', message: expect.stringMatching(/list/) }]);
  });

  it('refuses unknown kinds and non-objects without throwing', () => {
    expect(pointers({ kind: 'point', center: [0, 0] }, '/a')).toEqual(['/a/kind']);
    expect(pointers(null, '/a')).toEqual(['/a']);
    expect(pointers([], '/a')).toEqual(['/a']);
    expect(pointers('DEHAM', '')).toEqual(['']);
  });
});

describe('boundingBox', () => {
  const index = loadAreaIndex();

  it('spans the positions of a geometry', () => {
    const area = { kind: 'geometry', geometry: { type: 'MultiPolygon', coordinates: [[square(9, 53)], [square(4, 51, 0.5)]] } } as Area;
    expect(boundingBox(area)).toEqual([4, 51, 10, 54]);
  });

  it('widens a circle by its radius in degrees at its centre', () => {
    const [minLon, minLat, maxLon, maxLat] = boundingBox({ kind: 'circle', center: [10, 60], radiusKm: 111.19508 });
    expect(minLat).toBeCloseTo(59, 4);
    expect(maxLat).toBeCloseTo(61, 4);
    expect(minLon).toBeCloseTo(8, 4); // cos 60° = 1/2: twice as many degrees of longitude
    expect(maxLon).toBeCloseTo(12, 4);
  });

  it('clamps circles at the poles and at ±180 (no antimeridian handling)', () => {
    expect(boundingBox({ kind: 'circle', center: [20, 89.5], radiusKm: 100 })).toEqual([-180, expect.closeTo(88.6, 1), 180, 90]);
    const [, , maxLon] = boundingBox({ kind: 'circle', center: [179.5, 0], radiusKm: 100 });
    expect(maxLon).toBe(180);
  });

  it('is a point for a UN/LOCODE with coordinates', () => {
    const [lon, lat] = index.unlocode('DEHAM')!.position!;
    expect(boundingBox({ kind: 'unlocode', code: 'DEHAM' })).toEqual([lon, lat, lon, lat]);
  });

  it('falls back to the subdivision, then the country, for a code without coordinates', () => {
    // DECLE (Cable, Berlin) and DEXXX (RIS inland waterways, no subdivision) have no coordinates.
    expect(index.unlocode('DECLE')).toEqual({ position: null, country: 'DE', subdivision: 'BE' });
    expect(boundingBox({ kind: 'unlocode', code: 'DECLE' })).toEqual(index.subdivisionBox('DE-BE'));
    expect(index.unlocode('DEXXX')).toEqual({ position: null, country: 'DE', subdivision: '' });
    expect(boundingBox({ kind: 'unlocode', code: 'DEXXX' })).toEqual(index.countryBox('DE'));
  });

  it('is the union of a list', () => {
    const box = boundingBox({ kind: 'list', areas: [{ kind: 'unlocode', code: 'DEHAM' }, { kind: 'unlocode', code: 'NLRTM' }] });
    const [hamburg, rotterdam] = [index.unlocode('DEHAM')!.position!, index.unlocode('NLRTM')!.position!];
    expect(box).toEqual([rotterdam[0], rotterdam[1], hamburg[0], hamburg[1]]);
  });

  it('gives countries a box around their territory, not around UN/LOCODE typos', () => {
    // The source has German codes at 138°E and 130°W; the box must still be Germany's.
    const [minLon, minLat, maxLon, maxLat] = boundingBox({ kind: 'country', code: 'DE' });
    expect(minLon).toBeGreaterThan(5); expect(maxLon).toBeLessThan(16);
    expect(minLat).toBeGreaterThan(45); expect(maxLat).toBeLessThan(57);
  });

  it('throws for an area that cannot be located', () => {
    expect(() => boundingBox({ kind: 'unlocode', code: 'DEQQQ' })).toThrow(/validate/);
    expect(() => boundingBox({ kind: 'country', code: 'QQ' })).toThrow(/validate/);
  });
});

describe('boxesOverlap', () => {
  const hamburg = boundingBox({ kind: 'subdivision', code: 'DE-HH' });

  it('matches Hamburg with Germany and not with France', () => {
    expect(boxesOverlap(hamburg, boundingBox({ kind: 'country', code: 'DE' }))).toBe(true);
    expect(boxesOverlap(hamburg, boundingBox({ kind: 'country', code: 'FR' }))).toBe(false);
    expect(boxesOverlap(boundingBox({ kind: 'unlocode', code: 'DEHAM' }), hamburg)).toBe(true);
    expect(boxesOverlap(boundingBox({ kind: 'circle', center: [9.99, 53.55], radiusKm: 10 }), hamburg)).toBe(true);
  });

  it('counts touching edges and is symmetric', () => {
    const a: Box = [0, 0, 1, 1];
    expect(boxesOverlap(a, [1, 1, 2, 2])).toBe(true);
    expect(boxesOverlap(a, [1.01, 0, 2, 1])).toBe(false);
    expect(boxesOverlap([0, 1.01, 1, 2], a)).toBe(false);
    expect(boxesOverlap([-1, -1, 3, 3], a)).toBe(true);
  });
});

describe('parseAreaQuery', () => {
  it('reads codes', () => {
    expect(parseAreaQuery('DEHAM')).toEqual({ kind: 'unlocode', code: 'DEHAM' });
    expect(parseAreaQuery('DE')).toEqual({ kind: 'country', code: 'DE' });
    expect(parseAreaQuery('DE-HH')).toEqual({ kind: 'subdivision', code: 'DE-HH' });
  });

  it('reads a bbox as a closed counterclockwise polygon', () => {
    const area = parseAreaQuery('bbox:9.5,53.25,10.5,54')!;
    expect(area).toEqual({ kind: 'geometry', geometry: { type: 'Polygon', coordinates: [[[9.5, 53.25], [10.5, 53.25], [10.5, 54], [9.5, 54], [9.5, 53.25]]] } });
    expect(boundingBox(area)).toEqual([9.5, 53.25, 10.5, 54]);
    expect(parseAreaQuery('bbox:-10,-5.5,0,5')).toBeDefined();
  });

  it('reads a circle', () => {
    expect(parseAreaQuery('circle:9.99,53.55,25')).toEqual({ kind: 'circle', center: [9.99, 53.55], radiusKm: 25 });
  });

  it.each([
    '', 'deham', 'De', 'DEQQQ', 'QQ', 'DE-ZZ', 'DEHAMX', 'DE-HH-1', ' DEHAM',
    'bbox:10,53,9,54', 'bbox:9,53,9,54', 'bbox:9,53,10', 'bbox:9,53,10,54,1', 'bbox:9,53,181,54', 'bbox:1e1,53,11,54',
    'circle:9.99,53.55,0.5', 'circle:9.99,53.55,1001', 'circle:9.99,95,10', 'circle:9.99,53.55', 'circle: 9.99,53.55,10',
    'circle:9.99,53.55,NaN', 'point:9.99,53.55', 'x'.repeat(500),
  ])('rejects %j', (text) => {
    expect(parseAreaQuery(text)).toBeUndefined();
  });
});

describe('scripts/build-unlocode.ts (the source CSV is not uniform)', () => {
  it('parses quoted fields with commas and doubled quotes', () => {
    expect(parseCsvLine('a,"b, c","say ""hi""",,e')).toEqual(['a', 'b, c', 'say "hi"', '', 'e']);
  });

  it('splits records that ran together where a file had no final newline', () => {
    const line = 'AD,SCO,Santa Coloma,Santa Coloma,,RL,--3-----,,42.5,1.5,AE,ABU,Abu,Abu,,RL,1-------,,25.48,53.13,';
    expect(repairRecords(parseCsvLine(line)).map((r) => r.slice(0, 2))).toEqual([['AD', 'SCO'], ['AE', 'ABU']]);
    // A file without the geocoded column: the longitude runs into the next country code.
    const glued = 'BR,ZOA,Zortea,Zortea,SC,AA,--3-----,,-27.45,-51.5333BS,ASD,Andros,Andros,,RL,1--4----,,24.7,-77.76667,true';
    const [first, second] = repairRecords(parseCsvLine(glued));
    expect(toRow(first)).toMatchObject({ country: 'BR', location: 'ZOA', subdivision: 'SC', lon: -51.5333, lat: -27.45 });
    expect(toRow(second)).toMatchObject({ country: 'BS', location: 'ASD', lon: -77.7667, lat: 24.7, geocoded: true });
  });

  it('reads rows whose name was split in two fields, and NaN or missing coordinates', () => {
    const split = parseCsvLine('AT,MLD,"""Mollersdorf"," Baden""","""Mollersdorf"," Baden""",3,--3-----,48.3602791,16.0063566,true');
    expect(toRow(split)).toEqual({ country: 'AT', location: 'MLD', subdivision: '3', lon: 16.0064, lat: 48.3603, geocoded: true, name: 'Mollersdorf, Baden', weight: 1 });
    expect(toRow(parseCsvLine('BW,DUK,Dukwi,Dukwi,,RL,--3-----,,NaN,75.4833'))).toMatchObject({ lon: null, lat: null });
    expect(toRow(parseCsvLine('DE,CLE,Cable,Cable,BE,RQ,--3-----,,,,'))).toMatchObject({ subdivision: 'BE', lon: null, lat: null });
  });
});
