// The checks a registered public key passes before it ever verifies a signature
// (core/public-keys.ts): each weakness refused with its reason. The ROCA fingerprint is held to the
// vectors of its discoverers (test/fixtures/keys/roca, crocs-muni/roca's own test list).
import { checkPrimeSync, createPublicKey, generateKeyPairSync, generatePrimeSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkPublicJwk, rocaFingerprint, rsaWeakness } from '../../core/public-keys';

const ROCA = join(__dirname, '..', 'fixtures', 'keys', 'roca');
const modulus = (name: string) => BigInt(readFileSync(join(ROCA, `${name}.txt`), 'utf8').trim());
const b64 = (n: bigint) => Buffer.from(n.toString(16).padStart(Math.ceil(n.toString(16).length / 2) * 2, '0'), 'hex').toString('base64url');
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' }) as Record<string, string>;

test('sound keys pass: RSA 2048 with 65537, P-256, P-384, Ed25519', () => {
  expect(checkPublicJwk(rsa)).toEqual({ ok: true });
  for (const namedCurve of ['P-256', 'P-384']) expect(checkPublicJwk(generateKeyPairSync('ec', { namedCurve }).publicKey.export({ format: 'jwk' }) as any)).toEqual({ ok: true });
  expect(checkPublicJwk(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) as any)).toEqual({ ok: true });
});

test('RSA: an exponent of 1 (anyone signs), 3, even, 65535, or not below the modulus; short or huge moduli', () => {
  const refusal = (jwk: Record<string, string>) => (checkPublicJwk(jwk) as { reason: string }).reason;
  expect(refusal({ ...rsa, e: 'AQ' })).toMatch(/exponent must be at least 65537 \(this one is 1\)/);
  expect(refusal({ ...rsa, e: 'Aw' })).toMatch(/at least 65537 \(this one is 3\)/);
  expect(refusal({ ...rsa, e: b64(65538n) })).toMatch(/exponent must be odd/);
  expect(refusal({ ...rsa, e: b64(65535n) })).toMatch(/at least 65537/);
  expect(refusal({ ...rsa, e: rsa.n })).toMatch(/exponent must be odd|smaller than the modulus/);
  const short = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }) as Record<string, string>;
  expect(refusal(short)).toMatch(/at least 2048 bits \(this one has 1024\)/);
  expect(rsaWeakness(1n << 16400n, 65537n)).toMatch(/at most 16384 bits/);
  expect(refusal({ ...rsa, n: 'not base64url!' })).toMatch(/modulus n and exponent e/);
});

test('RSA: a modulus with a small factor, or of two close primes (Fermat), is refused', () => {
  const p = generatePrimeSync(1024, { bigint: true });
  let q = p + 2n;
  while (!checkPrimeSync(q)) q += 2n;
  expect(rsaWeakness(p * q, 65537n)).toMatch(/Fermat/);
  expect(rsaWeakness(BigInt(`0x${Buffer.from(rsa.n, 'base64url').toString('hex')}`) * 3n, 65537n)).toMatch(/small factor 3/);
  expect(rsaWeakness((1n << 2047n) + 2n, 65537n)).toMatch(/even/);
});

test('ROCA (CVE-2017-15361): the discoverers\u2019 positive samples are refused, their negatives and fakes pass', () => {
  for (const name of ['mod01', 'mod02', 'mod03', 'mod08', 'mod09']) expect([name, rocaFingerprint(modulus(name))]).toEqual([name, true]);
  for (const name of ['mod04', 'mod05', 'mod06', 'mod07']) expect([name, rocaFingerprint(modulus(name))]).toEqual([name, false]);
  const jwkOf = (file: string) => createPublicKey(readFileSync(join(ROCA, file))).export({ format: 'jwk' }) as Record<string, unknown>;
  expect(checkPublicJwk(jwkOf('pubkey03.pem'))).toEqual({ ok: false, reason: expect.stringContaining('ROCA') });
  expect(checkPublicJwk(jwkOf('pubkey01.pem'))).toEqual({ ok: true });
  expect(checkPublicJwk(jwkOf('pubkey02.pem')).ok).toBe(true);
  // crocs-muni/roca test_fake_mods: each modulus is a power of 65537 modulo every small prime
  // alone, but not the same power: not a ROCA key.
  const fakes = [
    '72414128973967872688332736535017614208620368242015797102796086827882754006260204061799547004983731426777596445658889886861027045033760014948048067467947960318205453778973975867532910489227970143091184725760290172935872752222320334100097730483600892686353719855397381316384244147860260153198611313067061116317',
    '138345973265163614694352477004469191286459111070564516299381495188624946671065451924677704628892476011773201612117597303315530745738015579159106259811204610647347662150159814774894784524366138220226431598991937057442020694466365850170057813627445465881816985939192840583168136876337135351417253708364245923133',
    '60828061238058485055546209519792949600733446820687109700021551748017165461584398468231416589035982737511901116540885252089750919566836183252857475484338913841291095222387779067564971983760619814471104385614285949705697261702933899278537712383849527252611987939947273446907728942539157463443880598175266703887',
  ];
  for (const n of fakes) expect(rocaFingerprint(BigInt(n))).toBe(false);
  // A fresh key of this machine's OpenSSL is not one.
  expect(rocaFingerprint(BigInt(`0x${Buffer.from(rsa.n, 'base64url').toString('hex')}`))).toBe(false);
});

test('EC and OKP: another curve, a point off the curve, an Ed25519 point of small order; private members', () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const y = Buffer.from(ec.y, 'base64url');
  y[31] ^= 1;
  expect(checkPublicJwk({ ...ec, y: y.toString('base64url') })).toEqual({ ok: false, reason: expect.stringContaining('not a public key') });
  expect(checkPublicJwk(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ format: 'jwk' }) as any)).toEqual({ ok: false, reason: expect.stringContaining('P-256 or P-384') });
  for (const hex of ['0100000000000000000000000000000000000000000000000000000000000000', 'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85']) {
    expect(checkPublicJwk({ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') })).toEqual({ ok: false, reason: expect.stringContaining('small order') });
  }
  const privateEc = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as any;
  expect(checkPublicJwk(privateEc)).toEqual({ ok: false, reason: expect.stringContaining('private members (d)') });
  expect(checkPublicJwk({ kty: 'oct', k: 'c2VjcmV0' })).toEqual({ ok: false, reason: expect.stringContaining('private members (k)') });
});
