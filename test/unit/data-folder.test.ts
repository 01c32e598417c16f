// The data folder's format (core/data-folder.ts): a start claims a folder without data for this
// version's format, uses one of its format, and refuses, before anything reads it, a folder from
// before the first release (data, no format file) or of another format, saying what to do.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimDataFolder, DATA_FORMAT, DATA_FORMAT_FILE, dataFolderFormat, DataFolderRefused } from '../../core/data-folder';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'pcx-data-folder-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A folder holding `files` (a name ending in / is a folder). */
function folder(files: Record<string, string> = {}): string {
  const dir = join(root, `f${n++}`);
  mkdirSync(dir);
  for (const [name, content] of Object.entries(files)) {
    if (name.endsWith('/')) mkdirSync(join(dir, name), { recursive: true });
    else writeFileSync(join(dir, name), content);
  }
  return dir;
}

const refusalOf = (dir: string): string => {
  try {
    claimDataFolder(dir);
  } catch (err) {
    expect(err).toBeInstanceOf(DataFolderRefused);
    return (err as Error).message;
  }
  throw new Error('not refused');
};

test('a folder without data (absent, empty, or only what a start makes again) is claimed: the format file is written', () => {
  for (const dir of [join(root, 'absent', 'data'), folder(), folder({ 'workflow-bundle.js': '//', 'broker.pid': '1', 'secrets-key.json': '{}' })]) {
    expect(dataFolderFormat(dir)).toEqual({ kind: 'new' });
    claimDataFolder(dir);
    expect(JSON.parse(readFileSync(join(dir, DATA_FORMAT_FILE), 'utf8'))).toEqual({ format: DATA_FORMAT, createdAt: expect.any(String) });
    expect(dataFolderFormat(dir)).toEqual({ kind: 'current' });
    // Claimed again (every later start): used as it is.
    claimDataFolder(dir);
    expect(readdirSync(dir).filter((f) => f.startsWith(DATA_FORMAT_FILE))).toEqual([DATA_FORMAT_FILE]);
  }
});

test('a folder in this format holding data is used as it is', () => {
  const dir = folder({ 'pglite/': '', 'temporal.sqlite': '', [DATA_FORMAT_FILE]: JSON.stringify({ format: DATA_FORMAT }) });
  claimDataFolder(dir);
  expect(dataFolderFormat(dir)).toEqual({ kind: 'current' });
});

test.each([
  ['PGlite', { 'pglite/': '' }],
  ["the Temporal dev server's SQLite", { 'temporal.sqlite': '' }],
  ["the gateway's store", { 'gateway/': '' }],
])('a folder holding data (%s) without the format file is from before the first release: refused, with what to do, and left as it was', (_what, files) => {
  const dir = folder(files);
  const before = readdirSync(dir);
  expect(dataFolderFormat(dir)).toEqual({ kind: 'before-format' });
  const message = refusalOf(dir);
  expect(message).toContain(`the data folder ${dir} holds data from before the first release (it has no ${DATA_FORMAT_FILE})`);
  expect(message).toContain(`npm run backup -- --data-dir ${dir}`);
  expect(message).toContain(`mv ${dir} ${dir}.old`);
  expect(message).toContain('set DATA_DIR to a new folder');
  expect(message).not.toMatch(/nondetermin/i);
  expect(readdirSync(dir)).toEqual(before);
});

test('a folder of another format is refused: an older one is not migrated, a newer one belongs to its version, an unreadable file is said so', () => {
  const older = folder({ 'pglite/': '', [DATA_FORMAT_FILE]: JSON.stringify({ format: DATA_FORMAT - 1 }) });
  expect(dataFolderFormat(older)).toEqual({ kind: 'other', format: DATA_FORMAT - 1 });
  expect(refusalOf(older)).toContain(`holds data of format ${DATA_FORMAT - 1}; this version reads format ${DATA_FORMAT} and does not migrate it`);
  const newer = folder({ [DATA_FORMAT_FILE]: JSON.stringify({ format: DATA_FORMAT + 1 }) });
  expect(refusalOf(newer)).toContain(`holds data of format ${DATA_FORMAT + 1}, written by a newer version of the broker`);
  const broken = folder({ [DATA_FORMAT_FILE]: '{ not json' });
  expect(dataFolderFormat(broken)).toEqual({ kind: 'other', format: undefined });
  expect(refusalOf(broken)).toContain(`has a ${DATA_FORMAT_FILE} this version cannot read`);
  expect(readFileSync(join(older, DATA_FORMAT_FILE), 'utf8')).toBe(JSON.stringify({ format: DATA_FORMAT - 1 }));
});
