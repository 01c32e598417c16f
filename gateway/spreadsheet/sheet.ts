// The one form the mapping reads a spreadsheet in, CSV (csv.ts) or XLSX (xlsx.ts): rows by their
// number, cells by their column letters, as a spreadsheet program shows them (row 1 is the first
// record of a CSV), within limits past which a file is refused, never read further.

/** A cell's value: text, a number (with the date kind its number format shows), a boolean, an error (#N/A), or an ISO date (t="d"). */
export type Cell = ({ t: 's'; v: string } | { t: 'n'; v: number; d?: 'date' | 'datetime' | 'time' } | { t: 'b'; v: boolean } | { t: 'e'; v: string } | { t: 'd'; v: string }) & {
  /** The cell holds a formula (XLSX), with its text (cut to 100 characters; empty for a shared formula's other cells); its value is the one last computed. */
  fx?: string;
  /** A formula cell whose value was not computed when the file was saved (openpyxl writes none; a writer asking for a full calculation on load): unknown. */
  uncomputed?: true;
};

export interface Row {
  r: number;
  /** Hidden in the workbook (by hand or by a filter). */
  hidden?: boolean;
  cells: Record<string, Cell>;
}

export interface Sheet {
  kind: 'csv' | 'xlsx';
  /** The XLSX sheet's name. */
  name?: string;
  /** The CSV's field delimiter. */
  delimiter?: string;
  /** XLSX dates counted from 1904 (the workbook's date1904). */
  date1904?: boolean;
  rows: Row[];
}

/** What a file that could not be read as a sheet is, and where. */
export interface SheetError {
  code: string;
  message: string;
  position?: string;
}

/** The limits every sheet is read within: past them a file is quarantined, never read further. */
export const LIMITS = {
  /** Rows read at most (of any kind, empty ones too); a sheet with more is refused before mapping. */
  rows: 10_000,
  /** The last column with a value, at most (CV). */
  columns: 100,
  /** Characters of one cell. */
  cellChars: 1000,
  /** Characters of all cells together. */
  totalChars: 4_000_000,
};

/** Column letters of a 1-based index: 1 is A, 27 is AA. */
export function columnName(index: number): string {
  let name = '';
  for (let n = index; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** The 1-based index of column letters (A is 1), or 0 for something that is not a column. */
export function columnIndex(name: string): number {
  if (!/^[A-Z]{1,3}$/.test(name)) return 0;
  return [...name].reduce((n, c) => n * 26 + c.charCodeAt(0) - 64, 0);
}

/** Where a cell (or a whole row) is, as a spreadsheet names it: `C7`, `'Free trucks'!C7`, `1:1`. */
export function positionOf(sheet: Pick<Sheet, 'kind' | 'name'>, column: string | undefined, row: number): string {
  const ref = column ? `${column}${row}` : `${row}:${row}`;
  if (sheet.kind !== 'xlsx' || !sheet.name) return ref;
  const name = /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet.name) ? sheet.name : `'${sheet.name.replace(/'/g, "''")}'`;
  return `${name}!${ref}`;
}

/** The text a cell shows when it is read as text (numbers as written, whole numbers without a decimal part). */
export function cellText(cell: Cell | undefined): string {
  if (!cell) return '';
  if (cell.t === 's' || cell.t === 'e' || cell.t === 'd') return cell.v;
  if (cell.t === 'b') return cell.v ? 'TRUE' : 'FALSE';
  return String(cell.v);
}

/** A cell with nothing in it (a formula whose value is unknown is not empty: its value may be anything). */
export const isEmpty = (cell: Cell | undefined) => !cell || (cell.t === 's' && cell.v.trim() === '' && !cell.uncomputed);
