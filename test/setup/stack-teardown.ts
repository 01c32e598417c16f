import { Client } from 'pg';
import { PG_ADMIN_URL } from './stack-setup';

// Runs once per project; the last one stops what the projects share.
export async function tearDownStack() {
  const s = (globalThis as any).__pcx;
  if (!s) return;
  s.users--;
  if (s.users > 0) return;
  for (const { broker, schema } of s.stacks) {
    await broker.stop();
    if (schema) {
      const admin = new Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
  }
  await s.temporal.stop();
  await s.webhooks?.dns.close();
  delete (globalThis as any).__pcx;
}
