// The spreadsheet side of the adapter gateway (gateway/spreadsheet): a carrier's CSV or XLSX of free
// trucks read as the organization's settings say, each row mapped to a capacity offer the API's own
// schema accepts, or the whole file quarantined with the reason and the cell; what submit sends and
// what the carrier gets back; and hostile files (zip bombs, formulas, mutated real files) answered
// without a crash or a hang. Files: examples/spreadsheet/ and test/fixtures/spreadsheet/ (SOURCES.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { PcxProblemError } from '@pcx/sdk';
import iconv from 'iconv-lite';
import { validateArea } from '../../core/areas';
import { placesNamed } from '../../core/place-names';
import { SchemaRegistry } from '../../core/schemas';
import type { ServedOrganization } from '../../gateway/config';
import { formatOf, formatOfFile } from '../../gateway/formats';
import { csvText, readCsv } from '../../gateway/spreadsheet/csv';
import { PROFILE, spreadsheet } from '../../gateway/spreadsheet/format';
import { mapSheet } from '../../gateway/spreadsheet/offers';
import { resultCsv } from '../../gateway/spreadsheet/result';
import { datePattern, settingsProblems, type SpreadsheetSettings } from '../../gateway/spreadsheet/settings';
import { columnIndex, columnName, positionOf } from '../../gateway/spreadsheet/sheet';
import { isFormulaText, readCountry, readDate, readNumber, readPlace, readTime } from '../../gateway/spreadsheet/values';
import { dateKindOf, readXlsx } from '../../gateway/spreadsheet/xlsx';
import { decodeCsv } from '../../gateway/spreadsheet/encoding';
import { readEntry, zipEntries } from '../../gateway/spreadsheet/zip';
import type { InboxEntry } from '../../gateway/store';

const ROOT = join(__dirname, '..', '..');
const example = (name: string) => readFileSync(join(ROOT, 'examples', 'spreadsheet', name));
const fixture = (name: string) => readFileSync(join(ROOT, 'test', 'fixtures', 'spreadsheet', name));

// The organizations of config/gateway.json: Alpine Freight's settings are the ones a reader tries.
const CONFIG: ServedOrganization[] = JSON.parse(readFileSync(join(ROOT, 'config', 'gateway.json'), 'utf8'));
const alpine = CONFIG.find((o) => o.organizationId === 'org-alpine-freight')!;
const baltic = CONFIG.find((o) => o.organizationId === 'org-baltic-shippers')!;
const others = [baltic];
const withSettings = (changes: Partial<SpreadsheetSettings>, org: ServedOrganization = alpine): ServedOrganization => ({ ...org, spreadsheet: { ...org.spreadsheet!, ...changes } });

/** Before the trucks of the examples are free (17 March to 3 June 2031). */
const RECEIVED = '2031-03-10T08:00:00.000Z';
const entry = (content: string, name: string | null = 'free-trucks.csv', receivedAt = RECEIVED): InboxEntry => ({ id: 'mb-test', organizationId: alpine.organizationId, transport: 'mailbox', format: 'spreadsheet', name, contentSha256: '', content, status: 'received', receivedAt, result: null });
const mapBytes = (bytes: Buffer, org: ServedOrganization = alpine, name = 'free-trucks.csv', receivedAt = RECEIVED) => spreadsheet.map(entry(spreadsheet.decode(bytes), name, receivedAt), org, others) as any;
const mapText = (text: string, org: ServedOrganization = alpine, receivedAt = RECEIVED) => mapBytes(Buffer.from(text, 'utf8'), org, 'free-trucks.csv', receivedAt);

// The example CSV as lines of fields, to change one cell at a time (rows and columns as a spreadsheet names them).
const EXAMPLE_CSV = csvText(example('free-trucks.csv'))!;
const lines = () => EXAMPLE_CSV.replace(/^\uFEFF/, '').trimEnd().split('\r\n').map((l) => l.split(';'));
const csvOf = (rows: string[][]) => rows.map((r) => r.join(';')).join('\r\n') + '\r\n';
/** The example CSV with the cell at `ref` (as C3) set to `value`. */
function withCell(ref: string, value: string, rows = lines()): string {
  const [, column, row] = /^([A-Z]+)(\d+)$/.exec(ref)!;
  rows[Number(row) - 1][columnIndex(column) - 1] = value;
  return csvOf(rows);
}

const registry = new SchemaRegistry('https://schemas.pcx.test');
const createRequest = registry.validator('capacity-offer#/$defs/CreateRequest');
const expectValidBodies = (offers: Array<{ body: unknown }>) => {
  for (const { body } of offers) {
    const valid = createRequest(body);
    expect({ body, errors: valid ? null : createRequest.errors }).toEqual({ body, errors: null });
  }
};
/** What the broker checks beyond the schema: each area's code is one it knows (core/areas.ts, its UN/LOCODE index). */
const expectKnownAreas = (offers: Array<{ body: any }>) => {
  for (const { body } of offers) for (const field of ['originArea', 'destinationArea']) if (body[field]) expect({ area: body[field], errors: validateArea(body[field], `/${field}`) }).toEqual({ area: body[field], errors: [] });
};
const codes = (result: { reasons?: Array<{ code: string }> }) => (result.reasons ?? []).map((r) => r.code);

/** A ZIP of the given parts (stored with DEFLATE), as a spreadsheet program writes an XLSX: for workbooks a test needs and no program makes. */
function zip(parts: Record<string, string | Buffer>, options: { lieAboutSize?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(parts)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    const packed = deflateRawSync(data);
    const fileName = Buffer.from(name, 'utf8');
    const header = (central: boolean) => {
      const h = Buffer.alloc(central ? 46 : 30);
      h.writeUInt32LE(central ? 0x02014b50 : 0x04034b50, 0);
      let p = 4;
      if (central) h.writeUInt16LE(20, p), (p += 2);
      h.writeUInt16LE(20, p);
      h.writeUInt16LE(0x800, p + 2);
      h.writeUInt16LE(8, p + 4);
      h.writeUInt32LE(crc32(data), p + 10);
      h.writeUInt32LE(packed.length, p + 14);
      h.writeUInt32LE(options.lieAboutSize ? 100 : data.length, p + 18);
      h.writeUInt16LE(fileName.length, p + 22);
      if (central) h.writeUInt32LE(offset, 42);
      return Buffer.concat([h, fileName]);
    };
    const local = Buffer.concat([header(false), packed]);
    centrals.push(header(true));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length, 8);
  end.writeUInt16LE(centrals.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
/** A minimal workbook of one sheet "Trucks" whose sheetData is `rows` (inline strings and numbers as written). */
function workbook(rows: string, extra: Record<string, string> = {}, styles?: string): Buffer {
  return zip({
    '[Content_Types].xml': '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    '_rels/.rels': '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    'xl/workbook.xml': `<workbook ${NS}><sheets><sheet name="Trucks" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
    'xl/styles.xml': styles ?? `<styleSheet ${NS}><numFmts count="1"><numFmt numFmtId="164" formatCode="dd\\.mm\\.yyyy"/></numFmts><cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="20"/></cellXfs></styleSheet>`,
    'xl/worksheets/sheet1.xml': `<worksheet ${NS}><sheetData>${rows}</sheetData></worksheet>`,
    ...extra,
  });
}
const s = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const n = (ref: string, value: number, style = 0) => `<c r="${ref}" s="${style}"><v>${value}</v></c>`;
/** The header row and one row of trucks in the English layout of `carrier` below. */
const HEADER = `<row r="1">${s('A1', 'Truck')}${s('B1', 'From')}${s('C1', 'To')}${s('D1', 'Available')}${s('E1', 'Pallets')}</row>`;
const carrier: ServedOrganization = {
  organizationId: 'org-carrier',
  clientId: 'carrier',
  clientSecret: 'secret',
  places: { 'Depot Linz': 'ATLNZ', Hamburg: 'DEHAM' },
  spreadsheet: { publish: true, timeZone: 'Europe/Berlin', bodyType: 'curtainsider', columns: { reference: 'Truck', origin: 'From', destination: 'To', availableFrom: 'Available', pallets: 'Pallets' } },
};

describe('settings', () => {
  it("accepts Alpine Freight's settings of config/gateway.json, and names each wrong one", () => {
    expect(settingsProblems(alpine.spreadsheet)).toEqual([]);
    expect(settingsProblems(undefined)).toEqual([expect.objectContaining({ path: 'settings.spreadsheet' })]);
    const wrong = settingsProblems({ ...alpine.spreadsheet!, timeZone: 'Mars/Olympus', dateFormat: 'DD.MM', columns: { availableFrom: 'Frei ab', pallets: 'Frei ab' } as any, bodyType: 'other' as any, maxRows: 0 });
    expect(wrong.map((p) => p.path).sort()).toEqual(['settings.spreadsheet.bodyType', 'settings.spreadsheet.columns.origin', 'settings.spreadsheet.columns.pallets', 'settings.spreadsheet.dateFormat', 'settings.spreadsheet.maxRows', 'settings.spreadsheet.timeZone']);
  });

  it('needs the currency of a price column: a price column mapped without an ISO 4217 currency is a settings problem', () => {
    expect(settingsProblems({ ...alpine.spreadsheet!, currency: undefined })).toEqual([expect.objectContaining({ path: 'settings.spreadsheet.currency' })]);
    expect(settingsProblems({ ...alpine.spreadsheet!, currency: 'eur' })).toEqual([expect.objectContaining({ path: 'settings.spreadsheet.currency' })]);
    expect(settingsProblems({ ...alpine.spreadsheet!, currency: 'Euro' })).toEqual([expect.objectContaining({ path: 'settings.spreadsheet.currency' })]);
    // No price column, no currency needed.
    expect(settingsProblems({ ...alpine.spreadsheet!, currency: undefined, columns: { ...alpine.spreadsheet!.columns, price: undefined } })).toEqual([]);
    const result = mapBytes(example('free-trucks.csv'), withSettings({ currency: undefined }));
    expect(result.kind).toBe('quarantined');
    expect(result.reasons).toEqual([expect.objectContaining({ code: 'SETTINGS_INVALID', position: 'settings.spreadsheet.currency' })]);
  });

  it('reads date patterns of day, month and year in any order, and refuses others', () => {
    expect(datePattern('DD.MM.YYYY')!.exec('17.03.2031')!.groups).toEqual({ d: '17', m: '03', y: '2031' });
    expect(datePattern('M/D/YY')!.exec('3/7/31')!.groups).toEqual({ m: '3', d: '7', yy: '31' });
    for (const bad of ['DD.MM', 'YYYY-MM-DD-DD', 'DD.MM.YYYY hh', 'x']) expect(datePattern(bad)).toBeUndefined();
  });

  it('quarantines every file of an organization without settings, or with wrong ones, naming the setting', () => {
    const none = mapBytes(example('free-trucks.csv'), { ...alpine, spreadsheet: undefined });
    expect(none).toEqual(expect.objectContaining({ kind: 'quarantined', reasons: [expect.objectContaining({ code: 'SETTINGS_MISSING', position: 'settings.spreadsheet' })] }));
    const wrong = mapBytes(example('free-trucks.csv'), withSettings({ timeZone: 'Europe/Nowhere' }));
    expect(wrong.reasons).toEqual([expect.objectContaining({ code: 'SETTINGS_INVALID', position: 'settings.spreadsheet.timeZone' })]);
  });
});

describe('cells', () => {
  it('names cells and rows as a spreadsheet does', () => {
    expect([columnName(1), columnName(26), columnName(27), columnName(100)]).toEqual(['A', 'Z', 'AA', 'CV']);
    expect(columnIndex('CV')).toBe(100);
    expect(positionOf({ kind: 'csv' }, 'C', 7)).toBe('C7');
    expect(positionOf({ kind: 'xlsx', name: 'Sheet1' }, 'C', 7)).toBe('Sheet1!C7');
    expect(positionOf({ kind: 'xlsx', name: 'Freie LKW' }, undefined, 3)).toBe("'Freie LKW'!3:3");
  });

  it('reads numbers with the decimal mark the organization sets, and only unambiguous ones without', () => {
    const text = (v: string) => ({ t: 's' as const, v });
    expect(readNumber(text('24.000'), ',')).toEqual({ value: 24000 });
    expect(readNumber(text('13,6'), ',')).toEqual({ value: 13.6 });
    expect(readNumber(text('1.234,5'), ',')).toEqual({ value: 1234.5 });
    expect(readNumber(text('1.150'), ',')).toEqual({ value: 1150 }); // a price of the example, grouped with a point
    expect(readNumber(text('24,000'), '.')).toEqual({ value: 24000 });
    expect(readNumber(text('24,5'), undefined)).toEqual({ value: 24.5 });
    expect(readNumber(text('12 500'), undefined)).toEqual({ value: 12500 });
    expect(readNumber(text('1.500'), undefined)).toEqual(expect.objectContaining({ code: 'NUMBER_AMBIGUOUS' }));
    expect(readNumber(text('24 t'), ',')).toEqual(expect.objectContaining({ code: 'NUMBER_INVALID' }));
    expect(readNumber(text('-5'), ',')).toEqual({ value: -5 });
    expect(readNumber({ t: 'n', v: 33 }, ',')).toEqual({ value: 33 });
    expect(readNumber({ t: 'n', v: 47924, d: 'date' }, ',')).toEqual(expect.objectContaining({ code: 'NUMBER_INVALID' }));
  });

  it('reads dates as the organization writes them, ISO dates always, and XLSX date cells from their serial number', () => {
    const text = (v: string) => ({ t: 's' as const, v });
    expect(readDate(text('17.03.2031'), { dateFormat: 'DD.MM.YYYY' }, false)).toEqual({ value: { date: { y: 2031, m: 3, d: 17 } } });
    expect(readDate(text('17.03.2031 08:30'), { dateFormat: 'DD.MM.YYYY' }, false)).toEqual({ value: { date: { y: 2031, m: 3, d: 17 }, time: { h: 8, mi: 30 } } });
    expect(readDate(text('3/17/2031 10:45:00 PM'), { dateFormat: 'M/D/YYYY' }, false)).toEqual({ value: { date: { y: 2031, m: 3, d: 17 }, time: { h: 22, mi: 45 } } });
    expect(readDate(text('2031-03-17'), { dateFormat: 'DD.MM.YYYY' }, false)).toEqual({ value: { date: { y: 2031, m: 3, d: 17 } } });
    expect(readDate(text('2031-03-17T08:00:00+01:00'), {}, false)).toEqual({ value: expect.objectContaining({ instant: '2031-03-17T07:00:00Z' }) });
    expect(readDate(text('03/04/2031'), {}, false)).toEqual(expect.objectContaining({ code: 'DATE_AMBIGUOUS' }));
    expect(readDate(text('31.02.2031'), { dateFormat: 'DD.MM.YYYY' }, false)).toEqual(expect.objectContaining({ code: 'DATE_INVALID' }));
    expect(readDate(text('17.03.31'), { dateFormat: 'DD.MM.YYYY' }, false)).toEqual(expect.objectContaining({ code: 'DATE_INVALID' }));
    expect(readDate({ t: 'n', v: 47924, d: 'date' }, {}, false)).toEqual({ value: { date: { y: 2031, m: 3, d: 17 } } });
    expect(readDate({ t: 'n', v: 47924.5, d: 'datetime' }, {}, false)).toEqual({ value: { date: { y: 2031, m: 3, d: 17 }, time: { h: 12, mi: 0 } } });
    // A number with no date format is Excel's serial day number (from 1904 when the workbook says so), below 100000 and from 1970.
    expect(readDate({ t: 'n', v: 47924 }, {}, false)).toEqual({ value: { date: { y: 2031, m: 3, d: 17 } } });
    expect(readDate({ t: 'n', v: 46462 }, {}, true)).toEqual({ value: { date: { y: 2031, m: 3, d: 17 } } });
    expect(readDate({ t: 'n', v: 47924.25 }, {}, false)).toEqual({ value: { date: { y: 2031, m: 3, d: 17 }, time: { h: 6, mi: 0 } } });
    for (const digits of [170331, 20310317, 1000]) expect(readDate({ t: 'n', v: digits }, {}, false)).toEqual(expect.objectContaining({ code: 'DATE_INVALID', message: expect.stringContaining('serial day number') }));
    expect(readDate({ t: 'n', v: 0.5, d: 'time' }, {}, false)).toEqual(expect.objectContaining({ code: 'DATE_INVALID' })); // a time is not a date
    expect(readDate({ t: 'n', v: 47924.5, d: 'date' }, {}, false)).toEqual(expect.objectContaining({ code: 'DATE_AMBIGUOUS' })); // a time the cell hides
    expect(readTime({ t: 'n', v: 0.3333333333, d: 'time' })).toEqual({ value: { h: 8, mi: 0 } });
    expect(readTime({ t: 's', v: '25:00' })).toEqual(expect.objectContaining({ code: 'DATE_INVALID' }));
  });

  it('reads a place as a UN/LOCODE, one of the organization\'s places, or a UN/LOCODE place\'s name, and nothing else', () => {
    const context = { places: { 'Depot Linz': 'ATLNZ' }, othersPlaces: new Set(['9:5790000000012']) };
    const text = (v: string) => ({ t: 's' as const, v });
    expect(readPlace(text('DEHAM'), context, false)).toEqual({ value: { kind: 'unlocode', code: 'DEHAM' } });
    expect(readPlace(text(' DE HAM '), context, false)).toEqual({ value: { kind: 'unlocode', code: 'DEHAM' } });
    expect(readPlace(text('depot  linz'), context, false)).toEqual({ value: { kind: 'unlocode', code: 'ATLNZ' } });
    expect(readPlace(text('AT'), context, true)).toEqual({ value: { kind: 'country', code: 'AT' } });
    expect(readPlace(text('AT-4'), context, true)).toEqual({ value: { kind: 'subdivision', code: 'AT-4' } });
    expect(readPlace(text('AT'), context, false)).toEqual(expect.objectContaining({ code: 'PLACE_UNKNOWN' })); // an origin is a place, not a country
    expect(readPlace(text('deham'), context, true)).toEqual(expect.objectContaining({ code: 'PLACE_UNKNOWN' }));
    expect(readPlace(text('XX'), context, true)).toEqual(expect.objectContaining({ code: 'PLACE_UNKNOWN' }));
    expect(readPlace(text('Norditalien'), context, true)).toEqual(expect.objectContaining({ code: 'PLACE_UNKNOWN', message: expect.stringContaining('"Norditalien"') })); // never geocoded
    expect(readPlace(text('DEHAM / DEBRE'), context, true)).toEqual(expect.objectContaining({ code: 'PLACE_AMBIGUOUS' }));
    expect(readPlace(text('9:5790000000012'), context, true)).toEqual(expect.objectContaining({ code: 'NAMES_OTHER_ORGANIZATION' }));
    expect(readPlace({ t: 'n', v: 1010 }, context, true)).toEqual(expect.objectContaining({ code: 'PLACE_UNKNOWN' }));
  });

  it("reads a city's name as the one UN/LOCODE place so named, in the row's country or the organization's countries", () => {
    const text = (v: string) => ({ t: 's' as const, v });
    const world = { places: {}, othersPlaces: new Set<string>() };
    const europe = { ...world, countries: ['AT', 'DE', 'PL', 'CZ'] };
    const place = (v: string, context: any = europe, areas = false) => readPlace(text(v), context, areas);
    // Case, diacritics and punctuation aside, and letters that are no letter with a mark (ł, ß) spelt out.
    expect(place('Wien', world)).toEqual({ value: { kind: 'unlocode', code: 'ATVIE' } }); // the only Wien
    expect(place('Hamburg')).toEqual({ value: { kind: 'unlocode', code: 'DEHAM' } });
    expect(place('Kraków')).toEqual({ value: { kind: 'unlocode', code: 'PLKRK' } });
    expect(place('ŁÓDŹ')).toEqual({ value: { kind: 'unlocode', code: 'PLLOD' } });
    expect(place('  frankfurt (oder) ')).toEqual({ value: { kind: 'unlocode', code: 'DEFFO' } });
    expect(place('Gießen')).toEqual({ value: { kind: 'unlocode', code: 'DEGIE' } });
    expect(place('České Budějovice')).toEqual({ value: { kind: 'unlocode', code: 'CZCKB' } });
    // Several places of the name: the candidates, never one of them.
    expect(place('Hamburg', world)).toEqual({ code: 'PLACE_AMBIGUOUS', message: expect.stringMatching(/^"Hamburg" is the name of 10 UN\/LOCODE places: DEHAM \(Hamburg\), USH9G \(Hamburg\), .* and 2 more; write the UN\/LOCODE, or let the organization set the countries/) });
    expect(place('Kraków', world)).toEqual(expect.objectContaining({ code: 'PLACE_AMBIGUOUS', message: expect.stringContaining('PLKRK (Kraków), USKK3 (Krakow)') }));
    expect(place('Halle')).toEqual(expect.objectContaining({ code: 'PLACE_AMBIGUOUS', message: expect.stringContaining('in AT, DE, PL, CZ: DEHAE (Halle), DEHAL (Halle)') }));
    // No place has the whole name: unknown, with the names that begin so.
    expect(place('Frankfurt')).toEqual({ code: 'PLACE_UNKNOWN', message: expect.stringContaining('nor the name of a UN/LOCODE place in AT, DE, PL, CZ; names that begin so: DEFRA (Frankfurt am Main), DEFFO (Frankfurt/Oder), DEFFH (Frankfurt-Hochst)') });
    // The row's country narrows, and contradicts a place elsewhere.
    expect(place('Salzburg')).toEqual(expect.objectContaining({ code: 'PLACE_AMBIGUOUS', message: expect.stringContaining('ATSZG (Salzburg), DELZB (Salzburg)') }));
    expect(place('Salzburg', { ...europe, country: 'AT' })).toEqual({ value: { kind: 'unlocode', code: 'ATSZG' } });
    expect(place('DEHAM', { ...europe, country: 'AT' })).toEqual(expect.objectContaining({ code: 'PLACE_AMBIGUOUS', message: expect.stringContaining("the row's country is AT") }));
    // The organization's places and real UN/LOCODEs first; a code-shaped name that is also a real code is ambiguous.
    expect(place('Salzburg', { ...europe, places: { salzburg: 'ATSZG' } })).toEqual({ value: { kind: 'unlocode', code: 'ATSZG' } });
    expect(place('ESSEN')).toEqual(expect.objectContaining({ code: 'PLACE_AMBIGUOUS', message: expect.stringContaining('UN/LOCODE of Senegue (ES) and the name of DEEEN (Essen), DEESS (Essen), DEONU (Essen)') }));
    expect(place('PRAHA')).toEqual({ value: { kind: 'unlocode', code: 'CZPRG' } }); // no UN/LOCODE PRAHA: the name
    expect(place('DEHAN')).toEqual({ value: { kind: 'unlocode', code: 'DEHAN' } }); // a code (Hameln), though no name
    // A country column holds an ISO 3166-1 code.
    expect(readCountry(text(' de '))).toEqual({ value: 'DE' });
    for (const bad of ['D', 'Deutschland', 'EU']) expect(readCountry(text(bad))).toEqual(expect.objectContaining({ code: 'VALUE_INVALID' }));
  });

  it('names places exactly (core/place-names.ts placesNamed)', () => {
    expect(placesNamed('Wrocław')).toEqual([{ code: 'PLWRO', name: 'Wrocław' }]);
    expect(placesNamed('salzburg', 'AT')).toEqual([{ code: 'ATSZG', name: 'Salzburg' }]);
    expect(placesNamed('Frankfurt')).toEqual([]);
    expect(placesNamed(' -- ')).toEqual([]);
  });

  it('tells a formula from a number: =, +, -, @, tab or CR lead a formula, unless the text is a number', () => {
    for (const formula of ['=1+1', '=HYPERLINK("http://x.test","T-1")', '+43 1 234', '@SUM(A1)', '\tx', '\rx', ' =x', '-T17', '-2+3']) expect({ formula, is: isFormulaText(formula) }).toEqual({ formula, is: true });
    for (const text of ['-5', '+3,5', ' -12.5 ', 'T-17', 'DEHAM', 'a=b']) expect({ text, is: isFormulaText(text) }).toEqual({ text, is: false });
  });

  it('tells a date format from a number format', () => {
    expect(dateKindOf('dd\\.mm\\.yyyy')).toBe('date');
    expect(dateKindOf('[$-407]DD. MMMM YYYY')).toBe('date');
    expect(dateKindOf('hh:mm')).toBe('time');
    expect(dateKindOf('[h]:mm:ss')).toBe('time');
    expect(dateKindOf('dd/mm/yyyy hh:mm')).toBe('datetime');
    expect(dateKindOf('#,##0')).toBeUndefined();
    expect(dateKindOf('0.0" t"')).toBeUndefined();
    expect(dateKindOf('[Red]0.00')).toBeUndefined();
  });
});

describe('the examples', () => {
  const T101 = {
    availabilityWindow: { start: '2031-03-17T07:00:00Z', end: '2031-03-18T23:00:00Z', timeZone: 'Europe/Vienna' },
    originArea: { kind: 'unlocode', code: 'DEHAM' },
    destinationArea: { kind: 'unlocode', code: 'NLRTM' },
    vehicleProfile: { bodyType: 'curtainsider' },
    availableCapacity: { palletSpaces: 33, weight: { value: 24000, unitCode: 'KGM' }, loadingMetres: { value: 13.6, unitCode: 'MTR' } },
    expiresAt: '2031-03-18T23:00:00Z',
    visibility: { mode: 'open' },
    restrictedDetails: { price: { amount: 850, currency: 'EUR' } },
  };

  it('maps the CSV to five capacity offers the API accepts', () => {
    const result = mapBytes(example('free-trucks.csv'));
    expect(result.kind).toBe('mapped');
    expect(result.source).toEqual({ kind: 'csv', delimiter: ';' });
    expect(result.offers.map((o: any) => [o.row, o.reference])).toEqual([[2, 'T-101'], [3, 'T-102'], [4, 'T-105'], [5, 'T-110'], [6, 'T-120']]);
    expectValidBodies(result.offers);
    expectKnownAreas(result.offers);
    expect(result.offers[0].body).toEqual({
      ...T101,
      externalReferences: [
        { system: 'spreadsheet:alpine-dispo', type: 'truck', value: 'T-101' },
        { system: 'spreadsheet:alpine-dispo', type: 'row', value: 'mb-test:2' },
      ],
    });
    // A date alone is that whole day in Vienna; a country is an area; the organization's word for a body type.
    expect(result.offers[1].body).toEqual(expect.objectContaining({ availabilityWindow: { start: '2031-03-16T23:00:00Z', end: '2031-03-17T23:00:00Z', timeZone: 'Europe/Vienna' }, destinationArea: { kind: 'country', code: 'DE' }, vehicleProfile: { bodyType: 'box' } }));
    expect(result.offers[2].body).toEqual(expect.objectContaining({ originArea: { kind: 'unlocode', code: 'ATGRZ' }, vehicleProfile: { bodyType: 'refrigerated' } }));
    expect(result.offers[3].body.availableCapacity).toEqual({ weight: { value: 8000, unitCode: 'KGM' } });
    // The price asked, disclosed once a match is accepted: `1.150` with a decimal comma is 1150; T-110 asks none.
    expect(result.offers.map((o: any) => o.body.restrictedDetails)).toEqual([
      { price: { amount: 850, currency: 'EUR' } },
      { price: { amount: 420, currency: 'EUR' } },
      { price: { amount: 1150, currency: 'EUR' } },
      undefined,
      { price: { amount: 950, currency: 'EUR' } },
    ]);
    expect('restrictedDetails' in result.offers[3].body).toBe(false);
    // The truck for the shipper's transport instruction (examples/edifact/transport-instruction.edi: Gothenburg, 1 June
    // 2031, to Hamburg): free at SEGOT from 31 May 06:00 in Vienna (summer time) to the end of 3 June.
    expect(result.offers[4].body).toEqual({
      availabilityWindow: { start: '2031-05-31T04:00:00Z', end: '2031-06-03T22:00:00Z', timeZone: 'Europe/Vienna' },
      originArea: { kind: 'unlocode', code: 'SEGOT' },
      destinationArea: { kind: 'unlocode', code: 'DEHAM' },
      vehicleProfile: { bodyType: 'curtainsider' },
      availableCapacity: { palletSpaces: 33, weight: { value: 24000, unitCode: 'KGM' }, loadingMetres: { value: 13.6, unitCode: 'MTR' } },
      expiresAt: '2031-06-03T22:00:00Z',
      visibility: { mode: 'open' },
      restrictedDetails: { price: { amount: 950, currency: 'EUR' } },
      externalReferences: [
        { system: 'spreadsheet:alpine-dispo', type: 'truck', value: 'T-120' },
        { system: 'spreadsheet:alpine-dispo', type: 'row', value: 'mb-test:6' },
      ],
    });
    expect(result.dropped).toEqual(['Kennzeichen', 'Fahrer', 'Bemerkung']);
  });

  it('maps the XLSX (a title above the header, real date and time cells) to the same offers', () => {
    const csv = mapBytes(example('free-trucks.csv'));
    const xlsx = mapBytes(example('free-trucks.xlsx'), alpine, 'free-trucks.xlsx');
    expect(xlsx.kind).toBe('mapped');
    expect(xlsx.source).toEqual({ kind: 'xlsx', sheet: 'Freie LKW' });
    expect(xlsx.offers.map((o: any) => o.row)).toEqual([4, 5, 6, 7, 8]);
    expectValidBodies(xlsx.offers);
    const withoutRows = (offers: any[]) => offers.map((o) => ({ ...o.body, externalReferences: o.body.externalReferences.filter((r: any) => r.type !== 'row') }));
    expect(withoutRows(xlsx.offers)).toEqual(withoutRows(csv.offers));
  });

  it('reads the same sheet as written by openpyxl and by a LibreOffice CSV import', () => {
    const openpyxl = mapBytes(fixture('free-trucks_openpyxl.xlsx'), alpine, 'x.xlsx');
    const imported = mapBytes(fixture('free-trucks_libreoffice-csv-import.xlsx'), alpine, 'x.xlsx');
    expect(openpyxl.offers.map((o: any) => o.body.availabilityWindow)).toEqual(mapBytes(example('free-trucks.csv')).offers.map((o: any) => o.body.availabilityWindow));
    expect(imported.offers.map((o: any) => o.body.availableCapacity)).toEqual(mapBytes(example('free-trucks.csv')).offers.map((o: any) => o.body.availableCapacity));
    // Prices as number cells (openpyxl) and as the import read `1.150` in German (Austria): the same amounts as the CSV's.
    const prices = (result: any) => result.offers.map((o: any) => o.body.restrictedDetails?.price);
    expect(prices(openpyxl)).toEqual(prices(mapBytes(example('free-trucks.csv'))));
    expect(prices(imported)).toEqual(prices(mapBytes(example('free-trucks.csv'))));
    expect(prices(imported).map((p: any) => p?.amount)).toEqual([850, 420, 1150, undefined, 950]);
  });

  it('is the format of .csv and .xlsx mailbox files', () => {
    expect(formatOfFile('free-trucks.csv')).toBe(spreadsheet);
    expect(formatOfFile('FREE-TRUCKS.XLSX')).toBe(spreadsheet);
    expect(formatOf('spreadsheet').profiles).toEqual([PROFILE]);
  });
});

describe('mapping rules', () => {
  it('finds the header by its texts, ignoring case and spaces, or at the row the organization sets', () => {
    const rows = lines();
    rows[0] = rows[0].map((h) => `  ${h.toUpperCase()} `);
    expect(mapText(csvOf([['Freie LKW KW 12'], [], ...rows])).kind).toBe('mapped');
    expect(mapText(csvOf([['Freie LKW KW 12'], ...lines()]), withSettings({ headerRow: 2 })).kind).toBe('mapped');
    expect(codes(mapText(csvOf([['Freie LKW KW 12'], ...lines()]), withSettings({ headerRow: 1 })))).toContain('COLUMN_MISSING');
  });

  it('reads a comma-separated file as well, and a file in Windows-1252', () => {
    // As Excel writes it in an English locale: commas, a decimal point, thousands grouped by a comma (and so quoted).
    const english = lines().map((r, i) => (i === 0 ? r : r.map((v, j) => (j === 9 || j === 11 ? `"${v.replace('.', ',')}"` : j === 10 ? v.replace(',', '.') : v))));
    const comma = english.map((r) => r.join(',')).join('\r\n');
    const read = mapText(comma, withSettings({ decimalSeparator: '.' }));
    expect(read.offers.map((o: any) => o.body.availableCapacity.weight.value)).toEqual([24000, 12500, 22000, 8000, 24000]);
    expect(read.offers.map((o: any) => o.body.restrictedDetails?.price.amount)).toEqual([850, 420, 1150, undefined, 950]);
    const latin = Buffer.from(EXAMPLE_CSV.replace(/^\uFEFF/, ''), 'latin1');
    expect(mapBytes(latin).offers).toHaveLength(5);
  });

  it('builds the window from date and time columns: a date alone is its whole day, a time without an until lasts availableForHours', () => {
    const window = (text: string, org = alpine) => mapText(text, org).offers?.[0]?.body.availabilityWindow;
    expect(window(withCell('F2', '22:30'))).toEqual(expect.objectContaining({ start: '2031-03-17T21:30:00Z' }));
    expect(window(withCell('G2', '18.03.2031 12:00'))).toEqual(expect.objectContaining({ end: '2031-03-18T11:00:00Z' }));
    const noUntil = withSettings({ columns: { ...alpine.spreadsheet!.columns, availableUntil: undefined }, availableForHours: 10 });
    expect(window(EXAMPLE_CSV, noUntil)).toEqual(expect.objectContaining({ start: '2031-03-17T07:00:00Z', end: '2031-03-17T17:00:00Z' }));
    // Summer time: 08:00 in Vienna is 06:00Z.
    expect(window(withCell('E2', '17.07.2031', lines().map((r, i) => (i === 1 ? r.map((v, j) => (j === 6 ? '18.07.2031' : v)) : r))))).toEqual(expect.objectContaining({ start: '2031-07-17T06:00:00Z' }));
  });

  it('keeps a draft a draft: no visibility, no destination needed, expiry by the same rule', () => {
    const draft = mapText(withCell('D2', ''), withSettings({ publish: false }));
    expect(draft.kind).toBe('mapped');
    expect(draft.publish).toBe(false);
    expect(draft.offers[0].body.visibility).toBeUndefined();
    expect(draft.offers[0].body.destinationArea).toBeUndefined();
    expectValidBodies(draft.offers);
  });

  it("fills what a row does not carry from the organization's settings, never from a guess", () => {
    const org = withSettings({ destination: 'AT', bodyType: 'box', weightUnit: 'TNE', direction: 'oneWay', expires: { before: 'availableFrom', hours: 2 } });
    const result = mapText(withCell('H2', '', lines().map((r, i) => (i === 1 ? r.map((v, j) => (j === 3 ? '' : j === 9 ? '24' : v)) : r))), org);
    expect(result.offers[0].body).toEqual(
      expect.objectContaining({ destinationArea: { kind: 'country', code: 'AT' }, vehicleProfile: { bodyType: 'box' }, direction: 'oneWay', expiresAt: '2031-03-17T05:00:00Z' }),
    );
    expect(result.offers[0].body.availableCapacity.weight).toEqual({ value: 24, unitCode: 'TNE' });
    expectValidBodies(result.offers);
  });

  it('reads places by the organization\'s own names, and a zero as "not given"', () => {
    const text = 'Truck,From,To,Available,Pallets\nT1,Depot Linz,Hamburg,2031-03-17,0\nT2,hamburg,DE,2031-03-18,12\n';
    const result = mapText(text, { ...carrier, spreadsheet: { ...carrier.spreadsheet!, columns: { ...carrier.spreadsheet!.columns, weight: 'Weight' } } });
    expect(codes(result)).toEqual(['COLUMN_MISSING']);
    const ok = mapText(text.replace('Pallets\n', 'Pallets,Weight\n').replace(',0\n', ',0,7000\n').replace(',12\n', ',12,\n'), { ...carrier, spreadsheet: { ...carrier.spreadsheet!, columns: { ...carrier.spreadsheet!.columns, weight: 'Weight' } } });
    expect(ok.offers.map((o: any) => [o.body.originArea.code, o.body.destinationArea, o.body.availableCapacity])).toEqual([
      ['ATLNZ', { kind: 'unlocode', code: 'DEHAM' }, { weight: { value: 7000, unitCode: 'KGM' } }],
      ['DEHAM', { kind: 'country', code: 'DE' }, { palletSpaces: 12 }],
    ]);
  });

  it('describes a body type the organization calls "other"', () => {
    const org = withSettings({ bodyTypes: { ...alpine.spreadsheet!.bodyTypes, Tieflader: 'lowLoader', Sonderaufbau: 'other' } });
    const result = mapText(withCell('H2', 'Sonderaufbau', lines().map((r, i) => (i === 2 ? r.map((v, j) => (j === 7 ? 'TIEFLADER' : v)) : r))), org);
    expect(result.offers.map((o: any) => o.body.vehicleProfile)).toEqual(expect.arrayContaining([{ bodyType: 'other', bodyTypeDescription: 'Sonderaufbau' }, { bodyType: 'lowLoader' }]));
    expectValidBodies(result.offers);
  });
});

describe('quarantine: the whole file, each reason with its cell', () => {
  const cases: Array<[string, string, string, ServedOrganization?]> = [
    ['VALUE_MISSING', withCell('C3', ''), 'C3'],
    ['VALUE_MISSING', withCell('E2', ''), 'E2'],
    ['VALUE_MISSING', withCell('D4', ''), 'D4'],
    ['DATE_INVALID', withCell('E2', '32.03.2031'), 'E2'],
    ['DATE_INVALID', withCell('F3', '8 Uhr'), 'F3'],
    ['DATE_AMBIGUOUS', withCell('E2', '03/04/2031'), 'E2', withSettings({ dateFormat: undefined })],
    ['NUMBER_INVALID', withCell('I2', '33 Stk'), 'I2'],
    ['NUMBER_INVALID', withCell('I2', '-3'), 'I2'],
    ['NUMBER_INVALID', withCell('I2', '12,5'), 'I2'],
    ['NUMBER_INVALID', withCell('J2', '-1.000,5'), 'J2'], // a negative number, not a formula
    ['NUMBER_AMBIGUOUS', withCell('J2', '24.000'), 'J2', withSettings({ decimalSeparator: undefined })],
    ['NUMBER_AMBIGUOUS', EXAMPLE_CSV, 'L4', withSettings({ decimalSeparator: undefined })], // the price 1.150
    ['NUMBER_INVALID', withCell('L2', '-5'), 'L2'], // a negative price, not a formula
    ['NUMBER_INVALID', withCell('L3', 'abc'), 'L3'],
    ['NUMBER_INVALID', withCell('L6', '950 €'), 'L6'],
    ['PLACE_UNKNOWN', withCell('C2', 'Lager Süd'), 'C2'],
    ['PLACE_UNKNOWN', withCell('D2', 'Norditalien'), 'D2'],
    ['PLACE_UNKNOWN', withCell('C2', 'Frankfurt'), 'C2', withSettings({ countries: ['AT', 'DE'] })], // no place of that whole name
    ['PLACE_AMBIGUOUS', withCell('C2', 'Hamburg'), 'C2'], // ten places, in Germany and the United States
    ['PLACE_AMBIGUOUS', withCell('C2', 'Halle'), 'C2', withSettings({ countries: ['AT', 'DE'] })],
    ['PLACE_AMBIGUOUS', withCell('D2', 'DEHAM/DEBRE'), 'D2'],
    ['BODY_TYPE_UNKNOWN', withCell('H3', 'Tieflader'), 'H3'],
    ['FORMULA_INJECTION', withCell('A2', '"=HYPERLINK(""http://evil.test"";""T-101"")"'), 'A2'],
    ['FORMULA_INJECTION', withCell('A3', '"@SUM(1+1)*cmd|"" /C calc""!A0"'), 'A3'],
    ['FORMULA_INJECTION', withCell('A4', '"\t=1+1"'), 'A4'],
    ['FORMULA_INJECTION', withCell('C2', '+DEHAM'), 'C2'],
    ['CELL_TOO_LONG', withCell('A2', 'T'.repeat(1001)), 'A2'],
    ['VALUE_INVALID', withCell('A2', 'T'.repeat(600)), 'A2'],
    ['REFERENCE_DUPLICATE', withCell('A3', 'T-101'), 'A3'],
    ['NAMES_OTHER_ORGANIZATION', withCell('A2', '5790000000005'), 'A2'], // Baltic's EDIFACT sender id
    ['NAMES_OTHER_ORGANIZATION', withCell('A2', 'org-baltic-shippers'), 'A2'],
    // One of Baltic's places, for a carrier that does not list it too (Alpine does: it loads there).
    ['NAMES_OTHER_ORGANIZATION', withCell('C2', '9:5790000000012'), 'C2', { ...alpine, places: {} }],
    ['CAPACITY_MISSING', withCell('J5', '0'), 'I5'],
    ['VEHICLE_PROFILE_MISSING', withCell('H2', ''), 'H2'],
    ['WINDOW_INVALID', withCell('G2', '16.03.2031'), 'G2'],
    ['WINDOW_INCOMPLETE', EXAMPLE_CSV, 'E2', withSettings({ columns: { ...alpine.spreadsheet!.columns, availableUntil: undefined } })],
    ['COLUMN_MISSING', EXAMPLE_CSV.replace('Standort', 'Ort'), '1:1'],
    ['COLUMN_AMBIGUOUS', EXAMPLE_CSV.replace('Kennzeichen', 'Standort'), 'C1'],
    ['TOO_MANY_ROWS', EXAMPLE_CSV, '4:4', withSettings({ maxRows: 2 })],
    ['SHEET_EMPTY', csvOf([lines()[0]]), '1:1'],
    ['CSV_UNREADABLE', withCell('N3', '"Retour'), 'N3'],
    ['TOO_MANY_COLUMNS', withCell('N3', `x${';'.repeat(87)}y`), 'CW3'],
  ];

  // (Each case with its organization: jest hands a test function of more parameters than a case has a `done` callback.)
  it.each(cases.map(([code, text, position, org]) => [code, position, text, org ?? alpine] as const))('%s at %s', (code, position, text, org) => {
    const result = mapText(text, org);
    expect(result.kind).toBe('quarantined');
    expect(result.reasons).toEqual(expect.arrayContaining([expect.objectContaining({ code, position })]));
    expect(result.offers).toBeUndefined(); // nothing of the file is acted on
  });

  it('WINDOW_PAST and OFFER_EXPIRED: a truck no longer free, or an offer that would expire, when the file arrives', () => {
    expect(mapText(EXAMPLE_CSV, alpine, '2031-03-18T00:00:00.000Z').reasons).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'WINDOW_PAST', position: 'G3', row: 3 })]));
    const early = withSettings({ expires: { before: 'availableFrom', hours: 48 } });
    expect(mapText(EXAMPLE_CSV, early, '2031-03-16T00:00:00.000Z').reasons).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'OFFER_EXPIRED', position: 'E2' })]));
  });

  it('SHEET_EMPTY for an empty file, NOT_A_SPREADSHEET for a binary, an XLS, an ODS, a PDF', () => {
    expect(codes(mapText(''))).toEqual(['SHEET_EMPTY']);
    const ole2 = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(504)]);
    expect(mapBytes(ole2).reasons).toEqual([expect.objectContaining({ code: 'NOT_A_SPREADSHEET', message: expect.stringContaining('XLS') })]);
    const ods = zip({ mimetype: 'application/vnd.oasis.opendocument.spreadsheet', 'content.xml': '<x/>' });
    expect(codes(mapBytes(ods, alpine, 'x.xlsx'))).toEqual(['NOT_A_SPREADSHEET']);
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    expect(codes(mapBytes(png))).toEqual(['NOT_A_SPREADSHEET']);
    expect(codes(mapBytes(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Length 5 >>\nstream\n\x00\x01\x02\x03\nendstream', 'latin1')))).toEqual(['NOT_A_SPREADSHEET']);
  });

  it('answers a quarantined file with each reason at its cell, and every other row not sent', () => {
    const result = mapText(withCell('C3', 'Frankfurt'));
    const answers = spreadsheet.acknowledge({ ...entry(''), result }, alpine, new Date('2031-03-10T08:00:05Z'));
    expect(answers.map((a) => [a.kind, a.name])).toEqual([['result', 'free-trucks.result.csv']]);
    const rows = answers[0].content.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(rows[0]).toContain('Free trucks CSV/XLSX 1');
    expect(rows.slice(1)).toEqual([
      'row;reference;outcome;offer;status;cell;code;message',
      '2;T-101;not sent;;;;;the file is quarantined for the rows named here: correct them and drop the whole file again',
      '3;T-102;quarantined;;;C3;PLACE_UNKNOWN;"""Frankfurt"" is neither a UN/LOCODE (DEHAM, ""DE HAM""), one of the organization\'s places, nor the name of a UN/LOCODE place; names that begin so: DEFRA (Frankfurt am Main), DEFFO (Frankfurt/Oder), DEFFH (Frankfurt-Hochst)"',
      '4;T-105;not sent;;;;;the file is quarantined for the rows named here: correct them and drop the whole file again',
      '5;T-110;not sent;;;;;the file is quarantined for the rows named here: correct them and drop the whole file again',
      '6;T-120;not sent;;;;;the file is quarantined for the rows named here: correct them and drop the whole file again',
    ]);
  });
});

describe('XLSX', () => {
  const read = (name: string) => readXlsx(fixture(name)) as { sheet: any; error: any };

  it('reads real workbooks of Excel, LibreOffice and other writers (test/fixtures/spreadsheet/SOURCES.md)', () => {
    expect(read('read-excel-file_made-in-macos-excel-2011.xlsx').sheet.rows.map((r: any) => Object.values(r.cells).map((c: any) => c.v))).toEqual([['One', 'Two'], ['Three', 'Four']]);
    expect(read('read-excel-file_xml-namespace.xlsx').sheet.rows[0].cells.A).toEqual({ t: 's', v: 'Phrase' }); // x: prefixed SpreadsheetML
    expect(read('read-excel-file_advanced-shared-strings.xlsx').sheet.rows[0].cells.A).toEqual({ t: 's', v: 'Str' }); // runs joined, phonetic run left out
    expect(read('read-excel-file_inline-string.xlsx').sheet.rows[0].cells.A).toEqual({ t: 's', v: 'Test 123' });
    expect(read('read-excel-file_boolean.xlsx').sheet.rows.map((r: any) => r.cells.A.v)).toEqual(['Boolean', true, false, 1, 0]);
    expect(read('read-excel-file_merged-cells.xlsx').sheet.rows[1].cells.D).toEqual({ t: 's', v: 'D2' });
    expect(read('read-excel-file_date.xlsx').sheet.rows[0].cells.A).toEqual({ t: 'd', v: '2021-06-10T00:47:45.700Z' });
    const formulas = read('read-excel-file_string-formula.xlsx').sheet.rows.find((r: any) => r.r === 7).cells;
    expect(formulas.B).toEqual({ t: 's', v: 'Value2Value3', fx: '_xlfn.CONCAT(C5,D5)' });
    expect(read('read-excel-file_invalid-file-structure.xlsx').error).toEqual(expect.objectContaining({ code: 'XLSX_UNREADABLE', position: 'xl/workbook.xml' }));
  });

  it('counts dates from 1904 when the workbook says so', () => {
    const { sheet } = read('read-excel-file_1904-based-dates.xlsx');
    expect(sheet.date1904).toBe(true);
    expect(readDate(sheet.rows[1].cells.A, {}, true)).toEqual({ value: { date: { y: 2018, m: 5, d: 5 } } });
  });

  it('reads a formula cell as the value saved with it, and quarantines one saved without, a formula written as text, and a date where a number belongs, at the sheet\'s cell', () => {
    const rows = (row2: string) => workbook(`${HEADER}<row r="2">${row2}</row>`);
    const map = (bytes: Buffer) => mapBytes(bytes, carrier, 'trucks.xlsx');
    expect(map(rows(`${s('A2', 'T1')}${s('B2', 'DEHAM')}${s('C2', 'NLRTM')}${n('D2', 47924, 1)}${n('E2', 33)}`)).kind).toBe('mapped');
    const computed = map(rows(`${s('A2', 'T1')}${s('B2', 'DEHAM')}${s('C2', 'NLRTM')}${n('D2', 47924, 1)}<c r="E2"><f>30+3</f><v>33</v></c>`));
    expect(computed.offers[0].body.availableCapacity).toEqual({ palletSpaces: 33 });
    for (const uncomputed of ['<c r="E2"><f>30+3</f><v/></c>', '<c r="E2"><f>30+3</f></c>', '<c r="E2" t="b"><f>TRUE()</f><v></v></c>']) {
      expect(map(rows(`${s('A2', 'T1')}${s('B2', 'DEHAM')}${s('C2', 'NLRTM')}${n('D2', 47924, 1)}${uncomputed}`)).reasons).toEqual([expect.objectContaining({ code: 'FORMULA_CELL', position: 'Trucks!E2', message: expect.stringContaining('saved without its computed value') })]);
    }
    // A formula whose value is an empty text is computed: the cell is empty.
    expect(codes(map(rows(`${s('A2', 'T1')}${s('B2', 'DEHAM')}${s('C2', 'NLRTM')}${n('D2', 47924, 1)}<c r="E2" t="str"><f>""</f><v></v></c>`)))).toEqual(['CAPACITY_MISSING']);
    expect(map(rows(`${s('A2', '=cmd|&apos; /C calc&apos;!A0')}${s('B2', 'DEHAM')}${s('C2', 'NLRTM')}${n('D2', 47924, 1)}${n('E2', 33)}`)).reasons).toEqual([expect.objectContaining({ code: 'FORMULA_INJECTION', position: 'Trucks!A2' })]);
    expect(map(rows(`${s('A2', '_x000D_=1+1')}${s('B2', 'DEHAM')}${s('C2', 'NLRTM')}${n('D2', 47924, 1)}${n('E2', 33)}`)).reasons).toEqual([expect.objectContaining({ code: 'FORMULA_INJECTION', position: 'Trucks!A2' })]);
    expect(map(rows(`${s('A2', 'T1')}${s('B2', 'DEHAM')}${s('C2', 'NLRTM')}${n('D2', 170331)}${n('E2', 33)}`)).reasons).toEqual([expect.objectContaining({ code: 'DATE_INVALID', position: 'Trucks!D2' })]);
    expect(map(rows(`${s('A2', 'T1')}${s('B2', 'DEHAM')}${s('C2', 'NLRTM')}${n('D2', 47924, 1)}${n('E2', 47924, 1)}`)).reasons).toEqual([expect.objectContaining({ code: 'NUMBER_INVALID', position: 'Trucks!E2' })]);
    expect(map(rows(`${s('A2', 'T1')}${s('B2', 'DEHAM')}${s('C2', 'NLRTM')}${n('D2', 47924, 1)}<c r="E2" t="e"><v>#N/A</v></c>`)).reasons).toEqual([expect.objectContaining({ code: 'NUMBER_INVALID', position: 'Trucks!E2' })]);
    expect(map(rows(`${s('A2', 'T1')}${s('B2', 'DEHAM')}${s('C2', 'NLRTM')}${n('D2', 47924, 1)}${n('E2', -33)}`)).reasons).toEqual([expect.objectContaining({ code: 'NUMBER_INVALID', position: 'Trucks!E2' })]);
  });

  it('quarantines a hidden row of trucks (by hand or by a filter): left out or not, it is not guessed', () => {
    const hidden = workbook(`${HEADER}<row r="2" hidden="1">${s('A2', 'T1')}${s('B2', 'DEHAM')}${s('C2', 'NLRTM')}${n('D2', 47924, 1)}${n('E2', 33)}</row>`);
    expect(mapBytes(hidden, carrier, 'x.xlsx').reasons).toEqual([expect.objectContaining({ code: 'ROW_HIDDEN', position: 'Trucks!2:2' })]);
  });

  it('reads the sheet the organization names, and says which sheets there are when it is missing', () => {
    const named = { ...carrier, spreadsheet: { ...carrier.spreadsheet!, sheet: 'Tabelle1' } };
    expect(mapBytes(workbook(HEADER), named, 'x.xlsx').reasons).toEqual([expect.objectContaining({ code: 'SHEET_MISSING', message: expect.stringContaining('"Trucks"') })]);
    expect(mapBytes(workbook(HEADER), carrier, 'x.xlsx').reasons).toEqual([expect.objectContaining({ code: 'SHEET_EMPTY', position: 'Trucks!1:1' })]);
    expect(mapBytes(workbook(''), carrier, 'x.xlsx').reasons).toEqual([expect.objectContaining({ code: 'SHEET_EMPTY' })]);
    expect(mapBytes(workbook(HEADER.replace('From', 'Origin')), carrier, 'x.xlsx').reasons).toEqual([expect.objectContaining({ code: 'COLUMN_MISSING', position: 'Trucks!1:1' })]);
  });

  it('refuses a zip bomb in milliseconds, and sizes the archive lies about', () => {
    const bomb = workbook(HEADER, { 'xl/worksheets/sheet1.xml': `<worksheet ${NS}><sheetData>${HEADER}</sheetData>${' '.repeat(64 * 1024 * 1024)}</worksheet>` });
    expect(bomb.length).toBeLessThan(200_000);
    expect(mapBytes(bomb, carrier, 'x.xlsx').reasons).toEqual([expect.objectContaining({ code: 'INPUT_TOO_LARGE', position: 'xl/worksheets/sheet1.xml' })]);
    const liar = zip({ 'xl/workbook.xml': 'x'.repeat(1000) }, { lieAboutSize: true });
    const entries = zipEntries(liar);
    expect(() => readEntry(liar, entries.get('xl/workbook.xml')!, 1_000_000)).toThrow(/size or CRC-32/);
    const many = zip(Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`p${i}`, ''])));
    expect(codes(mapBytes(many, carrier, 'x.xlsx'))).toEqual(['INPUT_TOO_LARGE']);
  });

  it('refuses a document type declaration (entity expansion), a shared string it does not have, a damaged part', () => {
    const entities = workbook(HEADER, { 'xl/worksheets/sheet1.xml': `<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]><worksheet ${NS}><sheetData>${HEADER}</sheetData></worksheet>` });
    expect(mapBytes(entities, carrier, 'x.xlsx').reasons).toEqual([expect.objectContaining({ code: 'XLSX_UNREADABLE', position: 'xl/worksheets/sheet1.xml' })]);
    expect(codes(mapBytes(workbook('<row r="1"><c r="A1" t="s"><v>7</v></c></row>'), carrier, 'x.xlsx'))).toEqual(['XLSX_UNREADABLE']);
    const damaged = Buffer.from(example('free-trucks.xlsx'));
    damaged[200] ^= 0xff;
    expect(codes(mapBytes(damaged, alpine, 'x.xlsx'))).toEqual(['XLSX_UNREADABLE']);
    expect(codes(mapBytes(example('free-trucks.xlsx').subarray(0, 3000), alpine, 'x.xlsx'))).toEqual(['NOT_A_SPREADSHEET']);
  });

  it('refuses a value past column CV and text past the limit of a sheet', () => {
    expect(mapBytes(workbook(`${HEADER}<row r="2">${s('CW2', 'x')}</row>`), carrier, 'x.xlsx').reasons).toEqual([expect.objectContaining({ code: 'TOO_MANY_COLUMNS', position: 'Trucks!CW2' })]);
    // One shared string of 1000 characters referenced by 5000 cells: 5 million characters from a few kilobytes.
    const cells = Array.from({ length: 50 }, (_, i) => `<c r="${columnName(i + 1)}R" t="s"><v>0</v></c>`).join('');
    const rows = Array.from({ length: 100 }, (_, r) => `<row r="${r + 2}">${cells.replace(/R"/g, `${r + 2}"`)}</row>`).join('');
    const amplified = workbook(`${HEADER}${rows}`, { 'xl/sharedStrings.xml': `<sst ${NS}><si><t>${'x'.repeat(1000)}</t></si></sst>`, 'xl/_rels/workbook.xml.rels': '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>' });
    expect(codes(mapBytes(amplified, carrier, 'x.xlsx'))).toEqual(['INPUT_TOO_LARGE']);
  });
});

// Spreadsheets as integrators' carriers export them (issue 49): CSV in the Windows code page of a
// Polish or Czech Excel, written with Python's codecs and iconv; workbooks whose formulas openpyxl
// and XlsxWriter saved without values, and LibreOffice with them; dates as Excel's serial numbers.
describe('as exported: encodings', () => {
  /** A Polish carrier (Wrocław): its Excel's "CSV", its own words, city names looked up in Poland and Germany. */
  const polish = withSettings({
    timeZone: 'Europe/Warsaw',
    currency: undefined,
    countries: ['PL', 'DE'],
    columns: { reference: 'Nr auta', origin: 'Miejsce załadunku', destination: 'Kierunek', availableFrom: 'Wolny od', availableFromTime: 'Godzina', availableUntil: 'Wolny do', bodyType: 'Nadwozie', pallets: 'Miejsca paletowe', weight: 'Ładowność kg', loadingMetres: 'Metry ładowne' },
    bodyTypes: { Firanka: 'curtainsider', Chłodnia: 'refrigerated', Izoterma: 'insulated', Wywrotka: 'tipper' },
  });
  /** A Czech carrier (Brno): its exonyms for places abroad as its own places. */
  const czech = (changes: Partial<SpreadsheetSettings> = {}): ServedOrganization => ({
    ...withSettings({
      timeZone: 'Europe/Prague',
      currency: undefined,
      countries: ['CZ', 'AT', 'DE', 'PL'],
      columns: { reference: 'Číslo vozu', origin: 'Místo nakládky', destination: 'Místo vykládky', availableFrom: 'Volné od', availableFromTime: 'Čas', availableUntil: 'Volné do', bodyType: 'Nástavba', pallets: 'Palety', weight: 'Užitečná hmotnost kg', loadingMetres: 'Ložné metry' },
      bodyTypes: { plachta: 'curtainsider', skříň: 'box', chladírenský: 'refrigerated', sklápěč: 'tipper' },
      ...changes,
    }),
    places: { Vídeň: 'ATVIE', Mnichov: 'DEMUC' },
  });
  const places = (result: any) => result.offers.map((o: any) => [o.reference, o.body.originArea.code, o.body.destinationArea.code]);

  it('reads a Polish Windows-1250 export without a setting: the one plausible reading, its city names, its words', () => {
    const bytes = fixture('free-trucks_pl_windows-1250.csv');
    // Kept as its exact bytes: how to read them is the organization's settings' to say.
    expect(spreadsheet.decode(bytes)).toBe(`data:text/csv;base64,${bytes.toString('base64')}`);
    const result = mapBytes(bytes, polish);
    expect(result.kind).toBe('mapped');
    expect(result.source).toEqual({ kind: 'csv', delimiter: ';', encoding: { read: ['windows-1250'], by: 'detection' } });
    expect(places(result)).toEqual([
      ['P-301', 'PLPOZ', 'DE'],
      ['P-302', 'PLWRO', 'PLKRK'],
      ['P-305', 'PLKRK', 'DEHAM'],
      ['P-310', 'PLSZZ', 'DEBER'],
      ['P-320', 'PLGDN', 'PLLOD'],
    ]);
    expect(result.offers.map((o: any) => o.body.vehicleProfile.bodyType)).toEqual(['curtainsider', 'refrigerated', 'insulated', 'tipper', 'curtainsider']);
    // Weights grouped with a no-break space (0xA0), as Polish Excel writes them.
    expect(result.offers.map((o: any) => o.body.availableCapacity.weight.value)).toEqual([24000, 22000, 12500, 8000, 24000]);
    expect(result.offers[0].body.availabilityWindow).toEqual({ start: '2031-03-17T06:00:00Z', end: '2031-03-18T23:00:00Z', timeZone: 'Europe/Warsaw' });
    expect(result.dropped).toEqual(['Nr rejestracyjny', 'Kierowca', 'Uwagi']);
    expectValidBodies(result.offers);
    expectKnownAreas(result.offers);
  });

  it('reads a Czech ISO-8859-2 export without a setting; quarantines a shorter one that reads two ways, naming both, until the organization sets its encoding', () => {
    const bytes = fixture('free-trucks_cs_iso-8859-2.csv');
    // Windows-1250 reads "Kříž" as "Kříľ" (ř is Czech, ľ Slovak): a word of no language, so ISO 8859-2.
    const result = mapBytes(bytes, czech());
    expect(result.kind).toBe('mapped');
    expect(result.source.encoding).toEqual({ read: ['iso-8859-2'], by: 'detection' });
    // Names looked up in its countries, its own words for places abroad, a country.
    expect(places(result)).toEqual([
      ['V-11', 'CZPRG', 'ATVIE'],
      ['V-12', 'CZBRQ', 'ATLNZ'],
      ['V-15', 'CZOSR', 'PLKTW'],
      ['V-20', 'CZPLZ', 'DEMUC'],
      ['V-21', 'CZCKB', 'AT'],
    ]);
    expect(result.offers.map((o: any) => o.body.vehicleProfile.bodyType)).toEqual(['curtainsider', 'box', 'refrigerated', 'tipper', 'curtainsider']);
    expectValidBodies(result.offers);
    expectKnownAreas(result.offers);
    // The same export with its first two trucks only: both readings spell every word, and chardet tells ISO 8859-2 from Windows-1250 only by bytes 0x80-0x9F.
    const short = Buffer.from(bytes.toString('latin1').split('\r\n').slice(0, 3).join('\r\n'), 'latin1');
    const ambiguous = mapBytes(short, czech());
    expect(ambiguous.reasons).toEqual([{ code: 'ENCODING_AMBIGUOUS', message: expect.stringContaining('"Uľitečná" in windows-1250, "Užitečná" in iso-8859-2 (line 1)') }]);
    expect(ambiguous.reasons[0].message).toContain('settings.spreadsheet.encoding');
    const set = mapBytes(short, czech({ encoding: 'iso-8859-2' }));
    expect(set.source.encoding).toEqual({ read: ['iso-8859-2'], by: 'settings' });
    expect(places(set)).toEqual(places(result).slice(0, 2));
  });

  it('reads the same Czech export in Windows-1250 without a setting, to the same offers', () => {
    const detected = mapBytes(fixture('free-trucks_cs_windows-1250.csv'), czech());
    expect(detected.source.encoding).toEqual({ read: ['windows-1250'], by: 'detection' });
    expect(detected.offers.map((o: any) => o.body)).toEqual(mapBytes(fixture('free-trucks_cs_iso-8859-2.csv'), czech()).offers.map((o: any) => o.body));
  });

  it("prefers the organization's encoding, and quarantines a file its bytes say is in another", () => {
    const wrong = mapBytes(fixture('free-trucks_cs_windows-1250.csv'), czech({ encoding: 'iso-8859-2' }));
    expect(wrong.reasons).toEqual([{ code: 'ENCODING_INVALID', message: 'the file is not iso-8859-2, which settings.spreadsheet.encoding names: byte 0x9E on line 1 is no character in iso-8859-2; it reads as windows-1250 ("Užitečná")' }]);
    const notUtf8 = mapBytes(fixture('free-trucks_pl_windows-1250.csv'), withSettings({ encoding: 'utf-8' }, polish));
    expect(notUtf8.reasons).toEqual([{ code: 'ENCODING_INVALID', message: expect.stringContaining('byte 0xB3 on line 1 begins no UTF-8 character; it reads as windows-1250 ("załadunku")') }]);
    // The setting is taken as it is: read as Windows-1252, the Polish headers are not the organization's.
    expect(codes(mapBytes(fixture('free-trucks_pl_windows-1250.csv'), withSettings({ encoding: 'windows-1252' }, polish)))).toContain('COLUMN_MISSING');
    // UTF-8 is UTF-8, whatever the setting: the carrier saved its export as "CSV UTF-8".
    const utf8 = Buffer.from(iconv.decode(fixture('free-trucks_pl_windows-1250.csv'), 'windows-1250'), 'utf8');
    expect(mapBytes(utf8, withSettings({ encoding: 'windows-1250' }, polish)).offers).toHaveLength(5);
  });

  it('reads text every encoding reads alike (German in Windows-1252) and decides between Western and Central European by chardet', () => {
    const german = mapBytes(Buffer.from(EXAMPLE_CSV, 'latin1'));
    expect(german.offers).toHaveLength(5);
    expect(german.source.encoding).toEqual({ read: ['windows-1250', 'iso-8859-2', 'windows-1252', 'iso-8859-1'], by: 'detection' });
    const french = iconv.encode('Camion;Départ;Arrivée;Remarques\r\nT-1;Lyon;Genève;chauffeur très expérimenté, hayon élévateur\r\n', 'windows-1252');
    expect(decodeCsv(french)).toEqual(expect.objectContaining({ encodings: ['windows-1252', 'iso-8859-1'], text: expect.stringContaining('Genève') }));
    expect(decodeCsv(Buffer.from([0x41, 0x81, 0x90, 0x0d, 0x0a]))).toEqual(expect.objectContaining({ code: 'ENCODING_INVALID' }));
  });

  it('never reads a part of these exports in a wrong encoding: each random subset of rows is read right or quarantined', () => {
    // A small seeded generator (mulberry32), as the fuzz tests below use: the same subsets on every run.
    let seed = 49;
    const next = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const files: Array<[Buffer, string]> = [
      [fixture('free-trucks_pl_windows-1250.csv'), 'windows-1250'],
      [fixture('free-trucks_cs_windows-1250.csv'), 'windows-1250'],
      [fixture('free-trucks_cs_iso-8859-2.csv'), 'iso-8859-2'],
      [Buffer.from(EXAMPLE_CSV, 'latin1'), 'windows-1252'],
    ];
    for (const [bytes, truth] of files) {
      const records = bytes.toString('latin1').split('\r\n').filter((l) => l);
      for (let i = 0; i < 200; i++) {
        const subset = Buffer.from(records.filter((_, j) => (j === 0 && next() < 0.7) || next() < 0.5).join('\r\n'), 'latin1');
        const decoded = decodeCsv(subset);
        if ('text' in decoded) expect(decoded.text).toBe(iconv.decode(subset, truth));
        else if (subset.some((b) => b >= 0x80)) expect(decoded.code).toBe('ENCODING_AMBIGUOUS');
      }
    }
  });

  it('names a wrong encoding or countries setting', () => {
    expect(settingsProblems({ ...alpine.spreadsheet!, encoding: 'latin2' as any })).toEqual([expect.objectContaining({ path: 'settings.spreadsheet.encoding' })]);
    for (const countries of [[], ['DE', 'de'], ['XX'], 'DE']) expect(settingsProblems({ ...alpine.spreadsheet!, countries: countries as any })).toEqual([expect.objectContaining({ path: 'settings.spreadsheet.countries' })]);
  });
});

describe('as exported: place names', () => {
  const org = (changes: Partial<SpreadsheetSettings> = {}) => ({ ...carrier, places: {}, spreadsheet: { ...carrier.spreadsheet!, ...changes, columns: { ...carrier.spreadsheet!.columns, originCountry: 'From country', destinationCountry: 'To country' } } });
  const csv = (...rows: string[]) => ['Truck,From,From country,To,To country,Available,Pallets', ...rows].join('\r\n');

  it("looks a name up in the row's country column, and takes a country with no place as the destination", () => {
    const result = mapText(csv('T1,Salzburg,AT,Frankfurt am Main,DE,2031-03-17,33', 'T2,Linz,at,,IT,2031-03-17,33', 'T3,DEHAM,,Hamburg,DE,2031-03-17,33'), org());
    expect(result.offers.map((o: any) => [o.body.originArea, o.body.destinationArea])).toEqual([
      [{ kind: 'unlocode', code: 'ATSZG' }, { kind: 'unlocode', code: 'DEFRA' }],
      [{ kind: 'unlocode', code: 'ATLNZ' }, { kind: 'country', code: 'IT' }],
      [{ kind: 'unlocode', code: 'DEHAM' }, { kind: 'unlocode', code: 'DEHAM' }],
    ]);
    expectValidBodies(result.offers);
  });

  it('quarantines a place the row contradicts, a country that is no ISO code, and a name of several places', () => {
    const result = mapText(csv('T1,DEHAM,AT,NLRTM,,2031-03-17,33', 'T2,Salzburg,A,NLRTM,,2031-03-17,33', 'T3,Salzburg,,NLRTM,,2031-03-17,33'), org());
    expect(result.reasons).toEqual([
      expect.objectContaining({ code: 'PLACE_AMBIGUOUS', position: 'B2', message: expect.stringContaining("the row's country is AT") }),
      expect.objectContaining({ code: 'VALUE_INVALID', position: 'C3' }),
      expect.objectContaining({ code: 'PLACE_AMBIGUOUS', position: 'B3', message: expect.stringContaining('ATSZG (Salzburg), DELZB (Salzburg)') }),
      expect.objectContaining({ code: 'PLACE_AMBIGUOUS', position: 'B4' }),
    ]);
    // The organization's countries narrow where the row says none.
    expect(mapText(csv('T3,Salzburg,,NLRTM,,2031-03-17,33'), org({ countries: ['AT', 'NL'] })).offers[0].body.originArea).toEqual({ kind: 'unlocode', code: 'ATSZG' });
  });
});

describe('as exported: XLSX', () => {
  const csvOffers = () => mapBytes(example('free-trucks.csv')).offers;
  const withoutRows = (offers: any[]) => offers.map((o) => ({ ...o.body, externalReferences: o.body.externalReferences.filter((r: any) => r.type !== 'row') }));

  it('quarantines the formulas openpyxl saved without values, each at its cell, saying to open and save the file', () => {
    const result = mapBytes(fixture('free-trucks_openpyxl-formulas.xlsx'), alpine, 'x.xlsx');
    expect(result.kind).toBe('quarantined');
    expect(new Set(codes(result))).toEqual(new Set(['FORMULA_CELL']));
    expect(result.reasons.map((r: any) => r.position)).toEqual([4, 5, 6, 7, 8].flatMap((r) => [`'Freie LKW'!G${r}`, `'Freie LKW'!J${r}`]));
    expect(result.reasons[0].message).toBe('the cell holds a formula ("=E4+1"), and the file was saved without its computed value (as openpyxl and other programs that write formulas save it): open the file in Excel or LibreOffice and save it again, or write the value itself');
    expect(result.reasons.some((r: any) => /not a number/.test(r.message))).toBe(false);
  });

  it('reads the same workbook once LibreOffice saved it, with the values it computed, to the CSV\'s offers', () => {
    const result = mapBytes(fixture('free-trucks_openpyxl-formulas_libreoffice.xlsx'), alpine, 'x.xlsx');
    expect(result.kind).toBe('mapped');
    expect(withoutRows(result.offers)).toEqual(withoutRows(csvOffers()));
  });

  it("distrusts the values of a workbook that asks for its formulas to be computed on opening (XlsxWriter's 0)", () => {
    const result = mapBytes(fixture('free-trucks_xlsxwriter-formulas.xlsx'), alpine, 'x.xlsx');
    expect(result.reasons).toHaveLength(10);
    expect(new Set(codes(result))).toEqual(new Set(['FORMULA_CELL']));
  });

  it("reads dates written as Excel's serial day numbers, from 1900 and from 1904, to the CSV's windows", () => {
    for (const name of ['free-trucks_openpyxl-serial-dates.xlsx', 'free-trucks_openpyxl-serial-dates-1904.xlsx']) {
      const result = mapBytes(fixture(name), alpine, 'x.xlsx');
      expect({ name, windows: result.offers?.map((o: any) => o.body.availabilityWindow) }).toEqual({ name, windows: csvOffers().map((o: any) => o.body.availabilityWindow) });
    }
    expect((readXlsx(fixture('free-trucks_openpyxl-serial-dates-1904.xlsx')) as any).sheet.date1904).toBe(true);
  });

  it("maps the 1904 dates Excel for Mac wrote by formulas (read-excel-file's workbook) as the dates they show", () => {
    // Its one column of dates (A2 a value, A3 to A6 formulas with their values), with a place and pallets beside each.
    const { sheet } = readXlsx(fixture('read-excel-file_1904-based-dates.xlsx')) as { sheet: any };
    expect(sheet.rows[0].cells.A.v).toBe('Date');
    for (const row of sheet.rows) Object.assign(row.cells, row.r === 1 ? { B: { t: 's', v: 'From' }, C: { t: 's', v: 'Pallets' } } : { B: { t: 's', v: 'DEHAM' }, C: { t: 'n', v: 33 } });
    const org: ServedOrganization = { ...carrier, spreadsheet: { publish: false, timeZone: 'UTC', columns: { origin: 'From', availableFrom: 'Date', pallets: 'Pallets' } } };
    const result = mapSheet(sheet, { organization: org, others: [], entryId: 'x', receivedAt: '2018-05-01T00:00:00Z' });
    expect(result.reasons).toEqual([]);
    expect(result.offers.map((o) => [o.row, (o.body.availabilityWindow as any).start])).toEqual([2, 3, 4, 5, 6].map((r) => [r, '2018-05-05T00:00:00Z']));
  });
});

describe('decode', () => {
  it('keeps text that says its encoding as text (UTF-8 with or without BOM, UTF-16), and a single-byte CSV or an XLSX as a data URL of its bytes', () => {
    expect(spreadsheet.decode(Buffer.from('\uFEFFStellplätze;x\r\n', 'utf8'))).toBe('Stellplätze;x\r\n');
    expect(spreadsheet.decode(Buffer.from('Stellplätze;x', 'utf8'))).toBe('Stellplätze;x');
    // Its encoding is the organization's setting's to decide, or detection's, when it is mapped.
    expect(spreadsheet.decode(Buffer.from('Stellplätze;x', 'latin1'))).toBe(`data:text/csv;base64,${Buffer.from('Stellplätze;x', 'latin1').toString('base64')}`);
    expect(spreadsheet.decode(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Stellplätze\tx', 'utf16le')]))).toBe('Stellplätze\tx');
    const xlsx = example('free-trucks.xlsx');
    const content = spreadsheet.decode(xlsx);
    expect(content.startsWith('data:application/vnd.openxmlformats-officedocument.spreadsheetml.sheet;base64,')).toBe(true);
    expect(Buffer.from(content.split(',')[1], 'base64').equals(xlsx)).toBe(true);
  });

  it('marks a file at the gateway\'s size limit as possibly cut, and quarantines it', () => {
    const before = process.env.GATEWAY_MAX_MESSAGE_BYTES;
    process.env.GATEWAY_MAX_MESSAGE_BYTES = String(example('free-trucks.csv').length);
    try {
      expect(codes(mapBytes(example('free-trucks.csv')))).toEqual(['INPUT_TOO_LARGE']);
      expect(codes(mapBytes(Buffer.concat([example('free-trucks.xlsx')]), alpine, 'x.xlsx'))).toEqual(['INPUT_TOO_LARGE']);
    } finally {
      if (before === undefined) delete process.env.GATEWAY_MAX_MESSAGE_BYTES;
      else process.env.GATEWAY_MAX_MESSAGE_BYTES = before;
    }
  });

  it('reads CSV records as rows, a quoted line break inside its row', () => {
    const read = readCsv('a;b\n"x\ny";z\n\nw;v\n', ';') as { sheet: any };
    expect(read.sheet.rows.map((r: any) => [r.r, r.cells])).toEqual([
      [1, { A: { t: 's', v: 'a' }, B: { t: 's', v: 'b' } }],
      [2, { A: { t: 's', v: 'x\ny' }, B: { t: 's', v: 'z' } }],
      [4, { A: { t: 's', v: 'w' }, B: { t: 's', v: 'v' } }],
    ]);
  });
});

describe('submit', () => {
  const problem = (status: number, code: string) => new PcxProblemError({ type: 'about:blank', title: code, status, code: code as any, detail: `${code} detail` }, { method: 'POST', path: '/capacity-offers' });
  function client(refuse: (body: any, step: string) => PcxProblemError | undefined = () => undefined) {
    const calls: Array<{ step: string; key?: string }> = [];
    let id = 0;
    return {
      calls,
      offers: {
        async create(body: any, options: { idempotencyKey?: string }) {
          calls.push({ step: 'create', key: options.idempotencyKey });
          const refusal = refuse(body, 'create');
          if (refusal) throw refusal;
          return { id: `offer-${++id}`, status: 'draft', resourceVersion: 1 };
        },
        async publish(target: any, _body: unknown, options: { idempotencyKey?: string }) {
          calls.push({ step: 'publish', key: options.idempotencyKey });
          const refusal = refuse(target, 'publish');
          if (refusal) throw refusal;
          return { ...target, status: 'published' };
        },
        async withdraw(target: any, body: { reason: string }, options: { idempotencyKey?: string }) {
          calls.push({ step: 'withdraw', key: options.idempotencyKey });
          return { ...target, status: 'withdrawn', withdrawal: body };
        },
      },
    };
  }
  const key = (step: string) => `gw-mb-test-${step}`;
  const mapped = () => mapBytes(example('free-trucks.csv'));

  it('creates and publishes one offer per row, with Idempotency-Keys of the row, and maps both references', async () => {
    const c = client();
    const submitted = (await spreadsheet.submit(mapped(), c as any, key)) as any;
    expect(c.calls).toEqual([2, 3, 4, 5, 6].flatMap((row) => [{ step: 'create', key: `gw-mb-test-offer-${row}` }, { step: 'publish', key: `gw-mb-test-publish-${row}` }]));
    expect(submitted.kind).toBe('created');
    expect(submitted.resources).toEqual([1, 2, 3, 4, 5].map((i) => ({ kind: 'capacity-offer', id: `offer-${i}`, status: 'published' })));
    expect(submitted.mappings.slice(0, 2)).toEqual([
      { system: 'spreadsheet:alpine-dispo', type: 'truck', value: 'T-101', resourceKind: 'capacity-offer', resourceId: 'offer-1' },
      { system: 'spreadsheet:alpine-dispo', type: 'row', value: 'mb-test:2', resourceKind: 'capacity-offer', resourceId: 'offer-1' },
    ]);
    const answer = spreadsheet.acknowledge({ ...entry(''), result: { ...mapped(), submitted } }, alpine, new Date('2031-03-10T08:00:05Z'))[0].content;
    expect(answer).toContain('\r\n2;T-101;published;offer-1;published;;;\r\n');
  });

  it('leaves drafts when the organization does not publish', async () => {
    const c = client();
    const submitted = (await spreadsheet.submit(mapBytes(example('free-trucks.csv'), withSettings({ publish: false })), c as any, key)) as any;
    expect(c.calls.every((call) => call.step === 'create')).toBe(true);
    expect(submitted.resources.map((r: any) => r.status)).toEqual(['draft', 'draft', 'draft', 'draft', 'draft']);
  });

  it("answers a row the exchange refuses with its problem and still sends the others; a file refused whole is refused", async () => {
    const c = client((body, step) => (step === 'create' && body.originArea?.code === 'ATVIE' ? problem(422, 'VALIDATION_FAILED') : step === 'publish' && body.id === 'offer-3' ? problem(403, 'RELATIONSHIP_INACTIVE') : undefined));
    const submitted = (await spreadsheet.submit(mapped(), c as any, key)) as any;
    expect(submitted.rows).toEqual([
      { row: 2, reference: 'T-101', offerId: 'offer-1', status: 'published' },
      { row: 3, reference: 'T-102', problem: { status: 422, code: 'VALIDATION_FAILED', detail: 'VALIDATION_FAILED detail' } },
      { row: 4, reference: 'T-105', offerId: 'offer-2', status: 'published' },
      { row: 5, reference: 'T-110', offerId: 'offer-3', status: 'withdrawn', problem: { status: 403, code: 'RELATIONSHIP_INACTIVE', detail: 'RELATIONSHIP_INACTIVE detail' } },
      { row: 6, reference: 'T-120', offerId: 'offer-4', status: 'published' },
    ]);
    const answer = spreadsheet.acknowledge({ ...entry(''), result: { ...mapped(), submitted } }, alpine, new Date())[0].content;
    expect(answer).toContain('3;T-102;refused;;;;VALIDATION_FAILED;the exchange refused it (422): VALIDATION_FAILED detail');
    // Its publish refused, its draft was withdrawn (with a key of its own): nothing left behind.
    expect(c.calls).toContainEqual({ step: 'withdraw', key: 'gw-mb-test-withdraw-5' });
    expect(submitted.resources.map((r: any) => r.id)).not.toContain('offer-3');
    expect(answer).toContain('5;T-110;refused;offer-3;withdrawn;;RELATIONSHIP_INACTIVE;"the exchange refused it (403): RELATIONSHIP_INACTIVE detail; its draft was withdrawn"');

    await expect(spreadsheet.submit(mapped(), client(() => problem(403, 'INSUFFICIENT_SCOPE')) as any, key)).rejects.toThrow(PcxProblemError);
    const refused = { kind: 'refused', problem: { status: 403, code: 'INSUFFICIENT_SCOPE', detail: 'needs capacity:publish' } };
    const whole = spreadsheet.acknowledge({ ...entry(''), result: { ...mapped(), submitted: refused } }, alpine, new Date())[0].content;
    expect(whole.match(/;refused;;;;INSUFFICIENT_SCOPE;the exchange refused the file \(403\): needs capacity:publish/g)).toHaveLength(5);
  });

  it('leaves a failure that is not a refusal (5xx, 429) to the workflow to retry', async () => {
    await expect(spreadsheet.submit(mapped(), client(() => problem(503, 'SERVICE_UNAVAILABLE')) as any, key)).rejects.toThrow('SERVICE_UNAVAILABLE');
    await expect(spreadsheet.submit(mapped(), client((_b, step) => (step === 'publish' ? problem(429, 'RATE_LIMITED') : undefined)) as any, key)).rejects.toThrow('RATE_LIMITED');
  });
});

describe('the result file', () => {
  it('never writes a value a spreadsheet program would run as a formula, and quotes what it must', () => {
    const text = resultCsv('title', [{ row: 2, reference: '=1+1', outcome: 'quarantined', message: 'a;b "c"' }, { row: 3, reference: '-5', outcome: 'draft' }], ';');
    expect(text.split('\r\n').slice(2, 4)).toEqual(["2;'=1+1;quarantined;;;;;\"a;b \"\"c\"\"\"", '3;-5;draft;;;;;']);
  });
});

describe('hostile input, from the real files mutated', () => {
  // A small seeded generator (mulberry32): the same mutations on every run, so a failure repeats.
  const random = (seed: number) => () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const SPECIAL = ['"', ';', ',', '\n', '\r', '\t', '=', '+', '-', '@', '.', ':', '0', '9', ' ', '\u0000', 'ä', '/', '<', '&', '>', '_x000D_'];
  function mutateText(text: string, next: () => number): string {
    let out = text;
    for (let i = 0, n = 1 + Math.floor(next() * 4); i < n; i++) {
      const at = Math.floor(next() * (out.length + 1));
      const op = Math.floor(next() * 4);
      if (op === 0) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(next() * 8));
      else if (op === 1) out = out.slice(0, at) + SPECIAL[Math.floor(next() * SPECIAL.length)] + out.slice(at);
      else if (op === 2) out = out.slice(0, at) + out.slice(at, at + 40).repeat(1 + Math.floor(next() * 3)) + out.slice(at);
      else out = out.slice(0, at) + String.fromCharCode(32 + Math.floor(next() * 95)) + out.slice(at + 1);
    }
    return out;
  }
  function mutateBytes(bytes: Buffer, next: () => number): Buffer {
    const out = Buffer.from(bytes);
    for (let i = 0, n = 1 + Math.floor(next() * 6); i < n; i++) out[Math.floor(next() * out.length)] = Math.floor(next() * 256);
    return next() < 0.2 ? out.subarray(0, Math.floor(next() * out.length)) : out;
  }
  /** The example workbook with its sheet's XML mutated and the archive rebuilt (so the XML, not the ZIP, is what is hostile). */
  const xlsx = example('free-trucks.xlsx');
  const parts = [...zipEntries(xlsx).values()].map((e) => [e.name, readEntry(xlsx, e, 4_000_000)] as const);

  const check = (result: any) => {
    expect(['mapped', 'quarantined']).toContain(result.kind);
    if (result.kind === 'mapped') expectValidBodies(result.offers);
    else for (const reason of result.reasons) expect(reason).toEqual(expect.objectContaining({ code: expect.stringMatching(/^[A-Z_]+$/), message: expect.any(String) }));
  };

  it('every mutation of the CSV, the XLSX bytes and the sheet XML is mapped to valid offers or quarantined: never a crash or a hang', () => {
    const next = random(20311127);
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const result = mapText(mutateText(EXAMPLE_CSV, next));
      check(result);
      seen.add(result.kind === 'mapped' ? 'mapped' : result.reasons[0].code);
    }
    for (let i = 0; i < 200; i++) check(mapBytes(mutateBytes(xlsx, next), alpine, 'x.xlsx'));
    for (let i = 0; i < 200; i++) {
      const rebuilt = zip(Object.fromEntries(parts.map(([name, data]) => [name, name === 'xl/worksheets/sheet1.xml' || (name === 'xl/sharedStrings.xml' && next() < 0.3) ? mutateText(data.toString('utf8'), next) : data])));
      const result = mapBytes(rebuilt, alpine, 'x.xlsx');
      check(result);
      seen.add(result.kind === 'mapped' ? 'mapped' : result.reasons[0].code);
    }
    // The mutations reach the mapping, not only the parsers: some files still map, many different reasons.
    expect(seen.has('mapped')).toBe(true);
    expect(seen.size).toBeGreaterThan(8);
  });

  it('answers random bytes and odd encodings, never throwing from decode or map', () => {
    const next = random(7);
    for (let i = 0; i < 100; i++) {
      const bytes = Buffer.from(Array.from({ length: Math.floor(next() * 2000) }, () => Math.floor(next() * 256)));
      if (i % 3 === 0) bytes.writeUInt32LE(0x04034b50, 0);
      check(mapBytes(bytes));
    }
    const sheet = readCsv('a;b', ';') as { sheet: any };
    expect(new Set(mapSheet(sheet.sheet, { organization: carrier, others: [], entryId: 'x' }).reasons.map((r) => r.code))).toEqual(new Set(['COLUMN_MISSING']));
  });
});

describe('what the fuzz run found (scripts/fuzz-adapters.ts)', () => {
  it('reads a file with a long run of letters in linear time (a backtracking word pattern took minutes)', () => {
    const letters = `LKW-Nr.;Standort\r\nT-1;${'a'.repeat(200_000)}é\r\n`;
    const started = process.hrtime.bigint();
    expect(decodeCsv(iconv.encode(letters, 'windows-1250'))).toEqual(expect.objectContaining({ encodings: expect.any(Array) }));
    // Not a timing test: the old pattern took minutes here, far beyond the test's own timeout.
    expect(Number(process.hrtime.bigint() - started) / 1e9).toBeLessThan(30);
  }, 60_000);

  it('answers a file no encoding reads, with none configured or another configured, with a reason, never an exception', () => {
    // 0x81 is no character in Windows-1250 or -1252, and in ISO 8859 a C1 control: no reading is left.
    const bytes = Buffer.from([0x4c, 0x4b, 0x57, 0x3b, 0x81, 0x0d, 0x0a, 0x98, 0x3b, 0x90]);
    expect(decodeCsv(bytes)).toEqual(expect.objectContaining({ code: 'ENCODING_INVALID' }));
    expect(decodeCsv(bytes, 'utf-8')).toEqual(expect.objectContaining({ code: 'ENCODING_INVALID' }));
  });
});
