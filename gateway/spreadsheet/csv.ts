// CSV (RFC 4180, as spreadsheet programs write it) to rows and cells, with csv-parse: each record
// is a row (row 1 is the first record, as a spreadsheet program opening the file shows it), each
// field a text cell. The delimiter is the organization's, or the one of `,` `;` and tab with which
// the mapped header row is found (never a guess: only a delimiter that yields every mapped header
// is taken). Quotes are strict: a stray quote is a syntax error with its row and column.
import { parse } from 'csv-parse/sync';
import { LIMITS, columnName, type Cell, type Row, type Sheet, type SheetError } from './sheet';

/** A control character but tab, line and page breaks: a binary file's, never a CSV's. */
const CONTROL = /[\x00-\x08\x0e-\x1f\x7f]/;
/** A DOS end-of-file mark is not content. */
export const withoutEofMark = (text: string) => text.replace(/\x1a+$/, '');

/**
 * The text of a CSV file whose bytes say their encoding themselves: UTF-16 with its BOM, UTF-8
 * (with or without BOM; a text in a single-byte encoding with a letter beyond ASCII is, in
 * practice, never valid UTF-8). Undefined for any other bytes: a single-byte encoding, which the
 * organization's setting or detection decides when the file is mapped (encoding.ts), or a binary.
 */
export function csvText(bytes: Buffer): string | undefined {
  let text: string;
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder('utf-16le').decode(bytes.subarray(2));
  else if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder('utf-16be').decode(bytes.subarray(2));
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch {
      return undefined;
    }
  }
  text = withoutEofMark(text);
  return CONTROL.test(text.slice(0, 65_536)) ? undefined : text;
}

/** Bytes that may be a text in a single-byte encoding (each read is ASCII's superset): no control character in its first 64 KiB. */
export function isSingleByteText(bytes: Buffer): boolean {
  return !CONTROL.test(withoutEofMark(bytes.subarray(0, 65_536).toString('latin1')));
}

export const DELIMITERS = [',', ';', '\t'] as const;

/** The records of a CSV text with a delimiter, as a sheet; or the syntax error, where it is. */
export function readCsv(text: string, delimiter: string): { sheet: Sheet } | { error: SheetError } {
  let records: string[][];
  try {
    records = parse(text, {
      delimiter,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: false,
      // One past the limit: a file with more is refused for it, not read further.
      to: LIMITS.rows + 1,
      max_record_size: 64 * 1024,
    }) as string[][];
  } catch (err) {
    const e = err as { code?: string; message?: string; records?: number; column?: number };
    const row = (e.records ?? 0) + 1;
    const column = typeof e.column === 'number' ? columnName(e.column + 1) : '';
    const what = e.code === 'CSV_QUOTE_NOT_CLOSED' ? 'a quoted field is never closed' : e.code === 'CSV_MAX_RECORD_SIZE' ? 'a row is longer than 64 KiB' : String(e.message ?? err).slice(0, 200);
    return { error: { code: e.code === 'CSV_MAX_RECORD_SIZE' ? 'INPUT_TOO_LARGE' : 'CSV_UNREADABLE', message: `the file cannot be read as CSV with delimiter ${JSON.stringify(delimiter)}: ${what}`, position: `${column}${row}` } };
  }
  if (records.length > LIMITS.rows) return { error: { code: 'TOO_MANY_ROWS', message: `the file has more than ${LIMITS.rows} rows`, position: `${LIMITS.rows + 1}:${LIMITS.rows + 1}` } };
  const rows: Row[] = [];
  let chars = 0;
  for (const [i, record] of records.entries()) {
    const cells: Record<string, Cell> = {};
    for (const [j, value] of record.entries()) {
      if (value === '') continue;
      const column = columnName(j + 1);
      if (j >= LIMITS.columns) return { error: { code: 'TOO_MANY_COLUMNS', message: `a value in column ${column}: at most ${LIMITS.columns} columns are read`, position: `${column}${i + 1}` } };
      chars += value.length;
      if (chars > LIMITS.totalChars) return { error: { code: 'INPUT_TOO_LARGE', message: `the file holds more than ${LIMITS.totalChars} characters`, position: `${column}${i + 1}` } };
      cells[column] = { t: 's', v: value.length > LIMITS.cellChars ? value.slice(0, LIMITS.cellChars + 1) : value };
    }
    if (Object.keys(cells).length) rows.push({ r: i + 1, cells });
  }
  return { sheet: { kind: 'csv', delimiter, rows } };
}
