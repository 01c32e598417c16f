// A scratch database on either engine, for the unit tests that check a query shape on both: a
// schema of its own on the test PostgreSQL, or a fresh PGlite folder; dropped afterwards.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminQuery, schemaUrl } from '../pg-admin';

export const ENGINES = ['pglite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];

/** Opens a scratch database named after `name` with `open` (core/db.ts openDb, or the read model's openReadModel); `drop` closes and removes it. */
export async function scratchDatabase<D extends { close(): Promise<void> }>(engine: Engine, name: string, open: (at: { databaseUrl?: string; dataDir: string }) => Promise<D>): Promise<{ db: D; drop(): Promise<void> }> {
  if (engine === 'pglite') {
    const db = await open({ dataDir: mkdtempSync(join(tmpdir(), `pcx-${name}-`)) });
    return { db, drop: () => db.close() };
  }
  const schema = `pcx_${name.replace(/-/g, '')}_${process.pid}_${Date.now()}`;
  await adminQuery(`create schema ${schema}`);
  const db = await open({ databaseUrl: schemaUrl(schema), dataDir: '' });
  return {
    db,
    drop: async () => {
      await db.close();
      await adminQuery(`drop schema if exists ${schema} cascade`);
    },
  };
}
