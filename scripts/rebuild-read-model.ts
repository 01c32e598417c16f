// The operator's command that rebuilds the read model and the outbox from Temporal alone, into an
// empty database (read-model/rebuild.ts; docs/deployment.md, "Rebuilding the read model from Temporal"):
//
//   npm run rebuild-read-model -- --into-data-dir /tmp/rebuilt              (an embedded PGlite folder)
//   npm run rebuild-read-model -- --into-database-url postgres://.../pcx2   (an empty PostgreSQL database)
//   ... --organization org-alpine-freight [--organization ...]             (only what they own or take part in)
//
// Temporal is found as the broker finds it (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, its TLS or API
// key settings); PUBLIC_BASE_URL and SCHEMA_BASE give the events their source and dataschema as
// the broker does. A database that holds anything is refused: the rebuild never merges.
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { loadConfigOrExit } from '../core/config';
import { connectTemporal } from '../core/temporal';
import { openReadModel } from '../read-model/database';
import { isEmpty, rebuildReadModel } from '../read-model/rebuild';
import { eventSource } from '../worker';
import { runMain } from './run-main';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'into-data-dir': { type: 'string' },
      'into-database-url': { type: 'string' },
      organization: { type: 'string', multiple: true },
      help: { type: 'boolean' },
    },
  });
  const into = values['into-database-url'] ? { databaseUrl: values['into-database-url'], dataDir: '' } : values['into-data-dir'] ? { dataDir: values['into-data-dir'] } : undefined;
  if (values.help || !into) {
    process.stderr.write('usage: rebuild-read-model (--into-data-dir DIR | --into-database-url URL) [--organization ORG ...]\n');
    return values.help ? 0 : 2;
  }
  const config = loadConfigOrExit();
  const db = await openReadModel(into);
  try {
    if (!(await isEmpty(db))) {
      process.stderr.write('the target database holds resources or events already: a rebuild writes into an empty one\n');
      return 2;
    }
    const connection = await connectTemporal(config.temporal);
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const report = await rebuildReadModel(client, db, { schemaBase: config.schemaBase, eventSource: eventSource(config) }, { organizationIds: values.organization });
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.stderr.write(`rebuilt ${report.resources} resources (${report.transitions} transitions, ${report.events} events) from ${report.runs} workflow runs in ${report.seconds.toFixed(1)} s\n`);
    if (report.incomplete.length) process.stderr.write(`${report.incomplete.length} resources start after version 1 (their first runs are past the namespace's retention)\n`);
    await connection.close();
    return 0;
  } finally {
    await db.close();
  }
}

runMain(main);
