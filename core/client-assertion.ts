// private_key_jwt (RFC 7523 section 2.2 and 3, OpenID Connect Core section 9): a connector proves
// who it is at the token endpoint with a short JWT signed by its own private key, whose public half
// the registry holds. No shared secret exists anywhere. What is checked, and why each refusal says
// so (RFC 8725, the JWT best current practices):
// - the algorithm is one of the asymmetric ones we name: `none` and HS256 (a key confusion with
//   the public key as the HMAC secret) are refused before any key is tried;
// - iss and sub are both the client id, the token endpoint (or the issuer) is the audience;
// - exp is required, lies ahead, and at most MAX_LIFETIME_SECONDS away (a long-lived assertion is
//   a bearer credential); iat and nbf, when present, do not lie in the future;
// - jti is required: the caller remembers it until exp (read-model/client-assertions.ts), across
//   replicas, so an assertion is accepted once.
// The key is the connector's: tried by kid when the header names one, else each in turn.
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { Problem } from '../domain/problems';

/** The assertion type of RFC 7523 section 2.2. */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Asymmetric algorithms accepted for assertions (and the key types they need). */
export const ASSERTION_ALGORITHMS = ['ES256', 'ES384', 'RS256', 'PS256', 'EdDSA'] as const;

/** The longest an assertion may live (exp - iat, or exp - now): a few minutes, as iSHARE's 30 s and FAPI's 60 s are stricter still. */
export const MAX_LIFETIME_SECONDS = 300;

export interface VerifiedAssertion {
  clientId: string;
  jti: string;
  /** Seconds since the epoch: the jti is remembered until then. */
  exp: number;
  /** The kid of the key that verified it (the credential), when the key has one. */
  kid?: string;
}

/** An RFC 6749 `invalid_client` refusal, as the token endpoint answers it (401). */
export function invalidClient(description: string): Problem {
  return new Problem('UNAUTHENTICATED', description, { error: 'invalid_client', error_description: description });
}

/** The client id an assertion claims (its `sub`, else `iss`), read before anything is verified: only to find its keys. */
export function claimedClient(assertion: string): string | undefined {
  const parts = assertion.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    const id = payload?.sub ?? payload?.iss;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies a client assertion for `clientId` against its public keys. `audiences`: the values the
 * assertion's aud may hold (the token endpoint's URL, the issuer). Throws invalidClient with the
 * reason; answers what the caller must remember.
 */
export async function verifyClientAssertion(
  assertion: string,
  options: { clientId: string; keys: readonly JWK[]; audiences: readonly string[]; skewSeconds: number; now?: number },
): Promise<VerifiedAssertion> {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(assertion);
  } catch {
    throw invalidClient('the client assertion is not a JWT');
  }
  if (typeof header.alg !== 'string' || !(ASSERTION_ALGORITHMS as readonly string[]).includes(header.alg)) {
    throw invalidClient(`the client assertion's algorithm ${JSON.stringify(header.alg)} is not accepted (${ASSERTION_ALGORITHMS.join(', ')})`);
  }
  const candidates = options.keys.filter((k) => (header.kid === undefined || k.kid === header.kid) && (k.alg === undefined || k.alg === header.alg));
  if (candidates.length === 0) throw invalidClient(header.kid ? `no key of ${options.clientId} has the kid ${header.kid}` : `no key of ${options.clientId} verifies ${header.alg}`);
  let payloadBytes: Uint8Array | undefined;
  let kid: string | undefined;
  for (const jwk of candidates) {
    try {
      const key = await importJWK(jwk, header.alg);
      ({ payload: payloadBytes } = await compactVerify(assertion, key, { algorithms: [header.alg] }));
      kid = jwk.kid;
      break;
    } catch {
      // Not this key (or not a key for this algorithm): the next.
    }
  }
  if (!payloadBytes) throw invalidClient(`the client assertion's signature is not one of ${options.clientId}'s keys`);
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(new TextDecoder().decode(payloadBytes));
  } catch {
    throw invalidClient('the client assertion has no JSON claims');
  }
  if (claims.iss !== options.clientId || claims.sub !== options.clientId) throw invalidClient('the client assertion must name the client as both iss and sub');
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.some((a) => typeof a === 'string' && options.audiences.includes(a))) throw invalidClient(`the client assertion's audience must be this token endpoint (${options.audiences[0]})`);
  const { exp, iat, nbf, jti } = claims;
  const skew = options.skewSeconds;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw invalidClient('the client assertion has no exp');
  if (exp <= now - skew) throw invalidClient('the client assertion has expired');
  if (typeof iat === 'number' && iat > now + skew) throw invalidClient('the client assertion was issued in the future (iat)');
  if (typeof nbf === 'number' && nbf > now + skew) throw invalidClient('the client assertion is not valid yet (nbf)');
  const lifetime = typeof iat === 'number' ? exp - iat : exp - now;
  if (lifetime > MAX_LIFETIME_SECONDS + (typeof iat === 'number' ? 0 : skew)) throw invalidClient(`the client assertion lives ${lifetime} s; at most ${MAX_LIFETIME_SECONDS} s are accepted`);
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 255 || /[\u0000-\u001f\u007f]/.test(jti)) throw invalidClient('the client assertion needs a jti (1 to 255 characters)');
  return { clientId: options.clientId, jti, exp, ...(kid ? { kid } : {}) };
}
