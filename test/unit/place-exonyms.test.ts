// Place names in the console's languages (scripts/build-place-exonyms.ts, core/place-names.ts
// placeExonyms): a zone's city found among the UN/LOCODE places of its country by name and
// distance, from CLDR's exemplar cities; a zone named by its island or country is no city; the
// built file read by search ("warschau" finds Warszawa) and its names as the console shows them.
import { exonyms, namesOf, parseZoneTab, spellingsOf, zoneAliases, type Place } from '../../scripts/build-place-exonyms';
import { placeExonyms, searchPlaces } from '../../core/place-names';

// zone.tab's own lines (tzdata 2025).
const ZONE_TAB = [
  '#country-\n#code\tcoordinates\tTZ\tcomments',
  'PL\t+5215+02100\tEurope/Warsaw',
  'UA\t+5026+03031\tEurope/Kyiv\tmost of Ukraine',
  'MT\t+3554+01431\tEurope/Malta',
  'IT\t+4154+01229\tEurope/Rome',
  'BR\t-2332-04637\tAmerica/Sao_Paulo\tBrazil (southeast: GO, DF, MG, ES, RJ, SP, PR, SC, RS)',
].join('\n');

test("zone.tab's coordinates in degrees, seconds included, signs kept", () => {
  const zones = parseZoneTab(`${ZONE_TAB}\nUS\t+404251-0740023\tAmerica/New_York\tEastern (most areas)`);
  expect(zones.map((z) => z.id)).toEqual(['Europe/Warsaw', 'Europe/Kyiv', 'Europe/Malta', 'Europe/Rome', 'America/Sao_Paulo', 'America/New_York']);
  expect(zones[0]).toEqual({ id: 'Europe/Warsaw', country: 'PL', lat: 52.25, lon: 21 });
  expect(zones[4].lat).toBeCloseTo(-23.5333, 3);
  expect(zones[5].lat).toBeCloseTo(40.7142, 3);
  expect(zones[5].lon).toBeCloseTo(-74.0064, 3);
});

test("a zone's city in English, German and Polish; a language CLDR does not list uses English's, English the zone id's", () => {
  expect(namesOf('Europe/Warsaw', new Map([['de', 'Warschau'], ['pl', 'Warszawa']]))).toEqual({ en: 'Warsaw', de: 'Warschau', pl: 'Warszawa' });
  expect(namesOf('America/Sao_Paulo', new Map([['en', 'São Paulo']]))).toEqual({ en: 'São Paulo', de: 'São Paulo', pl: 'São Paulo' });
  expect(spellingsOf('Rome (Roma)')).toEqual(['rome roma', 'rome', 'roma']);
  expect(zoneAliases('L Europe/Kyiv Europe/Kiev\nL Europe/Kyiv Europe/Zaporozhye\nZ Europe/Kyiv 2:2:4 - LMT 1880').get('Europe/Kyiv')).toEqual(['Europe/Kiev', 'Europe/Zaporozhye']);
});

test("the place of a zone's city: named so, of its country, within reach, the largest; a zone named by its island is none", () => {
  const cities = new Map([
    ['Europe/Warsaw', new Map([['de', 'Warschau'], ['pl', 'Warszawa'], ['cs', 'Varšava'], ['fr', 'Varsovie']])],
    // CLDR keeps the zone under its old id.
    ['Europe/Kiev', new Map([['en', 'Kyiv'], ['de', 'Kiew'], ['pl', 'Kijów']])],
    // One locale names the island's zone by its capital: not enough to rename Valletta "Malta".
    ['Europe/Malta', new Map([['xx', 'Valletta']])],
    ['Europe/Rome', new Map([['de', 'Rom'], ['pl', 'Rzym'], ['it', 'Roma'], ['es', 'Roma'], ['pt', 'Roma'], ['ro', 'Roma']])],
  ]);
  const places: Record<string, Place[]> = {
    PL: [
      { code: 'PLWAW', name: 'Warszawa', lon: 21.0, lat: 52.25, weight: 6 },
      // Same name, too far: another Warszawa (a village).
      { code: 'PLWXX', name: 'Warszawa', lon: 18.0, lat: 50.0, weight: 9 },
    ],
    UA: [{ code: 'UAIEV', name: 'Kyiv', lon: 30.5333, lat: 50.45, weight: 5 }],
    MT: [{ code: 'MTMLA', name: 'Valletta', lon: 14.5147, lat: 35.8997, weight: 5 }],
    IT: [{ code: 'ITROM', name: 'Rome (Roma)', lon: 12.4833, lat: 41.9, weight: 7 }],
  };
  const found = exonyms(parseZoneTab(ZONE_TAB), cities, (country) => places[country] ?? [], new Map([['Europe/Kyiv', ['Europe/Kiev']]]));
  expect(found).toEqual({
    ITROM: { en: 'Rome', de: 'Rom', pl: 'Rzym' },
    PLWAW: { en: 'Warsaw', de: 'Warschau', pl: 'Warszawa' },
    UAIEV: { en: 'Kyiv', de: 'Kiew', pl: 'Kijów' },
  });
});

test('the built names: capitals as each language writes them; search finds a place by them; others have none', () => {
  expect(placeExonyms('PLWAW')).toEqual({ en: 'Warsaw', de: 'Warschau', pl: 'Warszawa' });
  expect(placeExonyms('ATVIE')).toEqual({ en: 'Vienna', de: 'Wien', pl: 'Wiedeń' });
  expect(placeExonyms('CZPRG')).toEqual({ en: 'Prague', de: 'Prag', pl: 'Praga' });
  expect(placeExonyms('DEHAM')).toBeUndefined();
  expect(placeExonyms('MTMLA')).toBeUndefined();
  expect(searchPlaces('warschau')[0]).toEqual({ code: 'PLWAW', name: 'Warszawa', country: 'PL', names: { en: 'Warsaw', de: 'Warschau', pl: 'Warszawa' } });
  expect(searchPlaces('wiedeń')[0].code).toBe('ATVIE');
  expect(searchPlaces('prag')[0].code).toBe('CZPRG');
  expect(searchPlaces('hamburg')[0]).toEqual({ code: 'DEHAM', name: 'Hamburg', country: 'DE' });
});
