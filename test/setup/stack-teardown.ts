import { allDoneWithSharedStart, stopEmbedded } from '../stack';
import { adminQuery } from '../pg-admin';
import type { SharedStart } from './stack-setup';

// Runs once per project; the last one stops what the projects share.
export async function tearDownStack() {
  const s = (globalThis as any).__pcx;
  if (!s) return;
  s.users--;
  if (s.users > 0) return;
  // The shared npm start (stack-setup.ts) stops as Ctrl-C stops it (once it has booted, if it
  // still is), while the brokers stop; the last file that used it has interrupted it already
  // (then its exit is only waited for, SIGKILL after 30 s).
  const shared: SharedStart | undefined = s.npmStart;
  const npmStart = shared ? shared.booting.then(() => (shared.child ? stopEmbedded(shared.child, 30000, { interrupted: allDoneWithSharedStart(shared.values) }) : 0)) : Promise.resolve(0);
  for (const { broker, schema } of s.stacks) {
    await broker.stop();
    if (schema) await adminQuery(`drop schema if exists ${schema} cascade`);
  }
  await s.temporal?.stop();
  await s.webhooks?.dns.close();
  const code = await npmStart;
  delete (globalThis as any).__pcx;
  // What each of its test files checked when it had a start of its own: it stops cleanly.
  if (code !== 0) throw new Error(`the shared npm start exited with ${code} on SIGINT:\n${shared?.child?.output?.() ?? ''}`);
}
