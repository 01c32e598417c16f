/**
 * Area: where capacity is offered or wanted (an origin or destination area). A JSON object,
 * a union discriminated by `kind` (no other properties):
 *
 * - `{ "kind": "geometry", "geometry": <GeoJSON Polygon | MultiPolygon> }` as in RFC 7946:
 *   `{ "type": "Polygon", "coordinates": [ring, ...] }` (at least one ring: the exterior, then
 *   holes) or `{ "type": "MultiPolygon", "coordinates": [[ring, ...], ...] }` (at least one
 *   polygon). A ring is an array of at least 4 positions whose last position equals its first
 *   (closed). A position is `[lon, lat]` or `[lon, lat, altitude]` of finite numbers, WGS 84 degrees,
 *   lon in [-180, 180], lat in [-90, 90]. At most 1000 positions in the whole geometry. Winding
 *   order and self-intersection are not checked.
 * - `{ "kind": "circle", "center": [lon, lat], "radiusKm": number }`, 1 <= radiusKm <= 1000: a
 *   smaller circle would be an exact location, which must not be disclosed before acceptance.
 * - `{ "kind": "unlocode", "code": "DEHAM" }`: a UN/LOCODE, pattern `^[A-Z]{2}[A-Z0-9]{3}$`
 *   (country + 3-character location), which must be in the broker's UN/LOCODE index. An unknown
 *   code is refused, never guessed.
 * - `{ "kind": "country", "code": "DE" }`: ISO 3166-1 alpha-2, pattern `^[A-Z]{2}$`, a country that
 *   has UN/LOCODEs (user-assigned elements such as XZ, "international waters", are refused).
 * - `{ "kind": "subdivision", "code": "DE-HH" }`: ISO 3166-2, pattern `^[A-Z]{2}-[A-Z0-9]{1,3}$`,
 *   a subdivision that UN/LOCODE entries name.
 * - `{ "kind": "list", "areas": [ ... ] }`: 1 to 20 areas of the kinds above (no list in a list);
 *   the area is their union.
 *
 * JSON Schema checks the shape; validateArea() checks what a schema cannot (closed rings, the
 * position budget, codes present in the index). Matching works on bounding boxes (boundingBox,
 * boxesOverlap). The antimeridian is not handled: boxes are plain [minLon, minLat, maxLon, maxLat]
 * with minLon <= maxLon, so an area that crosses 180° (a circle near Fiji, a country such as US, RU
 * or FJ whose codes lie on both sides) gets a box clamped at ±180 or one spanning all longitudes.
 *
 * The UN/LOCODE index is data/unlocode-index.json.gz, built by scripts/build-unlocode.ts (see the
 * layout there); nothing here reads ../shared.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

export type Position = [number, number] | [number, number, number];
export type Ring = Position[];
export type Geometry =
  | { type: 'Polygon'; coordinates: Ring[] }
  | { type: 'MultiPolygon'; coordinates: Ring[][] };

export type SingleArea =
  | { kind: 'geometry'; geometry: Geometry }
  | { kind: 'circle'; center: [number, number]; radiusKm: number }
  | { kind: 'unlocode'; code: string }
  | { kind: 'country'; code: string }
  | { kind: 'subdivision'; code: string };
export type Area = SingleArea | { kind: 'list'; areas: SingleArea[] };

/** [minLon, minLat, maxLon, maxLat] in degrees. */
export type Box = [number, number, number, number];
export interface FieldError { pointer: string; message: string }

export const MAX_POSITIONS = 1000;
export const MIN_RADIUS_KM = 1;
export const MAX_RADIUS_KM = 1000;
export const MAX_LIST_AREAS = 20;

const COUNTRY_CODE = /^[A-Z]{2}$/;
const SUBDIVISION_CODE = /^[A-Z]{2}-[A-Z0-9]{1,3}$/;
const UNLOCODE = /^[A-Z]{2}[A-Z0-9]{3}$/;
// ISO 3166-1 user-assigned elements: never a country, though UN/LOCODE uses XZ for installations
// in international waters (its codes stay valid as UN/LOCODEs).
const USER_ASSIGNED = /^(AA|Q[M-Z]|X[A-Z]|ZZ)$/;
const KM_PER_DEGREE = (Math.PI * 6371.0088) / 180; // mean Earth radius (IUGG)

// ---- the index ------------------------------------------------------------------------------

/** One code of a country: [location, lon | null, lat | null, subdivision or '']. */
export type CodeEntry = [string, number | null, number | null, string];
/** The file layout of data/unlocode-index.json.gz (scripts/build-unlocode.ts). */
export interface UnlocodeIndex {
  version: 1;
  countries: Record<string, Box | null>;
  subdivisions: Record<string, Box | null>;
  codes: Record<string, CodeEntry[]>;
}
export interface Unlocode { position: [number, number] | null; country: string; subdivision: string }

export class AreaIndex {
  // Built per country on first use: a Map of all 115k codes would cost most of the load time.
  private readonly byCountry = new Map<string, Map<string, CodeEntry>>();
  /**
   * countryBoxes: Natural Earth boxes of each country's home part (data/country-boxes.json,
   * scripts/extract-country-boxes.py); they replace the boxes derived from UN/LOCODE coordinates,
   * which typos in that list distort. Distant overseas territories are not part of a country box.
   */
  constructor(
    private readonly data: UnlocodeIndex,
    private readonly countryBoxes: Record<string, Box> = {},
  ) {}

  /** A UN/LOCODE's position and subdivision, or undefined when the index does not have it. */
  unlocode(code: string): Unlocode | undefined {
    const country = code.slice(0, 2);
    if (!Object.hasOwn(this.data.codes, country)) return undefined;
    let locations = this.byCountry.get(country);
    if (!locations) {
      locations = new Map(this.data.codes[country].map((entry) => [entry[0], entry]));
      this.byCountry.set(country, locations);
    }
    const entry = locations.get(code.slice(2));
    if (!entry) return undefined;
    const [, lon, lat, subdivision] = entry;
    return { position: lon === null || lat === null ? null : [lon, lat], country, subdivision };
  }

  isCountry(code: string): boolean {
    return Object.hasOwn(this.data.countries, code) && !USER_ASSIGNED.test(code);
  }

  isSubdivision(code: string): boolean {
    return Object.hasOwn(this.data.subdivisions, code);
  }

  /** The country's box; null when none of its codes has coordinates (or it is not known). */
  countryBox(code: string): Box | null {
    if (!Object.hasOwn(this.data.countries, code)) return null;
    return Object.hasOwn(this.countryBoxes, code) ? this.countryBoxes[code] : this.data.countries[code];
  }

  /** The subdivision's box, else its country's; null when neither has one. */
  subdivisionBox(code: string): Box | null {
    const own = Object.hasOwn(this.data.subdivisions, code) ? this.data.subdivisions[code] : null;
    return own ?? this.countryBox(code.slice(0, 2));
  }

  /** Every code with a position, as [code, lon, lat] (core/place-names.ts, nearestPlace). */
  *located(): Generator<[string, number, number]> {
    for (const [country, entries] of Object.entries(this.data.codes)) {
      for (const [location, lon, lat] of entries) if (lon !== null && lat !== null) yield [country + location, lon, lat];
    }
  }

  /** A code's point box, else its subdivision's, else its country's box; null when none. */
  unlocodeBox(code: string): Box | null {
    const found = this.unlocode(code);
    if (!found) return null;
    if (found.position) return [...found.position, ...found.position];
    return found.subdivision ? this.subdivisionBox(`${found.country}-${found.subdivision}`) : this.countryBox(found.country);
  }
}

export const DEFAULT_INDEX_FILE = resolve(__dirname, '..', 'data', 'unlocode-index.json.gz');
export const COUNTRY_BOXES_FILE = resolve(__dirname, '..', 'data', 'country-boxes.json');
const loaded = new Map<string, AreaIndex>();

/** Reads the index once per file (about 1 MB gzip); later calls return the cached one. */
export function loadAreaIndex(file: string = DEFAULT_INDEX_FILE): AreaIndex {
  const path = resolve(file);
  let index = loaded.get(path);
  if (!index) {
    const data = JSON.parse(gunzipSync(readFileSync(path)).toString('utf8')) as UnlocodeIndex;
    if (data.version !== 1) throw new Error(`${path}: unsupported UN/LOCODE index version ${String(data.version)}`);
    const countryBoxes = existsSync(COUNTRY_BOXES_FILE) ? JSON.parse(readFileSync(COUNTRY_BOXES_FILE, 'utf8')).boxes : {};
    index = new AreaIndex(data, countryBoxes);
    loaded.set(path, index);
  }
  return index;
}

// ---- validation -----------------------------------------------------------------------------

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Why a position is not valid (and which member), or undefined when it is. */
function positionError(value: unknown, allowAltitude: boolean): { at: string; message: string } | undefined {
  if (!Array.isArray(value) || value.length < 2 || value.length > (allowAltitude ? 3 : 2) || !value.every(isNumber)) {
    return { at: '', message: allowAltitude ? 'must be [lon, lat] or [lon, lat, altitude] of numbers' : 'must be [lon, lat] of numbers' };
  }
  if (value[0] < -180 || value[0] > 180) return { at: '/0', message: 'longitude must be between -180 and 180' };
  if (value[1] < -90 || value[1] > 90) return { at: '/1', message: 'latitude must be between -90 and 90' };
  return undefined;
}

function checkRing(ring: unknown, at: string, errors: FieldError[]): void {
  if (!Array.isArray(ring)) { errors.push({ pointer: at, message: 'a linear ring must be an array of positions' }); return; }
  // One error per ring is enough to fix it, and keeps a bad 1000-position ring from flooding the answer.
  const bad = ring.findIndex((position) => positionError(position, true));
  if (bad >= 0) {
    const { at: member, message } = positionError(ring[bad], true)!;
    errors.push({ pointer: `${at}/${bad}${member}`, message });
  } else if (ring.length < 4) {
    errors.push({ pointer: at, message: 'a linear ring needs at least 4 positions' });
  } else {
    const [first, last] = [ring[0] as number[], ring[ring.length - 1] as number[]];
    if (first.length !== last.length || first.some((value, i) => value !== last[i])) {
      errors.push({ pointer: at, message: 'a linear ring must be closed: its last position must equal its first' });
    }
  }
}

function checkGeometry(geometry: unknown, at: string, errors: FieldError[]): void {
  if (!isObject(geometry)) { errors.push({ pointer: at, message: 'must be a GeoJSON Polygon or MultiPolygon' }); return; }
  const coordinates = geometry.coordinates;
  let polygons: [unknown, string][];
  if (geometry.type === 'Polygon') polygons = [[coordinates, `${at}/coordinates`]];
  else if (geometry.type === 'MultiPolygon') {
    if (!Array.isArray(coordinates) || coordinates.length === 0) {
      errors.push({ pointer: `${at}/coordinates`, message: 'a MultiPolygon needs at least one polygon' });
      return;
    }
    polygons = coordinates.map((polygon, i) => [polygon, `${at}/coordinates/${i}`]);
  } else {
    errors.push({ pointer: `${at}/type`, message: 'must be "Polygon" or "MultiPolygon"' });
    return;
  }
  // Count first: the budget bounds the work done on a hostile payload.
  let total = 0;
  for (const [polygon] of polygons) {
    if (Array.isArray(polygon)) for (const ring of polygon) if (Array.isArray(ring)) total += ring.length;
  }
  if (total > MAX_POSITIONS) {
    errors.push({ pointer: `${at}/coordinates`, message: `has ${total} positions, at most ${MAX_POSITIONS} are allowed` });
    return;
  }
  for (const [polygon, polygonAt] of polygons) {
    if (!Array.isArray(polygon) || polygon.length === 0) {
      errors.push({ pointer: polygonAt, message: 'a polygon must be a non-empty array of linear rings' });
      continue;
    }
    polygon.forEach((ring, i) => checkRing(ring, `${polygonAt}/${i}`, errors));
  }
}

function checkCode(area: Record<string, unknown>, at: string, index: AreaIndex, errors: FieldError[]): void {
  const code = area.code;
  const pointer = `${at}/code`;
  if (area.kind === 'unlocode') {
    if (typeof code !== 'string' || !UNLOCODE.test(code)) errors.push({ pointer, message: 'must be a UN/LOCODE such as DEHAM' });
    else if (!index.unlocode(code)) errors.push({ pointer, message: `unknown UN/LOCODE ${code}` });
    else if (!index.unlocodeBox(code)) errors.push({ pointer, message: `no coordinates are known for ${code} or its country` });
  } else if (area.kind === 'country') {
    if (typeof code !== 'string' || !COUNTRY_CODE.test(code)) errors.push({ pointer, message: 'must be an ISO 3166-1 alpha-2 code such as DE' });
    else if (!index.isCountry(code)) errors.push({ pointer, message: `unknown country ${code}` });
    else if (!index.countryBox(code)) errors.push({ pointer, message: `no coordinates are known for country ${code}` });
  } else {
    if (typeof code !== 'string' || !SUBDIVISION_CODE.test(code)) errors.push({ pointer, message: 'must be an ISO 3166-2 code such as DE-HH' });
    else if (!index.isSubdivision(code)) errors.push({ pointer, message: `unknown subdivision ${code}` });
    else if (!index.subdivisionBox(code)) errors.push({ pointer, message: `no coordinates are known for subdivision ${code}` });
  }
}

function checkArea(area: unknown, at: string, index: AreaIndex, errors: FieldError[], inList: boolean): void {
  if (!isObject(area)) { errors.push({ pointer: at, message: 'must be an area object' }); return; }
  switch (area.kind) {
    case 'geometry':
      checkGeometry(area.geometry, `${at}/geometry`, errors);
      return;
    case 'circle': {
      const bad = positionError(area.center, false);
      if (bad) errors.push({ pointer: `${at}/center${bad.at}`, message: bad.message });
      const radius = area.radiusKm;
      if (!isNumber(radius)) errors.push({ pointer: `${at}/radiusKm`, message: 'must be a number of kilometres' });
      else if (radius < MIN_RADIUS_KM) {
        errors.push({ pointer: `${at}/radiusKm`, message: `must be at least ${MIN_RADIUS_KM} km: a smaller circle would disclose an exact location` });
      } else if (radius > MAX_RADIUS_KM) errors.push({ pointer: `${at}/radiusKm`, message: `must be at most ${MAX_RADIUS_KM} km` });
      return;
    }
    case 'unlocode':
    case 'country':
    case 'subdivision':
      checkCode(area, at, index, errors);
      return;
    case 'list': {
      if (inList) { errors.push({ pointer: `${at}/kind`, message: 'a list cannot contain another list' }); return; }
      const members = area.areas;
      if (!Array.isArray(members) || members.length < 1 || members.length > MAX_LIST_AREAS) {
        errors.push({ pointer: `${at}/areas`, message: `must be an array of 1 to ${MAX_LIST_AREAS} areas` });
        return;
      }
      members.forEach((member, i) => checkArea(member, `${at}/areas/${i}`, index, errors, true));
      return;
    }
    default:
      errors.push({ pointer: `${at}/kind`, message: 'must be one of geometry, circle, unlocode, country, subdivision, list' });
  }
}

/**
 * The semantic errors of an area (empty when it is valid), each with a JSON Pointer below
 * `pointer` (the area's own pointer in the request, e.g. "/originArea"). Also checks the shape,
 * so it never throws on a value that skipped the JSON Schema.
 */
export function validateArea(area: unknown, pointer: string, index: AreaIndex = loadAreaIndex()): FieldError[] {
  const errors: FieldError[] = [];
  checkArea(area, pointer, index, errors, false);
  return errors;
}

// ---- boxes ----------------------------------------------------------------------------------

const clamp = (value: number, limit: number): number => Math.max(-limit, Math.min(limit, value));

function union(boxes: Box[]): Box {
  return boxes.reduce<Box>((a, b) => [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])],
    [Infinity, Infinity, -Infinity, -Infinity]);
}

function circleBox(center: [number, number], radiusKm: number): Box {
  const [lon, lat] = center;
  const dLat = radiusKm / KM_PER_DEGREE;
  const [minLat, maxLat] = [clamp(lat - dLat, 90), clamp(lat + dLat, 90)];
  // A circle that reaches a pole contains every longitude there.
  if (Math.abs(lat) + dLat >= 90) return [-180, minLat, 180, maxLat];
  const dLon = dLat / Math.cos((lat * Math.PI) / 180);
  return [clamp(lon - dLon, 180), minLat, clamp(lon + dLon, 180), maxLat];
}

function singleBox(area: SingleArea, index: AreaIndex): Box {
  let box: Box | null;
  switch (area.kind) {
    case 'geometry': {
      const rings = area.geometry.type === 'Polygon' ? area.geometry.coordinates : area.geometry.coordinates.flat();
      box = union(rings.flat().map(([lon, lat]) => [lon, lat, lon, lat]));
      break;
    }
    case 'circle': box = circleBox(area.center, area.radiusKm); break;
    case 'unlocode': box = index.unlocodeBox(area.code); break;
    case 'country': box = index.countryBox(area.code); break;
    case 'subdivision': box = index.subdivisionBox(area.code); break;
  }
  if (!box) throw new Error(`area ${JSON.stringify(area)} cannot be located: validate it first`);
  return [clamp(box[0], 180), clamp(box[1], 90), clamp(box[2], 180), clamp(box[3], 90)];
}

/**
 * The bounding box of a valid area (validateArea first: throws on one that cannot be located).
 * A UN/LOCODE without coordinates gets its subdivision's box, else its country's. See the file
 * comment about the antimeridian.
 */
export function boundingBox(area: Area, index: AreaIndex = loadAreaIndex()): Box {
  return area.kind === 'list' ? union(area.areas.map((member) => singleBox(member, index))) : singleBox(area, index);
}

/** Whether two boxes share at least a point (touching edges count). */
export function boxesOverlap(a: Box, b: Box): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

// ---- query parameters -----------------------------------------------------------------------

const NUMBER = '(-?\\d+(?:\\.\\d+)?)';
const BBOX = new RegExp(`^bbox:${NUMBER},${NUMBER},${NUMBER},${NUMBER}$`);
const CIRCLE = new RegExp(`^circle:${NUMBER},${NUMBER},${NUMBER}$`);

/**
 * Reads an area from a query parameter: a UN/LOCODE (`DEHAM`), a country (`DE`), a subdivision
 * (`DE-HH`), `bbox:minLon,minLat,maxLon,maxLat` (min < max; becomes a geometry area) or
 * `circle:lon,lat,radiusKm`. Codes are upper case, numbers plain decimals. Returns undefined when
 * the text is none of these or names an invalid area (unknown code, value out of range): the
 * caller answers 400.
 */
export function parseAreaQuery(text: string, index: AreaIndex = loadAreaIndex()): Area | undefined {
  let area: Area;
  let match: RegExpExecArray | null;
  if (text.length > 200) return undefined;
  if (COUNTRY_CODE.test(text)) area = { kind: 'country', code: text };
  else if (SUBDIVISION_CODE.test(text)) area = { kind: 'subdivision', code: text };
  else if (UNLOCODE.test(text)) area = { kind: 'unlocode', code: text };
  else if ((match = BBOX.exec(text))) {
    const [minLon, minLat, maxLon, maxLat] = match.slice(1).map(Number);
    if (!(minLon < maxLon && minLat < maxLat)) return undefined;
    // Counterclockwise, as RFC 7946 wants exterior rings.
    const ring: Ring = [[minLon, minLat], [maxLon, minLat], [maxLon, maxLat], [minLon, maxLat], [minLon, minLat]];
    area = { kind: 'geometry', geometry: { type: 'Polygon', coordinates: [ring] } };
  } else if ((match = CIRCLE.exec(text))) {
    const [lon, lat, radiusKm] = match.slice(1).map(Number);
    area = { kind: 'circle', center: [lon, lat], radiusKm };
  } else return undefined;
  return validateArea(area, '', index).length === 0 ? area : undefined;
}
