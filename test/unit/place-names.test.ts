// The names of UN/LOCODE places the console shows (core/place-names.ts, built by
// scripts/build-unlocode.ts from the UNECE list): the source's own names, none garbled.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { nearestPlace, placeName } from '../../core/place-names';

test('well-known places by their UN/LOCODE names; unknown codes have none', () => {
  expect(placeName('DEHAM')).toBe('Hamburg');
  expect(placeName('NLRTM')).toBe('Rotterdam');
  expect(placeName('BEANR')).toBe('Antwerpen');
  expect(placeName('FRLEH')).toBe('Le Havre');
  expect(placeName('ZZZZZ')).toBeUndefined();
  expect(placeName('constructor')).toBeUndefined();
});

test('no name carries the replacement character the source has in 12,610 rows, nor a stray CSV quote', () => {
  const names: Record<string, string> = JSON.parse(gunzipSync(readFileSync(join(__dirname, '..', '..', 'data', 'unlocode-names.json.gz'))).toString('utf8'));
  expect(Object.keys(names).length).toBeGreaterThan(115_000);
  expect(Object.entries(names).filter(([, n]) => n.includes('\uFFFD') || n.startsWith('"') || n.endsWith('"')).length).toBeLessThan(5);
  // The plain spelling where the source lost the diacritic.
  expect(placeName('DEMUC')).toBe('Munchen');
});

test('place search: by the start of a name or of one of its words, without diacritics, or by code; located places first', () => {
  const { searchPlaces } = require('../../core/place-names');
  const hamburg = searchPlaces('hamburg');
  expect(hamburg[0]).toEqual({ code: 'DEHAM', name: 'Hamburg', country: 'DE' });
  expect(searchPlaces('rotterd').map((p: any) => p.code)).toContain('NLRTM');
  expect(searchPlaces('NLRTM')[0].code).toBe('NLRTM');
  expect(searchPlaces('haag').map((p: any) => p.name)).toEqual(expect.arrayContaining([expect.stringMatching(/Den Haag|Haag/)]));
  expect(searchPlaces('gdańsk').map((p: any) => p.code)).toContain('PLGDN');
  expect(searchPlaces('')).toEqual([]);
  expect(searchPlaces('a').length).toBe(15);
  expect(searchPlaces('zzzzqqq')).toEqual([]);
});

test('place search ranks a common name as a planner expects: the larger transport place first', () => {
  const { searchPlaces, placeWeight } = require('../../core/place-names');
  // Hamburg the port (rail, road, airport, postal, approved) before nine US towns of one road function.
  expect(placeWeight('DEHAM')).toBeGreaterThan(placeWeight('USHAM'));
  expect(searchPlaces('hamburg').map((p: any) => p.country).slice(0, 1)).toEqual(['DE']);
  // "Antwer": Antwerpen BE (a port) before Antwerp NY, though "Antwerp" sorts first by name.
  const antwer = searchPlaces('antwer').map((p: any) => p.code);
  expect(antwer.indexOf('BEANR')).toBeLessThan(antwer.indexOf('USA6N'));
  // Among several Frankfurts, Frankfurt am Main (airport, rail, road) comes first.
  expect(searchPlaces('frankfurt')[0].code).toBe('DEFRA');
});

test('nearestPlace: the named place nearest a point within reach (how a drawn circle is named), none in open sea or beyond reach', () => {
  expect(nearestPlace(4.4, 51.22, 10)).toMatchObject({ code: 'BEANR', name: 'Antwerpen' });
  expect(nearestPlace(4.4, 51.22, 10)!.km).toBeCloseTo(1.2, 1);
  expect(nearestPlace(4.47, 51.92, 10)).toMatchObject({ code: 'NLRTM', name: 'Rotterdam' });
  expect(nearestPlace(-30.5, 45, 10)).toBeUndefined();
  expect(nearestPlace(4.4, 51.22, 0.1)).toBeUndefined();
  // Near a pole and across the antimeridian: searched without error.
  expect(() => [nearestPlace(0, 89.999, 10), nearestPlace(179.99, -16.5, 50)]).not.toThrow();
});
