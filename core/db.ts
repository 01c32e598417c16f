// One small database interface over two engines: a PostgreSQL pool when DATABASE_URL is set, and
// an embedded PGlite under the data folder otherwise. PGlite is a single backend, so every query
// and transaction on it is serialised through one mutex (a transaction holds it throughout).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Mutex } from 'async-mutex';
import { Pool, types } from 'pg';

// int8 (bigserial cursors, counts) as JS numbers: our values stay far below 2^53.
types.setTypeParser(20, (v) => Number(v));

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = any>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface Db extends Queryable {
  engine: 'postgres' | 'pglite';
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Opens a database and brings its schema up to date with `schema`, idempotent statements the
 * caller gives (the read model's: read-model/database.ts); without them nothing is migrated.
 */
export async function openDb(options: { databaseUrl?: string; dataDir: string; poolSize?: number; schema?: readonly string[] }): Promise<Db> {
  const db = options.databaseUrl ? openPostgres(options.databaseUrl, options.poolSize ?? 20) : await openPglite(options.dataDir);
  if (options.schema?.length) await migrate(db, options.schema);
  return db;
}

/**
 * node-postgres reports a connection that died under a query (a server restarted or killed) by
 * message only ("Connection terminated unexpectedly"): given SQLSTATE 08006 (connection_failure),
 * so that it is known as the database being away (503 with Retry-After, api/http.ts), not a fault.
 */
export function classified(err: unknown): unknown {
  if (err instanceof Error && typeof (err as { code?: unknown }).code !== 'string' && DEAD_CONNECTION.test(err.message)) {
    (err as { code?: string }).code = '08006';
  }
  return err;
}
const DEAD_CONNECTION = /Connection terminated|terminating connection|Connection ended|Client was closed|Client has encountered a connection error|timeout exceeded when trying to connect|the database system is (starting up|shutting down)/i;

function openPostgres(url: string, max: number): Db {
  // A server that does not answer fails a request within seconds (503), instead of holding it.
  const pool = new Pool({ connectionString: url, max, connectionTimeoutMillis: 5000 });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return {
    engine: 'postgres',
    async query(sql, params) {
      const r = await pool.query(sql, params as any[]).catch((err) => {
        throw classified(err);
      });
      return { rows: r.rows, rowCount: r.rowCount ?? 0 };
    },
    async transaction(fn) {
      const client = await pool.connect().catch((err) => {
        throw classified(err);
      });
      // A connection that dies while checked out and between queries (a server killed or
      // restarted) is reported as the client's 'error' event: without a listener it would be
      // thrown as an uncaught error and end the process. The query in flight, if any, fails too.
      const onError = () => undefined;
      client.on('error', onError);
      let broken = false;
      try {
        await client.query('begin');
        const result = await fn({
          async query(sql, params) {
            const r = await client.query(sql, params as any[]);
            return { rows: r.rows, rowCount: r.rowCount ?? 0 };
          },
        });
        await client.query('commit');
        return result;
      } catch (err) {
        classified(err);
        broken = (err as { code?: string }).code === '08006';
        if (!broken) await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        // A dead connection is not given back to the pool.
        client.off('error', onError);
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

async function openPglite(dataDir: string): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  // PGlite ships contrib extensions as modules to load; schema.sql then creates them.
  const { btree_gist } = await import('@electric-sql/pglite/contrib/btree_gist');
  const dir = join(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  const pg = await PGlite.create(dir, { extensions: { btree_gist } });
  const mutex = new Mutex();
  const run = async <T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> => {
    const r = await pg.query<T>(sql, params as any[]);
    // PGlite's affectedRows counts only rows an INSERT/UPDATE/DELETE changed (0 for a SELECT),
    // whereas pg's rowCount is the rows a statement returned or changed. A statement that
    // returns columns reports its rows, as pg does; otherwise the rows it changed.
    return { rows: r.rows, rowCount: r.fields.length > 0 ? r.rows.length : (r.affectedRows ?? 0) };
  };
  return {
    engine: 'pglite',
    query: (sql, params) => mutex.runExclusive(() => run(sql, params)),
    transaction: (fn) =>
      mutex.runExclusive(async () => {
        await run('begin');
        try {
          const result = await fn({ query: run });
          await run('commit');
          return result;
        } catch (err) {
          await run('rollback').catch(() => undefined);
          throw err;
        }
      }),
    close: () => mutex.runExclusive(() => pg.close()),
  };
}

/** How often a schema update that PostgreSQL chose as a deadlock's victim is tried. */
export const MIGRATE_ATTEMPTS = 5;

export async function migrate(db: Db, statements: readonly string[], pauseMs = 200) {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.transaction(async (tx) => {
        // Several replicas may start at once against one PostgreSQL: migrate one at a time.
        if (db.engine === 'postgres') await tx.query('select pg_advisory_xact_lock(7426011)');
        for (const statement of statements) await tx.query(statement);
      });
      return;
    } catch (err) {
      // The schema's IF NOT EXISTS statements still take their tables' locks, so against a database
      // that running brokers use they can deadlock with those brokers' transactions; PostgreSQL
      // then aborts one side (40P01). Every statement is idempotent: the update is tried again.
      if ((err as { code?: unknown })?.code !== '40P01' || attempt >= MIGRATE_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, pauseMs * attempt));
    }
  }
}
