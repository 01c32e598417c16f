// Restores a backup of the embedded default's data folder (scripts/backup.ts) and starts a new
// feed history at once, so that the step cannot be forgotten (docs/deployment.md, "Backup and
// restore"; read-model/events.ts, startFeedHistory):
//
//   npm run restore -- --from pcx-backup.tgz --data-dir .data
//
// into an empty or absent folder (never over one: move it aside first), refused while a broker
// has the folder open, and refused for a backup of a data folder this version does not read (its
// data-format.json, core/data-folder.ts; a backup carries the file, as it carries everything). Connectors' cursors from after the backup are then answered 410
// FEED_HISTORY_CHANGED with where to resume.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { brokerUsing, claimDataFolder, dataFolderFormat, formatProblem } from '../core/data-folder';
import { openReadModel } from '../read-model/database';
import { startFeedHistory } from '../read-model/events';
import { startLogEpoch } from '../read-model/transparency-log';
import { runMain } from './run-main';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { from: { type: 'string' }, 'data-dir': { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help || !values.from || !values['data-dir']) {
    process.stderr.write('usage: restore --from FILE.tgz --data-dir DATA_DIR (an empty or absent folder, with the broker stopped)\n');
    return values.help ? 0 : 2;
  }
  const from = resolve(values.from);
  const dataDir = resolve(values['data-dir']);
  if (!existsSync(from)) return fail(`${from} does not exist`);
  const pid = existsSync(dataDir) ? brokerUsing(dataDir) : undefined;
  if (pid) return fail(`a broker (pid ${pid}) has ${dataDir} open: stop it first`);
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return fail(`${dataDir} is not empty: move it aside first (the restore never mixes two folders)`);
  const started = performance.now();
  mkdirSync(dataDir, { recursive: true });
  const tar = spawnSync('tar', ['-C', dataDir, '-xzf', from], { encoding: 'utf8' });
  if (tar.status !== 0) return fail(`tar failed: ${tar.stderr}`);
  // A backup of another format is not restored under this version (core/data-folder.ts): the folder is left empty again.
  const problem = formatProblem(dataFolderFormat(dataDir));
  if (problem) {
    for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true });
    return fail(`the data folder in ${from} ${problem}. Nothing was restored (${dataDir} is empty again): restore it with the version that wrote it`);
  }
  claimDataFolder(dataDir);
  const db = await openReadModel({ dataDir });
  try {
    const history = await startFeedHistory(db);
    // The transparency log goes on as a new log linked to the restored one (docs/transparency-log.md).
    const epoch = await startLogEpoch(db);
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(`${JSON.stringify(history)}\n`);
    process.stderr.write(`restored ${from} into ${dataDir} in ${seconds.toFixed(1)} s; feed history ${history.id} started, the restore point is ${history.floor?.tx}.${history.floor?.seq}; the transparency log goes on as epoch ${epoch.epoch} from its ${epoch.restoredSize} restored leaves\n`);
    return 0;
  } finally {
    await db.close();
  }
}

function fail(message: string): number {
  process.stderr.write(`restore refused: ${message}\n`);
  return 1;
}

runMain(main);
