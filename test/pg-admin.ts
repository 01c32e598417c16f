// The test PostgreSQL as its administrator sees it: where it is, one statement on it (a scratch
// schema made or dropped), and the URL of a connection that works in one schema. Shared by the
// stack's set-up, the time-skipping harness and the unit tests' scratch databases.
import { Client } from 'pg';

export const PG_ADMIN_URL = process.env.PCX_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Runs one statement as the administrator, on a connection of its own. */
export async function adminQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A connection URL whose statements run in `schema`. */
export const schemaUrl = (schema: string): string => `${PG_ADMIN_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
