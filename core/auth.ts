// Bearer token verification (gate 1) and the development authorization server's signing key.
// The key set is fixed by configuration: AUTH_JWKS_URL, or the development server's own key.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import { errors as joseErrors } from 'jose';
import type { Config } from './config';
import { Problem } from './problems';

export interface TokenClaims extends JWTPayload {
  sub: string;
  scope?: string;
  org_id?: string;
}

export interface DevSigningKey {
  privateJwk: JWK;
  publicJwk: JWK;
}

const ALG = 'ES256';

/** The development server's key pair, kept under the data folder so tokens survive a restart. */
export async function loadDevSigningKey(dataDir: string): Promise<DevSigningKey> {
  const file = join(dataDir, 'dev-auth-key.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const key: DevSigningKey = {
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: ALG, use: 'sig' },
    publicJwk: { ...publicJwk, kid, alg: ALG, use: 'sig' },
  };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(key), { mode: 0o600 });
  return key;
}

export async function signDevToken(
  key: DevSigningKey,
  config: Config,
  claims: { sub: string; org_id: string; scope: string },
): Promise<string> {
  const privateKey = await importJWK(key.privateJwk, ALG);
  return new SignJWT({ scope: claims.scope, org_id: claims.org_id })
    .setProtectedHeader({ alg: ALG, kid: key.privateJwk.kid, typ: 'at+jwt' })
    .setIssuer(config.auth.issuer)
    .setAudience(config.auth.audience)
    .setSubject(claims.sub)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${config.auth.tokenTtlSeconds}s`)
    .sign(privateKey);
}

export type TokenVerifier = (token: string) => Promise<TokenClaims>;

export function createTokenVerifier(config: Config, devKey?: DevSigningKey): TokenVerifier {
  const keySet = config.auth.jwksUrl
    ? createRemoteJWKSet(new URL(config.auth.jwksUrl))
    : createLocalJWKSet({ keys: [devKey!.publicJwk] });
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, keySet, {
        audience: config.auth.audience,
        issuer: config.auth.issuer,
        algorithms: ['ES256', 'RS256', 'PS256', 'EdDSA'],
      });
      if (typeof payload.sub !== 'string' || !payload.sub) throw new Problem('INVALID_TOKEN', 'the token has no subject');
      return payload as TokenClaims;
    } catch (err) {
      if (err instanceof Problem) throw err;
      if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud') {
        throw new Problem('TOKEN_AUDIENCE_MISMATCH', 'the token audience is not this broker');
      }
      if (err instanceof joseErrors.JWTExpired) throw new Problem('INVALID_TOKEN', 'the token has expired');
      // The key set could not be fetched: our outage, not the caller's bad token.
      if (err instanceof joseErrors.JWKSTimeout || !(err instanceof joseErrors.JOSEError)) {
        throw new Problem('SERVICE_UNAVAILABLE', 'the key set could not be loaded; retry later');
      }
      throw new Problem('INVALID_TOKEN', 'the token could not be verified');
    }
  };
}
