// The names of UN/LOCODE places (data/unlocode-names.json.gz, built with the area index by
// scripts/build-unlocode.ts): "DEHAM" -> "Hamburg", for people (the console), and the other way
// for the gateway's spreadsheets, whose place cells may hold a city's name (placesNamed). Matching
// never reads them. Loaded on first use: 116,000 names, about 6 MB in memory.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadAreaIndex } from './areas';
import { greatCircleKm } from './matching/distance';

const FILE = resolve(__dirname, '..', 'data', 'unlocode-names.json.gz');
let names: Record<string, string> | undefined;

/** The name of a UN/LOCODE ("DEHAM": "Hamburg"), if the list has it. */
export function placeName(code: string): string | undefined {
  names ??= JSON.parse(gunzipSync(readFileSync(FILE)).toString('utf8')) as Record<string, string>;
  return Object.hasOwn(names, code) ? names[code] : undefined;
}

/**
 * The names of subdivisions (data/subdivision-names.json.gz, built with the area shapes by
 * scripts/build-area-shapes.ts from Natural Earth): "DE-BY" -> { en: "Bavaria", de: "Bayern",
 * pl: "Bawaria" } (German or Polish only where they differ from the English).
 */
export const SUBDIVISION_NAMES_FILE = resolve(__dirname, '..', 'data', 'subdivision-names.json.gz');
let subdivisions: Record<string, { en: string; de?: string; pl?: string }> | undefined;

export function subdivisionNames(code: string): { en: string; de?: string; pl?: string } | undefined {
  subdivisions ??= JSON.parse(gunzipSync(readFileSync(SUBDIVISION_NAMES_FILE)).toString('utf8')) as Record<string, { en: string; de?: string; pl?: string }>;
  return Object.hasOwn(subdivisions, code) ? subdivisions[code] : undefined;
}

/**
 * A place's names in the console's languages where one differs from its UN/LOCODE name
 * (data/unlocode-exonyms.json.gz, built by scripts/build-place-exonyms.ts from the Unicode CLDR's
 * names of time-zone cities: "PLWAW" -> { en: "Warsaw", de: "Warschau", pl: "Warszawa" }); about
 * 150 capitals and other large cities. Undefined for the others: their UN/LOCODE name is the name.
 */
export const EXONYMS_FILE = resolve(__dirname, '..', 'data', 'unlocode-exonyms.json.gz');
export interface PlaceNames { en: string; de: string; pl: string }
let exonyms: Record<string, PlaceNames> | undefined;

export function placeExonyms(code: string): PlaceNames | undefined {
  exonyms ??= JSON.parse(gunzipSync(readFileSync(EXONYMS_FILE)).toString('utf8')) as Record<string, PlaceNames>;
  return Object.hasOwn(exonyms, code) ? exonyms[code] : undefined;
}

/** A name as search compares it: lower case, without diacritics or punctuation. */
const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();

let searchIndex: Array<{ key: string; code: string }> | undefined;
const WEIGHTS_FILE = resolve(__dirname, '..', 'data', 'unlocode-weights.json.gz');
let weights: Record<string, number> | undefined;

/** A place's weight as a transport place (scripts/build-unlocode.ts placeWeight): 0 or 1 when not listed. */
export function placeWeight(code: string): number {
  weights ??= JSON.parse(gunzipSync(readFileSync(WEIGHTS_FILE)).toString('utf8')) as Record<string, number>;
  return Object.hasOwn(weights, code) ? weights[code] : 0;
}

export interface PlaceMatch {
  code: string;
  /** As UN/LOCODE spells it. */
  name: string;
  country: string;
  /** Its names in the console's languages, where one differs (placeExonyms). */
  names?: PlaceNames;
}

/**
 * Places whose name starts with `query` (or any word of it does: "Rotterdam" for "rotter", "Den
 * Haag" for "haag"), or whose code is `query`; those the area index can place first, then the
 * larger transport place (placeWeight), then by name.
 */
export function searchPlaces(query: string, limit = 15, located: (code: string) => boolean = () => true): PlaceMatch[] {
  const q = fold(query);
  if (!q) return [];
  placeName('DEHAM');
  placeExonyms('PLWAW');
  // Each name by its whole and each later word (for "haag" in "den haag"), and a place's names in
  // the console's languages as whole names too ("warschau" finds PLWAW, "Warszawa").
  const keysOf = (code: string, name: string) => {
    const words = fold(name).split(' ');
    return words.map((_, i) => ({ key: words.slice(i).join(' '), code }));
  };
  searchIndex ??= [
    ...Object.entries(names!).flatMap(([code, name]) => keysOf(code, name)),
    ...Object.entries(exonyms!).flatMap(([code, n]) => [...new Set([n.en, n.de, n.pl])].map((name) => ({ key: fold(name), code }))),
  ]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const found = new Map<string, number>();
  const upper = query.trim().toUpperCase();
  if (/^[A-Z]{2}[A-Z0-9]{3}$/.test(upper) && names![upper]) found.set(upper, -1);
  // Binary search for the first key at or after the query, then walk the prefix range.
  let lo = 0;
  let hi = searchIndex.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (searchIndex[mid].key < q) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < searchIndex.length && searchIndex[i].key.startsWith(q) && found.size < 400; i++) {
    const { key, code } = searchIndex[i];
    // A whole-name match ranks before a later word's; an exact name before a longer one.
    const whole = fold(names![code]) === key || (exonyms![code] && Object.values(exonyms![code]).some((n) => fold(n) === key));
    const rank = (key === q ? 0 : 1) + (whole ? 0 : 2);
    if (!found.has(code) || found.get(code)! > rank) found.set(code, rank);
  }
  // Among equal matches the larger transport place first (Hamburg DE, a port with rail, road and an
  // airport, before nine US towns of one road function each; Antwerpen BE before Antwerp NY).
  return [...found]
    .map(([code, rank]) => ({ code, rank: rank + (located(code) ? 0 : 10), weight: placeWeight(code), name: names![code] }))
    .sort((a, b) => a.rank - b.rank || b.weight - a.weight || a.name.localeCompare(b.name) || a.code.localeCompare(b.code))
    .slice(0, limit)
    .map(({ code, name }) => ({ code, name, country: code.slice(0, 2), ...(exonyms![code] ? { names: exonyms![code] } : {}) }));
}

const KM_PER_DEGREE = greatCircleKm([0, 0], [0, 1]);
/** The located codes by one-degree cell ("lon,lat" of its south-west corner), built on first use. */
let cells: Map<string, Array<[string, number, number]>> | undefined;

/**
 * The named UN/LOCODE place nearest to a point, within `withinKm` (great-circle): how the console
 * names a circle drawn on the map ("40 km around Schoten"). Only the one-degree cells the reach
 * touches are searched (a few hundred codes at most).
 */
export function nearestPlace(lon: number, lat: number, withinKm: number): { code: string; name: string; km: number } | undefined {
  if (!cells) {
    cells = new Map();
    for (const entry of loadAreaIndex().located()) {
      const key = `${Math.floor(entry[1])},${Math.floor(entry[2])}`;
      (cells.get(key) ?? cells.set(key, []).get(key)!).push(entry);
    }
  }
  const dLat = withinKm / KM_PER_DEGREE;
  const dLon = Math.min(dLat / Math.max(Math.cos((lat * Math.PI) / 180), 0.01), 180);
  let best: { code: string; km: number } | undefined;
  for (let x = Math.floor(lon - dLon); x <= Math.floor(lon + dLon); x++) {
    for (let y = Math.floor(lat - dLat); y <= Math.floor(lat + dLat); y++) {
      for (const [code, px, py] of cells.get(`${x},${y}`) ?? []) {
        const km = greatCircleKm([lon, lat], [px, py]);
        if (km <= withinKm && (!best || km < best.km) && placeName(code)) best = { code, km };
      }
    }
  }
  return best && { ...best, name: placeName(best.code)! };
}

/** Letters that Unicode does not take apart into a letter and a mark (ł is no l with a mark), as UN/LOCODE's names without diacritics write them. */
const LETTERS: Readonly<Record<string, string>> = { ł: 'l', đ: 'd', ð: 'd', ø: 'o', ß: 'ss', æ: 'ae', œ: 'oe', ı: 'i', þ: 'th', ħ: 'h', ŀ: 'l' };
/** A name as placesNamed compares it: as search does, and with those letters spelt out ("Łódź" is "lodz"); the directory and the names build compare so too. */
export const foldName = (s: string) => fold(s.toLowerCase().replace(/[łđðøßæœıþħŀ]/g, (c) => LETTERS[c]));
let byName: Map<string, string[]> | undefined;

/**
 * The places whose name is `name`, case, diacritics and punctuation aside ("Krakow" is PLKRK's
 * "Kraków", "Frankfurt (Oder)" DEFFO's "Frankfurt/Oder"), in `country` (ISO 3166-1) when given.
 * Exactly: a name that only starts another ("Frankfurt") names none. Ordered by code.
 */
export function placesNamed(name: string, country?: string): Array<{ code: string; name: string }> {
  const key = foldName(name);
  if (!key) return [];
  placeName('DEHAM');
  if (!byName) {
    byName = new Map();
    for (const [code, spelt] of Object.entries(names!).sort(([a], [b]) => (a < b ? -1 : 1))) {
      const folded = foldName(spelt);
      (byName.get(folded) ?? byName.set(folded, []).get(folded)!).push(code);
    }
  }
  return (byName.get(key) ?? []).filter((code) => country === undefined || code.slice(0, 2) === country).map((code) => ({ code, name: names![code] }));
}
