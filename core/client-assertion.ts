// private_key_jwt (RFC 7523 section 2.2 and 3, OpenID Connect Core section 9): a connector proves
// who it is at the token endpoint with a short JWT signed by its own private key, whose public half
// the registry holds. No shared secret exists anywhere. What is checked, and why each refusal says
// so (RFC 8725, the JWT best current practices; docs/security.md):
// - the header (core/signed-jwt.ts): an asymmetric algorithm we name, no critical header we do not
//   understand; `typ`, when present, a client assertion's (not an access token's or a DPoP proof's,
//   so a JWT made for another purpose cannot be replayed here); no `jku`, `x5u` or `jwk`: the keys
//   are the registered ones, never ones the assertion brings;
// - the key: by kid when the header names one (a revoked or expired key is named as such), else
//   each valid key in turn; every key passes core/public-keys.ts again before it verifies;
// - `x5c`, when present (iSHARE-style clients send their chain): it must certify the very key that
//   verified the signature and hold together, and be anchored in the operator's trust anchors
//   (CLIENT_CA_FILE) or be the chain the key was registered with; else refused;
// - iss and sub are both the client id, the token endpoint (or the issuer) is the audience;
// - exp is required, a NumericDate, lies ahead, and at most the connector's assertion lifetime away
//   (60 s unless its admin chose otherwise within the operator's limit); iat and nbf, when
//   present, NumericDates not in the future;
// - jti is required: the caller remembers it until exp (read-model/client-assertions.ts), across
//   replicas, so an assertion is accepted once.
import { X509Certificate } from 'node:crypto';
import type { JWK } from 'jose';
import { Problem } from '../domain/problems';
import { checkCertificateChain } from './certificate-chain';
import { publicJwkUsable } from './public-keys';
import { checkedHeader, claimsOf, isStorableJti, numericDate, verifiedBy } from './signed-jwt';

/** The assertion type of RFC 7523 section 2.2. */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export { CLIENT_SIGNING_ALGORITHMS as ASSERTION_ALGORITHMS } from './signed-jwt';

/** The `typ` values an assertion may carry (absent is fine too): a plain JWT, or the explicit type of draft-ietf-oauth-rfc7523bis. */
const ASSERTION_TYPES = ['jwt', 'client-authentication+jwt', 'application/client-authentication+jwt'];

export interface VerifiedAssertion {
  clientId: string;
  jti: string;
  /** Seconds since the epoch: the jti is remembered until then. */
  exp: number;
  /** The kid of the key that verified it (the credential), when the key has one. */
  kid?: string;
  /** The key that verified it (one of options.keys). */
  key: JWK;
}

/** A key the client had and may not use now, by kid: why (revoked, expired), for the refusal. */
export type UnusableKey = (kid: string) => string | undefined;

export interface AssertionOptions {
  clientId: string;
  /** The client's keys valid now. */
  keys: readonly JWK[];
  /** Its keys that are not (a revoked or expired credential), to name them when an assertion's kid does. */
  unusable?: UnusableKey;
  /** The certificate chain each key was registered with (x5c), by kid. */
  registeredChains?: Readonly<Record<string, readonly string[]>>;
  /** The operator's trust anchors for x5c (CLIENT_CA_FILE); none: only a registered chain is accepted. */
  trustAnchors?: readonly X509Certificate[];
  /** The values the assertion's aud may hold (the token endpoint's URL, the issuer). */
  audiences: readonly string[];
  skewSeconds: number;
  /** The longest an assertion of this client may live (exp - iat, or exp - now). */
  maxLifetimeSeconds: number;
  now?: number;
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

const WHAT = 'client assertion';

/** Verifies a client assertion for `clientId` against its public keys; throws invalidClient with the reason. */
export async function verifyClientAssertion(assertion: string, options: AssertionOptions): Promise<VerifiedAssertion> {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const header = checkedHeader(assertion, WHAT, invalidClient);
  if (header.typ !== undefined && !ASSERTION_TYPES.includes(String(header.typ).toLowerCase())) {
    throw invalidClient(`the client assertion's typ ${JSON.stringify(header.typ)} is not a client assertion's (JWT or client-authentication+jwt)`);
  }
  for (const name of ['jku', 'x5u', 'jwk'] as const) {
    if (header[name] !== undefined) throw invalidClient(`the client assertion's ${name} header is not accepted: the client's keys are the ones registered with the broker, never ones an assertion names`);
  }
  const candidates = candidateKeys(header.kid, header.alg!, options);
  const verified = await verifiedBy(assertion, header.alg!, candidates);
  if (!verified) throw invalidClient(`the client assertion's signature is not one of ${options.clientId}'s keys`);
  if (header.x5c !== undefined) checkAssertionChain(header.x5c, verified.key, options);
  const claims = claimsOf(verified.payload, WHAT, invalidClient);
  if (claims.iss !== options.clientId || claims.sub !== options.clientId) throw invalidClient('the client assertion must name the client as both iss and sub');
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.some((a) => typeof a === 'string' && options.audiences.includes(a))) throw invalidClient(`the client assertion's audience must be this token endpoint (${options.audiences[0]})`);
  const exp = numericDate(claims, 'exp', WHAT, invalidClient);
  const iat = numericDate(claims, 'iat', WHAT, invalidClient);
  const nbf = numericDate(claims, 'nbf', WHAT, invalidClient);
  const skew = options.skewSeconds;
  if (exp === undefined) throw invalidClient('the client assertion has no exp: it must expire');
  if (exp <= now - skew) throw invalidClient('the client assertion has expired');
  if (iat !== undefined && iat > now + skew) throw invalidClient('the client assertion was issued in the future (iat)');
  if (nbf !== undefined && nbf > now + skew) throw invalidClient('the client assertion is not valid yet (nbf)');
  const max = options.maxLifetimeSeconds;
  const lifetime = iat !== undefined ? exp - iat : exp - now;
  if (lifetime > max + (iat !== undefined ? 0 : skew)) throw invalidClient(`the client assertion lives ${lifetime} s; at most ${max} s are accepted for ${options.clientId}`);
  if (!isStorableJti(claims.jti)) throw invalidClient('the client assertion needs a jti (1 to 255 characters)');
  return { clientId: options.clientId, jti: claims.jti, exp, key: verified.key, ...(verified.key.kid ? { kid: verified.key.kid } : {}) };
}

/** The keys to try: the one the kid names (refused by name when it is revoked, expired or unusable), else every valid one of the algorithm's type. */
function candidateKeys(kid: string | undefined, alg: string, options: AssertionOptions): JWK[] {
  const fits = (k: JWK) => k.alg === undefined || k.alg === alg;
  if (kid !== undefined) {
    const gone = options.unusable?.(kid);
    if (gone) throw invalidClient(`the key ${kid} of ${options.clientId} ${gone}: sign with a valid key`);
    const key = options.keys.find((k) => k.kid === kid);
    if (!key) throw invalidClient(`no key of ${options.clientId} has the kid ${kid}`);
    if (!fits(key)) throw invalidClient(`the key ${kid} of ${options.clientId} is registered for ${key.alg}, not ${alg}`);
    const usable = publicJwkUsable(key as Record<string, unknown>);
    if (!usable.ok) throw invalidClient(`the key ${kid} of ${options.clientId} is refused as weak or malformed (${usable.reason})`);
    return [key];
  }
  const keys = options.keys.filter((k) => fits(k) && publicJwkUsable(k as Record<string, unknown>).ok);
  if (keys.length === 0) throw invalidClient(`no valid key of ${options.clientId} verifies ${alg}`);
  return keys;
}

/** The x5c policy (docs/security.md): the chain certifies the verifying key, holds together, and is anchored or registered. */
function checkAssertionChain(x5c: unknown, key: JWK, options: AssertionOptions): void {
  const chain = checkCertificateChain(key as Record<string, unknown>, x5c);
  if (!chain.ok) throw invalidClient(`the client assertion's x5c is refused: ${chain.reason}`);
  const certs = (x5c as string[]).map((c) => new X509Certificate(Buffer.from(c, 'base64')));
  const top = certs[certs.length - 1];
  const anchors = options.trustAnchors ?? [];
  const anchored = anchors.some((anchor) => anchor.raw.equals(top.raw) || (top.checkIssued(anchor) && top.verify(anchor.publicKey)));
  if (anchored) return;
  const registered = key.kid ? options.registeredChains?.[key.kid] : undefined;
  if (registered && registered.length === (x5c as string[]).length && registered.every((c, i) => c === (x5c as string[])[i])) return;
  throw invalidClient(
    anchors.length
      ? "the client assertion's x5c does not end at one of the broker's trust anchors, and is not the chain the key was registered with"
      : "the client assertion's x5c is not the chain the key was registered with, and this broker has no trust anchors to check another against (leave x5c out, or register the key with its chain)",
  );
}
