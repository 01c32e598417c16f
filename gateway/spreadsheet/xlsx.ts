// An XLSX workbook (ECMA-376 SpreadsheetML) to the rows and cells of one sheet, synchronously and
// within limits (gateway/spreadsheet/sheet.ts, LIMITS): the parts it needs are taken from the ZIP
// (zip.ts) and parsed with fast-xml-parser; a document type declaration (entities) is refused.
// Read: the workbook's sheets and date system, the relationships to the sheet's part, shared
// strings (rich text runs joined, phonetic runs left out), cell styles' number formats (to know a
// number shown as a date or time), and each cell's type, value and formula. Nothing is evaluated:
// a formula cell has the value the program that saved it computed, or, when the file holds none
// (openpyxl writes formulas without values; a writer that asks for a full calculation on opening,
// fullCalcOnLoad, holds none it computed), is marked so: the mapping refuses it where it is read.
import { XMLParser } from 'fast-xml-parser';
import { LIMITS, columnIndex, columnName, positionOf, type Cell, type Row, type Sheet, type SheetError } from './sheet';
import { isZip, readEntry, zipEntries, ZipError, type ZipEntry } from './zip';

/** The largest part read, by kind: the sheet's cells, its shared strings, anything else. */
const PART_BYTES = { sheet: 16 * 1024 * 1024, sharedStrings: 8 * 1024 * 1024, other: 2 * 1024 * 1024 };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (name) => ['row', 'c', 'si', 'r', 'sheet', 'Relationship', 'xf', 'numFmt'].includes(name),
});

type Node = Record<string, any>;

class XlsxError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly position?: string,
  ) {
    super(message);
  }
}

/** XML character and entity references, once (never expanded twice). */
const unescapeXml = (text: string) =>
  text.replace(/&(lt|gt|amp|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (_m, ref: string) => {
    if (ref === 'lt') return '<';
    if (ref === 'gt') return '>';
    if (ref === 'amp') return '&';
    if (ref === 'quot') return '"';
    if (ref === 'apos') return "'";
    const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '\uFFFD';
  });

/** OOXML's own escape of characters XML cannot carry (ST_Xstring: `_x000D_`), after the XML ones. */
const unescapeText = (text: string) => unescapeXml(text).replace(/_x([0-9A-Fa-f]{4})_/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** The text of an element that may carry attributes (`{'#text': ..., '@space': ...}`) or none. */
function textOf(node: unknown): string {
  if (node === undefined || node === null) return '';
  if (typeof node === 'string') return node;
  if (typeof node === 'object' && typeof (node as Node)['#text'] === 'string') return (node as Node)['#text'];
  if (typeof node === 'number' || typeof node === 'boolean') return String(node);
  return '';
}

/** A rich text (`<si>`, `<is>`): its `t`, or its runs' `t` joined; phonetic runs (`rPh`) are not text. */
function richText(node: unknown): string {
  if (!node || typeof node !== 'object') return textOf(node);
  const n = node as Node;
  if (n.t !== undefined) return unescapeText(textOf(n.t));
  if (Array.isArray(n.r)) return n.r.map((run: Node) => unescapeText(textOf(run?.t))).join('');
  return '';
}

function parse(xml: Buffer, part: string): Node {
  let text = xml.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new XlsxError('XLSX_UNREADABLE', 'the part declares a document type or entities, which a workbook never does', part);
  try {
    return parser.parse(text) as Node;
  } catch (err) {
    throw new XlsxError('XLSX_UNREADABLE', `the part is not well-formed XML (${(err as Error).message.slice(0, 200)})`, part);
  }
}

/** The target of a relationship, as a path inside the archive (relative to the part's folder, or absolute). */
function resolveTarget(from: string, target: string): string {
  const base = target.startsWith('/') ? [] : from.split('/').slice(0, -1);
  for (const segment of target.replace(/^\//, '').split('/')) {
    if (segment === '..') base.pop();
    else if (segment !== '.' && segment !== '') base.push(segment);
  }
  return base.join('/');
}

const relsOf = (part: string) => `${part.split('/').slice(0, -1).join('/')}/_rels/${part.split('/').pop()}.rels`.replace(/^\//, '');

/** Number formats (ECMA-376 18.8.30) that show a date, a date and time, or a time of day. */
const BUILTIN_DATES: Readonly<Record<number, 'date' | 'datetime' | 'time'>> = {
  14: 'date', 15: 'date', 16: 'date', 17: 'date', 18: 'time', 19: 'time', 20: 'time', 21: 'time', 22: 'datetime',
  27: 'date', 28: 'date', 29: 'date', 30: 'date', 31: 'date', 32: 'time', 33: 'time', 34: 'time', 35: 'time', 36: 'date',
  45: 'time', 46: 'time', 47: 'time', 50: 'date', 51: 'date', 52: 'date', 53: 'date', 54: 'date', 55: 'date', 56: 'date', 57: 'date', 58: 'date',
};

/** What a custom number format shows: its tokens outside quotes, escapes and brackets decide. */
export function dateKindOf(code: string): 'date' | 'datetime' | 'time' | undefined {
  const section = code.split(';')[0];
  const bare = section.replace(/"[^"]*"/g, '').replace(/\\./g, '').replace(/_./g, '').replace(/\*./g, '').replace(/\[(h+|m+|s+)\]/gi, 'h').replace(/\[[^\]]*\]/g, '');
  const date = /[dy]/i.test(bare) || /(^|[^h:])m{3,}/i.test(bare);
  const time = /[hs]/i.test(bare) || /AM\/PM|A\/P/i.test(bare);
  if (date && time) return 'datetime';
  if (date) return 'date';
  if (time) return 'time';
  return undefined;
}

/** Reads the workbook's first sheet (or the one named), or says why it cannot. */
export function readXlsx(bytes: Buffer, sheetName?: string): { sheet: Sheet } | { error: SheetError } {
  try {
    return { sheet: read(bytes, sheetName) };
  } catch (err) {
    if (err instanceof XlsxError) return { error: { code: err.code, message: err.message, ...(err.position ? { position: err.position } : {}) } };
    if (err instanceof ZipError) {
      const code = err.code === 'TOO_LARGE' ? 'INPUT_TOO_LARGE' : err.code === 'NOT_A_ZIP' ? 'NOT_A_SPREADSHEET' : 'XLSX_UNREADABLE';
      return { error: { code, message: err.message, ...(err.part ? { position: err.part } : {}) } };
    }
    // Anything else (an offset past the end of a damaged archive) is a damaged file, never a crash.
    return { error: { code: 'XLSX_UNREADABLE', message: `the workbook is damaged (${String((err as Error)?.message ?? err).slice(0, 200)})` } };
  }
}

function read(bytes: Buffer, sheetName?: string): Sheet {
  if (!isZip(bytes)) throw new XlsxError('NOT_A_SPREADSHEET', 'the file is not an XLSX workbook (no ZIP signature)');
  const entries = zipEntries(bytes);
  const part = (name: string, max = PART_BYTES.other): Node | undefined => {
    const entry: ZipEntry | undefined = entries.get(name);
    return entry ? parse(readEntry(bytes, entry, max), name) : undefined;
  };
  if (entries.has('mimetype') && !entries.has('xl/workbook.xml')) throw new XlsxError('NOT_A_SPREADSHEET', 'the file is an OpenDocument (ODS) or another ZIP, not an XLSX: save it as XLSX or CSV');

  // The workbook: the package relationship names it (xl/workbook.xml by convention).
  const rootRels = part('_rels/.rels');
  const officeDocument = (rootRels?.Relationships?.Relationship ?? []).find((r: Node) => /\/officeDocument$/.test(String(r['@Type'] ?? '')));
  const workbookPath = officeDocument ? resolveTarget('', unescapeXml(String(officeDocument['@Target']))) : 'xl/workbook.xml';
  const workbook = part(workbookPath)?.workbook;
  if (!workbook) {
    if ([...entries.keys()].some((name) => name.startsWith('xl/'))) throw new XlsxError('XLSX_UNREADABLE', `the workbook has no workbook part (${workbookPath})`, workbookPath);
    throw new XlsxError('NOT_A_SPREADSHEET', 'the file is a ZIP archive, but not an XLSX workbook');
  }
  const sheets: Node[] = workbook.sheets?.sheet ?? [];
  if (!sheets.length) throw new XlsxError('SHEET_EMPTY', 'the workbook has no sheet', workbookPath);
  const chosen = sheetName === undefined ? sheets[0] : sheets.find((s) => unescapeXml(String(s['@name'] ?? '')) === sheetName);
  if (!chosen) throw new XlsxError('SHEET_MISSING', `the workbook has no sheet named ${JSON.stringify(sheetName)} (it has ${sheets.map((s) => JSON.stringify(unescapeXml(String(s['@name'] ?? '')))).join(', ')})`, workbookPath);
  const name = unescapeXml(String(chosen['@name'] ?? 'Sheet1'));
  const date1904 = ['1', 'true'].includes(String(workbook.workbookPr?.['@date1904'] ?? '').toLowerCase());
  // The writer asks the program opening the file to compute every formula: the values it wrote are not computed ones (XlsxWriter writes 0).
  const calcOnLoad = ['1', 'true'].includes(String(workbook.calcPr?.['@fullCalcOnLoad'] ?? '').toLowerCase());

  // The workbook's relationships: the chosen sheet's part, shared strings and styles.
  const rels: Node[] = part(relsOf(workbookPath))?.Relationships?.Relationship ?? [];
  const target = (pred: (r: Node) => boolean) => {
    const rel = rels.find(pred);
    return rel ? resolveTarget(workbookPath, unescapeXml(String(rel['@Target'] ?? ''))) : undefined;
  };
  const sheetPath = target((r) => r['@Id'] === chosen['@id']) ?? 'xl/worksheets/sheet1.xml';
  const stringsPath = target((r) => /\/sharedStrings$/.test(String(r['@Type'] ?? ''))) ?? (entries.has('xl/sharedStrings.xml') ? 'xl/sharedStrings.xml' : undefined);
  const stylesPath = target((r) => /\/styles$/.test(String(r['@Type'] ?? ''))) ?? (entries.has('xl/styles.xml') ? 'xl/styles.xml' : undefined);

  let chars = 0;
  const count = (text: string, position?: string) => {
    chars += text.length;
    if (chars > LIMITS.totalChars) throw new XlsxError('INPUT_TOO_LARGE', `the sheet holds more than ${LIMITS.totalChars} characters of text`, position);
  };
  const strings: string[] = stringsPath ? ((part(stringsPath, PART_BYTES.sharedStrings)?.sst?.si ?? []) as unknown[]).map((si) => richText(si)) : [];

  // Styles: the number format of each cell style, and whether it shows a date or time.
  const dateStyles = new Map<number, 'date' | 'datetime' | 'time'>();
  if (stylesPath) {
    const styles = part(stylesPath)?.styleSheet;
    const custom = new Map<number, string>();
    for (const f of styles?.numFmts?.numFmt ?? []) custom.set(Number(f['@numFmtId']), unescapeXml(String(f['@formatCode'] ?? '')));
    ((styles?.cellXfs?.xf ?? []) as Node[]).forEach((xf, index) => {
      const id = Number(xf['@numFmtId'] ?? 0);
      const kind = custom.has(id) ? dateKindOf(custom.get(id)!) : BUILTIN_DATES[id];
      if (kind) dateStyles.set(index, kind);
    });
  }

  const entry = entries.get(sheetPath);
  if (!entry) throw new XlsxError('XLSX_UNREADABLE', `the sheet ${JSON.stringify(name)} has no part ${sheetPath}`, sheetPath);
  const worksheet = parse(readEntry(bytes, entry, PART_BYTES.sheet), sheetPath).worksheet;
  if (!worksheet) throw new XlsxError('XLSX_UNREADABLE', 'the sheet\'s part is not a worksheet (a chart sheet or dialog sheet is not read)', sheetPath);
  const rowNodes: Node[] = Array.isArray(worksheet.sheetData?.row) ? worksheet.sheetData.row : [];
  if (rowNodes.length > LIMITS.rows) throw new XlsxError('TOO_MANY_ROWS', `the sheet has ${rowNodes.length} rows; at most ${LIMITS.rows} are read`, sheetPath);

  const rows: Row[] = [];
  let previousRow = 0;
  for (const rowNode of rowNodes) {
    // A row or cell without its reference follows the one before (ECMA-376 18.3.1.73, 18.3.1.4).
    const r = rowNode['@r'] !== undefined ? Number(rowNode['@r']) : previousRow + 1;
    if (!Number.isInteger(r) || r <= previousRow || r > 1_048_576) throw new XlsxError('XLSX_UNREADABLE', `row ${String(rowNode['@r'])} is out of order or not a row number`, sheetPath);
    previousRow = r;
    const cells: Record<string, Cell> = {};
    let previousColumn = 0;
    for (const c of (Array.isArray(rowNode.c) ? rowNode.c : []) as Node[]) {
      const ref = c['@r'] !== undefined ? /^([A-Z]{1,3})(\d+)$/.exec(String(c['@r'])) : null;
      if (c['@r'] !== undefined && (!ref || Number(ref[2]) !== r)) throw new XlsxError('XLSX_UNREADABLE', `cell ${String(c['@r'])} is not a cell of row ${r}`, sheetPath);
      const index = ref ? columnIndex(ref[1]) : previousColumn + 1;
      if (index <= previousColumn) throw new XlsxError('XLSX_UNREADABLE', `cell ${String(c['@r'])} is out of order`, sheetPath);
      previousColumn = index;
      const column = ref ? ref[1] : columnName(index);
      const at = positionOf({ kind: 'xlsx', name }, column, r);
      const cell = cellOf(c, { strings, dateStyles, calcOnLoad }, `${column}${r}`, sheetPath);
      if (!cell) continue;
      if (index > LIMITS.columns) throw new XlsxError('TOO_MANY_COLUMNS', `a value in column ${column}: at most ${LIMITS.columns} columns (to ${columnName(LIMITS.columns)}) are read`, at);
      if (cell.t === 's' || cell.t === 'e' || cell.t === 'd') {
        if (cell.v.length > LIMITS.cellChars) cell.v = cell.v.slice(0, LIMITS.cellChars + 1); // kept one past the limit: the mapping names the cell
        count(cell.v, at);
      } else count('12345678');
      cells[column] = cell;
    }
    const hidden = ['1', 'true'].includes(String(rowNode['@hidden'] ?? '').toLowerCase());
    if (Object.keys(cells).length) rows.push({ r, ...(hidden ? { hidden } : {}), cells });
  }
  return { kind: 'xlsx', name, ...(date1904 ? { date1904 } : {}), rows };
}

interface Workbook {
  strings: readonly string[];
  dateStyles: ReadonlyMap<number, 'date' | 'datetime' | 'time'>;
  /** The workbook asks for every formula to be computed on opening (calcPr fullCalcOnLoad). */
  calcOnLoad: boolean;
}

/**
 * A formula cell holds no computed value: none written (`<v/>` or none, as openpyxl writes them;
 * an empty text result is `t="str"` with an empty value), or the workbook computes on load.
 */
function uncomputed(c: Node, type: string, raw: string | undefined, book: Workbook): boolean {
  if (c.f === undefined) return false;
  if (book.calcOnLoad) return true;
  if (type === 'inlineStr') return c.is === undefined;
  return raw === undefined || (raw.trim() === '' && type !== 'str');
}

/** One `<c>`: undefined for a cell with no value (only a style). */
function cellOf(c: Node, book: Workbook, ref: string, part: string): Cell | undefined {
  const type = String(c['@t'] ?? 'n');
  const raw = c.v === undefined ? undefined : unescapeXml(textOf(c.v));
  const formula = c.f !== undefined ? { fx: unescapeXml(textOf(c.f)).slice(0, 100) } : {};
  if (uncomputed(c, type, raw, book)) return { t: 's', v: '', ...formula, uncomputed: true };
  let cell: Cell;
  if (type === 'inlineStr') cell = { t: 's', v: richText(c.is) };
  else if (raw === undefined) return undefined;
  else if (type === 's') {
    const index = Number(raw);
    if (!Number.isInteger(index) || index < 0 || index >= book.strings.length) throw new XlsxError('XLSX_UNREADABLE', `cell ${ref} names shared string ${raw}, which the workbook does not have`, part);
    cell = { t: 's', v: book.strings[index] };
  } else if (type === 'str') cell = { t: 's', v: unescapeText(raw) };
  else if (type === 'b') cell = { t: 'b', v: raw.trim() === '1' || raw.trim().toLowerCase() === 'true' };
  else if (type === 'e') cell = { t: 'e', v: raw };
  else if (type === 'd') cell = { t: 'd', v: raw.trim() };
  else if (type === 'n') {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) throw new XlsxError('XLSX_UNREADABLE', `cell ${ref} holds ${JSON.stringify(raw.slice(0, 40))}, which is not a number`, part);
    const kind = book.dateStyles.get(Number(c['@s'] ?? 0));
    cell = { t: 'n', v: value, ...(kind ? { d: kind } : {}) };
  } else throw new XlsxError('XLSX_UNREADABLE', `cell ${ref} has type ${JSON.stringify(type)}, which SpreadsheetML does not define`, part);
  return { ...cell, ...formula };
}
