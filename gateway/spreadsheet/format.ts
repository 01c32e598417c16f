// The spreadsheet format of the gateway: a carrier's CSV or XLSX export of its free trucks becomes
// capacity offers, one per row (profile "Free trucks CSV/XLSX"), answered with a result file in
// its mailbox. A file is processed as a whole, as an EDIFACT interchange is: one row that cannot be
// read or mapped quarantines the file (the carrier corrects its export and drops one file again),
// so that no file is ever half acted on by the gateway's own choice.
//
// The inbox keeps text: a CSV whose bytes say their encoding (a BOM, valid UTF-8) is kept as its
// text; a CSV in a single-byte encoding as a data URL of its exact bytes (text/csv), decoded when it
// is mapped, since the organization's settings (its encoding) decide how; an XLSX (or anything else
// binary) as a data URL of its exact bytes, read when it is mapped, with the settings (its sheet).
import { PcxProblemError } from '@pcx/sdk';
import type { ServedOrganization } from '../config';
import type { Format, Mapped, Quarantined, Submitted } from '../format';
import type { InboxEntry, Mapping } from '../store';
import { csvText, DELIMITERS, isSingleByteText, readCsv, withoutEofMark } from './csv';
import { decodeCsv } from './encoding';
import { mapSheet, systemOf, type OfferMapping, type RowReason, type SheetMapping } from './offers';
import { resultCsv, type ResultLine } from './result';
import { settingsProblems, type SpreadsheetSettings } from './settings';
import type { Sheet, SheetError } from './sheet';
import { isZip } from './zip';
import { readXlsx } from './xlsx';

export const PROFILE = { id: 'Free trucks CSV/XLSX', version: '1', description: 'A carrier\'s CSV or XLSX list of free trucks, one row each, to capacity offers (draft or published) by the organization\'s column mapping; a result file answers each row' };

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const CSV_TYPE = 'text/csv';
const BINARY = /^data:([a-z0-9.+/-]+)((?:;[a-z0-9-]+(?:=[a-z0-9-]+)?)*);base64,/;

/** The largest message the gateway takes (its GATEWAY_MAX_MESSAGE_BYTES): a mailbox file at this size may have been cut. */
const maxMessageBytes = () => Number(process.env.GATEWAY_MAX_MESSAGE_BYTES) || 1_000_000;

interface Source {
  kind: 'csv' | 'xlsx';
  sheet?: string;
  delimiter?: string;
  /** A CSV not in UTF-8: the encodings it was read in (alike), as the organization sets or as detected. */
  encoding?: { read: string[]; by: 'settings' | 'detection' };
}

interface SpreadsheetMapped extends Mapped {
  profile: string;
  source: Source;
  publish: boolean;
  offers: OfferMapping[];
  /** The headers of the columns not read. */
  dropped: string[];
}

interface SpreadsheetQuarantined extends Quarantined {
  profile: string;
  source?: Source;
  reasons: RowReason[];
  /** The rows of trucks read, for the answer (none when the file could not be read). */
  rows: Array<{ row: number; reference?: string }>;
}

/** What became of each row at the exchange (kept with `submitted`). */
interface RowOutcome {
  row: number;
  reference?: string;
  offerId?: string;
  status?: string;
  problem?: { status: number; code: string; detail: string };
}

type SpreadsheetSubmitted = Extract<Submitted, { kind: 'created' }> & { rows: RowOutcome[] };

/** A refusal of the exchange (the sender's answer), as opposed to a failure to retry (the gateway's activity draws the same line). */
const isRefusal = (err: unknown): err is PcxProblemError => err instanceof PcxProblemError && err.status < 500 && err.status !== 429 && err.code !== 'IDEMPOTENCY_IN_PROGRESS';

const quarantined = (reasons: RowReason[], rows: SheetMapping['rows'] = [], source?: Source): SpreadsheetQuarantined => ({
  kind: 'quarantined',
  profile: `${PROFILE.id} ${PROFILE.version}`,
  reasons,
  rows,
  ...(source ? { source } : {}),
});
const fromError = (e: SheetError): RowReason => ({ code: e.code, message: e.message, ...(e.position ? { position: e.position } : {}) });

type Outcome = SpreadsheetMapped | SpreadsheetQuarantined;

function map(entry: InboxEntry, org: ServedOrganization, others: readonly ServedOrganization[]): Outcome {
  const settings = org.spreadsheet;
  const problems = settingsProblems(settings);
  if (problems.length) return quarantined(problems.map((p) => ({ code: settings ? 'SETTINGS_INVALID' : 'SETTINGS_MISSING', message: p.message, position: p.path })));
  const context = { organization: org, others, receivedAt: entry.receivedAt || undefined, entryId: entry.id };
  const done = (sheet: Sheet, result: SheetMapping, extra: Partial<Source> = {}): Outcome => {
    const source: Source = { kind: sheet.kind, ...(sheet.name ? { sheet: sheet.name } : {}), ...(sheet.delimiter ? { delimiter: sheet.delimiter } : {}), ...extra };
    if (result.reasons.length) return quarantined(result.reasons, result.rows, source);
    return { kind: 'mapped', profile: `${PROFILE.id} ${PROFILE.version}`, source, publish: settings!.publish, offers: result.offers, dropped: result.dropped };
  };

  const binary = BINARY.exec(entry.content);
  if (!binary) return mapCsv(entry.content, settings!, (sheet) => done(sheet, mapSheet(sheet, context)));
  const [, type, parameters] = binary;
  if (/;truncated/.test(parameters)) return quarantined([{ code: 'INPUT_TOO_LARGE', message: `the file reached the gateway's size limit (${maxMessageBytes()} bytes) and may have been cut: send fewer rows per file` }]);
  const bytes = Buffer.from(entry.content.slice(binary[0].length), 'base64');
  if (type === CSV_TYPE) {
    // Not UTF-8: in the organization's encoding, or the one plausible reading (encoding.ts).
    const decoded = decodeCsv(bytes, settings!.encoding);
    if ('code' in decoded) return quarantined([{ code: decoded.code, message: decoded.message }], [], { kind: 'csv' });
    const encoding: Source['encoding'] = { read: decoded.encodings, by: decoded.detected ? 'detection' : 'settings' };
    return mapCsv(withoutEofMark(decoded.text), settings!, (sheet) => done(sheet, mapSheet(sheet, context), { encoding }));
  }
  if (type !== XLSX_TYPE) {
    const what = type === 'application/vnd.ms-excel' ? 'an Excel 97-2003 workbook (XLS), which is not read: save it as XLSX or CSV' : 'neither CSV text nor an XLSX workbook';
    return quarantined([{ code: 'NOT_A_SPREADSHEET', message: `the file is ${what}` }]);
  }
  const read = readXlsx(bytes, settings!.sheet);
  if ('error' in read) return quarantined([fromError(read.error)], [], { kind: 'xlsx', ...(settings!.sheet ? { sheet: settings!.sheet } : {}) });
  return done(read.sheet, mapSheet(read.sheet, context));
}

/** A CSV text with the organization's delimiter, or the one of `,` `;` and tab that finds the header row. */
function mapCsv(text: string, settings: SpreadsheetSettings, mapped: (sheet: Sheet) => Outcome): Outcome {
  const candidates = settings.delimiter ? [settings.delimiter] : [...DELIMITERS];
  const firstLine = text.split(/\r?\n/).find((l) => l.trim()) ?? '';
  const sniffed = [...candidates].sort((a, b) => firstLine.split(b).length - firstLine.split(a).length)[0];
  let fallback: Outcome | undefined;
  for (const delimiter of [sniffed, ...candidates.filter((d) => d !== sniffed)]) {
    const read = readCsv(text, delimiter);
    const outcome = 'error' in read ? quarantined([fromError(read.error)], [], { kind: 'csv', delimiter }) : mapped(read.sheet);
    const headerFound = !('error' in read) && !(outcome.kind === 'quarantined' && outcome.reasons.some((r) => r.code === 'COLUMN_MISSING' || r.code === 'COLUMN_AMBIGUOUS'));
    if (headerFound) return outcome;
    fallback ??= outcome;
  }
  return fallback!;
}

/** The lines of the result file: each row's outcome, each reason with its cell. */
function resultLines(entry: InboxEntry): ResultLine[] {
  const result = entry.result as (SpreadsheetMapped | SpreadsheetQuarantined) & { submitted?: Submitted };
  if (result.kind === 'quarantined') {
    const lines: ResultLine[] = [];
    const reasons = result.reasons ?? [];
    for (const reason of reasons.filter((r) => r.row === undefined)) lines.push({ outcome: 'quarantined', cell: reason.position, code: reason.code, message: reason.message });
    for (const row of result.rows ?? []) {
      const own = reasons.filter((r) => r.row === row.row);
      if (!own.length) lines.push({ row: row.row, reference: row.reference, outcome: 'not sent', message: 'the file is quarantined for the rows named here: correct them and drop the whole file again' });
      for (const reason of own) lines.push({ row: row.row, reference: row.reference, outcome: 'quarantined', cell: reason.position, code: reason.code, message: reason.message });
    }
    // Reasons about rows past those read (too many rows) are listed with their row.
    for (const reason of reasons.filter((r) => r.row !== undefined && !(result.rows ?? []).some((x) => x.row === r.row))) lines.push({ row: reason.row, outcome: 'quarantined', cell: reason.position, code: reason.code, message: reason.message });
    return lines;
  }
  const submitted = result.submitted;
  return result.offers.map((offer): ResultLine => {
    const base = { row: offer.row, reference: offer.reference };
    if (submitted?.kind === 'refused') return { ...base, outcome: 'refused', code: submitted.problem.code, message: `the exchange refused the file (${submitted.problem.status}): ${submitted.problem.detail}` };
    const outcome = (submitted as SpreadsheetSubmitted | undefined)?.rows?.find((r) => r.row === offer.row);
    if (!outcome) return { ...base, outcome: 'not sent', message: 'not sent to the exchange' };
    if (outcome.problem) return { ...base, outcome: 'refused', offer: outcome.offerId, status: outcome.status, code: outcome.problem.code, message: `the exchange refused it (${outcome.problem.status}): ${outcome.problem.detail}${outcome.offerId ? '; its draft was withdrawn' : ''}` };
    return { ...base, outcome: outcome.status === 'draft' ? 'draft' : 'published', offer: outcome.offerId, status: outcome.status };
  });
}

export const spreadsheet: Format = {
  name: 'spreadsheet',
  extensions: ['.csv', '.xlsx'],
  profiles: [PROFILE],

  // Text that says its encoding stays text (UTF-8, UTF-16 with a BOM); text in a single-byte
  // encoding, an XLSX, or anything binary is kept as a data URL of its exact bytes (the first two
  // read with the organization's settings). Never throws: what it cannot tell is the mapping's to refuse.
  decode(bytes) {
    const truncated = bytes.length >= maxMessageBytes() ? ';truncated' : '';
    const dataUrl = (type: string) => `data:${type}${truncated};base64,${bytes.toString('base64')}`;
    if (isZip(bytes)) return dataUrl(XLSX_TYPE);
    if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0xd0cf11e0) return dataUrl('application/vnd.ms-excel');
    if (truncated) return dataUrl('application/octet-stream');
    const text = csvText(bytes);
    if (text !== undefined) return text;
    return dataUrl(isSingleByteText(bytes) ? CSV_TYPE : 'application/octet-stream');
  },

  map(entry, org, others) {
    try {
      return map(entry, org, others);
    } catch (err) {
      // A file no check foresaw is still answered, never retried for ever.
      return quarantined([{ code: 'NOT_A_SPREADSHEET', message: `the file could not be read (${String((err as Error)?.message ?? err).slice(0, 200)})` }]);
    }
  },

  async submit(mapped, client, key): Promise<Submitted> {
    const { offers, publish } = mapped as SpreadsheetMapped;
    const resources: Array<{ kind: string; id: string; status: string }> = [];
    const mappings: Mapping[] = [];
    const rows: RowOutcome[] = [];
    let firstRefusal: PcxProblemError | undefined;
    // Row by row; a refusal of one row (a relationship missing) is that row's answer and the next
    // rows are still sent: what was created is recorded, and said, either way; a row whose publish
    // was refused has its draft withdrawn.
    for (const offer of offers) {
      const outcome: RowOutcome = { row: offer.row, ...(offer.reference !== undefined ? { reference: offer.reference } : {}) };
      rows.push(outcome);
      let draft: { id: string; resourceVersion: number; status: string } | undefined;
      try {
        draft = await client.offers.create(offer.body, { idempotencyKey: key(`offer-${offer.row}`) });
        outcome.offerId = draft.id;
        outcome.status = 'draft';
        const resource = publish ? await client.offers.publish(draft, {}, { idempotencyKey: key(`publish-${offer.row}`) }) : draft;
        outcome.status = resource.status;
      } catch (err) {
        if (!isRefusal(err)) throw err; // the broker unreachable, 5xx: the workflow retries, the keys make it safe
        firstRefusal ??= err;
        outcome.problem = { status: err.status, code: err.code, detail: err.problem.detail ?? err.message };
        // Its publish refused: the draft is withdrawn, never left behind for nobody to clean up.
        if (draft) {
          await client.offers.withdraw(draft, { reason: `not published: the exchange refused it (${err.code})` }, { idempotencyKey: key(`withdraw-${offer.row}`) });
          outcome.status = 'withdrawn';
        }
      }
      if (outcome.offerId && outcome.status !== 'withdrawn') {
        resources.push({ kind: 'capacity-offer', id: outcome.offerId, status: outcome.status! });
        for (const ref of offer.body.externalReferences ?? []) mappings.push({ ...ref, resourceKind: 'capacity-offer', resourceId: outcome.offerId });
      }
    }
    // Nothing created at all: the file was refused (the exchange's problem, as for any format).
    if (!resources.length && firstRefusal) throw firstRefusal;
    const submitted: SpreadsheetSubmitted = { kind: 'created', resources, mappings, rows };
    return submitted;
  },

  acknowledge(entry, org, now) {
    const settings = org.spreadsheet;
    const result = entry.result as { source?: Source };
    const delimiter = result?.source?.delimiter ?? settings?.delimiter ?? (settings?.decimalSeparator === ',' ? ';' : ',');
    // Named as the gateway's other answers are (free-trucks.csv: free-trucks.result.csv).
    const name = entry.name ?? entry.id;
    const base = name.replace(/\.[A-Za-z0-9]+$/, '');
    const title = `${PROFILE.id} ${PROFILE.version}: answer to ${name} for ${org.organizationId} (received ${entry.receivedAt}, answered ${now.toISOString().replace(/\.\d{3}Z$/, 'Z')}); reference system ${systemOf(org)}`;
    return [{ kind: 'result', name: `${base}.result.csv`, content: resultCsv(title, resultLines(entry), delimiter) }];
  },
};
