// A read model restored from a logical dump keeps its events' transaction ids and starts its
// transaction counter afresh: every new event would sort before those connectors have read, and
// no feed would show it (read-model/events.ts, assertFeedCanGrow). The broker refuses to start on
// such a database, on both engines; an ordinary one (the counter past every event) passes.
import type { Db } from '../../core/db';
import { openReadModel } from '../../read-model/database';
import { assertFeedCanGrow } from '../../read-model/events';
import { ENGINES, scratchDatabase } from './scratch-database';

describe.each(ENGINES)('the feed on %s', (engine) => {
  let db: Db;
  let drop: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    ({ db, drop } = await scratchDatabase(engine, 'feed-counter', openReadModel));
  }, 60000);
  afterAll(() => drop());

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
