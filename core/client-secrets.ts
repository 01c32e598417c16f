// Client secrets generated for managed connectors (issue 29): shown once, in the answer to the
// request that made them, and kept only as a slow hash (scrypt, RFC 7914, from node:crypto): in a
// table of their own where the token endpoint reads it, and in the connector's workflow state
// (domain/connector.ts SecretCredential, so that a read model rebuilt from Temporal finds it);
// never in the connector's document, its views, its events, the idempotency store or a log.
// A secret is 32 random bytes (256 bits) in base64url behind a prefix that secret scanners can
// match (`pcxs_`, as GitHub's `ghp_` and Stripe's `sk_live_`); its last four characters are its
// hint, shown in reads so that an admin can tell secrets apart.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PREFIX = 'pcxs_';
/**
 * scrypt's cost: N = 2^14, r = 8, p = 1 (16 MiB, about 75 ms here). OWASP asks N = 2^17 for
 * passwords, whose few bits the cost must protect; a generated secret has 256 bits that no cost
 * adds to, so the hash is there for a leaked table (never the secret in clear), and a token
 * request should not wait longer than that. The parameters are stored with each hash.
 */
const COST = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

const scrypt = (secret: string, salt: Buffer, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCallback(secret, salt, 32, options, (err, key) => (err ? reject(err) : resolve(key))));

export function generateClientSecret(): { secret: string; hint: string } {
  const secret = `${PREFIX}${randomBytes(32).toString('base64url')}`;
  return { secret, hint: secret.slice(-4) };
}

/** `scrypt$N$r$p$salt$hash`: the parameters travel with the hash, so they can be raised later. */
export async function hashClientSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/**
 * Whether `secret` is the one `stored` was made from (in constant time for equal lengths). Any
 * secret, not only a generated one: the seed keeps the development secrets and passwords of the
 * files here too (seed.ts).
 */
export async function clientSecretMatches(secret: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || secret.length > 256) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(secret, Buffer.from(salt, 'base64url'), { N: Number(N), r: Number(r), p: Number(p), maxmem: COST.maxmem });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
