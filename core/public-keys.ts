// Public keys a connector registers (a credential's publicJwk, a connectors file's jwks, the keys
// behind a jwks_uri) are checked here as a security library would, before any signature is ever
// verified with them: node:crypto and jose import an RSA key with public exponent 1, and with such
// a key the "signature" of a message is its padded hash itself, which anyone can compute. So a
// key that imports is not yet a key that proves anything.
//
// RSA: modulus of 2048 to 16384 bits, odd, without a small prime factor, not the product of two
// close primes (Fermat), not a key of the Infineon library broken by ROCA (CVE-2017-15361); public
// exponent odd, at least 65537 and below the modulus. EC: P-256 or P-384, the point on its curve
// (node:crypto refuses one that is not). OKP: Ed25519, not a point of small order (whose
// "signatures" verify for many messages without a private key). Never a private member.
//
// The same check runs where keys come in (api/connectors.ts, the seed file in core/registry.ts,
// a fetched jwks_uri) and again, memoized, before a key verifies an assertion or a proof
// (core/client-assertion.ts), so a key registered before a check existed cannot be used either.
import { createPublicKey, type JsonWebKey } from 'node:crypto';

export type KeyCheck = { ok: true } | { ok: false; reason: string };

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];
const EC_CURVES = ['P-256', 'P-384'];
const MIN_RSA_BITS = 2048;
/** Beyond this an RSA verification is a denial of service more than a key. */
const MAX_RSA_BITS = 16384;
const MIN_RSA_EXPONENT = 65537n;

/** Whether `jwk` is a public key fit to verify signatures of a connector (the reason when not). */
export function checkPublicJwk(jwk: Record<string, unknown>): KeyCheck {
  const bad = (reason: string): KeyCheck => ({ ok: false, reason });
  const held = PRIVATE_MEMBERS.filter((m) => m in jwk);
  if (held.length) return bad(`holds private members (${held.join(', ')}): register the public key only`);
  const { x5c: _chain, ...members } = jwk;
  if (jwk.kty === 'RSA') {
    const n = bigintOf(jwk.n);
    const e = bigintOf(jwk.e);
    if (n === undefined || e === undefined) return bad('an RSA key needs its modulus n and exponent e in base64url');
    const weakness = rsaWeakness(n, e);
    if (weakness) return bad(weakness);
  } else if (jwk.kty === 'EC') {
    if (!EC_CURVES.includes(String(jwk.crv))) return bad(`an EC key must be on ${EC_CURVES.join(' or ')}`);
  } else if (jwk.kty === 'OKP') {
    if (jwk.crv !== 'Ed25519') return bad('an OKP key must be Ed25519');
    const x = typeof jwk.x === 'string' ? Buffer.from(jwk.x, 'base64url') : undefined;
    if (!x || x.length !== 32) return bad('an Ed25519 key is 32 bytes (x)');
    if (isSmallOrderEd25519(x)) return bad('is an Ed25519 point of small order, which verifies signatures nobody made');
  } else {
    return bad('kty must be EC, RSA or OKP');
  }
  try {
    // Imports the key: an EC point off its curve, or a malformed member, is refused here.
    createPublicKey({ key: members as JsonWebKey, format: 'jwk' });
  } catch {
    return bad('is not a public key this broker can read');
  }
  return { ok: true };
}

const checked = new Map<string, KeyCheck>();

/** checkPublicJwk, remembered per key (the verifier asks for every assertion). */
export function publicJwkUsable(jwk: Record<string, unknown>): KeyCheck {
  const id = JSON.stringify([jwk.kty, jwk.crv, jwk.n, jwk.e, jwk.x, jwk.y]);
  let answer = checked.get(id);
  if (!answer) {
    answer = checkPublicJwk(jwk);
    if (checked.size > 10_000) checked.clear();
    checked.set(id, answer);
  }
  return answer;
}

function bigintOf(value: unknown): bigint | undefined {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  const hex = Buffer.from(value, 'base64url').toString('hex');
  return hex ? BigInt(`0x${hex}`) : undefined;
}

const bitLength = (n: bigint) => n.toString(2).length;

/** What makes an RSA public key (n, e) unfit, or undefined. */
export function rsaWeakness(n: bigint, e: bigint): string | undefined {
  const bits = bitLength(n);
  if (bits < MIN_RSA_BITS) return `an RSA key needs at least ${MIN_RSA_BITS} bits (this one has ${bits})`;
  if (bits > MAX_RSA_BITS) return `an RSA key has at most ${MAX_RSA_BITS} bits`;
  if (e % 2n === 0n) return 'the RSA public exponent must be odd';
  if (e < MIN_RSA_EXPONENT) return `the RSA public exponent must be at least 65537 (this one is ${e}): with a small one, signatures can be forged without the private key`;
  if (e >= n) return 'the RSA public exponent must be smaller than the modulus';
  if (n % 2n === 0n) return 'the RSA modulus is even';
  for (const p of SMALL_PRIMES) if (n % p === 0n) return `the RSA modulus has the small factor ${p}`;
  if (closePrimes(n)) return 'the RSA modulus is the product of two primes so close that it factors at once (Fermat)';
  if (rocaFingerprint(n)) return 'the RSA key was made by a library broken by ROCA (CVE-2017-15361): its private key can be computed; make a new key elsewhere';
  return undefined;
}

/** The primes below 20,000: a modulus with any of them as a factor is not an RSA modulus. */
const SMALL_PRIMES: bigint[] = (() => {
  const limit = 20_000;
  const composite = new Uint8Array(limit);
  const out: bigint[] = [];
  for (let i = 2; i < limit; i++) {
    if (composite[i]) continue;
    out.push(BigInt(i));
    for (let j = i * i; j < limit; j += i) composite[j] = 1;
  }
  return out;
})();

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(bitLength(n) / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** Fermat's method for a few hundred steps: finds p and q when |p - q| is below about n^(1/4) times that. */
function closePrimes(n: bigint, steps = 200): boolean {
  let a = isqrt(n);
  if (a * a < n) a += 1n;
  for (let i = 0; i < steps; i++, a++) {
    const b2 = a * a - n;
    const b = isqrt(b2);
    if (b * b === b2) return true;
  }
  return false;
}

// ROCA (Nemec et al., CCS 2017): the Infineon library's primes are k * M + (65537^a mod M) for the
// primorial M, so every modulus it made is a power of 65537 modulo each small prime, and the same
// power for all of them at once. The test (the authors' "dlog" fingerprint, crocs-muni/roca): for
// each prime p up to 167, n mod p has a discrete logarithm to the base 65537 modulo the order of
// 65537 mod p, and these logarithms agree (the congruences have a common solution). A random
// modulus passes with a probability of about 2^-154.
const ROCA_PRIMES = SMALL_PRIMES.filter((p) => p <= 167n).map(Number);

export function rocaFingerprint(n: bigint): boolean {
  let modulus = 1n;
  let residue = 0n;
  for (const p of ROCA_PRIMES) {
    const g = 65537 % p;
    const target = Number(n % BigInt(p));
    // The powers of g modulo p, until they repeat: the order and the logarithm of the target.
    let power = 1;
    let log = -1;
    let order = 0;
    do {
      if (power === target && log < 0) log = order;
      power = (power * g) % p;
      order++;
    } while (power !== 1);
    if (log < 0) return false;
    // Combine k = residue (mod modulus) with k = log (mod order): the generalized Chinese remainder.
    const combined = combine(residue, modulus, BigInt(log), BigInt(order));
    if (!combined) return false;
    [residue, modulus] = combined;
  }
  return true;
}

/** The x with x = a (mod m) and x = b (mod k), as [x, lcm(m, k)], or undefined when none exists. */
function combine(a: bigint, m: bigint, b: bigint, k: bigint): [bigint, bigint] | undefined {
  const g = gcd(m, k);
  if ((b - a) % g !== 0n) return undefined;
  const lcm = (m / g) * k;
  // k / g candidates a + i*m (k is an order modulo a prime below 167: a few hundred steps at most).
  for (let x = a; x < lcm; x += m) if ((x - b) % k === 0n) return [x, lcm];
  return undefined;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * The y-coordinates of the Ed25519 points of small order and their non-canonical spellings, as
 * libsodium's blocklist has them (ge25519_has_small_order): compared with the sign bit of x cleared,
 * so each stands for both points of its y.
 */
const SMALL_ORDER_ED25519 = [
  '0000000000000000000000000000000000000000000000000000000000000000', // 0 (order 4)
  '0100000000000000000000000000000000000000000000000000000000000000', // 1 (order 1)
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // order 8
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // p - 1 (order 2)
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // p (= 0, order 4)
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // p + 1 (= 1, order 1)
];

function isSmallOrderEd25519(x: Buffer): boolean {
  const y = Buffer.from(x);
  y[31] &= 0x7f;
  return SMALL_ORDER_ED25519.includes(y.toString('hex'));
}
