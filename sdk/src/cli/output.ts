// Output by clig.dev's conventions: data on stdout (tables for people, JSON with --json), messages
// and progress on stderr; colour only on a terminal and never with NO_COLOR or --no-color.
import { PcxConnectionError, PcxProblemError, PcxTimeoutError } from '../errors';

export interface Output {
  json: boolean;
  color: boolean;
  data(value: unknown): void;
  table(rows: Record<string, unknown>[], columns: readonly string[]): void;
  message(text: string): void;
  progress(text: string): void;
}

export function createOutput(options: { json: boolean; color: boolean }, streams: { out: NodeJS.WritableStream; err: NodeJS.WritableStream } = { out: process.stdout, err: process.stderr }): Output {
  const paint = (code: number, text: string) => (options.color ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    ...options,
    data(value) {
      streams.out.write(options.json ? `${JSON.stringify(value)}\n` : `${JSON.stringify(value, null, 2)}\n`);
    },
    table(rows, columns) {
      if (options.json) return this.data(rows);
      if (rows.length === 0) return this.message('(none)');
      const cell = (row: Record<string, unknown>, column: string) => {
        const value = column.split('.').reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], row);
        return value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
      };
      const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r, c).length)));
      const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
      streams.out.write(`${paint(1, line(columns.map((c) => c.toUpperCase())))}\n`);
      for (const row of rows) streams.out.write(`${line(columns.map((c) => cell(row, c)))}\n`);
    },
    message(text) {
      streams.err.write(`${text}\n`);
    },
    progress(text) {
      streams.err.write(`${paint(2, text)}\n`);
    },
  };
}

/** Whether to colour: a terminal, no NO_COLOR (https://no-color.org), not TERM=dumb, not --no-color. */
export function wantsColor(stream: { isTTY?: boolean }, flag: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return flag && Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
}

/** Exit codes by what went wrong (pcx --help lists them). */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  invalid: 3,
  denied: 4,
  notFound: 5,
  conflict: 6,
  refused: 7,
  unavailable: 8,
  unreachable: 9,
} as const;

export function exitCodeOf(err: unknown): number {
  if (err instanceof PcxProblemError) {
    const s = err.status;
    if (s === 400 || s === 413 || s === 415 || s === 431) return EXIT.invalid;
    if (s === 401 || s === 403) return EXIT.denied;
    if (s === 404) return EXIT.notFound;
    if (s === 409) return EXIT.conflict;
    if (s === 422 || s === 428) return EXIT.refused;
    if (s === 429 || s >= 500) return EXIT.unavailable;
    return EXIT.failure;
  }
  if (err instanceof PcxConnectionError || err instanceof PcxTimeoutError) return EXIT.unreachable;
  return EXIT.failure;
}

/** The problem as a person reads it: title, detail, the fields at fault, the correlation id. */
export function describeError(err: unknown): string {
  if (err instanceof PcxProblemError) {
    const lines = [`error: ${err.problem.title} (${err.status} ${err.code})`];
    if (err.problem.detail) lines.push(`  ${err.problem.detail}`);
    for (const e of err.problem.errors ?? []) lines.push(`  ${e.pointer}: ${e.message}`);
    if (err.correlationId) lines.push(`  correlation id: ${err.correlationId}`);
    return lines.join('\n');
  }
  return `error: ${(err as Error)?.message ?? String(err)}`;
}
