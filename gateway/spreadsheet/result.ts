// The carrier's answer: a CSV file in its mailbox, one line per row of trucks (its number, its
// reference, what became of it: the offer with its id and status, or each reason with its cell),
// and a line per reason about the whole file. It opens in a spreadsheet program as it is: UTF-8
// with a BOM, the organization's delimiter (`;` where its decimal mark is a comma, as Excel
// expects there), and no value that program would run as a formula.

export interface ResultLine {
  row?: number;
  reference?: string;
  outcome: 'published' | 'draft' | 'refused' | 'quarantined' | 'not sent';
  offer?: string;
  status?: string;
  cell?: string;
  code?: string;
  message?: string;
}

const HEADER = ['row', 'reference', 'outcome', 'offer', 'status', 'cell', 'code', 'message'] as const;

/** One field: quoted when it must be, and a leading =, +, -, @, tab or CR neutralised with an apostrophe (OWASP CSV injection). */
function field(value: string | number | undefined, delimiter: string): string {
  let text = value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text) && !/^[+-]?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return text.includes(delimiter) || /["\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function resultCsv(title: string, lines: readonly ResultLine[], delimiter: string): string {
  const out = [field(title, delimiter), HEADER.join(delimiter)];
  for (const line of lines) out.push(HEADER.map((key) => field(line[key], delimiter)).join(delimiter));
  return `\uFEFF${out.join('\r\n')}\r\n`;
}
