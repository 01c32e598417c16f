// The operator's command that rebuilds the read model and the outbox from Temporal alone
// (read-model/rebuild.ts; docs/deployment.md, "Rebuilding the read model from Temporal"):
//
//   npm run rebuild-read-model -- --in-place                                (the embedded default, `npm start` stopped)
//   npm run rebuild-read-model -- --into-data-dir /tmp/rebuilt              (into an empty embedded PGlite folder)
//   npm run rebuild-read-model -- --into-database-url postgres://.../pcx2   (into an empty PostgreSQL database)
//   ... --organization org-alpine-freight [--organization ...]             (only what they own or take part in)
//
// --in-place is the embedded default's whole procedure, no hand work: refused while a broker has
// DATA_DIR open; it starts the Temporal dev server on the folder's own temporal.sqlite (headless,
// on a free port), rebuilds into a new PGlite folder beside the old one, carries over what only
// the read model holds (CARRIED_TABLES: credentials' hashes, revocations, the idempotency store,
// tombstones, webhook subscriptions), stops the dev server, and swaps the folders: the old one
// stays as pglite.before-rebuild-<time> until the operator removes it. `npm start` then runs on
// the rebuilt read model; connectors sign in as before.
//
// The other two write into an empty database (a database that holds anything is refused: the
// rebuild never merges), with Temporal found as the broker finds it (TEMPORAL_ADDRESS, …); for
// PostgreSQL, point DATABASE_URL at the new database once it is done.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { loadConfigOrExit } from '../core/config';
import { brokerUsing, dataFolderFormat, formatProblem, markDataFolder, unmarkDataFolder } from '../core/data-folder';
import { connectTemporal, dataConverterOf } from '../core/temporal';
import type { Db } from '../core/db';
import { openReadModel } from '../read-model/database';
import { carryOver, isEmpty, LOG_TABLES, rebuildReadModel, type RebuildReport } from '../read-model/rebuild';
import { eventSource } from '../worker';
import { devServerArgs, temporalCli } from './start';
import { runMain } from './run-main';

const USAGE = 'usage: rebuild-read-model (--in-place | --into-data-dir DIR | --into-database-url URL) [--organization ORG ...]\n';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'in-place': { type: 'boolean' },
      'into-data-dir': { type: 'string' },
      'into-database-url': { type: 'string' },
      organization: { type: 'string', multiple: true },
      help: { type: 'boolean' },
    },
  });
  const targets = [values['in-place'], values['into-data-dir'], values['into-database-url']].filter(Boolean).length;
  if (values.help || targets !== 1) {
    process.stderr.write(USAGE);
    return values.help ? 0 : 2;
  }
  if (values['in-place']) return inPlace(values.organization);
  const into = values['into-database-url'] ? { databaseUrl: values['into-database-url'], dataDir: '' } : { dataDir: values['into-data-dir']! };
  const config = loadConfigOrExit();
  const db = await openReadModel(into);
  try {
    if (!(await isEmpty(db))) {
      process.stderr.write('the target database holds resources or events already: a rebuild writes into an empty one\n');
      return 2;
    }
    await rebuildFromTemporal(config, db, values.organization);
    return 0;
  } finally {
    await db.close();
  }
}

async function rebuildFromTemporal(config: ReturnType<typeof loadConfigOrExit>, db: Db, organizationIds: string[] | undefined): Promise<RebuildReport> {
  const connection = await connectTemporal(config.temporal);
  try {
    const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter: dataConverterOf(config) });
    const report = await rebuildReadModel(client, db, { schemaBase: config.schemaBase, eventSource: eventSource(config) }, { organizationIds });
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.stderr.write(`rebuilt ${report.resources} resources (${report.transitions} transitions, ${report.events} events) from ${report.runs} workflow runs in ${report.seconds.toFixed(1)} s\n`);
    if (report.incomplete.length) process.stderr.write(`${report.incomplete.length} resources start after version 1 (their first runs are past the namespace's retention)\n`);
    return report;
  } finally {
    await connection.close();
  }
}

/** The embedded default's data folder rebuilt where it is (see the head of this file). */
async function inPlace(organizationIds: string[] | undefined): Promise<number> {
  if (process.env.DATABASE_URL) {
    process.stderr.write('--in-place rebuilds the embedded default (DATA_DIR); with DATABASE_URL, rebuild into an empty database (--into-database-url) and point DATABASE_URL at it\n');
    return 2;
  }
  if (organizationIds?.length) {
    process.stderr.write('--in-place rebuilds every organization: the read model it replaces holds them all\n');
    return 2;
  }
  const dataDir = loadConfigOrExit().dataDir;
  const problem = formatProblem(dataFolderFormat(dataDir));
  if (problem || !existsSync(join(dataDir, 'temporal.sqlite'))) {
    process.stderr.write(`the data folder ${dataDir} ${problem ?? 'has no Temporal database (temporal.sqlite): nothing to rebuild from'}\n`);
    return 2;
  }
  const pid = brokerUsing(dataDir);
  if (pid) {
    process.stderr.write(`a broker (pid ${pid}) has ${dataDir} open: stop it first (Ctrl-C on npm start), then rebuild\n`);
    return 2;
  }
  markDataFolder(dataDir);
  const staging = join(dataDir, 'rebuild.tmp');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  const port = await freePort();
  const temporal = spawn(temporalCli(), devServerArgs({ port, dbFile: join(dataDir, 'temporal.sqlite') }), { stdio: ['ignore', 'ignore', 'pipe'] });
  // Its log (warnings as it stops) is shown only when the rebuild fails: its last lines say why.
  let temporalLog = '';
  temporal.stderr!.on('data', (chunk: Buffer) => (temporalLog = (temporalLog + chunk.toString()).slice(-4000)));
  process.stderr.write(`[rebuild] Temporal dev server on the folder's histories (127.0.0.1:${port})\n`);
  try {
    process.env.TEMPORAL_ADDRESS = `127.0.0.1:${port}`;
    const config = loadConfigOrExit();
    const rebuilt = await openReadModel({ dataDir: staging });
    try {
      const old = await openReadModel({ dataDir });
      try {
        // The transparency log first: the rebuild extends it rather than starting a second one.
        const log = await carryOver(old, rebuilt, LOG_TABLES);
        await rebuildFromTemporal(config, rebuilt, undefined);
        const carried = { ...log, ...(await carryOver(old, rebuilt)) };
        process.stderr.write(`[rebuild] carried over from the old read model: ${Object.entries(carried).map(([t, n]) => `${t} ${n}`).join(', ')}\n`);
      } finally {
        await old.close();
      }
    } finally {
      await rebuilt.close();
    }
  } catch (err) {
    process.stderr.write(`[rebuild] failed; the data folder is as it was (the partial rebuild is in ${staging}). The dev server's last lines:\n${temporalLog}\n`);
    throw err;
  } finally {
    await stop(temporal);
    unmarkDataFolder(dataDir);
  }
  const aside = join(dataDir, `pglite.before-rebuild-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  renameSync(join(dataDir, 'pglite'), aside);
  renameSync(join(staging, 'pglite'), join(dataDir, 'pglite'));
  rmSync(staging, { recursive: true, force: true });
  process.stderr.write(`[rebuild] done: ${join(dataDir, 'pglite')} is the rebuilt read model; the one it replaced is ${aside} (remove it once the broker runs well on the new one)\n`);
  return 0;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

runMain(main);
