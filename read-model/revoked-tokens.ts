// Access tokens revoked by their connector before they expire (RFC 7009, api/token-lifecycle.ts):
// gate 1 and introspection ask on every request, so the set is kept in memory and refreshed every
// REFRESH_MS from the read model (one cheap row: how many, and the latest revocation), like the
// managed registry; a replica learns of a revocation another one wrote within a second, and the one
// that wrote it at once. A row is kept until the token would have expired anyway.
import type { Db } from '../core/db';
import { everyFewMoments } from './managed-registry';

export interface RevokedTokens {
  /** Whether the token with this jti was revoked (as of the last refresh). */
  has(jti: string): boolean;
  /** Revokes a token (idempotent), and knows it at once on this replica. */
  revoke(token: { jti: string; clientId: string; expiresAt: number }): Promise<void>;
  refresh(): Promise<void>;
  stop(): void;
}

export async function revokedTokens(db: Db, options: { refreshMs?: number; onError?: (err: unknown) => void } = {}): Promise<RevokedTokens> {
  let revoked = new Set<string>();
  let mark = '';
  const refresh = async () => {
    const { rows } = await db.query<{ n: number; latest: string | null }>(`select count(*)::int as n, max(revoked_at)::text as latest from revoked_tokens`);
    const now = `${rows[0].n}:${rows[0].latest ?? ''}`;
    if (now === mark) return;
    const all = await db.query<{ jti: string }>(`select jti from revoked_tokens where expires_at > now() - interval '5 minutes'`);
    revoked = new Set(all.rows.map((r) => r.jti));
    mark = now;
  };
  await refresh();
  const timer = everyFewMoments(refresh, options);
  return {
    has: (jti) => revoked.has(jti),
    async revoke({ jti, clientId, expiresAt }) {
      await db.query(`insert into revoked_tokens (jti, client_id, expires_at) values ($1, $2, to_timestamp($3)) on conflict (jti) do nothing`, [jti, clientId, expiresAt]);
      revoked.add(jti);
    },
    refresh,
    stop: () => clearInterval(timer),
  };
}

export async function purgeExpiredRevocations(db: Db): Promise<void> {
  await db.query(`delete from revoked_tokens where expires_at < now() - interval '10 minutes'`);
}
