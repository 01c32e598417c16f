// The embedded default's data folder (DATA_DIR: PGlite, the Temporal dev server's SQLite, key
// files) is consistent on disk only while no broker has it open: the broker marks it with its pid
// (`broker.pid`) while it runs, so that the backup and restore scripts (scripts/backup.ts,
// scripts/restore.ts) refuse to copy or replace a folder in use. A pid file left by a killed broker
// names a process that no longer runs, and counts as none.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PID_FILE = 'broker.pid';

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
