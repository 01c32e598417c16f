import { Client } from 'pg';
import { PG_ADMIN_URL } from './global-setup';

export default async function globalTeardown() {
  const stack = (globalThis as any).__pcx;
  if (!stack) return;
  await stack.broker.stop();
  await stack.temporal.stop();
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`drop schema if exists ${stack.schema} cascade`);
  await admin.end();
}
