// A scratch database on either engine, for the unit tests that check a query shape on both: a
// schema of its own on the test PostgreSQL, or a fresh PGlite folder; dropped afterwards.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

export const ENGINES = ['pglite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];

const PG_ADMIN_URL = process.env.PCX_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Opens a scratch database named after `name` with `open` (core/db.ts openDb, or the read model's openReadModel); `drop` closes and removes it. */
export async function scratchDatabase<D extends { close(): Promise<void> }>(engine: Engine, name: string, open: (at: { databaseUrl?: string; dataDir: string }) => Promise<D>): Promise<{ db: D; drop(): Promise<void> }> {
  if (engine === 'pglite') {
    const db = await open({ dataDir: mkdtempSync(join(tmpdir(), `pcx-${name}-`)) });
    return { db, drop: () => db.close() };
  }
  const schema = `pcx_${name.replace(/-/g, '')}_${process.pid}_${Date.now()}`;
  await admin(`create schema ${schema}`);
  const db = await open({ databaseUrl: `${PG_ADMIN_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`, dataDir: '' });
  return {
    db,
    drop: async () => {
      await db.close();
      await admin(`drop schema if exists ${schema} cascade`);
    },
  };
}
