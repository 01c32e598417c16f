// DPoP (RFC 9449): a connector proves on every token request and every API call that it holds a
// private key, whose public half it sends in the proof's header; its tokens are bound to that key
// (`cnf.jkt`, its RFC 7638 thumbprint), so a token that leaks is of no use without the key. This
// module checks one proof (section 4.3) and makes and checks the server's nonces (section 8);
// remembering a proof's jti (a replay is refused) is the caller's, across replicas
// (read-model/client-assertions.ts). docs/security.md says what each check defends.
//
// Nonces need no storage: a nonce is a time and its HMAC under a key every replica derives from the
// token signing key (the operator mounts the same one in each), valid for NONCE_LIFETIME_SECONDS.
import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { Problem } from '../domain/problems';
import { publicJwkUsable } from './public-keys';
import { checkedHeader, claimsOf, CLIENT_SIGNING_ALGORITHMS, isStorableJti, numericDate, verifiedBy } from './signed-jwt';

/** How long a nonce the broker gave is accepted. */
export const NONCE_LIFETIME_SECONDS = 300;
/** A new nonce is minted every this many seconds (the same one in between, so clients need not follow every answer). */
const NONCE_STEP_SECONDS = 60;
/** How old a proof without a nonce may be (its iat), beyond the clock skew. */
export const PROOF_MAX_AGE_SECONDS = 60;

export const DPOP_ALGORITHMS = CLIENT_SIGNING_ALGORITHMS;

export interface VerifiedProof {
  /** The RFC 7638 thumbprint of the proof's key: what a token is bound to (cnf.jkt). */
  jkt: string;
  jti: string;
  /** Seconds since the epoch until which the jti must be remembered. */
  rememberUntil: number;
}

export type ProofErrorKind = 'invalid_dpop_proof' | 'use_dpop_nonce';

/** A proof that was refused: why, and whether a (new) nonce is what is missing. */
export class ProofRefused extends Error {
  constructor(readonly kind: ProofErrorKind, message: string) {
    super(message);
    this.name = 'ProofRefused';
  }
}

const refuse = (reason: string) => new ProofRefused('invalid_dpop_proof', reason);
const WHAT = 'DPoP proof';

export interface ProofExpectation {
  /** The request's method. */
  method: string;
  /** The URLs the request may have been sent to (the public base URL and the mutual-TLS one, each with the path): htu must be one. */
  urls: readonly string[];
  /** At a resource: the access token presented, whose hash the proof must carry (ath). */
  accessToken?: string;
  /** When set, the proof must carry a nonce this checks. */
  nonce?: (value: unknown) => boolean;
  skewSeconds: number;
  now?: number;
}

/** Checks one DPoP proof (RFC 9449 section 4.3); throws ProofRefused with the reason. */
export async function verifyDpopProof(proof: string, expected: ProofExpectation): Promise<VerifiedProof> {
  const now = expected.now ?? Math.floor(Date.now() / 1000);
  const header = checkedHeader(proof, WHAT, refuse);
  if (header.typ !== 'dpop+jwt') throw refuse(`the DPoP proof's typ must be dpop+jwt, not ${JSON.stringify(header.typ)}`);
  const jwk = header.jwk as Record<string, unknown> | undefined;
  if (!jwk || typeof jwk !== 'object') throw refuse("the DPoP proof's header must carry its public key (jwk)");
  const usable = publicJwkUsable(jwk);
  if (!usable.ok) throw refuse(`the DPoP proof's key ${usable.reason}`);
  const verified = await verifiedBy(proof, header.alg!, [jwk as JWK]);
  if (!verified) throw refuse("the DPoP proof's signature is not made by the key in its header");
  const claims = claimsOf(verified.payload, WHAT, refuse);
  if (!isStorableJti(claims.jti)) throw refuse('the DPoP proof needs a jti (1 to 255 characters)');
  if (claims.htm !== expected.method) throw refuse(`the DPoP proof's htm must be the request's method ${expected.method}`);
  if (typeof claims.htu !== 'string' || !expected.urls.includes(normalizedUrl(claims.htu))) throw refuse(`the DPoP proof's htu must be the request's URL without query and fragment (${expected.urls[0]})`);
  const iat = numericDate(claims, 'iat', WHAT, refuse);
  if (iat === undefined) throw refuse('the DPoP proof has no iat');
  if (iat > now + expected.skewSeconds) throw refuse('the DPoP proof was made in the future (iat)');
  if (expected.nonce) {
    if (claims.nonce === undefined) throw new ProofRefused('use_dpop_nonce', 'the broker requires a nonce in DPoP proofs: use the one in the DPoP-Nonce header of this answer');
    if (!expected.nonce(claims.nonce)) throw new ProofRefused('use_dpop_nonce', 'the DPoP proof\'s nonce is not a current one: use the one in the DPoP-Nonce header of this answer');
  } else if (iat < now - PROOF_MAX_AGE_SECONDS - expected.skewSeconds) {
    throw refuse(`the DPoP proof is too old (iat more than ${PROOF_MAX_AGE_SECONDS} s ago): make a new proof for every request`);
  }
  if (expected.accessToken !== undefined) {
    const ath = createHash('sha256').update(expected.accessToken).digest('base64url');
    if (claims.ath !== ath) throw refuse("the DPoP proof's ath must be the base64url SHA-256 of the access token it is sent with");
  }
  const { kid: _kid, alg: _alg, use: _use, key_ops: _ops, ...members } = jwk;
  const jkt = await calculateJwkThumbprint(members as JWK);
  // Remembered as long as it could be accepted: its iat's window, or the nonce's lifetime.
  return { jkt, jti: claims.jti, rememberUntil: Math.max(iat, now) + PROOF_MAX_AGE_SECONDS + NONCE_LIFETIME_SECONDS + expected.skewSeconds };
}

/** A URL as htu compares it: lower-case scheme and host, no default port, no query or fragment. */
export function normalizedUrl(value: string): string {
  try {
    const url = new URL(value);
    url.search = '';
    url.hash = '';
    return url.toString().replace(/\/$/, url.pathname === '/' ? '/' : '');
  } catch {
    return '';
  }
}

/** The server's nonces: minted from the time, checked by their HMAC (section 8). */
export interface NonceSource {
  current(now?: number): string;
  valid(value: unknown, now?: number): boolean;
}

export function nonceSource(secret: Buffer | string): NonceSource {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), 'pcx dpop nonce v1', 32));
  const mac = (time: Buffer) => createHmac('sha256', key).update(time).digest().subarray(0, 16);
  return {
    current(now = Math.floor(Date.now() / 1000)) {
      const time = Buffer.alloc(8);
      time.writeBigUInt64BE(BigInt(Math.floor(now / NONCE_STEP_SECONDS) * NONCE_STEP_SECONDS));
      return Buffer.concat([time, mac(time)]).toString('base64url');
    },
    valid(value, now = Math.floor(Date.now() / 1000)) {
      if (typeof value !== 'string' || value.length > 64) return false;
      const bytes = Buffer.from(value, 'base64url');
      if (bytes.length !== 24) return false;
      const time = bytes.subarray(0, 8);
      if (!timingSafeEqual(mac(time), bytes.subarray(8))) return false;
      const at = Number(time.readBigUInt64BE());
      return at <= now + NONCE_STEP_SECONDS && now - at <= NONCE_LIFETIME_SECONDS;
    },
  };
}

/** The problem a refused proof answers at the token endpoint (RFC 9449 section 5: 400 invalid_dpop_proof or use_dpop_nonce). */
export function tokenEndpointRefusal(err: ProofRefused, nonce: string | undefined): Problem {
  return new Problem('DPOP_PROOF_INVALID', err.message, { error: err.kind, error_description: err.message }, nonce ? { 'dpop-nonce': nonce } : {});
}

/** The WWW-Authenticate challenge of a resource refusing a DPoP request (section 7.1). */
export function dpopChallenge(error: string, description: string): string {
  return `DPoP error="${error}", error_description="${description.replace(/["\\]/g, '')}", algs="${DPOP_ALGORITHMS.join(' ')}"`;
}
