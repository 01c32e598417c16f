// A sheet of free trucks to capacity offers, one per row: the mapping of profile "Free trucks
// CSV/XLSX" (docs/adapters.md has it as a table). The organization's settings say which column
// holds what and what a row does not carry; a value the exchange needs that neither gives is a
// reason to quarantine, with the cell it should have been in, never a guess. Pure: no I/O.
import type { components, CreateBody } from '@pcx/sdk';
import type { ServedOrganization } from '../config';
import type { QuarantineReason } from '../store';
import { BODY_TYPES, COLUMN_FIELDS, DEFAULT_MAX_ROWS, headerKey, settingsProblems, type BodyType, type ColumnField, type SpreadsheetSettings } from './settings';
import { cellText, isEmpty, positionOf, LIMITS, type Cell, type Row, type Sheet } from './sheet';
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

/** What the steps of a sheet's mapping share: the sheet, the organization's settings and identities, and the reasons found so far. */
interface SheetReader {
  sheet: Sheet;
  settings: SpreadsheetSettings;
  context: MappingContext;
  /** The other organizations' identities (headerKey) a cell may not name, each with whose it is. */
  identities: ReadonlyMap<string, string>;
  reasons: RowReason[];
  /** Where a cell is (a whole row, without a column), as a spreadsheet names it. */
  at(column: string | undefined, row: number): string;
  reason(code: string, message: string, position: string | undefined, row?: number): void;
}

/** The header row, the column of each field mapped, and the headers of the columns not read. */
interface Header {
  row: number;
  columns: ReadonlyMap<ColumnField, string>;
  dropped: string[];
}

/** What the rows of a sheet share: where the fields are, the places a cell may name, and the references seen so far. */
interface RowsContext {
  columns: ReadonlyMap<ColumnField, string>;
  places: PlaceContext;
  /** The external reference system of the organization's offers. */
  system: string;
  /** Each reference read, with the cell it was first read in: a row per truck. */
  references: Map<string, string>;
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
  const { identities, places: othersPlaces } = othersOf(org, context.others);
  const s: SheetReader = {
    sheet,
    settings: org.spreadsheet as SpreadsheetSettings,
    context,
    identities,
    reasons,
    at: (column, row) => positionOf(sheet, column, row),
    reason: (code, message, position, row) => void reasons.push({ code, message, ...(position ? { position } : {}), ...(row !== undefined ? { row } : {}) }),
  };
  const system = systemOf(org);
  if (identities.has(headerKey(system))) s.reason('NAMES_OTHER_ORGANIZATION', `the reference system ${quoted(system)} is another organization's`, 'settings.spreadsheet.system');
  if (!sheet.rows.length) {
    s.reason('SHEET_EMPTY', 'the sheet has no cell with a value', s.at(undefined, 1));
    return out;
  }
  const header = headerOf(s);
  out.headerRow = header.row;
  out.dropped = header.dropped;
  if (reasons.length) return out;
  const dataRows = dataRowsOf(s, header);
  if (!dataRows) return out;

  const rows: RowsContext = { columns: header.columns, places: { places: org.places ?? {}, othersPlaces, ...(s.settings.countries ? { countries: s.settings.countries } : {}) }, system, references: new Map() };
  for (const row of dataRows) {
    const read = rowOf(s, rows, row);
    out.rows.push(read.row);
    if (read.offer) out.offers.push(read.offer);
  }
  return out;
}

/** The header row: the one set, else the first of the first 20 rows with every mapped header; each mapped field's column in it, found once. */
function headerOf(s: SheetReader): Header {
  const { sheet, settings } = s;
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
  const header = matchesOf(headerRow);
  const columns = new Map<ColumnField, string>();
  for (const field of mapped) {
    const found = header.get(field) ?? [];
    if (!found.length) s.reason('COLUMN_MISSING', `no column headed ${quoted(settings.columns[field]!)} (columns.${field}) in the header row`, s.at(undefined, headerRow));
    else if (found.length > 1) s.reason('COLUMN_AMBIGUOUS', `${found.length} columns are headed ${quoted(settings.columns[field]!)} (columns.${field}): ${found.join(', ')}`, s.at(found[1], headerRow));
    else columns.set(field, found[0]);
  }
  const headerCells = sheet.rows.find((r) => r.r === headerRow)?.cells ?? {};
  const dropped = Object.entries(headerCells)
    .filter(([column]) => ![...columns.values()].includes(column))
    .map(([, cell]) => cellText(cell).trim())
    .filter((h) => h);
  return { row: headerRow, columns, dropped };
}

/** The rows of trucks: under the header row, with a value in a mapped column; none, or more than the organization reads, is a reason. */
function dataRowsOf(s: SheetReader, header: Header): Row[] | undefined {
  const dataRows = s.sheet.rows.filter((r) => r.r > header.row && [...header.columns.values()].some((c) => !isEmpty(r.cells[c])));
  if (!dataRows.length) return void s.reason('SHEET_EMPTY', `no row under the header row ${header.row} names a truck`, s.at(undefined, header.row));
  const maxRows = s.settings.maxRows ?? DEFAULT_MAX_ROWS;
  if (dataRows.length > maxRows) return void s.reason('TOO_MANY_ROWS', `${dataRows.length} rows of trucks; the organization reads at most ${maxRows} in one file (maxRows)`, s.at(undefined, dataRows[maxRows].r), dataRows[maxRows].r);
  return dataRows;
}

/** A field's cell in a row as read: its value when it reads, where it is, and whether it was given at all (a value that does not read is given). */
interface Field<T> {
  value?: T;
  position: string;
  given: boolean;
}

/** The cells of one row, by field: each checked as every cell read is (`take`), then read (`value`); a reason is the row's. */
interface RowCells {
  r: number;
  take(field: ColumnField): Field<never> & { cell?: Cell };
  value<T>(field: ColumnField, read: (cell: Cell) => Read<T>): Field<T>;
  reason(code: string, message: string, position: string | undefined): void;
}

function rowCellsOf(s: SheetReader, columns: ReadonlyMap<ColumnField, string>, row: Row): RowCells {
  const r = row.r;
  const reason = (code: string, message: string, position: string | undefined) => s.reason(code, message, position, r);
  /** The cell of a field, checked as every cell read is: not a formula saved without its value, not too long, not a formula as text, not another organization's identity. */
  const take = (field: ColumnField): Field<never> & { cell?: Cell } => {
    const column = columns.get(field);
    const cell = column ? row.cells[column] : undefined;
    const position = s.at(column, r);
    const refuse = (code: string, message: string) => (reason(code, message, position), { position, given: true });
    // A formula's value is the one the program that saved the file computed; the gateway never computes one.
    if (cell?.uncomputed) return refuse('FORMULA_CELL', `the cell holds a formula${cell.fx ? ` (${quoted(`=${cell.fx}`)})` : ''}, and the file was saved without its computed value (as openpyxl and other programs that write formulas save it): open the file in Excel or LibreOffice and save it again, or write the value itself`);
    if (!cell || isEmpty(cell)) return { position, given: false };
    if ((cell.t === 's' || cell.t === 'e') && cell.v.length > LIMITS.cellChars) return refuse('CELL_TOO_LONG', `the cell holds more than ${LIMITS.cellChars} characters`);
    // A number is a number (-5 is refused as negative, not as a formula); any other text leading with a formula character is one.
    const isNumber = ([...QUANTITY_FIELDS, 'price'] as readonly string[]).includes(field) && 'value' in readNumber(cell, s.settings.decimalSeparator);
    if (cell.t === 's' && !isNumber && isFormulaText(cell.v)) return refuse('FORMULA_INJECTION', `the text starts with ${quoted(cell.v.trim()[0] ?? cell.v[0])}, which a spreadsheet program would run as a formula`);
    if (cell.t === 's' && s.identities.has(headerKey(cell.v))) return refuse('NAMES_OTHER_ORGANIZATION', `${quoted(cell.v)} is an identity of ${s.identities.get(headerKey(cell.v))}, another organization the gateway serves`);
    return { cell, position, given: true };
  };
  const value = <T>(field: ColumnField, read: (cell: Cell) => Read<T>): Field<T> => {
    const taken = take(field);
    if (!taken.cell) return taken;
    const result = read(taken.cell);
    if ('code' in result) {
      reason(result.code, result.message, taken.position);
      return { position: taken.position, given: true };
    }
    return { value: result.value, position: taken.position, given: true };
  };
  return { r, take, value, reason };
}

/** One row of trucks: what the answer names it by, and its offer when every cell it needs reads. */
function rowOf(s: SheetReader, rows: RowsContext, row: Row): { row: { row: number; reference?: string }; offer?: OfferMapping } {
  const cells = rowCellsOf(s, rows.columns, row);
  const before = s.reasons.length;
  // A row the workbook hides (by hand or by a filter) may be one the carrier meant to leave out, or not: it is not guessed.
  if (row.hidden) cells.reason('ROW_HIDDEN', 'the row is hidden in the workbook: show it to offer the truck, or delete it', s.at(undefined, row.r));
  // The reference first: the answer names each row by it.
  const reference = referenceOf(cells, rows.references);
  const named = { row: row.r, ...(reference !== undefined ? { reference } : {}) };
  const { origin, destination } = placesOf(s, cells, rows.places);
  const span = availabilityOf(s, cells);
  const vehicleProfile = vehicleOf(s, cells);
  const availableCapacity = capacityOf(s, cells, rows.columns);
  const price = priceOf(s, cells);
  if (s.reasons.length > before || !origin || !span) return { row: named };
  const body = offerBodyOf(s, rows, cells, { reference, origin, destination, span, vehicleProfile, availableCapacity, price });
  return { row: named, ...(body ? { offer: { ...named, body } } : {}) };
}

/** What a row's cells read as, every one it needs there. */
interface RowRead {
  reference?: string;
  origin: Area;
  destination?: Area;
  span: Window;
  vehicleProfile?: OfferBody['vehicleProfile'];
  availableCapacity: Capacity;
  price?: components['schemas']['LogisticsPrice'];
}

/** The offer of a row whose cells all read; none when it would be over, or expired, by the time the file arrived. */
function offerBodyOf(s: SheetReader, rows: RowsContext, cells: RowCells, read: RowRead): OfferBody | undefined {
  const { settings, context } = s;
  const { span, reference } = read;
  const receivedAt = context.receivedAt ? Date.parse(context.receivedAt) : NaN;
  const expiresAt = expiryOf(span, settings);
  if (Number.isFinite(receivedAt) && Date.parse(span.end) <= receivedAt) {
    return void cells.reason('WINDOW_PAST', `the truck is free until ${span.end}, before the file arrived (${context.receivedAt})`, span.endPosition);
  }
  if (settings.publish && Number.isFinite(receivedAt) && Date.parse(expiresAt) <= receivedAt) {
    return void cells.reason('OFFER_EXPIRED', `the offer would expire at ${expiresAt} (settings.spreadsheet.expires), before the file arrived (${context.receivedAt})`, settings.expires?.before === 'availableFrom' ? span.startPosition : span.endPosition);
  }
  const externalReferences = [
    ...(reference !== undefined ? [{ system: rows.system, type: settings.referenceType ?? 'truck', value: reference }] : []),
    { system: rows.system, type: 'row', value: `${context.entryId}:${cells.r}` },
  ];
  return {
    availabilityWindow: { start: span.start, end: span.end, timeZone: settings.timeZone },
    originArea: read.origin,
    ...(read.destination ? { destinationArea: read.destination } : {}),
    ...(settings.direction ? { direction: settings.direction } : {}),
    ...(read.vehicleProfile ? { vehicleProfile: read.vehicleProfile } : {}),
    availableCapacity: read.availableCapacity,
    expiresAt,
    ...(settings.publish ? { visibility: settings.visibility ?? { mode: 'open' } } : {}),
    ...(read.price ? { restrictedDetails: { price: read.price } } : {}),
    externalReferences,
  };
}

/** The row's reference (its truck or trip id), once per file. */
function referenceOf(cells: RowCells, references: Map<string, string>): string | undefined {
  const ref = cells.value('reference', (cell) => {
    const text = cellText(cell).trim();
    if (cell.t === 'n' && cell.d) return { code: 'VALUE_INVALID', message: 'a date is not a reference' };
    if (cell.t === 'b' || cell.t === 'e') return { code: 'VALUE_INVALID', message: 'the cell is not a reference' };
    if (text.length > 512) return { code: 'VALUE_INVALID', message: 'a reference has at most 512 characters' };
    return { value: text };
  });
  if (ref.value !== undefined) {
    const first = references.get(ref.value);
    if (first) cells.reason('REFERENCE_DUPLICATE', `the reference ${quoted(ref.value)} is the row's at ${first} too: each row is one truck`, ref.position);
    else references.set(ref.value, ref.position);
  }
  return ref.value;
}

/** Where: a place's name is looked up in the row's country when a country column gives one; a country and no place in it is the destination ("to Italy"). */
function placesOf(s: SheetReader, cells: RowCells, places: PlaceContext): { origin?: Area; destination?: Area } {
  const { settings } = s;
  const originCountry = cells.value('originCountry', readCountry);
  const origin = cells.value('origin', (cell) => readPlace(cell, { ...places, country: originCountry.value }, false));
  if (!origin.given) cells.reason('VALUE_MISSING', `no origin (${settings.columns.origin})`, origin.position);
  const destinationCountry = cells.value('destinationCountry', readCountry);
  const destinationCell = cells.value('destination', (cell) => readPlace(cell, { ...places, country: destinationCountry.value }, true));
  let destination: Area | undefined = destinationCell.value ?? (destinationCountry.value && !destinationCell.given ? { kind: 'country', code: destinationCountry.value } : undefined);
  if (!destinationCell.given && !destinationCountry.given && settings.destination !== undefined) {
    const read = readPlace({ t: 's', v: settings.destination }, places, true);
    if ('code' in read) cells.reason('SETTINGS_INVALID', `settings.spreadsheet.destination: ${read.message}`, 'settings.spreadsheet.destination');
    else destination = read.value;
  }
  if (!destinationCell.given && !destinationCountry.given && !destination && settings.publish) cells.reason('VALUE_MISSING', `no destination${settings.columns.destination ? ` (${settings.columns.destination})` : ''}, and the organization sets none (destination) to publish with`, destinationCell.position);
  return { origin: origin.value, destination };
}

/** When: the availability window of the row's dates and times (windowOf). */
function availabilityOf(s: SheetReader, cells: RowCells): Window | undefined {
  const { settings } = s;
  const date1904 = s.sheet.date1904 === true;
  const from = cells.value('availableFrom', (cell) => readDate(cell, settings, date1904));
  if (!from.given) cells.reason('VALUE_MISSING', `no date the truck is free from (${settings.columns.availableFrom})`, from.position);
  const fromTime = cells.value('availableFromTime', readTime);
  const until = cells.value('availableUntil', (cell) => readDate(cell, settings, date1904));
  const untilTime = cells.value('availableUntilTime', readTime);
  if (!from.value) return undefined;
  const where = { from: from.position, fromTime: fromTime.position, until: until.position, untilTime: untilTime.position };
  return windowOf(from.value, fromTime.value, until.value, untilTime.value, where, settings, cells.reason, until.given || untilTime.given);
}

/** What vehicle: the row's body type, else the organization's. */
function vehicleOf(s: SheetReader, cells: RowCells): { bodyType: BodyType; bodyTypeDescription?: string } | undefined {
  const { settings } = s;
  const body = cells.value('bodyType', (cell) => readBodyType(cell, settings));
  const bodyType = body.value ?? (body.given ? undefined : settings.bodyType ? { bodyType: settings.bodyType } : undefined);
  if (!body.given && !bodyType && settings.publish) cells.reason('VEHICLE_PROFILE_MISSING', `no body type${settings.columns.bodyType ? ` (${settings.columns.bodyType})` : ''}, and the organization sets none (bodyType) to publish with`, body.position);
  return bodyType;
}

/** How much room: pallet spaces, weight, loading metres and volume above 0; none at all is a reason, unless one did not read. */
function capacityOf(s: SheetReader, cells: RowCells, columns: ReadonlyMap<ColumnField, string>): Capacity {
  const { settings } = s;
  const capacity: Capacity = {};
  let unreadQuantity = false;
  const quantity = (field: (typeof QUANTITY_FIELDS)[number], check: (n: number) => string | undefined, put: (n: number) => void) => {
    const q = cells.value(field, (cell) => readNumber(cell, settings.decimalSeparator));
    if (q.value === undefined) return void (unreadQuantity ||= q.given);
    const problem = q.value < 0 ? 'is negative' : check(q.value);
    if (problem) return void ((unreadQuantity = true), cells.reason('NUMBER_INVALID', `the value ${q.value} ${problem}`, q.position));
    // Zero is read as "not given": an absent dimension is unknown, never zero (spreadsheets fill blanks with 0).
    if (q.value > 0) put(q.value);
  };
  quantity('pallets', (n) => (!Number.isInteger(n) ? 'is not a whole number of pallet spaces' : n > 1000 ? 'is more than 1000 pallet spaces' : undefined), (n) => (capacity.palletSpaces = n));
  quantity('weight', (n) => (n > 1e9 ? 'is too large' : undefined), (n) => (capacity.weight = { value: n, unitCode: settings.weightUnit ?? 'KGM' }));
  quantity('loadingMetres', (n) => (n > 1e9 ? 'is too large' : undefined), (n) => (capacity.loadingMetres = { value: n, unitCode: 'MTR' }));
  quantity('volume', (n) => (n > 1e9 ? 'is too large' : undefined), (n) => (capacity.volume = { value: n, unitCode: 'MTQ' }));
  if (!Object.keys(capacity).length && !unreadQuantity) {
    const named = QUANTITY_FIELDS.filter((f) => columns.has(f));
    cells.reason('CAPACITY_MISSING', named.length ? `no free capacity in ${named.map((f) => settings.columns[f]).join(', ')}: at least one above 0` : 'the organization maps no capacity column (pallets, weight, loadingMetres, volume)', s.at(named.length ? columns.get(named[0]) : undefined, cells.r));
  }
  return capacity;
}

/** The price asked, in the organization's currency: disclosed once a match is accepted. A price of 0 is read as "not given", as a quantity of 0 is (spreadsheets fill blanks with 0). */
function priceOf(s: SheetReader, cells: RowCells): components['schemas']['LogisticsPrice'] | undefined {
  const asked = cells.value('price', (cell) => readNumber(cell, s.settings.decimalSeparator));
  if (asked.value !== undefined && (asked.value < 0 || asked.value > 1e9)) cells.reason('NUMBER_INVALID', `the price ${asked.value} is not between 0 and 1,000,000,000`, asked.position);
  return asked.value !== undefined && asked.value > 0 && asked.value <= 1e9 && s.settings.currency ? { amount: asked.value, currency: s.settings.currency } : undefined;
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
