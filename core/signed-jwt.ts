// What a client-signed JWT (a private_key_jwt assertion, a DPoP proof) must be before its claims
// are read, shared by core/client-assertion.ts and core/dpop.ts (RFC 8725, the JWT best current
// practices): an asymmetric algorithm we name (`none` and HMAC refused before any key is tried, so
// a public key never serves as an HMAC secret); no critical header we do not understand (RFC 7515
// section 4.1.11: we understand none); claims that are JSON with NumericDate times. Each refusal
// names the rule, so that the client's developer can fix it.
import { compactVerify, decodeProtectedHeader, importJWK, type JWK, type ProtectedHeaderParameters } from 'jose';

/** Asymmetric algorithms accepted for assertions and proofs. */
export const CLIENT_SIGNING_ALGORITHMS = ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'] as const;

export type Refuse = (reason: string) => Error;

/** The protected header of a compact JWS, with the checks every client-signed JWT passes. */
export function checkedHeader(jwt: string, what: string, refuse: Refuse): ProtectedHeaderParameters {
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    throw refuse(`the ${what} is not a JWT (a compact JWS of three base64url parts)`);
  }
  if (jwt.split('.').length !== 3) throw refuse(`the ${what} is not a compact JWS (three parts)`);
  if (typeof header.alg !== 'string' || !(CLIENT_SIGNING_ALGORITHMS as readonly string[]).includes(header.alg)) {
    throw refuse(`the ${what}'s algorithm ${JSON.stringify(header.alg)} is not accepted (${CLIENT_SIGNING_ALGORITHMS.join(', ')})`);
  }
  if (header.crit !== undefined) {
    const names = Array.isArray(header.crit) ? header.crit.map(String).join(', ') : JSON.stringify(header.crit);
    throw refuse(`the ${what}'s crit header names ${names}, which this broker does not understand (RFC 7515 section 4.1.11: it must refuse it)`);
  }
  if (header.b64 !== undefined) throw refuse(`the ${what} may not use an unencoded payload (b64)`);
  return header;
}

/**
 * Verifies the signature with the first of `keys` that does (each imported for the header's
 * algorithm); answers the key and the payload's bytes, or undefined when none verifies.
 */
export async function verifiedBy(jwt: string, alg: string, keys: readonly JWK[]): Promise<{ key: JWK; payload: Uint8Array } | undefined> {
  for (const jwk of keys) {
    try {
      const key = await importJWK(jwk, alg);
      const { payload } = await compactVerify(jwt, key, { algorithms: [alg] });
      return { key: jwk, payload };
    } catch {
      // Not this key (or not a key for this algorithm): the next.
    }
  }
  return undefined;
}

/** The claims of a verified payload: a JSON object. */
export function claimsOf(payload: Uint8Array, what: string, refuse: Refuse): Record<string, unknown> {
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    throw refuse(`the ${what} has no JSON claims`);
  }
  if (!claims || typeof claims !== 'object' || Array.isArray(claims)) throw refuse(`the ${what}'s claims are not a JSON object`);
  return claims as Record<string, unknown>;
}

/** A NumericDate claim (RFC 7519 section 2: seconds since the epoch, a JSON number), or undefined when absent. */
export function numericDate(claims: Record<string, unknown>, name: string, what: string, refuse: Refuse): number | undefined {
  const value = claims[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw refuse(`the ${what}'s ${name} must be a NumericDate (a JSON number of seconds since 1970), not ${typeof value === 'string' ? 'a string' : JSON.stringify(value)}`);
  }
  return value;
}

/** A jti the broker can store: 1 to 255 characters, no control characters. */
export function isStorableJti(jti: unknown): jti is string {
  return typeof jti === 'string' && jti.length > 0 && jti.length <= 255 && !/[\u0000-\u001f\u007f]|\p{Cs}/u.test(jti);
}
