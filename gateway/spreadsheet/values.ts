// Reading one cell as what its column means: a place, a date or time, a number, a text. Each
// reader answers the value, or the reason (code and message) it cannot: the mapping adds the cell.
// Only values with one reading are read; the organization's settings decide what a file leaves
// open (its date pattern, decimal mark, time zone, its words for places and body types).
import { placeName, placesNamed, searchPlaces } from '../../core/place-names';
import { zonedTime } from '../edifact/dates';
import { datePattern, isCountry } from './settings';
import type { Cell } from './sheet';

export type Read<T> = { value: T } | { code: string; message: string };
export const ok = <T>(value: T): Read<T> => ({ value });
const no = (code: string, message: string): Read<never> => ({ code, message });

/** How a text is quoted in a reason: cut, and never with a formula's lead character first. */
export const quoted = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);

/**
 * A text cell a spreadsheet program would run as a formula when the value is opened again (in
 * this gateway's result file, in a partner's export): it starts with =, +, -, @, a tab or a
 * carriage return, before or after its spaces. A number (-5, +3.5) is a number, not a formula.
 */
export function isFormulaText(text: string): boolean {
  const lead = /^[=+\-@\t\r]/;
  if (!lead.test(text) && !lead.test(text.trim())) return false;
  return !/^\s*[+-]?\d+([.,]\d+)?\s*$/.test(text);
}

// Places -----------------------------------------------------------------------------------------

export type Area = { kind: 'unlocode'; code: string } | { kind: 'country'; code: string } | { kind: 'subdivision'; code: string };

export interface PlaceContext {
  /** The organization's own places: its key (as its files write it) to a UN/LOCODE. */
  places: Readonly<Record<string, string>>;
  /** Another served organization's place keys (lower case), none of which is also this one's. */
  othersPlaces: ReadonlySet<string>;
  /** The countries in which a place's name is looked up (the organization's `countries`); none: every country. */
  countries?: readonly string[];
  /** The row's own country for the place (its country column): names are looked up in it, and a place elsewhere contradicts it. */
  country?: string;
}

const UNLOCODE = /^([A-Z]{2}) ?([A-Z0-9]{3})$/;
const SCHEMA_UNLOCODE = /^[A-Z]{2}[A-Z0-9]{3}$/;

const placeKey = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();
const countriesOf = (context: PlaceContext) => (context.country ? [context.country] : context.countries);
const inCountries = (context: PlaceContext) => (countriesOf(context) ? ` in ${countriesOf(context)!.join(', ')}` : '');
/** Places as a reason lists them: at most 8, with their names. */
const listed = (places: ReadonlyArray<{ code: string; name: string }>) => `${places.slice(0, 8).map((p) => `${p.code} (${p.name})`).join(', ')}${places.length > 8 ? ` and ${places.length - 8} more` : ''}`;

/** The UN/LOCODE places named so (core/place-names.ts: case, diacritics and punctuation aside), in the row's or the organization's countries. */
function named(text: string, context: PlaceContext): Array<{ code: string; name: string }> {
  const countries = countriesOf(context);
  return placesNamed(text).filter((p) => !countries || countries.includes(p.code.slice(0, 2)));
}

/** A place by its name: the one place so named, or the candidates when there are several. */
function byName(text: string, found: ReadonlyArray<{ code: string; name: string }>, context: PlaceContext): Read<Area> {
  if (found.length === 1) return ok({ kind: 'unlocode', code: found[0].code });
  const narrow = countriesOf(context) ? '' : ', or let the organization set the countries its names are looked up in (countries) or map a country column';
  return no('PLACE_AMBIGUOUS', `${quoted(text)} is the name of ${found.length} UN/LOCODE places${inCountries(context)}: ${listed(found)}; write the UN/LOCODE${narrow}`);
}

/**
 * A UN/LOCODE as written: a code the list knows is that place, unless the text is also the name
 * of another ("ESSEN" is Spain's Senegue, and Essen): then it is ambiguous. A code the list does
 * not know is read as a name when it is one ("PARIS"), else left to the exchange to answer.
 */
function byCode(text: string, code: string, context: PlaceContext): Read<Area> {
  const found = named(text, context);
  const spelt = placeName(code);
  if (spelt !== undefined && found.some((p) => p.code !== code)) return no('PLACE_AMBIGUOUS', `${quoted(text)} is the UN/LOCODE of ${spelt} (${code.slice(0, 2)}) and the name of ${listed(found.filter((p) => p.code !== code))}: write the other place's UN/LOCODE`);
  if (spelt === undefined && found.length) return byName(text, found, context);
  return ok({ kind: 'unlocode', code });
}

/** One place by what a cell says: its own key, a UN/LOCODE, (where areas are allowed) a country or subdivision, or a UN/LOCODE place's name. */
function onePlace(text: string, context: PlaceContext, areas: boolean): Read<Area> | undefined {
  const key = placeKey(text);
  const own = new Set(Object.entries(context.places).filter(([k]) => placeKey(k) === key).map(([, code]) => code));
  const locode = UNLOCODE.exec(text.trim());
  const code = locode ? `${locode[1]}${locode[2]}` : undefined;
  if (own.size > 1) return no('PLACE_AMBIGUOUS', `${quoted(text)} is the organization's place for ${[...own].join(' and ')}`);
  if (own.size === 1) {
    const mapped = [...own][0];
    if (!SCHEMA_UNLOCODE.test(mapped)) return no('SETTINGS_INVALID', `the organization's place ${quoted(text)} maps to ${quoted(mapped)}, which is not a UN/LOCODE`);
    if (code && code !== mapped) return no('PLACE_AMBIGUOUS', `${quoted(text)} is both the UN/LOCODE ${code} and the organization's place for ${mapped}`);
    return ok({ kind: 'unlocode', code: mapped });
  }
  if (context.othersPlaces.has(key)) return no('NAMES_OTHER_ORGANIZATION', `${quoted(text)} is another organization's place`);
  if (code) return byCode(text, code, context);
  const trimmed = text.trim();
  if (areas && isCountry(trimmed)) return ok({ kind: 'country', code: trimmed });
  if (areas && /^[A-Z]{2}-[A-Z0-9]{1,3}$/.test(trimmed) && isCountry(trimmed.slice(0, 2))) return ok({ kind: 'subdivision', code: trimmed });
  const found = named(trimmed, context);
  return found.length ? byName(trimmed, found, context) : undefined;
}

/**
 * A place cell: exactly one place (several named in one cell is ambiguous), in the row's country
 * when its country column says one; anything else is unknown, never geocoded or guessed (a name
 * only starting a place's, "Frankfurt", is no name of it: the reason lists those).
 */
export function readPlace(cell: Cell, context: PlaceContext, areas: boolean): Read<Area> {
  if (cell.t !== 's') return no('PLACE_UNKNOWN', `a ${cell.t === 'n' ? 'number' : 'value'} is not a place: write a UN/LOCODE (DEHAM), a place's name or one of the organization's places`);
  const one = onePlace(cell.v, context, areas);
  if (one && 'value' in one && context.country && one.value.code.slice(0, 2) !== context.country) {
    return no('PLACE_AMBIGUOUS', `${quoted(cell.v)} is ${one.value.code}, in ${one.value.code.slice(0, 2)}, and the row's country is ${context.country}`);
  }
  if (one) return one;
  const parts = cell.v.split(/\s*[,;/|+&]\s*|\s+-\s+|\s+(?:and|und|or|oder)\s+/i).filter((p) => p.trim());
  if (parts.length > 1 && parts.every((p) => onePlace(p, context, areas) && 'value' in onePlace(p, context, areas)!)) {
    return no('PLACE_AMBIGUOUS', `${quoted(cell.v)} names ${parts.length} places; one cell names one`);
  }
  return no('PLACE_UNKNOWN', `${quoted(cell.v)} is neither a UN/LOCODE (DEHAM, "DE HAM")${areas ? ', a country (AT), a subdivision (AT-9)' : ''}, one of the organization's places, nor the name of a UN/LOCODE place${inCountries(context)}${beginning(cell.v, context)}`);
}

/** A country cell: an ISO 3166-1 alpha-2 code, in either case ("DE", "de"); a vehicle's country letter (D, A) or a name is not one. */
export function readCountry(cell: Cell): Read<string> {
  const code = cell.t === 's' ? cell.v.trim().toUpperCase() : '';
  return isCountry(code) ? ok(code) : no('VALUE_INVALID', `${cell.t === 's' ? quoted(cell.v) : 'the cell'} is not an ISO 3166-1 country (DE, AT, PL)`);
}

const bare = (text: string) => text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').trim().toLowerCase();

/** The UN/LOCODE places whose names begin with a text that names none (at most 5), for the reason: "Frankfurt" is no place's whole name. */
function beginning(text: string, context: PlaceContext): string {
  if (!/\p{L}{3}/u.test(text)) return '';
  const countries = countriesOf(context);
  const start = bare(text);
  const found = searchPlaces(text, 100).filter((p) => (!countries || countries.includes(p.country)) && bare(p.name).startsWith(start));
  return found.length ? `; names that begin so: ${listed(found.slice(0, 5))}` : '';
}

// Dates and times --------------------------------------------------------------------------------

export interface LocalDate {
  y: number;
  m: number;
  d: number;
}
export interface LocalTime {
  h: number;
  mi: number;
}
/** A date as a row says it, with its time of day when it says one. */
export interface DateValue {
  date: LocalDate;
  time?: LocalTime;
  /** An instant the cell gives in UTC or with an offset (ISO 8601 with Z or ±hh:mm): not local. */
  instant?: string;
}

const validDate = ({ y, m, d }: LocalDate) => y >= 1970 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= 31 && new Date(Date.UTC(y, m - 1, d)).getUTCMonth() === m - 1;
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([AaPp])\.?[Mm]\.?)?$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const LOOKS_LIKE_DATE = /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}/;

function timeOf(text: string): LocalTime | undefined {
  const m = TIME.exec(text.trim());
  if (!m) return undefined;
  let h = Number(m[1]);
  const [mi, s] = [Number(m[2]), Number(m[3] ?? 0)];
  if (m[4]) {
    // 12-hour clock: 12:30 AM is 00:30, 12:30 PM is 12:30.
    if (h < 1 || h > 12) return undefined;
    h = (h % 12) + (m[4].toLowerCase() === 'p' ? 12 : 0);
  }
  return h <= 23 && mi <= 59 && s <= 59 ? { h, mi } : undefined;
}

/** Excel's serial day number (days since 1899-12-30, or 1904-01-01) to a local date and time, to the minute. */
function serial(value: number, date1904: boolean): DateValue | undefined {
  if (!(value >= 0 && value < 2_958_466)) return undefined; // to 9999-12-31
  const minutes = Math.round(value * 1440);
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
  const at = new Date(epoch + minutes * 60_000);
  return { date: { y: at.getUTCFullYear(), m: at.getUTCMonth() + 1, d: at.getUTCDate() }, time: { h: at.getUTCHours(), mi: at.getUTCMinutes() } };
}

/** A date cell: an XLSX date (or date and time), ISO 8601, or text in the organization's pattern, with an optional time after a space. */
export function readDate(cell: Cell, settings: { dateFormat?: string }, date1904: boolean): Read<DateValue> {
  if (cell.t === 'n') {
    if (!cell.d) return serialDate(cell.v, date1904);
    if (cell.d === 'time') return no('DATE_INVALID', `${cell.v} is a number shown as a time, not a date: format the cell as a date, or write the date as text`);
    const at = serial(cell.v, date1904);
    if (!at || !validDate(at.date)) return no('DATE_INVALID', `${cell.v} is not a date from 1970 to 9999`);
    // A date-only format shows the day: a time it hides (a fraction) would be a time the row does not show.
    if (cell.d === 'date' && (at.time!.h || at.time!.mi)) return no('DATE_AMBIGUOUS', 'the cell shows a date but holds a time of day too: show the time, or leave it out');
    return ok(cell.d === 'date' ? { date: at.date } : at);
  }
  if (cell.t === 'd') return textDate(cell.v, {});
  if (cell.t !== 's') return no('DATE_INVALID', `a ${cell.t === 'b' ? 'TRUE/FALSE' : 'error'} cell is not a date`);
  return textDate(cell.v, settings);
}

/**
 * A number with no date format in a date column: Excel's serial day number (46000 is 9 December
 * 2025; from 1904 when the workbook counts so), as a program that writes a date without its format
 * leaves it, its fraction the time of day. Only numbers below 100000 (to 2173) from 1970 on: a
 * larger one is a date written as digits (170331, 20310317), which has no one reading.
 */
function serialDate(value: number, date1904: boolean): Read<DateValue> {
  const at = value < 100_000 ? serial(value, date1904) : undefined;
  if (!at || !validDate(at.date)) return no('DATE_INVALID', `${value} is a number, not a date (read as Excel's serial day number, as 47924 is 17 March 2031, it is none from 1970 to 2173): format the cell as a date, or write the date as text`);
  return ok(at.time!.h || at.time!.mi ? at : { date: at.date });
}

function textDate(raw: string, settings: { dateFormat?: string }): Read<DateValue> {
  const text = raw.trim();
  const iso = ISO.exec(text);
  if (iso) {
    const date = { y: Number(iso[1]), m: Number(iso[2]), d: Number(iso[3]) };
    if (!validDate(date)) return no('DATE_INVALID', `${quoted(text)} is not a date of the calendar`);
    if (iso[4] === undefined) return ok({ date });
    const time = { h: Number(iso[4]), mi: Number(iso[5]) };
    if (time.h > 23 || time.mi > 59 || Number(iso[6] ?? 0) > 59) return no('DATE_INVALID', `${quoted(text)} is not a time of day`);
    if (iso[7]) {
      const instant = Date.parse(`${iso[1]}-${iso[2]}-${iso[3]}T${iso[4]}:${iso[5]}:${iso[6] ?? '00'}${iso[7]}`);
      if (!Number.isFinite(instant)) return no('DATE_INVALID', `${quoted(text)} is not a time`);
      return ok({ date, time, instant: new Date(instant).toISOString().replace('.000Z', 'Z') });
    }
    return ok({ date, time });
  }
  // The organization's pattern, and a time after a space.
  const [datePart, ...rest] = text.split(/\s+/);
  const timePart = rest.join(' ');
  const pattern = settings.dateFormat ? datePattern(settings.dateFormat) : undefined;
  const m = pattern?.exec(datePart);
  if (!m) {
    if (!settings.dateFormat && LOOKS_LIKE_DATE.test(text)) return no('DATE_AMBIGUOUS', `${quoted(text)} could be day-month or month-day: the organization sets no dateFormat, and only ISO dates (2031-03-15) are read without one`);
    return no('DATE_INVALID', `${quoted(text)} is not a date${settings.dateFormat ? ` as ${settings.dateFormat}` : ''} or ISO 8601 (2031-03-15)`);
  }
  const g = m.groups!;
  const date = { y: g.y !== undefined ? Number(g.y) : 2000 + Number(g.yy), m: Number(g.m), d: Number(g.d) };
  if (!validDate(date)) return no('DATE_INVALID', `${quoted(text)} is not a date of the calendar (read as ${settings.dateFormat})`);
  if (!timePart) return ok({ date });
  const time = timeOf(timePart);
  if (!time) return no('DATE_INVALID', `${quoted(timePart)} after the date is not a time of day (H:mm)`);
  return ok({ date, time });
}

/** A time cell: text H:mm or HH:mm[:ss], or an XLSX time (a fraction of a day shown as a time). */
export function readTime(cell: Cell): Read<LocalTime> {
  if (cell.t === 'n') {
    if (cell.d !== 'time' || !(cell.v >= 0 && cell.v < 1)) return no('DATE_INVALID', `${cell.v} is not a time of day: format the cell as a time (H:mm)`);
    const minutes = Math.round(cell.v * 1440) % 1440;
    return ok({ h: Math.floor(minutes / 60), mi: minutes % 60 });
  }
  if (cell.t !== 's') return no('DATE_INVALID', 'the cell is not a time of day');
  const time = timeOf(cell.v);
  return time ? ok(time) : no('DATE_INVALID', `${quoted(cell.v)} is not a time of day (H:mm)`);
}

/** The UTC instant of a local date and time in a zone, as the exchange writes it (no milliseconds). */
export function instantOf(date: LocalDate, time: LocalTime | undefined, timeZone: string, nextDay = false): string {
  const at = zonedTime({ y: date.y, m: date.m, d: date.d + (nextDay ? 1 : 0), h: time?.h ?? 0, mi: time?.mi ?? 0 }, timeZone);
  return at.toISOString().replace('.000Z', 'Z');
}

// Numbers ----------------------------------------------------------------------------------------

/**
 * A number cell: an XLSX number, or text with the organization's decimal mark (thousands grouped
 * by the other mark in threes). Without a decimal mark set, a text with only one reading is read
 * ("24,5" and "24.5" are 24.5; "1.500" or "1,500" could be 1.5 or 1500 and is ambiguous).
 */
export function readNumber(cell: Cell, decimal: ',' | '.' | undefined): Read<number> {
  if (cell.t === 'n') {
    if (cell.d) return no('NUMBER_INVALID', 'the cell is a date or time, not a quantity');
    return ok(cell.v);
  }
  if (cell.t !== 's') return no('NUMBER_INVALID', 'the cell is not a number');
  const text = cell.v.trim().replace(/[\u00a0\u202f]/g, ' ');
  const read = (mark: ',' | '.'): number | undefined => {
    const group = mark === ',' ? '.' : ',';
    const m = new RegExp(`^([+-]?)(\\d{1,3}(?:[${group === '.' ? '.' : ','} ]\\d{3})+|\\d+)(?:\\${mark}(\\d+))?$`).exec(text);
    if (!m) return undefined;
    const whole = m[2].replace(/[., ]/g, '');
    return Number(`${m[1]}${whole}${m[3] ? `.${m[3]}` : ''}`);
  };
  if (decimal) {
    const value = read(decimal);
    return value === undefined ? no('NUMBER_INVALID', `${quoted(cell.v)} is not a number with the decimal mark ${JSON.stringify(decimal)}`) : ok(value);
  }
  const comma = read(',');
  const point = read('.');
  if (comma !== undefined && point !== undefined && comma !== point) return no('NUMBER_AMBIGUOUS', `${quoted(cell.v)} could be ${point} or ${comma}: the organization sets no decimalSeparator`);
  const value = comma ?? point;
  return value === undefined ? no('NUMBER_INVALID', `${quoted(cell.v)} is not a number`) : ok(value);
}
