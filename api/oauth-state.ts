// What the OAuth endpoints and gate 1 keep between requests (api/client-authentication.ts,
// api/token.ts, api/token-lifecycle.ts, api/gates.ts): the tokens revoked before their expiry (the
// read model's, kept in memory on every replica), the key sets of connectors' jwks_uri (fetched the
// SSRF-safe way, cached), the DPoP nonces (derived from the token signing key, so every replica
// mints and accepts the same), and the operator's trust anchors for client certificates.
import type { X509Certificate } from 'node:crypto';
import type { Config } from '../core/config';
import type { Db } from '../core/db';
import type { SigningKey } from '../core/auth';
import type { Logger } from '../core/log';
import { keySetCache, type KeySetCache } from '../core/client-key-sets';
import { nonceSource, type NonceSource } from '../core/dpop';
import { createResolver } from '../core/webhooks/target';
import { revokedTokens, type RevokedTokens } from '../read-model/revoked-tokens';

export interface OAuthState {
  revocations: RevokedTokens;
  keySets: KeySetCache;
  nonces: NonceSource;
  /** CLIENT_CA_FILE: the authorities under which tls_client_auth certificates and assertions' x5c chains are accepted. */
  trustAnchors: X509Certificate[];
}

export async function createOAuthState(options: { config: Config; db: Db; signingKey?: SigningKey; log: Logger }): Promise<OAuthState> {
  const { config, db, signingKey, log } = options;
  const webhooks = config.webhooks;
  return {
    revocations: await revokedTokens(db, { onError: (err) => log.warn({ error: String(err) }, 'revoked tokens could not be refreshed') }),
    keySets: keySetCache({ allowCidrs: webhooks.allowCidrs, resolve: createResolver({ servers: webhooks.dnsServers, minTtlSeconds: webhooks.dnsMinTtlSeconds }), ...(webhooks.ca ? { ca: webhooks.ca } : {}) }),
    // The signing key's private scalar is the secret every replica shares; without a token endpoint no proof reaches a nonce.
    nonces: nonceSource(String(signingKey?.privateJwk.d ?? 'no-token-endpoint')),
    trustAnchors: config.auth.clientTrustAnchors,
  };
}
