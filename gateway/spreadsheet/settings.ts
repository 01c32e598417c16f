// An organization's spreadsheet settings (config/gateway.json, `spreadsheet`): which column of its
// daily export of free trucks holds what, and what the exchange needs that a row does not carry
// (publish or draft, to whom, the time zone of its local dates, how its dates and numbers are
// written, when an offer expires). The organization decides these once; nothing here is guessed
// per file, and a file its settings cannot read is quarantined, saying which setting or cell.
import type { components } from '@pcx/sdk';
import { ENCODINGS, type Encoding } from './encoding';

/** The exchange's body types (schemas/logistics.json, VehicleBodyType). */
export const BODY_TYPES = ['box', 'curtainsider', 'refrigerated', 'insulated', 'tanker', 'silo', 'flatbed', 'lowLoader', 'tipper', 'containerChassis', 'carTransporter', 'walkingFloor', 'van', 'other'] as const satisfies readonly components['schemas']['LogisticsVehicleBodyType'][];
export type BodyType = (typeof BODY_TYPES)[number];

/** The columns a row may carry, each named by its header text in the organization's export. */
export interface SpreadsheetColumns {
  /** Where the truck is free: a UN/LOCODE ("DEHAM", "DE HAM"), one of the organization's `places`, or a UN/LOCODE place's name ("Hamburg"). Required. */
  origin: string;
  /** The ISO 3166-1 country of the origin ("DE"): a place's name is looked up in it. */
  originCountry?: string;
  /** Where it may go: as the origin, or an ISO 3166-1 country ("AT") or ISO 3166-2 subdivision ("AT-9"). */
  destination?: string;
  /** The ISO 3166-1 country of the destination: a name is looked up in it; with no destination, it is the destination. */
  destinationCountry?: string;
  /** The day (and time) it is free from. Required. */
  availableFrom: string;
  /** The time of day it is free from, when the export keeps it in a column of its own. */
  availableFromTime?: string;
  /** The day (and time) it is free until (a day alone: to the end of that day). */
  availableUntil?: string;
  availableUntilTime?: string;
  /** The vehicle's body, in the organization's words (`bodyTypes`) or the exchange's. */
  bodyType?: string;
  /** Free pallet spaces (a whole number). */
  pallets?: string;
  /** Free weight, in `weightUnit` (kilograms unless set). */
  weight?: string;
  /** Free loading metres. */
  loadingMetres?: string;
  /** Free volume, cubic metres. */
  volume?: string;
  /** The carrier's own id of the truck or trip: the offer's external reference. */
  reference?: string;
  /** The price asked for the trip, in `currency`: shown to the partner only once a match is accepted (restrictedDetails). */
  price?: string;
}

export const COLUMN_FIELDS = ['origin', 'originCountry', 'destination', 'destinationCountry', 'availableFrom', 'availableFromTime', 'availableUntil', 'availableUntilTime', 'bodyType', 'pallets', 'weight', 'loadingMetres', 'volume', 'reference', 'price'] as const satisfies ReadonlyArray<keyof SpreadsheetColumns>;
export type ColumnField = (typeof COLUMN_FIELDS)[number];

export interface SpreadsheetSettings {
  /** Publish each row's offer (true) or leave it a draft for someone to complete and publish. */
  publish: boolean;
  /** Who sees what it publishes (the exchange's Visibility; default `{ "mode": "open" }`). */
  visibility?: components['schemas']['LogisticsVisibility'];
  /** The IANA time zone its local dates and times are in ("Europe/Vienna"). Required. */
  timeZone: string;
  /**
   * How its dates are written when they are text: a pattern of YYYY (or YY: 20YY), MM or M, DD or D
   * and separators, e.g. "DD.MM.YYYY", "D.M.YYYY", "DD/MM/YYYY", "MM/DD/YYYY". ISO dates
   * (2031-03-15) are always read; without a pattern, only they are (03/04/2031 is ambiguous).
   * A time may follow a date after a space (H:mm or HH:mm[:ss]). XLSX date cells need no pattern.
   */
  dateFormat?: string;
  /** The decimal mark of numbers written as text. Without it, only numbers with one reading are read ("24,5" is 24.5, "1.500" is ambiguous). */
  decimalSeparator?: ',' | '.';
  /** CSV field delimiter; without it, the one of `,` `;` and tab with which the header row is found. */
  delimiter?: ',' | ';' | '\t';
  /**
   * The character encoding of its CSV files when they are not UTF-8 (which a BOM or valid UTF-8
   * shows): windows-1250, iso-8859-2, windows-1252, iso-8859-1; or utf-8, to read nothing else.
   * Without it, a file that reads in one plausible way only is read so (encoding.ts).
   */
  encoding?: Encoding;
  /** The ISO 3166-1 countries in which a place's name ("Hamburg") is looked up, unless the row's country column says; without them, every country. */
  countries?: readonly string[];
  /** The columns, by header text (matched ignoring case and surrounding or repeated spaces). */
  columns: SpreadsheetColumns;
  /** Its own words for body types, to the exchange's ("Plane": "curtainsider", "Kühler": "refrigerated"), matched ignoring case. */
  bodyTypes?: Readonly<Record<string, BodyType>>;
  /** The body type of a row that names none (no bodyType column, or an empty cell). */
  bodyType?: Exclude<BodyType, 'other'>;
  /** Where a row that names no destination may go (a value as a destination cell would hold it: "AT", "DEHAM"). */
  destination?: string;
  /** The offer's direction (oneWay, roundTrip, eitherWay), when the organization states one. */
  direction?: 'oneWay' | 'roundTrip' | 'eitherWay';
  /** The ISO 4217 currency of the price column (required when a price column is mapped). */
  currency?: string;
  /** The unit of the weight column: KGM (default) or TNE. */
  weightUnit?: 'KGM' | 'TNE';
  /** A row free from a time of day with no until: free for this many hours (otherwise it is quarantined). */
  availableForHours?: number;
  /** When a published offer expires: `hours` before the start or the end of its availability (default: at its end). */
  expires?: { before: 'availableFrom' | 'availableUntil'; hours: number };
  /** The `system` of its offers' external references (default `spreadsheet:<organizationId>`). */
  system?: string;
  /** The `type` of the reference column's external reference (default `truck`). */
  referenceType?: string;
  /** The XLSX sheet to read, by name (default: the workbook's first). */
  sheet?: string;
  /** The header row's number (default: the first of the first 20 rows holding every mapped header). */
  headerRow?: number;
  /** At most this many rows of trucks in one file (default 500, at most 5000). */
  maxRows?: number;
}

export const DEFAULT_MAX_ROWS = 500;
export const HARD_MAX_ROWS = 5000;

/** What is wrong with an organization's settings, each with the setting's path; empty when they can be used. */
export function settingsProblems(s: SpreadsheetSettings | undefined): Array<{ path: string; message: string }> {
  const out: Array<{ path: string; message: string }> = [];
  const bad = (path: string, message: string) => out.push({ path: `settings.spreadsheet${path ? `.${path}` : ''}`, message });
  if (!s || typeof s !== 'object') {
    bad('', 'the organization has no spreadsheet settings: which column holds what');
    return out;
  }
  if (typeof s.publish !== 'boolean') bad('publish', 'must be true or false');
  if (s.columns?.price && (typeof s.currency !== 'string' || !/^[A-Z]{3}$/.test(s.currency))) bad('currency', 'must be the ISO 4217 code of the price column (EUR) when a price column is mapped');
  if (typeof s.timeZone !== 'string' || !validZone(s.timeZone)) bad('timeZone', `${JSON.stringify(s.timeZone)} is not an IANA time zone`);
  if (s.dateFormat !== undefined && !datePattern(s.dateFormat)) bad('dateFormat', `${JSON.stringify(s.dateFormat)} is not a date pattern of YYYY (or YY), MM or M, DD or D`);
  if (s.decimalSeparator !== undefined && s.decimalSeparator !== ',' && s.decimalSeparator !== '.') bad('decimalSeparator', 'must be "," or "."');
  if (s.delimiter !== undefined && ![',', ';', '\t'].includes(s.delimiter)) bad('delimiter', 'must be ",", ";" or a tab');
  if (s.encoding !== undefined && !(ENCODINGS as readonly string[]).includes(s.encoding)) bad('encoding', `must be one of ${ENCODINGS.join(', ')}`);
  if (s.countries !== undefined && !(Array.isArray(s.countries) && s.countries.length > 0 && s.countries.length <= 250 && s.countries.every(isCountry))) bad('countries', 'must be a list of ISO 3166-1 alpha-2 countries (["AT", "DE"])');
  if (!s.columns || typeof s.columns !== 'object') bad('columns', 'must name the header of each column read');
  else {
    for (const required of ['origin', 'availableFrom'] as const) if (!s.columns[required]) bad(`columns.${required}`, 'is required');
    const seen = new Map<string, string>();
    for (const [field, header] of Object.entries(s.columns)) {
      if (header === undefined) continue;
      if (!(COLUMN_FIELDS as readonly string[]).includes(field)) bad(`columns.${field}`, `is not a column the mapping reads (${COLUMN_FIELDS.join(', ')})`);
      else if (typeof header !== 'string' || !headerKey(header)) bad(`columns.${field}`, 'must be the header text of a column');
      else if (seen.has(headerKey(header))) bad(`columns.${field}`, `names the same column as columns.${seen.get(headerKey(header))}`);
      else seen.set(headerKey(header), field);
    }
  }
  for (const [word, type] of Object.entries(s.bodyTypes ?? {})) if (!(BODY_TYPES as readonly string[]).includes(type)) bad(`bodyTypes.${word}`, `${JSON.stringify(type)} is not one of the exchange's body types`);
  if (s.bodyType !== undefined && (!(BODY_TYPES as readonly string[]).includes(s.bodyType) || (s.bodyType as string) === 'other')) bad('bodyType', `must be one of the exchange's body types but "other" (${BODY_TYPES.filter((t) => t !== 'other').join(', ')})`);
  if (s.direction !== undefined && !['oneWay', 'roundTrip', 'eitherWay'].includes(s.direction)) bad('direction', 'must be oneWay, roundTrip or eitherWay');
  if (s.weightUnit !== undefined && s.weightUnit !== 'KGM' && s.weightUnit !== 'TNE') bad('weightUnit', 'must be KGM or TNE');
  if (s.availableForHours !== undefined && !(typeof s.availableForHours === 'number' && s.availableForHours > 0 && s.availableForHours <= 24 * 31)) bad('availableForHours', 'must be a number of hours above 0, at most 744');
  if (s.expires !== undefined && !(s.expires && ['availableFrom', 'availableUntil'].includes(s.expires.before) && typeof s.expires.hours === 'number' && s.expires.hours >= 0 && s.expires.hours <= 24 * 365)) bad('expires', 'must be { "before": "availableFrom" | "availableUntil", "hours": 0 or more }');
  if (s.system !== undefined && !(typeof s.system === 'string' && s.system.length >= 1 && s.system.length <= 512)) bad('system', 'must be a text of 1 to 512 characters');
  if (s.referenceType !== undefined && !(typeof s.referenceType === 'string' && s.referenceType.length >= 1 && s.referenceType.length <= 512)) bad('referenceType', 'must be a text of 1 to 512 characters');
  if (s.sheet !== undefined && !(typeof s.sheet === 'string' && s.sheet.length > 0)) bad('sheet', 'must be a sheet name');
  if (s.headerRow !== undefined && !(Number.isInteger(s.headerRow) && s.headerRow >= 1 && s.headerRow <= 1000)) bad('headerRow', 'must be a row number from 1 to 1000');
  if (s.maxRows !== undefined && !(Number.isInteger(s.maxRows) && s.maxRows >= 1 && s.maxRows <= HARD_MAX_ROWS)) bad('maxRows', `must be a whole number from 1 to ${HARD_MAX_ROWS}`);
  if (s.visibility !== undefined && (typeof s.visibility !== 'object' || s.visibility === null || typeof s.visibility.mode !== 'string')) bad('visibility', 'must be the exchange\'s Visibility ({ "mode": "open" }, partners or groups)');
  return out;
}

const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
/** An ISO 3166-1 alpha-2 country as the platform's CLDR knows it (not EU, UN, ZZ or other groupings). */
export const isCountry = (code: unknown): code is string => typeof code === 'string' && /^[A-Z]{2}$/.test(code) && !['EU', 'EZ', 'UN', 'QO', 'ZZ', 'XA', 'XB'].includes(code) && regions.of(code) !== code;

/** How headers are compared: case, surrounding and repeated spaces (and a BOM) do not count. */
export const headerKey = (text: string) => text.replace(/^\uFEFF/, '').trim().replace(/\s+/g, ' ').toLowerCase();

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

/** A date pattern as a regular expression with named groups (y, yy, m, d), or undefined when it is not one. */
export function datePattern(pattern: string): RegExp | undefined {
  if (typeof pattern !== 'string' || pattern.length > 20) return undefined;
  const tokens = /YYYY|YY|MM|M|DD|D/g;
  let source = '';
  let last = 0;
  const seen = new Set<string>();
  for (const m of pattern.matchAll(tokens)) {
    const literal = pattern.slice(last, m.index);
    if (/[A-Za-z0-9]/.test(literal)) return undefined;
    source += literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const kind = m[0][0];
    if (seen.has(kind)) return undefined;
    seen.add(kind);
    source += m[0] === 'YYYY' ? '(?<y>\\d{4})' : m[0] === 'YY' ? '(?<yy>\\d{2})' : m[0].length === 2 ? `(?<${kind.toLowerCase()}>\\d{2})` : `(?<${kind.toLowerCase()}>\\d{1,2})`;
    last = (m.index ?? 0) + m[0].length;
  }
  const tail = pattern.slice(last);
  if (/[A-Za-z0-9]/.test(tail) || seen.size !== 3) return undefined;
  source += tail.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`^${source}$`);
}
