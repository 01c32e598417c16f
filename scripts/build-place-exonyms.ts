// Builds data/unlocode-exonyms.json.gz: the names of places in the console's languages where they
// differ from the one name UN/LOCODE gives ("PLWAW": { en: "Warsaw", de: "Warschau", pl:
// "Warszawa" }), so that a planner reads and finds a city as its language writes it.
// Run by a developer, never at run time:
//   npx tsx scripts/build-place-exonyms.ts [path-to-an-extracted-cldr-dates-full]
//
// Source: the Unicode CLDR's names of the cities that name time zones ("exemplar cities", about 400
// cities, capitals and other large ones: Warschau, Wiedeń, Praga, Rzym, Lissabon), in every locale
// (the npm package cldr-dates-full, Unicode License v3, downloaded with `npm pack` when no folder is
// given: it is 99 MB, too large to be a dependency), and the IANA time zone database's zone.tab
// (tzdata, public domain: each zone's country and the coordinates of its city; tzdata.zi's links for
// zones CLDR knows by an older id). A zone's city is
// the UN/LOCODE place of the zone's country within 50 km of those coordinates whose name is one of
// the city's names in any locale (Warszawa is Polish's name of Europe/Warsaw), the largest transport
// place first (placeWeight). GeoNames' alternate names would cover many more places; they are not
// available here (docs/decisions.md, "Place names in the planner's language").
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadAreaIndex } from '../core/areas';
import { greatCircleKm } from '../core/matching/distance';
import { foldName, placeName, placeWeight } from '../core/place-names';

export const LANGUAGES = ['en', 'de', 'pl'] as const;
export type Names = Record<(typeof LANGUAGES)[number], string>;
export const CLDR_PACKAGE = 'cldr-dates-full@48.2.0';
/** How far a zone's coordinates may lie from its city's UN/LOCODE point. */
export const WITHIN_KM = 50;
/** How many locales must name a zone's city as UN/LOCODE does when English, German and Polish do not (Warszawa, Roma, Praha). */
export const LOCALES_AGREEING = 4;

export interface Zone { id: string; country: string; lon: number; lat: number }

/** zone.tab's lines: country, coordinates (±DDMM[SS]±DDDMM[SS]), zone id. */
export function parseZoneTab(text: string): Zone[] {
  const degrees = (s: string, width: number) => {
    const sign = s[0] === '-' ? -1 : 1;
    const d = Number(s.slice(1, 1 + width));
    const m = Number(s.slice(1 + width, 3 + width));
    const sec = Number(s.slice(3 + width) || 0);
    return sign * (d + m / 60 + sec / 3600);
  };
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [country, coordinates, id] = line.split('\t');
      const split = coordinates.search(/[+-]/g) === 0 ? coordinates.slice(1).search(/[+-]/) + 1 : -1;
      const lat = coordinates.slice(0, split);
      const lon = coordinates.slice(split);
      return { id, country, lat: degrees(lat, 2), lon: degrees(lon, 3) };
    });
}

/** Each zone's exemplar city per locale (CLDR main/<locale>/timeZoneNames.json), from a folder holding `main/`. */
export function exemplarCities(cldrDir: string): Map<string, Map<string, string>> {
  const cities = new Map<string, Map<string, string>>();
  for (const locale of readdirSync(join(cldrDir, 'main'))) {
    const file = join(cldrDir, 'main', locale, 'timeZoneNames.json');
    if (!existsSync(file)) continue;
    const zones = JSON.parse(readFileSync(file, 'utf8')).main[locale].dates.timeZoneNames.zone ?? {};
    const walk = (node: Record<string, unknown>, path: string[]) => {
      for (const [key, value] of Object.entries(node)) {
        if (!value || typeof value !== 'object') continue;
        const city = (value as { exemplarCity?: unknown }).exemplarCity;
        if (typeof city === 'string') (cities.get([...path, key].join('/')) ?? cities.set([...path, key].join('/'), new Map()).get([...path, key].join('/'))!).set(locale, city);
        else walk(value as Record<string, unknown>, [...path, key]);
      }
    };
    walk(zones, []);
  }
  return cities;
}

/** A zone's city in the console's languages: the locale's exemplar, else English's, else the zone id's city ("Sao_Paulo" → "Sao Paulo"). */
export function namesOf(zone: string, exemplars: Map<string, string> | undefined): Names {
  const fromId = zone.split('/').pop()!.replace(/_/g, ' ');
  const en = exemplars?.get('en') ?? fromId;
  return { en, de: exemplars?.get('de') ?? en, pl: exemplars?.get('pl') ?? en };
}

export interface Place { code: string; lon: number; lat: number; name: string; weight: number }

/** A UN/LOCODE name's spellings, folded: "Rome (Roma)" is "rome" and "roma". */
export const spellingsOf = (name: string) => [name, ...name.split(/\s*[()]\s*/).filter(Boolean)].map(foldName);

/** tzdata's links (tzdata.zi lines "L target alias"): each zone's older names. */
export function zoneAliases(tzdataZi: string): Map<string, string[]> {
  const aliases = new Map<string, string[]>();
  for (const line of tzdataZi.split('\n')) {
    const [kind, target, alias] = line.split(' ');
    if (kind === 'L' && target && alias) (aliases.get(target) ?? aliases.set(target, []).get(target)!).push(alias);
  }
  return aliases;
}

/**
 * The UN/LOCODE place of each zone's city, with its names where any differs from the place's own:
 * a place of the zone's country within WITHIN_KM whose name (folded) is one of the city's names in
 * any locale or the zone id's, the heaviest first.
 */
export function exonyms(zones: Zone[], cities: Map<string, Map<string, string>>, placesOf: (country: string) => Place[], aliases: Map<string, string[]> = new Map()): Record<string, Names> {
  const found: Record<string, Names> = {};
  for (const zone of zones) {
    // CLDR keeps a renamed zone under its old id (Europe/Kiev for tzdata's Europe/Kyiv).
    const id = [zone.id, ...(aliases.get(zone.id) ?? [])].find((z) => cities.has(z)) ?? zone.id;
    const exemplars = cities.get(id);
    const names = namesOf(id, exemplars);
    // The place is the zone's city when its name is the city's in English, German, Polish or the
    // zone id, or in at least LOCALES_AGREEING locales: a zone named by its island or country
    // ("Malta", "Azores") is named by its city in one locale or two, and is not a city's name.
    const direct = new Set([zone.id.split('/').pop()!.replace(/_/g, ' '), ...Object.values(names)].map(foldName));
    const inLocales = (spelling: string) => [...(exemplars?.values() ?? [])].filter((e) => foldName(e) === spelling).length;
    const isTheCity = (name: string) => spellingsOf(name).some((s) => direct.has(s) || inLocales(s) >= LOCALES_AGREEING);
    const [city] = placesOf(zone.country)
      .filter((p) => greatCircleKm([zone.lon, zone.lat], [p.lon, p.lat]) <= WITHIN_KM && isTheCity(p.name))
      .sort((a, b) => b.weight - a.weight || a.code.localeCompare(b.code));
    if (city && LANGUAGES.some((l) => names[l] !== city.name) && !found[city.code]) found[city.code] = names;
  }
  return Object.fromEntries(Object.entries(found).sort(([a], [b]) => a.localeCompare(b)));
}

function main(): void {
  const root = resolve(__dirname, '..');
  let cldrDir = process.argv[2];
  if (!cldrDir) {
    const tmp = mkdtempSync(join(tmpdir(), 'cldr-'));
    const tarball = execFileSync('npm', ['pack', CLDR_PACKAGE, '--silent', '--pack-destination', tmp], { encoding: 'utf8' }).trim().split('\n').pop()!;
    execFileSync('tar', ['-xzf', join(tmp, tarball), '-C', tmp, '--wildcards', 'package/main/*/timeZoneNames.json']);
    cldrDir = join(tmp, 'package');
  }
  const zoneTab = '/usr/share/zoneinfo/zone.tab';
  if (!existsSync(zoneTab)) throw new Error(`${zoneTab} is missing: install the tzdata package`);
  const byCountry = new Map<string, Place[]>();
  for (const [code, lon, lat] of loadAreaIndex().located()) {
    const name = placeName(code);
    if (name) (byCountry.get(code.slice(0, 2)) ?? byCountry.set(code.slice(0, 2), []).get(code.slice(0, 2))!).push({ code, lon, lat, name, weight: placeWeight(code) });
  }
  const zones = parseZoneTab(readFileSync(zoneTab, 'utf8'));
  const zi = '/usr/share/zoneinfo/tzdata.zi';
  const aliases = existsSync(zi) ? zoneAliases(readFileSync(zi, 'utf8')) : new Map<string, string[]>();
  const result = exonyms(zones, exemplarCities(cldrDir), (country) => byCountry.get(country) ?? [], aliases);
  const target = resolve(root, 'data', 'unlocode-exonyms.json.gz');
  writeFileSync(target, gzipSync(JSON.stringify(result), { level: 9 }));
  console.log(`${zones.length} zones, ${Object.keys(result).length} places with names in ${LANGUAGES.join(', ')} -> ${target}`);
}

if (require.main === module) main();
