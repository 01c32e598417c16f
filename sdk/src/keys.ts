// private_key_jwt for connectors (RFC 7523): a key pair of the connector's own, whose public half
// the broker registers; every token request carries a fresh assertion signed with the private
// half, so no shared secret exists. node:crypto only (no JOSE dependency in the SDK): a JWK is
// imported as a KeyObject, an ES256 signature is written as JWS wants it (IEEE P1363, r || s).
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, createHash, type JsonWebKey, type KeyObject } from 'node:crypto';

/** A private JWK as `generateConnectorKey` writes it (kty, crv, x, y, d, kid, alg). */
export type PrivateJwk = JsonWebKey & { kid?: string; alg?: string };

/** The JWS algorithm a key signs with: ES256 for P-256, ES384 for P-384, EdDSA for Ed25519, RS256 for RSA. */
export function algorithmOf(jwk: JsonWebKey & { alg?: string }): string {
  if (jwk.alg) return jwk.alg;
  if (jwk.kty === 'EC') return jwk.crv === 'P-384' ? 'ES384' : 'ES256';
  if (jwk.kty === 'OKP') return 'EdDSA';
  if (jwk.kty === 'RSA') return 'RS256';
  throw new TypeError(`no signing algorithm for a ${jwk.kty} key`);
}

/** The RFC 7638 thumbprint of a public key: the kid `generateConnectorKey` gives it. */
export function thumbprint(jwk: JsonWebKey): string {
  const members: Record<string, string[]> = { EC: ['crv', 'kty', 'x', 'y'], OKP: ['crv', 'kty', 'x'], RSA: ['e', 'kty', 'n'] };
  const names = members[jwk.kty as string];
  if (!names) throw new TypeError(`no thumbprint for a ${jwk.kty} key`);
  const canonical = `{${names.map((n) => `"${n}":${JSON.stringify((jwk as Record<string, unknown>)[n])}`).join(',')}}`;
  return createHash('sha256').update(canonical).digest('base64url');
}

/** A new connector key pair (P-256, ES256): the private JWK to keep, the public JWK to register; both carry the kid. */
export function generateConnectorKey(): { privateJwk: PrivateJwk; publicJwk: JsonWebKey & { kid: string; alg: string; use: string } } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privateJwk = privateKey.export({ format: 'jwk' }) as PrivateJwk;
  const publicJwk = publicOf(privateJwk);
  return { privateJwk: { ...privateJwk, kid: publicJwk.kid, alg: 'ES256', use: 'sig' } as PrivateJwk, publicJwk };
}

/** The public half of a private JWK, with its kid (the thumbprint unless it has one) and alg. */
export function publicOf(privateJwk: PrivateJwk): JsonWebKey & { kid: string; alg: string; use: string } {
  const pub = createPublicKey(createPrivateKey({ key: privateJwk, format: 'jwk' })).export({ format: 'jwk' });
  return { ...pub, kid: privateJwk.kid ?? thumbprint(pub), alg: algorithmOf(privateJwk), use: 'sig' };
}

/**
 * A client assertion for the token endpoint: iss and sub the client id, aud the token endpoint's
 * URL, a new jti, exp `lifetimeSeconds` (default 60) after iat, signed with the private key.
 */
export function clientAssertion(options: { clientId: string; tokenUrl: string; privateJwk: PrivateJwk; lifetimeSeconds?: number; now?: number }): string {
  const alg = algorithmOf(options.privateJwk);
  const iat = Math.floor((options.now ?? Date.now()) / 1000);
  const header = { alg, typ: 'JWT', ...(options.privateJwk.kid ? { kid: options.privateJwk.kid } : {}) };
  const claims = { iss: options.clientId, sub: options.clientId, aud: options.tokenUrl, jti: randomUUID(), iat, exp: iat + (options.lifetimeSeconds ?? 60) };
  return signJws(header, claims, options.privateJwk);
}

/** A compact JWS of `claims` with `header`, signed with the private JWK by header.alg. */
export function signJws(header: Record<string, unknown> & { alg: string }, claims: Record<string, unknown>, privateJwk: PrivateJwk): string {
  const input = `${b64(header)}.${b64(claims)}`;
  const key = createPrivateKey({ key: privateJwk, format: 'jwk' });
  return `${input}.${signWith(header.alg, key, Buffer.from(input)).toString('base64url')}`;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function signWith(alg: string, key: KeyObject, data: Buffer): Buffer {
  switch (alg) {
    case 'ES256':
      return sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
    case 'ES384':
      return sign('sha384', data, { key, dsaEncoding: 'ieee-p1363' });
    case 'EdDSA':
      return sign(null, data, key);
    case 'RS256':
      return sign('sha256', data, key);
    default:
      throw new TypeError(`the SDK does not sign ${alg}`);
  }
}
