// The store of generated client secrets' hashes (and of managed users' invitation codes) (read-model/schema.sql `client_secret_hashes`).
import { clientSecretMatches } from '../core/client-secrets';
import type { Db, Queryable } from '../core/db';
import type { Connector } from '../domain/connector';
import { connector } from '../domain/connector';
import { user, type User } from '../domain/user';
import { projectDocument, type Projector } from './projection-document';

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

/**
 * A connector's row (the standard read model, its document without the hashes), and the hashes of
 * its generated secrets that its workflow state holds, into this store: by the live writes and by
 * a rebuild from Temporal alike, so that a rebuilt read model signs its connectors in. The first
 * hash of a credential stays (the API stored it before the command).
 */
export const projectConnector: Projector = async (tx: Queryable, snapshot: Connector) => {
  for (const [credentialId, hash] of Object.entries(snapshot.secretHashes ?? {})) {
    await tx.query(`insert into client_secret_hashes (client_id, credential_id, secret_hash) values ($1, $2, $3) on conflict do nothing`, [snapshot.clientId, credentialId, hash]);
  }
  return projectConnectorDocument(tx, snapshot);
};
const projectConnectorDocument = projectDocument(connector);

/**
 * A user's row, and the hash of its open invitation's code from its workflow state into this store
 * (the development identity provider checks it), live and in a rebuild alike; a reinvitation's
 * replaces the earlier one's.
 */
export const projectUser: Projector = async (tx: Queryable, snapshot: User) => {
  if (snapshot.invitationHash) {
    const key = invitationKey(snapshot.userId);
    await tx.query(
      `insert into client_secret_hashes (client_id, credential_id, secret_hash) values ($1, $2, $3) on conflict (client_id, credential_id) do update set secret_hash = excluded.secret_hash`,
      [key.clientId, key.credentialId, snapshot.invitationHash],
    );
  }
  return projectUserDocument(tx, snapshot);
};
const projectUserDocument = projectDocument(user);
