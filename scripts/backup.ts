// A cold backup of the embedded default's data folder (docs/deployment.md, "Backup and restore"):
//
//   npm run backup -- --data-dir .data --into pcx-backup.tgz
//
// the whole folder (PGlite's read model, the Temporal dev server's SQLite, the key files, the
// gateway's store and mailboxes, and data-format.json, which a restore checks) into one gzipped
// tar, refused while a broker has the folder open (its files are consistent only once it has
// closed them: stop `npm start` first). Any folder's format is backed up, an older one's too (the
// start's refusal of such a folder says to). Restore it with `npm run restore`.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { brokerUsing } from '../core/data-folder';

function main(): number {
  const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, into: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help || !values['data-dir'] || !values.into) {
    process.stderr.write('usage: backup --data-dir DATA_DIR --into FILE.tgz (with the broker stopped)\n');
    return values.help ? 0 : 2;
  }
  const dataDir = resolve(values['data-dir']);
  const into = resolve(values.into);
  if (!existsSync(dataDir)) return fail(`${dataDir} does not exist`);
  const pid = brokerUsing(dataDir);
  if (pid) return fail(`a broker (pid ${pid}) has ${dataDir} open: stop it first (Ctrl-C on npm start); a copy taken now would not be consistent`);
  if (existsSync(into)) return fail(`${into} exists already: choose another file`);
  const started = performance.now();
  const tar = spawnSync('tar', ['-C', dataDir, '-czf', into, '.'], { encoding: 'utf8' });
  if (tar.status !== 0) return fail(`tar failed: ${tar.stderr}`);
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`backed up ${dataDir} into ${into} (${(statSync(into).size / 1e6).toFixed(1)} MB) in ${seconds.toFixed(1)} s\n`);
  return 0;
}

function fail(message: string): number {
  process.stderr.write(`backup refused: ${message}\n`);
  return 1;
}

process.exitCode = main();
