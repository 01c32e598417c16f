// After restoring the read model from a backup to an earlier point, before the broker starts:
//
//   npm run restored -- --data-dir /var/lib/pcx         (the embedded PGlite in DATA_DIR)
//   npm run restored -- --database-url postgres://...   (PostgreSQL)
//
// starts a new feed history whose floor is the newest event the restored database kept
// (read-model/events.ts, startFeedHistory; docs/deployment.md, "Backup and restore"). Connectors'
// cursors up to it go on as before; a cursor past it is answered 410 FEED_HISTORY_CHANGED with the
// cursor to resume from, instead of a feed that would silently skip the events written since.
import { parseArgs } from 'node:util';

import { openReadModel } from '../read-model/database';
import { startFeedHistory } from '../read-model/events';
import { startLogEpoch } from '../read-model/transparency-log';
import { runMain } from './run-main';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' }, help: { type: 'boolean' } } });
  const at = values['database-url'] ? { databaseUrl: values['database-url'], dataDir: '' } : values['data-dir'] ? { dataDir: values['data-dir'] } : undefined;
  if (values.help || !at) {
    process.stderr.write('usage: restored (--data-dir DATA_DIR | --database-url URL), with the broker stopped\n');
    return values.help ? 0 : 2;
  }
  const db = await openReadModel(at);
  try {
    const history = await startFeedHistory(db);
    // The transparency log goes on as a new log linked to the restored one (docs/transparency-log.md).
    const epoch = await startLogEpoch(db);
    process.stdout.write(`${JSON.stringify(history)}\n`);
    process.stderr.write(`feed history ${history.id} started at ${history.startedAt}; the restore point is ${history.floor?.tx}.${history.floor?.seq}; the transparency log goes on as epoch ${epoch.epoch} from its ${epoch.restoredSize} restored leaves\n`);
    return 0;
  } finally {
    await db.close();
  }
}

runMain(main);
