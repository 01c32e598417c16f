// The private_key_jwt rules (core/client-assertion.ts) at their edges, without a broker: the
// lifetime limit, the clock skew, the audience list, kid and alg matching, the header's rules
// (crit, typ, jku/x5u/jwk, x5c), claims of the wrong type, keys named by a revoked kid.
import { createHash, createPrivateKey, generateKeyPairSync, randomUUID, sign, X509Certificate } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
import { verifyClientAssertion } from '../../core/client-assertion';
import { generateConnectorKey, publicOf } from '../../sdk/src/keys';
import { selfSignedCertificate, testCertificates } from '../tls';

const { privateJwk } = generateConnectorKey();
const publicJwk = publicOf(privateJwk) as JWK;
const AUD = 'https://broker.example/oauth2/token';
const NOW = 1_800_000_000;
const MAX = 60;

const assertion = async (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
  new SignJWT({ iss: 'c1', sub: 'c1', aud: AUD, jti: randomUUID(), iat: NOW, exp: NOW + 60, ...claims } as any).setProtectedHeader({ alg: 'ES256', kid: privateJwk.kid, ...header } as any).sign(await importJWK(privateJwk as JWK, 'ES256'));
const options = (extra: Record<string, unknown> = {}) => ({ clientId: 'c1', keys: [publicJwk], audiences: [AUD], skewSeconds: 5, maxLifetimeSeconds: MAX, now: NOW, ...extra });
const verify = async (claims: Record<string, unknown>, extra: Record<string, unknown> = {}, header: Record<string, unknown> = {}) => verifyClientAssertion(await assertion(claims, header), options(extra));

test('a lifetime of exactly the limit is accepted, one second more is not; the limit is the caller\u2019s (the connector\u2019s policy)', async () => {
  await expect(verify({ exp: NOW + MAX })).resolves.toEqual(expect.objectContaining({ clientId: 'c1', exp: NOW + MAX, kid: privateJwk.kid }));
  await expect(verify({ exp: NOW + MAX + 1 })).rejects.toThrow(/lives 61 s; at most 60 s are accepted for c1/);
  await expect(verify({ exp: NOW + 30 }, { maxLifetimeSeconds: 30 })).resolves.toBeDefined();
  await expect(verify({ exp: NOW + 31 }, { maxLifetimeSeconds: 30 })).rejects.toThrow(/at most 30 s/);
});

test('exp and iat within the clock skew pass, beyond it they do not', async () => {
  await expect(verify({}, { now: NOW + 64 })).resolves.toBeDefined(); // exp = NOW + 60, skew 5
  await expect(verify({}, { now: NOW + 65 })).rejects.toThrow(/expired/);
  await expect(verify({ iat: NOW + 5, exp: NOW + 65 })).resolves.toBeDefined();
  await expect(verify({ iat: NOW + 6, exp: NOW + 66 })).rejects.toThrow(/issued in the future/);
});

test('aud may be a list holding one of ours; a kid no key has is named, a revoked or expired one as such', async () => {
  await expect(verify({ aud: ['https://other.example', AUD] })).resolves.toBeDefined();
  await expect(verify({ aud: ['https://other.example'] })).rejects.toThrow(/audience/);
  await expect(verify({}, {}, { kid: 'nope' })).rejects.toThrow(/no key of c1 has the kid nope/);
  const unusable = (kid: string) => (kid === 'old' ? 'was revoked at 2026-12-01T10:00:00Z' : undefined);
  await expect(verify({}, { unusable }, { kid: 'old' })).rejects.toThrow('the key old of c1 was revoked at 2026-12-01T10:00:00Z: sign with a valid key');
});

test('times of the wrong type are named as such, not as missing', async () => {
  await expect(verify({ exp: String(NOW + 60) })).rejects.toThrow(/exp must be a NumericDate .* not a string/);
  await expect(verify({ iat: 'yesterday' })).rejects.toThrow(/iat must be a NumericDate/);
  await expect(verify({ exp: undefined })).rejects.toThrow(/has no exp/);
});

test('the header: an unknown crit, another typ, keys the assertion brings itself are refused with their reasons', async () => {
  // jose refuses to sign an unknown crit: made by hand, signed by node:crypto.
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${part({ alg: 'ES256', kid: privateJwk.kid, crit: ['urn:example:must-know'], 'urn:example:must-know': 1 })}.${part({ iss: 'c1', sub: 'c1', aud: AUD, jti: randomUUID(), iat: NOW, exp: NOW + 60 })}`;
  const critical = `${input}.${sign('sha256', Buffer.from(input), { key: createPrivateKey({ key: privateJwk as any, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  await expect(verifyClientAssertion(critical, options())).rejects.toThrow(/crit header names urn:example:must-know, which this broker does not understand/);
  await expect(verify({}, {}, { typ: 'dpop+jwt' })).rejects.toThrow(/typ "dpop\+jwt" is not a client assertion/);
  await expect(verify({}, {}, { typ: 'at+jwt' })).rejects.toThrow(/typ "at\+jwt"/);
  await expect(verify({}, {}, { typ: 'JWT' })).resolves.toBeDefined();
  await expect(verify({}, {}, { typ: 'client-authentication+jwt' })).resolves.toBeDefined();
  await expect(verify({}, {}, { jku: 'https://attacker.example/jwks' })).rejects.toThrow(/jku header is not accepted/);
  await expect(verify({}, {}, { x5u: 'https://attacker.example/cert' })).rejects.toThrow(/x5u header is not accepted/);
  await expect(verify({}, {}, { jwk: publicJwk })).rejects.toThrow(/jwk header is not accepted/);
});

test('x5c: another key\u2019s chain is refused; the chain the key was registered with, or one under a trust anchor, is accepted', async () => {
  const certs = testCertificates();
  const der = (pem: string) => new X509Certificate(pem).raw.toString('base64');
  // The test authority's leaf certificate and its key (a key with a CA-issued certificate).
  const leafPrivate = { ...(createPrivateKey(certs.key).export({ format: 'jwk' }) as JWK), kid: 'leaf' };
  const { d: _d, ...leafPublic } = leafPrivate;
  const chain = [der(certs.cert), der(certs.ca)];
  const alg = leafPrivate.kty === 'RSA' ? 'RS256' : 'ES256';
  const signed = async (x5c: string[]) =>
    new SignJWT({ iss: 'c1', sub: 'c1', aud: AUD, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 30 }).setProtectedHeader({ alg, kid: 'leaf', x5c }).sign(await importJWK(leafPrivate, alg));
  const opts = (extra: Record<string, unknown>) => ({ clientId: 'c1', keys: [leafPublic as JWK], audiences: [AUD], skewSeconds: 5, maxLifetimeSeconds: MAX, ...extra });
  // Another key's certificate chain beside a signature of the registered key (the attack).
  const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const otherCert = selfSignedCertificate(other.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, 'other');
  await expect(verifyClientAssertion(await signed([der(otherCert)]), opts({}))).rejects.toThrow(/x5c is refused: the certificate's public key is not the key given/);
  // Its own chain, with no anchors and not registered: refused; registered with it, or anchored: accepted.
  await expect(verifyClientAssertion(await signed(chain), opts({}))).rejects.toThrow(/no trust anchors to check another against/);
  await expect(verifyClientAssertion(await signed(chain), opts({ registeredChains: { leaf: chain } }))).resolves.toBeDefined();
  await expect(verifyClientAssertion(await signed(chain), opts({ trustAnchors: [new X509Certificate(certs.ca)] }))).resolves.toBeDefined();
  await expect(verifyClientAssertion(await signed([chain[0]]), opts({ trustAnchors: [new X509Certificate(certs.ca)] }))).resolves.toBeDefined();
  await expect(verifyClientAssertion(await signed(chain), opts({ trustAnchors: [new X509Certificate(otherCert)] }))).rejects.toThrow(/does not end at one of the broker's trust anchors/);
});

test('an RSA key with exponent 1: its "signature" is the padded hash, made without any private key; jose accepts it, the verifier does not', async () => {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const weak = { ...(publicKey.export({ format: 'jwk' }) as JWK), e: 'AQ', kid: 'weak' };
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${part({ alg: 'RS256', kid: 'weak' })}.${part({ iss: 'c1', sub: 'c1', aud: AUD, jti: randomUUID(), iat: NOW, exp: NOW + 60 })}`;
  // EMSA-PKCS1-v1_5 (RFC 8017 section 9.2): 00 01 FF.. 00, SHA-256's DigestInfo, the hash; s^1 mod n = s.
  const digestInfo = Buffer.from('3031300d060960864801650304020105000420', 'hex');
  const hash = createHash('sha256').update(input).digest();
  const em = Buffer.concat([Buffer.from([0, 1]), Buffer.alloc(256 - 3 - digestInfo.length - hash.length, 0xff), Buffer.from([0]), digestInfo, hash]);
  const forged = `${input}.${em.toString('base64url')}`;
  // The attack is real: jose verifies it with the weak key.
  const { compactVerify } = await import('jose');
  await expect(compactVerify(forged, await importJWK(weak, 'RS256'))).resolves.toBeDefined();
  // The broker's verifier checks the key first (also one registered before the check existed).
  await expect(verifyClientAssertion(forged, options({ keys: [weak] }))).rejects.toThrow(/the key weak of c1 is refused as weak or malformed \(the RSA public exponent must be at least 65537 \(this one is 1\)/);
});
