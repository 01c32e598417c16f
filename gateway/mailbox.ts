// Mailboxes, as EDI users know them from SFTP drops: <root>/<organization>/in receives messages,
// <root>/<organization>/out holds what the gateway answers. A file is taken atomically: renamed
// into <organization>/taken first (a rename within one file system either happens or not), then
// recorded in the inbox, then removed; a file still in `taken` after a crash is recorded again
// under the same id (derived from its name and content), which changes nothing. A file being
// written is not taken: senders write under a name starting with '.' (or ending in .tmp/.part)
// and rename when done, the convention of SFTP drops. A file the gateway cannot take in at all
// (its recording fails again and again while the gateway's database answers) is moved to
// <organization>/failed with a `.reason.txt` beside it: looked at by a person, never retried forever.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FOLDERS = ['in', 'out', 'taken', 'failed'] as const;

export function ensureMailbox(root: string, organizationId: string): void {
  for (const folder of FOLDERS) mkdirSync(join(root, organizationId, folder), { recursive: true });
}

const pending = (name: string) => name.startsWith('.') || /\.(tmp|part)$/i.test(name);

export interface DroppedFile {
  name: string;
  /** Its bytes; of a file over the size limit only the first ones (enough to tell it from another, never read as a message). */
  content: Buffer;
  /** Its size on disk. */
  size: number;
  /** Removes the file once it is recorded. */
  done(): void;
  /** Moves it to <organization>/failed with the reason beside it. */
  fail(reason: string): void;
}

/** Of a file over the limit, this much is read: what tells two such files apart. */
const OVERSIZED_HEAD = 65_536;

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
  const failedDir = join(root, organizationId, 'failed');
  return readdirSync(takenDir)
    .filter((name) => statSync(join(takenDir, name)).isFile())
    .sort()
    .map((name) => {
      const path = join(takenDir, name);
      const size = statSync(path).size;
      // An oversized file is recorded (refused as too large) so the sender learns why; only its head is read.
      const content = size > maxBytes ? headOf(path, OVERSIZED_HEAD) : readFileSync(path);
      return {
        name,
        content,
        size,
        done: () => rmSync(path, { force: true }),
        fail: (reason: string) => {
          mkdirSync(failedDir, { recursive: true });
          renameSync(path, join(failedDir, name));
          writeFileSync(join(failedDir, `${name}.reason.txt`), `${reason}\n`);
        },
      };
    });
}

function headOf(path: string, bytes: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(bytes);
    return head.subarray(0, readSync(fd, head, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}

/** Writes an outbound message into the organization's out folder, atomically (write, then rename). */
export function writeOutbound(root: string, organizationId: string, name: string, content: string): void {
  const dir = join(root, organizationId, 'out');
  mkdirSync(dir, { recursive: true });
  const temporary = join(dir, `.${name}.tmp`);
  writeFileSync(temporary, content);
  renameSync(temporary, join(dir, name));
}

/** The inbox id of a dropped file: its organization, name, size and content (of an oversized one, its head) decide it. */
export function mailboxEntryId(organizationId: string, name: string, content: Buffer, size = content.length): string {
  const hash = createHash('sha256').update(organizationId).update('\0').update(name).update('\0').update(content);
  // A file of exactly its content keeps the id it always had (a file taken before a restart is the same entry).
  if (size !== content.length) hash.update(`\0${size}`);
  return `mb-${hash.digest('hex').slice(0, 32)}`;
}
