// The names of UN/LOCODE places the console shows (core/place-names.ts, built by
// scripts/build-unlocode.ts from the UNECE list): the source's own names, none garbled.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { nearestPlace, placeName } from '../../core/place-names';
import { restoreDiacritics } from '../../scripts/build-unlocode';

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

describe('diacritics the source lost, given back from GeoNames (scripts/build-unlocode.ts)', () => {
  const row = (country: string, name: string, lon: number | null, lat: number | null) => ({ country, location: 'XXX', subdivision: '', lon, lat, geocoded: false, name, weight: 1 });
  const cities = [
    { name: 'Gdańsk', country: 'PL', lon: 18.65, lat: 54.35 },
    { name: 'Łódź', country: 'PL', lon: 19.47, lat: 51.77 },
    { name: 'Munich', country: 'DE', lon: 11.58, lat: 48.14 },
    { name: 'Pānīpat', country: 'IN', lon: 76.97, lat: 29.39 },
    { name: 'Nová Ves', country: 'CZ', lon: 14.0, lat: 50.0 },
    { name: 'Nová Ves', country: 'CZ', lon: 16.0, lat: 49.0 },
  ];
  test('a plain spelling takes the nearby city\'s of the same letters; no guess otherwise', () => {
    const rows = [row('PL', 'Gdansk', 18.6, 54.4), row('PL', 'Lodz', 19.5, 51.8), row('DE', 'Munchen', 11.6, 48.1), row('PL', 'Gdansk', 21.0, 52.2), row('IN', 'Panipat', 76.97, 29.39), row('CZ', 'Nova Ves', null, null), row('PL', 'Łódź Kaliska', 19.4, 51.8)];
    expect(restoreDiacritics(rows, cities)).toBe(2);
    expect(rows.map((r) => r.name)).toEqual([
      'Gdańsk', // same letters, 4 km away
      'Łódź', // ł folds to l
      'Munchen', // GeoNames says Munich: nothing restored
      'Gdansk', // a Gdansk 300 km from Gdańsk is another place
      'Panipat', // India: UN/LOCODE's romanization is the one trade writes
      'Nova Ves', // no position and two cities of that name: which one?
      'Łódź Kaliska', // spelled with its diacritics already
    ]);
  });
  test('the built names keep them (data/unlocode-names.json.gz)', () => {
    expect([placeName('PLGDN'), placeName('PLLOD'), placeName('DEDUS'), placeName('CHZRH'), placeName('DEHAM')]).toEqual(['Gdańsk', 'Łódź', 'Düsseldorf', 'Zürich', 'Hamburg']);
  });
});
