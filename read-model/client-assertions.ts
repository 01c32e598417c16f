// The jti store of private_key_jwt (core/client-assertion.ts): an assertion is accepted once. The
// row lives until the assertion expires (then a replay is refused as expired anyway); the
// housekeeping of broker.ts purges it after.
import type { Db } from '../core/db';

/** Remembers an accepted assertion's jti; false when the client used it before (a replay). */
export async function rememberAssertion(db: Db, clientId: string, jti: string, expiresAtSeconds: number): Promise<boolean> {
  const { rows } = await db.query(
    `insert into client_assertion_jtis (client_id, jti, expires_at) values ($1, $2, to_timestamp($3))
     on conflict (client_id, jti) do nothing returning jti`,
    [clientId, jti, expiresAtSeconds],
  );
  return rows.length === 1;
}

export async function purgeExpiredAssertions(db: Db): Promise<void> {
  await db.query(`delete from client_assertion_jtis where expires_at < now() - interval '5 minutes'`);
}
