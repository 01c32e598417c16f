// The store of generated client secrets' hashes (and of managed users' invitation codes) (read-model/schema.sql `client_secret_hashes`).
import { clientSecretMatches } from '../core/client-secrets';
import type { Db } from '../core/db';

/** Keeps a credential's hash; false when the credential has one already (the first is kept). */
export async function storeSecretHash(db: Db, clientId: string, credentialId: string, secretHash: string): Promise<boolean> {
  const { rows } = await db.query(
    `insert into client_secret_hashes (client_id, credential_id, secret_hash) values ($1, $2, $3) on conflict do nothing returning credential_id`,
    [clientId, credentialId, secretHash],
  );
  return rows.length === 1;
}

export async function forgetSecretHash(db: Db, clientId: string, credentialId: string): Promise<void> {
  await db.query(`delete from client_secret_hashes where client_id = $1 and credential_id = $2`, [clientId, credentialId]);
}

/** The hashes of these credentials of a connector. */
export async function secretHashes(db: Db, clientId: string, credentialIds: readonly string[]): Promise<Array<{ credentialId: string; secretHash: string }>> {
  if (!credentialIds.length) return [];
  const { rows } = await db.query<{ credential_id: string; secret_hash: string }>(
    `select credential_id, secret_hash from client_secret_hashes where client_id = $1 and credential_id = any($2::text[])`,
    [clientId, credentialIds],
  );
  return rows.map((r) => ({ credentialId: r.credential_id, secretHash: r.secret_hash }));
}

/** The store key of a managed user's invitation code (the development identity provider's password for it). */
export const invitationKey = (userId: string) => ({ clientId: `user:${userId}`, credentialId: 'invitation' });

/** Whether `code` is the user's current invitation code. */
export async function invitationCodeMatches(db: Db, userId: string, code: string): Promise<boolean> {
  const key = invitationKey(userId);
  const [stored] = await secretHashes(db, key.clientId, [key.credentialId]);
  return !!stored && (await clientSecretMatches(code, stored.secretHash));
}
