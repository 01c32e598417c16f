// A managed connector's keys' last use (the token endpoint records it; its admins read it). The
// managed connectors themselves reach gate 2 through read-model/managed-registry.ts.
import type { Db } from '../core/db';

/** A managed connector's key authenticated at the token endpoint now: its last use, for its admins. */
export async function recordCredentialUse(db: Db, clientId: string, credentialId: string): Promise<void> {
  await db.query(
    `insert into credential_uses (client_id, credential_id, last_used_at) values ($1, $2, now())
     on conflict (client_id, credential_id) do update set last_used_at = excluded.last_used_at`,
    [clientId, credentialId],
  );
}

/** When each key of these connectors was last used: client id -> credential id -> ISO time. */
export async function credentialUses(db: Db, clientIds: readonly string[]): Promise<Map<string, Map<string, string>>> {
  const uses = new Map<string, Map<string, string>>();
  if (!clientIds.length) return uses;
  const { rows } = await db.query<{ client_id: string; credential_id: string; last_used_at: Date | string }>(
    `select client_id, credential_id, last_used_at from credential_uses where client_id = any($1::text[])`,
    [clientIds],
  );
  for (const r of rows) {
    const at = new Date(r.last_used_at).toISOString().replace(/\.(\d{3})Z$/, (m, ms) => (ms === '000' ? 'Z' : m));
    uses.set(r.client_id, (uses.get(r.client_id) ?? new Map()).set(r.credential_id, at));
  }
  return uses;
}
