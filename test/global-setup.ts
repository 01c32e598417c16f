// Starts one Temporal dev server, one PostgreSQL schema (database `test` on 127.0.0.1:5432) and one
// broker process for the whole run. Tests reach them over HTTP and SQL; see test/helpers.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startBroker, startTemporal, writeTestRegistry } from './stack';

export const PG_ADMIN_URL = process.env.PCX_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export default async function globalSetup() {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-test-'));
  const schema = `pcx_test_${process.pid}_${Date.now()}`;
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const databaseUrl = `${PG_ADMIN_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;

  const temporal = await startTemporal();
  const registry = writeTestRegistry(dir);
  const taskQueue = `pcx-test-${process.pid}`;
  const brokerEnv = {
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    DATABASE_URL: databaseUrl,
    ORGANIZATIONS_FILE: registry.organizationsFile,
    CONNECTORS_FILE: registry.connectorsFile,
    // Small enough that the tests exercise continue-as-new and the limits.
    WORKFLOW_CONTINUE_AS_NEW_COMMANDS: '6',
    RATE_LIMIT_TOKEN_PER_MINUTE: '100',
    RATE_LIMIT_ORG_PER_MINUTE: '300',
    MAX_PENDING_OUTBOUND: '5',
    LOG_LEVEL: 'info',
  };
  const broker = await startBroker(brokerEnv, join(dir, 'data'), join(dir, 'broker.log'));

  const env = { dir, schema, databaseUrl, baseUrl: broker.baseUrl, dataDir: broker.dataDir, temporalAddress: temporal.address, taskQueue, brokerEnv, registry };
  writeFileSync(join(dir, 'env.json'), JSON.stringify(env, null, 2));
  process.env.PCX_TEST_ENV = join(dir, 'env.json');
  (globalThis as any).__pcx = { temporal, broker, schema };
}
