// A sheet of free trucks to capacity offers, one per row: the mapping of profile "Free trucks
// CSV/XLSX" (docs/adapters.md has it as a table). The organization's settings say which column
// holds what and what a row does not carry; a value the exchange needs that neither gives is a
// reason to quarantine, with the cell it should have been in, never a guess. Pure: no I/O.
import type { components, CreateBody } from '@pcx/sdk';
import type { ServedOrganization } from '../config';
import type { QuarantineReason } from '../store';
import { BODY_TYPES, COLUMN_FIELDS, DEFAULT_MAX_ROWS, headerKey, settingsProblems, type BodyType, type ColumnField, type SpreadsheetSettings } from './settings';
import { cellText, isEmpty, positionOf, LIMITS, type Cell, type Sheet } from './sheet';
import { instantOf, isFormulaText, quoted, readCountry, readDate, readNumber, readPlace, readTime, type Area, type DateValue, type LocalTime, type PlaceContext, type Read } from './values';

/** A quarantine reason with the row it is about (none: the file, its header or the settings). */
export interface RowReason extends QuarantineReason {
  row?: number;
}

export interface OfferMapping {
  /** The row's number in the sheet. */
  row: number;
  /** The carrier's reference of the row (its truck or trip id), when the sheet has one. */
  reference?: string;
  body: OfferBody;
}

/** The body of the capacity offer a row becomes (CapacityOfferCreateRequest): the compiler checks the mapping against the document. */
export type OfferBody = CreateBody<'capacity-offers'>;
type Capacity = components['schemas']['LogisticsCapacity'];

export interface SheetMapping {
  offers: OfferMapping[];
  /** Every data row read, with its reference (for the answer, also of a quarantined file). */
  rows: Array<{ row: number; reference?: string }>;
  reasons: RowReason[];
  /** The headers of the columns not read (docs/adapters.md: dropped). */
  dropped: string[];
  /** The header row's number, when it was found. */
  headerRow?: number;
}

export interface MappingContext {
  organization: ServedOrganization;
  others: readonly ServedOrganization[];
  /** When the file arrived (the inbox entry's receivedAt): an offer already over by then is refused. */
  receivedAt?: string;
  /** The inbox entry's id, which names each row's own external reference. */
  entryId: string;
}

/** The external reference system of an organization's offers. */
export const systemOf = (org: ServedOrganization) => org.spreadsheet?.system ?? `spreadsheet:${org.organizationId}`;

const QUANTITY_FIELDS = ['pallets', 'weight', 'loadingMetres', 'volume'] as const;

/** The other organizations' identities a file may not name: ids, EDIFACT and GLN identities, place keys, reference systems. */
function othersOf(org: ServedOrganization, others: readonly ServedOrganization[]) {
  const own = new Set([org.organizationId, ...(org.edifact?.senderIds ?? []), ...(org.epcis?.glns ?? []), ...Object.keys(org.places ?? {})].map((v) => headerKey(v)));
  const identities = new Map<string, string>();
  const places = new Set<string>();
  for (const other of others) {
    const values = [other.organizationId, ...(other.edifact?.senderIds ?? []), ...(other.epcis?.glns ?? []), ...(other.spreadsheet?.system ? [other.spreadsheet.system] : []), ...(other.edifact?.system ? [other.edifact.system] : []), `spreadsheet:${other.organizationId}`];
    for (const value of values) if (!own.has(headerKey(value))) identities.set(headerKey(value), other.organizationId);
    for (const key of Object.keys(other.places ?? {})) if (!own.has(headerKey(key))) places.add(headerKey(key));
  }
  return { identities, places };
}

/** Rows of a sheet to offer bodies, or every reason some cannot be (a file is acted on whole or not at all). */
export function mapSheet(sheet: Sheet, context: MappingContext): SheetMapping {
  const org = context.organization;
  const reasons: RowReason[] = [];
  const out: SheetMapping = { offers: [], rows: [], reasons, dropped: [] };
  const settingProblems = settingsProblems(org.spreadsheet);
  if (settingProblems.length) {
    for (const p of settingProblems) reasons.push({ code: org.spreadsheet ? 'SETTINGS_INVALID' : 'SETTINGS_MISSING', message: p.message, position: p.path });
    return out;
  }
  const settings = org.spreadsheet as SpreadsheetSettings;
  const at = (column: string | undefined, row: number) => positionOf(sheet, column, row);
  const reason = (code: string, message: string, position: string | undefined, row?: number) => void reasons.push({ code, message, ...(position ? { position } : {}), ...(row !== undefined ? { row } : {}) });
  const { identities, places: othersPlaces } = othersOf(org, context.others);
  const system = systemOf(org);
  if (identities.has(headerKey(system))) reason('NAMES_OTHER_ORGANIZATION', `the reference system ${quoted(system)} is another organization's`, 'settings.spreadsheet.system');

  // The header row: the one set, else the first of the first 20 rows with every mapped header.
  if (!sheet.rows.length) {
    reason('SHEET_EMPTY', 'the sheet has no cell with a value', at(undefined, 1));
    return out;
  }
  const mapped = COLUMN_FIELDS.filter((f) => settings.columns[f]);
  const matchesOf = (r: number) => {
    const row = sheet.rows.find((x) => x.r === r);
    const found = new Map<ColumnField, string[]>();
    for (const [column, cell] of Object.entries(row?.cells ?? {})) {
      if (cell.t !== 's') continue;
      const field = mapped.find((f) => headerKey(settings.columns[f]!) === headerKey(cell.v));
      if (field) found.set(field, [...(found.get(field) ?? []), column]);
    }
    return found;
  };
  const candidates = sheet.rows.filter((r) => r.r <= 20);
  // None with them all: the one with most is where the missing ones are reported.
  const headerRow =
    settings.headerRow ??
    candidates.find((r) => matchesOf(r.r).size === mapped.length)?.r ??
    candidates.reduce<{ r: number; n: number }>((best, r) => (matchesOf(r.r).size > best.n ? { r: r.r, n: matchesOf(r.r).size } : best), { r: sheet.rows[0].r, n: 0 }).r;
  out.headerRow = headerRow;
  const header = matchesOf(headerRow);
  const columns = new Map<ColumnField, string>();
  for (const field of mapped) {
    const found = header.get(field) ?? [];
    if (!found.length) reason('COLUMN_MISSING', `no column headed ${quoted(settings.columns[field]!)} (columns.${field}) in the header row`, at(undefined, headerRow));
    else if (found.length > 1) reason('COLUMN_AMBIGUOUS', `${found.length} columns are headed ${quoted(settings.columns[field]!)} (columns.${field}): ${found.join(', ')}`, at(found[1], headerRow));
    else columns.set(field, found[0]);
  }
  const headerCells = sheet.rows.find((r) => r.r === headerRow)?.cells ?? {};
  out.dropped = Object.entries(headerCells)
    .filter(([column]) => ![...columns.values()].includes(column))
    .map(([, cell]) => cellText(cell).trim())
    .filter((h) => h);
  if (reasons.length) return out;

  const dataRows = sheet.rows.filter((r) => r.r > headerRow && [...columns.values()].some((c) => !isEmpty(r.cells[c])));
  if (!dataRows.length) {
    reason('SHEET_EMPTY', `no row under the header row ${headerRow} names a truck`, at(undefined, headerRow));
    return out;
  }
  const maxRows = settings.maxRows ?? DEFAULT_MAX_ROWS;
  if (dataRows.length > maxRows) {
    reason('TOO_MANY_ROWS', `${dataRows.length} rows of trucks; the organization reads at most ${maxRows} in one file (maxRows)`, at(undefined, dataRows[maxRows].r), dataRows[maxRows].r);
    return out;
  }

  const placeContext: PlaceContext = { places: org.places ?? {}, othersPlaces, ...(settings.countries ? { countries: settings.countries } : {}) };
  const references = new Map<string, string>();
  const receivedAt = context.receivedAt ? Date.parse(context.receivedAt) : NaN;
  for (const row of dataRows) {
    const r = row.r;
    const before = reasons.length;
    const fail = (position: string, read: { code: string; message: string }) => reason(read.code, read.message, position, r);
    /** The cell of a field, checked as every cell read is: not a formula saved without its value, not too long, not a formula as text, not another organization's identity. */
    const take = (field: ColumnField): { cell?: Cell; position: string; given: boolean } => {
      const column = columns.get(field);
      const cell = column ? row.cells[column] : undefined;
      const position = at(column, r);
      const refuse = (code: string, message: string) => (reason(code, message, position, r), { position, given: true });
      // A formula's value is the one the program that saved the file computed; the gateway never computes one.
      if (cell?.uncomputed) return refuse('FORMULA_CELL', `the cell holds a formula${cell.fx ? ` (${quoted(`=${cell.fx}`)})` : ''}, and the file was saved without its computed value (as openpyxl and other programs that write formulas save it): open the file in Excel or LibreOffice and save it again, or write the value itself`);
      if (!cell || isEmpty(cell)) return { position, given: false };
      if ((cell.t === 's' || cell.t === 'e') && cell.v.length > LIMITS.cellChars) return refuse('CELL_TOO_LONG', `the cell holds more than ${LIMITS.cellChars} characters`);
      // A number is a number (-5 is refused as negative, not as a formula); any other text leading with a formula character is one.
      const isNumber = ([...QUANTITY_FIELDS, 'price'] as readonly string[]).includes(field) && 'value' in readNumber(cell, settings.decimalSeparator);
      if (cell.t === 's' && !isNumber && isFormulaText(cell.v)) return refuse('FORMULA_INJECTION', `the text starts with ${quoted(cell.v.trim()[0] ?? cell.v[0])}, which a spreadsheet program would run as a formula`);
      if (cell.t === 's' && identities.has(headerKey(cell.v))) return refuse('NAMES_OTHER_ORGANIZATION', `${quoted(cell.v)} is an identity of ${identities.get(headerKey(cell.v))}, another organization the gateway serves`);
      return { cell, position, given: true };
    };
    const value = <T>(field: ColumnField, read: (cell: Cell) => Read<T>): { value?: T; position: string; given: boolean } => {
      const taken = take(field);
      if (!taken.cell) return taken;
      const result = read(taken.cell);
      if ('code' in result) {
        fail(taken.position, result);
        return { position: taken.position, given: true };
      }
      return { value: result.value, position: taken.position, given: true };
    };

    // A row the workbook hides (by hand or by a filter) may be one the carrier meant to leave out, or not: it is not guessed.
    if (row.hidden) reason('ROW_HIDDEN', 'the row is hidden in the workbook: show it to offer the truck, or delete it', at(undefined, r), r);

    // The reference first: the answer names each row by it.
    const ref = value('reference', (cell) => {
      const text = cellText(cell).trim();
      if (cell.t === 'n' && cell.d) return { code: 'VALUE_INVALID', message: 'a date is not a reference' };
      if (cell.t === 'b' || cell.t === 'e') return { code: 'VALUE_INVALID', message: 'the cell is not a reference' };
      if (text.length > 512) return { code: 'VALUE_INVALID', message: 'a reference has at most 512 characters' };
      return { value: text };
    });
    if (ref.value !== undefined) {
      const first = references.get(ref.value);
      if (first) reason('REFERENCE_DUPLICATE', `the reference ${quoted(ref.value)} is the row's at ${first} too: each row is one truck`, ref.position, r);
      else references.set(ref.value, ref.position);
    }
    out.rows.push({ row: r, ...(ref.value !== undefined ? { reference: ref.value } : {}) });

    // Where: a place's name is looked up in the row's country when a country column gives one.
    const originCountry = value('originCountry', readCountry);
    const origin = value('origin', (cell) => readPlace(cell, { ...placeContext, country: originCountry.value }, false));
    if (!origin.given) reason('VALUE_MISSING', `no origin (${settings.columns.origin})`, origin.position, r);
    const destinationCountry = value('destinationCountry', readCountry);
    const destinationCell = value('destination', (cell) => readPlace(cell, { ...placeContext, country: destinationCountry.value }, true));
    // A country and no place in it is the destination: "to Italy".
    let destination: Area | undefined = destinationCell.value ?? (destinationCountry.value && !destinationCell.given ? { kind: 'country', code: destinationCountry.value } : undefined);
    if (!destinationCell.given && !destinationCountry.given && settings.destination !== undefined) {
      const read = readPlace({ t: 's', v: settings.destination }, placeContext, true);
      if ('code' in read) reason('SETTINGS_INVALID', `settings.spreadsheet.destination: ${read.message}`, 'settings.spreadsheet.destination', r);
      else destination = read.value;
    }
    if (!destinationCell.given && !destinationCountry.given && !destination && settings.publish) reason('VALUE_MISSING', `no destination${settings.columns.destination ? ` (${settings.columns.destination})` : ''}, and the organization sets none (destination) to publish with`, destinationCell.position, r);

    // When.
    const date1904 = sheet.date1904 === true;
    const from = value('availableFrom', (cell) => readDate(cell, settings, date1904));
    if (!from.given) reason('VALUE_MISSING', `no date the truck is free from (${settings.columns.availableFrom})`, from.position, r);
    const fromTime = value('availableFromTime', readTime);
    const until = value('availableUntil', (cell) => readDate(cell, settings, date1904));
    const untilTime = value('availableUntilTime', readTime);
    const span = from.value ? windowOf(from.value, fromTime.value, until.value, untilTime.value, { from: from.position, fromTime: fromTime.position, until: until.position, untilTime: untilTime.position }, settings, (code, message, position) => reason(code, message, position, r), until.given || untilTime.given) : undefined;

    // What vehicle, how much room.
    const body = value('bodyType', (cell) => readBodyType(cell, settings));
    const bodyType = body.value ?? (body.given ? undefined : settings.bodyType ? { bodyType: settings.bodyType } : undefined);
    if (!body.given && !bodyType && settings.publish) reason('VEHICLE_PROFILE_MISSING', `no body type${settings.columns.bodyType ? ` (${settings.columns.bodyType})` : ''}, and the organization sets none (bodyType) to publish with`, body.position, r);
    const capacity: Capacity = {};
    let unreadQuantity = false;
    const quantity = (field: (typeof QUANTITY_FIELDS)[number], check: (n: number) => string | undefined, put: (n: number) => void) => {
      const q = value(field, (cell) => readNumber(cell, settings.decimalSeparator));
      if (q.value === undefined) return void (unreadQuantity ||= q.given);
      const problem = q.value < 0 ? 'is negative' : check(q.value);
      if (problem) return void ((unreadQuantity = true), reason('NUMBER_INVALID', `the value ${q.value} ${problem}`, q.position, r));
      // Zero is read as "not given": an absent dimension is unknown, never zero (spreadsheets fill blanks with 0).
      if (q.value > 0) put(q.value);
    };
    quantity('pallets', (n) => (!Number.isInteger(n) ? 'is not a whole number of pallet spaces' : n > 1000 ? 'is more than 1000 pallet spaces' : undefined), (n) => (capacity.palletSpaces = n));
    quantity('weight', (n) => (n > 1e9 ? 'is too large' : undefined), (n) => (capacity.weight = { value: n, unitCode: settings.weightUnit ?? 'KGM' }));
    quantity('loadingMetres', (n) => (n > 1e9 ? 'is too large' : undefined), (n) => (capacity.loadingMetres = { value: n, unitCode: 'MTR' }));
    quantity('volume', (n) => (n > 1e9 ? 'is too large' : undefined), (n) => (capacity.volume = { value: n, unitCode: 'MTQ' }));
    if (!Object.keys(capacity).length && !unreadQuantity) {
      const named = QUANTITY_FIELDS.filter((f) => columns.has(f));
      reason('CAPACITY_MISSING', named.length ? `no free capacity in ${named.map((f) => settings.columns[f]).join(', ')}: at least one above 0` : 'the organization maps no capacity column (pallets, weight, loadingMetres, volume)', named.length ? at(columns.get(named[0]), r) : at(undefined, r), r);
    }
    // The price asked, in the organization's currency: disclosed once a match is accepted.
    const asked = value('price', (cell) => readNumber(cell, settings.decimalSeparator));
    if (asked.value !== undefined && (asked.value < 0 || asked.value > 1e9)) reason('NUMBER_INVALID', `the price ${asked.value} is not between 0 and 1,000,000,000`, asked.position, r);
    // A price of 0 is read as "not given", as a quantity of 0 is (spreadsheets fill blanks with 0).
    const price = asked.value !== undefined && asked.value > 0 && asked.value <= 1e9 && settings.currency ? { amount: asked.value, currency: settings.currency } : undefined;
    if (reasons.length > before || !origin.value || !span) continue;

    // An offer already over when the file arrived is not offered.
    const expiresAt = expiryOf(span, settings);
    if (Number.isFinite(receivedAt) && Date.parse(span.end) <= receivedAt) {
      reason('WINDOW_PAST', `the truck is free until ${span.end}, before the file arrived (${context.receivedAt})`, span.endPosition, r);
      continue;
    }
    if (settings.publish && Number.isFinite(receivedAt) && Date.parse(expiresAt) <= receivedAt) {
      reason('OFFER_EXPIRED', `the offer would expire at ${expiresAt} (settings.spreadsheet.expires), before the file arrived (${context.receivedAt})`, settings.expires?.before === 'availableFrom' ? span.startPosition : span.endPosition, r);
      continue;
    }
    const externalReferences = [
      ...(ref.value !== undefined ? [{ system, type: settings.referenceType ?? 'truck', value: ref.value }] : []),
      { system, type: 'row', value: `${context.entryId}:${r}` },
    ];
    out.offers.push({
      row: r,
      ...(ref.value !== undefined ? { reference: ref.value } : {}),
      body: {
        availabilityWindow: { start: span.start, end: span.end, timeZone: settings.timeZone },
        originArea: origin.value,
        ...(destination ? { destinationArea: destination } : {}),
        ...(settings.direction ? { direction: settings.direction } : {}),
        ...(bodyType ? { vehicleProfile: bodyType } : {}),
        availableCapacity: capacity,
        expiresAt,
        ...(settings.publish ? { visibility: settings.visibility ?? { mode: 'open' } } : {}),
        ...(price ? { restrictedDetails: { price } } : {}),
        externalReferences,
      },
    });
  }
  return out;
}

interface Window {
  start: string;
  end: string;
  startPosition: string;
  endPosition: string;
}

/** The availability window: from a date (and time), until a date (and time); a date alone is the whole local day. */
function windowOf(
  from: DateValue,
  fromTime: LocalTime | undefined,
  until: DateValue | undefined,
  untilTime: LocalTime | undefined,
  where: { from: string; fromTime: string; until: string; untilTime: string },
  settings: SpreadsheetSettings,
  reason: (code: string, message: string, position: string) => void,
  untilGiven: boolean,
): Window | undefined {
  const zone = settings.timeZone;
  if (from.time && fromTime) return void reason('DATE_AMBIGUOUS', 'the date carries a time of day and the time column another', where.fromTime);
  if (until?.time && untilTime) return void reason('DATE_AMBIGUOUS', 'the date carries a time of day and the time column another', where.untilTime);
  const startTime = from.time ?? fromTime;
  const start = from.instant ?? instantOf(from.date, startTime, zone);
  let end: string;
  let endPosition = where.until;
  if (until) {
    const endTime = until.time ?? untilTime;
    end = until.instant ?? instantOf(until.date, endTime, zone, !endTime);
  } else if (untilTime) {
    end = instantOf(from.date, untilTime, zone);
    endPosition = where.untilTime;
  } else if (untilGiven) return undefined; // its cell is wrong: said already
  else if (!startTime) {
    end = instantOf(from.date, undefined, zone, true);
    endPosition = where.from;
  } else if (settings.availableForHours) {
    end = new Date(Date.parse(start) + settings.availableForHours * 3_600_000).toISOString().replace('.000Z', 'Z');
    endPosition = where.from;
  } else return void reason('WINDOW_INCOMPLETE', 'the truck is free from a time of day, until no date or time, and the organization sets no availableForHours', where.from);
  if (Date.parse(start) >= Date.parse(end)) return void reason('WINDOW_INVALID', `free until ${end}, which is not after free from ${start}`, endPosition);
  return { start, end, startPosition: where.from, endPosition };
}

function expiryOf(window: Window, settings: SpreadsheetSettings): string {
  const rule = settings.expires ?? { before: 'availableUntil', hours: 0 };
  const base = Date.parse(rule.before === 'availableFrom' ? window.start : window.end);
  return new Date(base - rule.hours * 3_600_000).toISOString().replace('.000Z', 'Z');
}

/** A body-type cell: the organization's word for it, or the exchange's own name, ignoring case. */
function readBodyType(cell: Cell, settings: SpreadsheetSettings): Read<{ bodyType: BodyType; bodyTypeDescription?: string }> {
  if (cell.t !== 's') return { code: 'BODY_TYPE_UNKNOWN', message: 'the cell is not a body type' };
  const key = headerKey(cell.v);
  const own = new Set(Object.entries(settings.bodyTypes ?? {}).filter(([word]) => headerKey(word) === key).map(([, type]) => type));
  if (own.size > 1) return { code: 'BODY_TYPE_UNKNOWN', message: `${quoted(cell.v)} is the organization's word for ${[...own].join(' and ')}` };
  const type = [...own][0] ?? BODY_TYPES.find((t) => t.toLowerCase() === key);
  if (!type) return { code: 'BODY_TYPE_UNKNOWN', message: `${quoted(cell.v)} is neither one of the organization's body types (bodyTypes) nor the exchange's (${BODY_TYPES.join(', ')})` };
  if (type === 'other') return cell.v.trim().length <= 60 ? { value: { bodyType: 'other', bodyTypeDescription: cell.v.trim() } } : { code: 'VALUE_INVALID', message: 'a body type described as "other" has at most 60 characters' };
  return { value: { bodyType: type } };
}
