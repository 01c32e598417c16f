// A read model restored from a logical dump keeps its events' transaction ids and starts its
// transaction counter afresh: every new event would sort before those connectors have read, and
// no feed would show it (read-model/events.ts, assertFeedCanGrow). The broker refuses to start on
// such a database, on both engines; an ordinary one (the counter past every event) passes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Db } from '../../core/db';
import { openReadModel } from '../../read-model/database';
import { assertFeedCanGrow } from '../../read-model/events';

const PG_ADMIN_URL = process.env.PCX_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

describe.each(['pglite', 'postgres'] as const)('the feed on %s', (engine) => {
  let db: Db;
  const schema = `pcx_feedcounter_${process.pid}_${Date.now()}`;
  beforeAll(async () => {
    if (engine === 'postgres') {
      const admin = new Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      await admin.end();
      db = await openReadModel({ databaseUrl: `${PG_ADMIN_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`, dataDir: '' });
    } else {
      db = await openReadModel({ dataDir: mkdtempSync(join(tmpdir(), 'pcx-feedcounter-')) });
    }
  }, 60000);
  afterAll(async () => {
    await db?.close();
    if (engine === 'postgres') {
      const admin = new Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
  });

  const insert = (txId: string) =>
    db.query(
      `insert into events (tx_id, id, resource_kind, resource_id, resource_version, type, owner_organization_id, audience, cloudevent)
       values ($1::text::xid8, gen_random_uuid(), 'capacity-offer', gen_random_uuid(), 1, 'pcx.capacity-offer.published.v1', 'org-a', '{org-a}', '{}')`,
      [txId],
    );

  test('an empty outbox, and one written by this database, can grow', async () => {
    await assertFeedCanGrow(db);
    await db.query(`insert into events (id, resource_kind, resource_id, resource_version, type, owner_organization_id, audience, cloudevent)
                    values (gen_random_uuid(), 'capacity-offer', gen_random_uuid(), 1, 'pcx.capacity-offer.published.v1', 'org-a', '{org-a}', '{}')`);
    await assertFeedCanGrow(db);
  });

  test('an outbox whose events came from a database further along (a logical restore) is refused, naming the remedy', async () => {
    const { rows } = await db.query<{ next: string }>('select pg_snapshot_xmax(pg_current_snapshot())::text as next');
    await insert(String(BigInt(rows[0].next) + 1_000_000n));
    await expect(assertFeedCanGrow(db)).rejects.toThrow(/transaction counter \(\d+\) is behind its outbox .*logical dump.*pg_resetwal -x/);
  });
});
