// The database interface behaves the same on both engines. PGlite's result objects differ from
// pg's (affectedRows is 0 for a SELECT), and a rule that read "rows found" from the wrong field
// once made publishing to partners impossible on the embedded default: every query shape the
// code relies on is checked here against PGlite and PostgreSQL alike.
import { migrate, MIGRATE_ATTEMPTS, openDb, type Db } from '../../core/db';
import { ENGINES, scratchDatabase } from './scratch-database';

describe.each(ENGINES)('core/db on %s', (engine) => {
  let db: Db;
  let drop: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    ({ db, drop } = await scratchDatabase(engine, 'dbtest', openDb));
    await db.query('create table t (id int primary key, v text)');
  }, 60000);

  afterAll(() => drop());

  test('rowCount of a SELECT is the number of rows it returned', async () => {
    await db.query("insert into t values (1, 'a'), (2, 'b'), (3, 'c')");
    expect((await db.query('select 1 from t where id > 1')).rowCount).toBe(2);
    expect((await db.query('select 1 from t where id > 1 limit 1')).rowCount).toBe(1);
    expect((await db.query('select 1 from t where id > 99')).rowCount).toBe(0);
  });

  test('rowCount of INSERT, UPDATE and DELETE is the number of rows changed, with or without RETURNING', async () => {
    expect((await db.query("insert into t values (10, 'x'), (11, 'y')")).rowCount).toBe(2);
    expect((await db.query("insert into t values (10, 'x') on conflict do nothing")).rowCount).toBe(0);
    expect((await db.query("update t set v = 'z' where id >= 10")).rowCount).toBe(2);
    expect((await db.query("update t set v = 'z' where id >= 10 returning id")).rowCount).toBe(2);
    expect((await db.query('delete from t where id = 10 returning id')).rowCount).toBe(1);
    expect((await db.query('delete from t where id = 10')).rowCount).toBe(0);
  });

  test('a transaction sees its own writes and rolls back on error', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query("insert into t values (20, 'in tx')");
        expect((await tx.query('select 1 from t where id = 20')).rowCount).toBe(1);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await db.query('select 1 from t where id = 20')).rowCount).toBe(0);
  });
});

describe('core/db migrate', () => {
  /** A database whose schema transaction fails with `codes` in turn, then succeeds. */
  function failing(codes: string[]): Db & { attempts: number } {
    const fake = {
      engine: 'postgres' as const,
      attempts: 0,
      query: async () => ({ rows: [], rowCount: 0 }),
      transaction: async (fn: (tx: any) => Promise<unknown>) => {
        const code = codes[fake.attempts++];
        if (code) throw Object.assign(new Error(`failed with ${code}`), { code });
        return fn({ query: async () => ({ rows: [], rowCount: 0 }) });
      },
      close: async () => undefined,
    };
    return fake as any;
  }

  test("tries again when PostgreSQL makes the schema update a deadlock's victim (40P01)", async () => {
    const db = failing(['40P01', '40P01']);
    await migrate(db, [], 1);
    expect(db.attempts).toBe(3);
  });

  test('gives up after MIGRATE_ATTEMPTS deadlocks, and at once on any other error', async () => {
    const deadlocked = failing(Array(MIGRATE_ATTEMPTS).fill('40P01'));
    await expect(migrate(deadlocked, [], 1)).rejects.toMatchObject({ code: '40P01' });
    expect(deadlocked.attempts).toBe(MIGRATE_ATTEMPTS);
    const broken = failing(['42601']);
    await expect(migrate(broken, [], 1)).rejects.toMatchObject({ code: '42601' });
    expect(broken.attempts).toBe(1);
  });
});
