// Bearer token verification (gate 1) and the development authorization server's signing key.
// The key set is fixed by configuration: AUTH_JWKS_URL, or the development server's own key.
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  calculateJwkThumbprint,
  decodeJwt,
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
import { Problem } from '../domain/problems';

export interface TokenClaims extends JWTPayload {
  sub: string;
  scope?: string;
  org_id?: string;
  /** An interactive user's token: the OIDC client it was issued to (RFC 9068). */
  client_id?: string;
  /** The credential (a managed connector's key id) the token was issued to (api/token.ts). */
  cred?: string;
  /** RFC 8705 section 3.1: a token bound to the client certificate with this SHA-256 thumbprint; RFC 9449 section 6: to the DPoP key with this thumbprint (gate 1 asks for each). */
  cnf?: { 'x5t#S256'?: string; jkt?: string };
  /** Whose token: a connector's (the authorization server's) or a user's (the users' identity provider). */
  kind: 'connector' | 'user';
}

export interface SigningKey {
  privateJwk: JWK;
  publicJwk: JWK;
}

const ALG = 'ES256';

/**
 * The key pair the broker's token endpoint (and the development identity provider) signs with:
 * the operator's (`keyFile`, a private JWK of ES256 mounted in every replica), or one generated
 * once into the data folder, so that tokens survive a restart (a single host, or development).
 */
export async function loadSigningKey(dataDir: string, keyFile?: string): Promise<SigningKey> {
  if (keyFile) return signingKeyOf(JSON.parse(readFileSync(keyFile, 'utf8')));
  const file = join(dataDir, 'dev-auth-key.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const key: SigningKey = {
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: ALG, use: 'sig' },
    publicJwk: { ...publicJwk, kid, alg: ALG, use: 'sig' },
  };
  mkdirSync(dataDir, { recursive: true });
  // Processes sharing a data folder may start at once (two APIs behind one address): the key is
  // written whole to a file of its own, then linked into place, which only one of them can do; the
  // others read the key that won, so a token one signs is good at every other.
  const mine = `${file}.${process.pid}.${randomUUID()}`;
  writeFileSync(mine, JSON.stringify(key), { mode: 0o600 });
  try {
    linkSync(mine, file);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return JSON.parse(readFileSync(file, 'utf8'));
  } finally {
    rmSync(mine, { force: true });
  }
}

/** A private JWK given by the operator, as the signing key: its public half and kid derived. */
async function signingKeyOf(jwk: JWK): Promise<SigningKey> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.d) throw new Error('TOKEN_SIGNING_KEY_FILE must hold a private EC P-256 JWK (ES256)');
  const { d: _private, ...publicJwk } = jwk;
  const kid = jwk.kid ?? (await calculateJwkThumbprint(publicJwk));
  return { privateJwk: { ...jwk, kid, alg: ALG, use: 'sig' }, publicJwk: { ...publicJwk, kid, alg: ALG, use: 'sig' } };
}

export async function signToken(
  key: SigningKey,
  config: Config,
  claims: { sub: string; org_id: string; scope: string; cred?: string; certificateThumbprint?: string; jkt?: string; lifetimeSeconds?: number },
): Promise<string> {
  const privateKey = await importJWK(key.privateJwk, ALG);
  // cred: the credential (a managed connector's key id) the token was issued to; gate 2 refuses
  // the token once that credential is revoked or has expired.
  // cnf: a token issued to a client that authenticated with its certificate (RFC 8705), or that
  // sent a DPoP proof (RFC 9449), works only with that certificate or with proofs of that key, so a
  // stolen token is of no use without the client's key.
  const cnf = { ...(claims.certificateThumbprint ? { 'x5t#S256': claims.certificateThumbprint } : {}), ...(claims.jkt ? { jkt: claims.jkt } : {}) };
  return new SignJWT({
    scope: claims.scope,
    org_id: claims.org_id,
    ...(claims.cred ? { cred: claims.cred } : {}),
    ...(Object.keys(cnf).length ? { cnf } : {}),
  })
    .setProtectedHeader({ alg: ALG, kid: key.privateJwk.kid, typ: 'at+jwt' })
    .setIssuer(config.auth.tokenEndpoint!.issuer)
    .setAudience(config.auth.audience)
    .setSubject(claims.sub)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${claims.lifetimeSeconds ?? config.auth.tokenTtlSeconds}s`)
    .sign(privateKey);
}

export type TokenVerifier = (token: string) => Promise<TokenClaims>;

/**
 * Gate 1. Besides signature, issuer and audience (RFC 8725 section 3.10 and RFC 9068): `exp` is
 * required; `exp`, `nbf` and `iat` are checked with AUTH_CLOCK_SKEW_SECONDS of leeway, so a token
 * issued (or valid from) further in the future is refused; and the lifetime, exp - iat (or exp -
 * now without iat), may not exceed AUTH_MAX_TOKEN_LIFETIME_SECONDS. Each refusal says why.
 */
export function createTokenVerifier(config: Config, signingKey?: SigningKey): TokenVerifier {
  // Connectors' tokens from the broker's own token endpoint, and from an external identity provider (AUTH_ISSUER).
  const broker = config.auth.tokenEndpoint ? issuerVerifier(config, config.auth.tokenEndpoint.issuer, undefined, signingKey, 'connector') : undefined;
  const external = config.auth.jwksUrl ? issuerVerifier(config, config.auth.issuer, config.auth.jwksUrl, signingKey, 'connector') : undefined;
  const users = config.auth.users ? issuerVerifier(config, config.auth.users.issuer, config.auth.users.jwksUrl, signingKey, 'user') : undefined;
  return async (token) => {
    // Which key set is asked is decided by the (unverified) issuer; the signature, issuer and
    // audience are then verified against that issuer's own keys only.
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw new Problem('INVALID_TOKEN', 'the token could not be verified');
    }
    if (users && issuer === config.auth.users!.issuer) return users(token);
    if (broker && issuer === config.auth.tokenEndpoint!.issuer) return broker(token);
    // Anything else is judged by the external issuer's verifier (or the broker's), which names what is wrong.
    return (external ?? broker)!(token);
  };
}

/** Gate 1 for one issuer's tokens: its key set (configured, or the development server's key). */
function issuerVerifier(config: Config, issuer: string, jwksUrl: string | undefined, signingKey: SigningKey | undefined, kind: TokenClaims['kind']): TokenVerifier {
  const keySet = jwksUrl ? createRemoteJWKSet(new URL(jwksUrl)) : createLocalJWKSet({ keys: [signingKey!.publicJwk] });
  const { clockSkewSeconds: skew, maxTokenLifetimeSeconds: maxLifetime } = config.auth;
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, keySet, {
        audience: config.auth.audience,
        issuer,
        algorithms: ['ES256', 'RS256', 'PS256', 'EdDSA'],
        requiredClaims: ['exp'],
        clockTolerance: skew,
      });
      if (typeof payload.sub !== 'string' || !payload.sub) throw new Problem('INVALID_TOKEN', 'the token has no subject');
      checkLifetime(payload, skew, maxLifetime);
      // jti keys the per-token rate limit in PostgreSQL: it must be storable (RFC 7519: a string).
      if (payload.jti !== undefined && !isStorableId(payload.jti)) {
        throw new Problem('INVALID_TOKEN', 'the token jti claim must be a string of 1 to 255 characters without control characters or unpaired surrogates');
      }
      return { ...payload, kind } as TokenClaims;
    } catch (err) {
      if (err instanceof Problem) throw err;
      if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud') {
        throw new Problem('TOKEN_AUDIENCE_MISMATCH', 'the token audience is not this broker');
      }
      if (err instanceof joseErrors.JWTExpired) throw new Problem('INVALID_TOKEN', 'the token has expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed) throw new Problem('INVALID_TOKEN', claimRefusal(err));
      // The key set could not be fetched: our outage, not the caller's bad token.
      if (err instanceof joseErrors.JWKSTimeout || !(err instanceof joseErrors.JOSEError)) {
        throw new Problem('SERVICE_UNAVAILABLE', 'the key set could not be loaded; retry later');
      }
      throw new Problem('INVALID_TOKEN', 'the token could not be verified');
    }
  };
}

/** Checks jose leaves to the caller: iat not in the future, and a bounded lifetime. */
function checkLifetime(payload: JWTPayload, skew: number, maxLifetime: number): void {
  const now = Math.floor(Date.now() / 1000);
  const exp = payload.exp!; // required and checked to be a number by jwtVerify
  if (payload.iat !== undefined) {
    if (payload.iat > now + skew) throw new Problem('INVALID_TOKEN', `the token iat lies in the future (more than ${skew} s ahead of the broker's clock)`);
    if (exp - payload.iat > maxLifetime) {
      throw new Problem('INVALID_TOKEN', `the token lifetime (exp - iat = ${exp - payload.iat} s) exceeds the maximum of ${maxLifetime} s`);
    }
  } else if (exp - now > maxLifetime + skew) {
    throw new Problem('INVALID_TOKEN', `the token has no iat and expires more than ${maxLifetime} s from now, the maximum lifetime`);
  }
}

function claimRefusal(err: InstanceType<typeof joseErrors.JWTClaimValidationFailed>): string {
  if (err.reason === 'missing') {
    return err.claim === 'exp' ? 'the token has no exp claim; tokens must expire' : `the token has no ${err.claim} claim`;
  }
  if (err.claim === 'iss') return 'the token issuer is not the one this broker trusts';
  if (err.claim === 'nbf' && err.reason === 'check_failed') return 'the token is not valid yet (nbf lies in the future)';
  if (err.reason === 'invalid') return `the token ${err.claim} claim is not valid`;
  return `the token ${err.claim} claim was refused`;
}

function isStorableId(value: unknown): boolean {
  // Control characters (U+0000 above all) and unpaired surrogates cannot be stored as text.
  return typeof value === 'string' && value.length >= 1 && value.length <= 255 && !/[\u0000-\u001f\u007f]|\p{Cs}/u.test(value);
}
