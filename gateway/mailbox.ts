// Mailboxes, as EDI users know them from SFTP drops: <root>/<organization>/in receives messages,
// <root>/<organization>/out holds what the gateway answers. A file is taken atomically: renamed
// into <organization>/taken first (a rename within one file system either happens or not), then
// recorded in the inbox, then removed; a file still in `taken` after a crash is recorded again
// under the same id (derived from its name and content), which changes nothing. A file being
// written is not taken: senders write under a name starting with '.' (or ending in .tmp/.part)
// and rename when done, the convention of SFTP drops.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FOLDERS = ['in', 'out', 'taken'] as const;

export function ensureMailbox(root: string, organizationId: string): void {
  for (const folder of FOLDERS) mkdirSync(join(root, organizationId, folder), { recursive: true });
}

const pending = (name: string) => name.startsWith('.') || /\.(tmp|part)$/i.test(name);

export interface DroppedFile {
  name: string;
  content: Buffer;
  /** Removes the file once it is recorded. */
  done(): void;
}

/** The files waiting in an organization's mailbox: first those a crash left taken, then new ones. */
export function takeFiles(root: string, organizationId: string, maxBytes: number): DroppedFile[] {
  const inDir = join(root, organizationId, 'in');
  const takenDir = join(root, organizationId, 'taken');
  if (!existsSync(inDir)) return [];
  for (const name of readdirSync(inDir)) {
    if (pending(name) || !statSync(join(inDir, name)).isFile()) continue;
    try {
      renameSync(join(inDir, name), join(takenDir, name));
    } catch {
      // Taken by another gateway process, or gone: not ours.
    }
  }
  return readdirSync(takenDir)
    .filter((name) => statSync(join(takenDir, name)).isFile())
    .sort()
    .map((name) => {
      const path = join(takenDir, name);
      const size = statSync(path).size;
      // An oversized file is still recorded (and quarantined) so the sender learns why; its content is cut.
      const content = size > maxBytes ? Buffer.concat([readFileSync(path).subarray(0, maxBytes)]) : readFileSync(path);
      return { name, content, done: () => rmSync(path, { force: true }) };
    });
}

/** Writes an outbound message into the organization's out folder, atomically (write, then rename). */
export function writeOutbound(root: string, organizationId: string, name: string, content: string): void {
  const dir = join(root, organizationId, 'out');
  mkdirSync(dir, { recursive: true });
  const temporary = join(dir, `.${name}.tmp`);
  writeFileSync(temporary, content);
  renameSync(temporary, join(dir, name));
}

/** The inbox id of a dropped file: its organization, name and content decide it. */
export function mailboxEntryId(organizationId: string, name: string, content: Buffer): string {
  return `mb-${createHash('sha256').update(organizationId).update('\0').update(name).update('\0').update(content).digest('hex').slice(0, 32)}`;
}
