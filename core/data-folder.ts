// The embedded default's data folder (DATA_DIR: PGlite, the Temporal dev server's SQLite, key
// files, the gateway's store).
//
// Its format: `data-format.json` names the format of what the folder holds (DATA_FORMAT), written
// when a start finds the folder without data. A start (scripts/start.ts, broker.ts) refuses a
// folder of another format, or one holding data without the file (written before the first
// release), with what to do, before anything reads it: its Temporal histories were recorded by
// workflow code this version may not have, and the dev server would hand them to the worker to
// replay, which would fail with a nondeterminism error (docs/decisions.md, "One write path").
//
// In use: the folder is consistent on disk only while no broker has it open: the broker marks it
// with its pid (`broker.pid`) while it runs, so that the backup and restore scripts
// (scripts/backup.ts, scripts/restore.ts) refuse to copy or replace a folder in use. A pid file
// left by a killed broker names a process that no longer runs, and counts as none.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PID_FILE = 'broker.pid';

/**
 * The format of the data folder this version reads and writes. 1: the first release (the one
 * write path of workflows/entity.ts). Raised by a change no folder of the previous format may
 * meet: workflow code that cannot replay its histories, a read model this version cannot open.
 */
export const DATA_FORMAT = 1;
export const DATA_FORMAT_FILE = 'data-format.json';
/** What makes a folder hold data of some format: its stores (not the bundles a start rebuilds, nor the pid file). */
const STORES = ['pglite', 'temporal.sqlite', 'gateway'];

export type DataFolderFormat =
  /** Written in this version's format. */
  | { kind: 'current' }
  /** Holding no data yet (absent, empty, or only files a start makes again). */
  | { kind: 'new' }
  /** Holding data, without the format file: written before the first release. */
  | { kind: 'before-format' }
  /** Another format (older or newer), or a format file that cannot be read. */
  | { kind: 'other'; format: number | undefined };

export function dataFolderFormat(dataDir: string): DataFolderFormat {
  const file = join(dataDir, DATA_FORMAT_FILE);
  if (!existsSync(file)) return STORES.some((store) => existsSync(join(dataDir, store))) ? { kind: 'before-format' } : { kind: 'new' };
  let format: unknown;
  try {
    format = (JSON.parse(readFileSync(file, 'utf8')) as { format?: unknown })?.format;
  } catch {
    format = undefined;
  }
  if (format === DATA_FORMAT) return { kind: 'current' };
  return { kind: 'other', format: typeof format === 'number' ? format : undefined };
}

/** A data folder this version must not open: the message says why and what to do. */
export class DataFolderRefused extends Error {}

/** What is wrong with a folder of format `found` for this version, as a predicate of "the folder" (undefined: nothing). */
export function formatProblem(found: DataFolderFormat): string | undefined {
  if (found.kind === 'current' || found.kind === 'new') return undefined;
  if (found.kind === 'before-format') return `holds data from before the first release (it has no ${DATA_FORMAT_FILE}): its workflow histories were recorded by code this version no longer runs`;
  if (found.format === undefined) return `has a ${DATA_FORMAT_FILE} this version cannot read`;
  if (found.format > DATA_FORMAT) return `holds data of format ${found.format}, written by a newer version of the broker (this one reads format ${DATA_FORMAT}): use that version for it`;
  return `holds data of format ${found.format}; this version reads format ${DATA_FORMAT} and does not migrate it (the release notes say what the new format changed)`;
}

/** Why a start refuses a folder of format `found`, and what to do (undefined: it does not). */
export function dataFolderRefusal(dataDir: string, found: DataFolderFormat): string | undefined {
  const what = formatProblem(found);
  if (!what) return undefined;
  return (
    `the data folder ${dataDir} ${what}. Nothing in it was changed. ` +
    `To keep it, back it up (npm run backup -- --data-dir ${dataDir} --into pcx-data-backup.tgz) and keep it with the version that wrote it; ` +
    `then move it aside (mv ${dataDir} ${dataDir}.old) or set DATA_DIR to a new folder, and start again: ` +
    'a new folder starts with the demo data (docs/deployment.md, "The data folder\'s format").'
  );
}

/**
 * Opens the folder for this version: a folder in its format is used as it is, one without data is
 * given this version's format file, anything else is refused (DataFolderRefused) before any store
 * in it is read.
 */
export function claimDataFolder(dataDir: string): void {
  const found = dataFolderFormat(dataDir);
  const refusal = dataFolderRefusal(dataDir, found);
  if (refusal) throw new DataFolderRefused(refusal);
  if (found.kind !== 'new') return;
  mkdirSync(dataDir, { recursive: true });
  writeDataFormat(dataDir);
}

/** Writes this version's format file (through a rename: a reader never sees half of it). */
function writeDataFormat(dataDir: string): void {
  const file = join(dataDir, DATA_FORMAT_FILE);
  writeFileSync(`${file}.${process.pid}`, `${JSON.stringify({ format: DATA_FORMAT, createdAt: new Date().toISOString() })}\n`);
  renameSync(`${file}.${process.pid}`, file);
}

export function markDataFolder(dataDir: string): void {
  writeFileSync(join(dataDir, PID_FILE), `${process.pid}\n`);
}

export function unmarkDataFolder(dataDir: string): void {
  const file = join(dataDir, PID_FILE);
  if (existsSync(file) && readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
}

/** The pid of a running broker that has the folder open, if any. */
export function brokerUsing(dataDir: string): number | undefined {
  const file = join(dataDir, PID_FILE);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}
