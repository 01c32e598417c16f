// Mutual TLS's pure parts (core/certificate-binding.ts), with certificates the openssl CLI made
// (test/tls.ts): the thumbprint a token is bound to is the one openssl prints for the
// certificate; a certificate matches the registered key it was made from (EC or RSA, whatever
// else the JWK carries), and nothing else, and only while it is valid.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import type { JWK } from 'jose';
import { certificateThumbprint, registeredKeyOf } from '../../core/certificate-binding';
import { selfSignedCertificate } from '../tls';

function keyPair(type: 'ec' | 'rsa') {
  const { privateKey, publicKey } = type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), jwk: publicKey.export({ format: 'jwk' }) as JWK };
}

const ec = keyPair('ec');
const certificate = new X509Certificate(selfSignedCertificate(ec.pem, 'tms-1'));

test('the thumbprint is base64url of the SHA-256 of the DER, as openssl computes it (RFC 8705 x5t#S256)', () => {
  const printed = execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256'], { input: certificate.toString() }).toString();
  const hex = /=([0-9A-F:]+)/.exec(printed)![1].replace(/:/g, '');
  expect(certificateThumbprint(certificate)).toBe(Buffer.from(hex, 'hex').toString('base64url'));
});

test('a certificate matches the registered key it carries, by the key alone (kid, alg, use aside)', async () => {
  const rsa = keyPair('rsa');
  const other = keyPair('ec');
  const keys = [{ ...other.jwk, kid: 'other' }, { ...ec.jwk, kid: 'mine', alg: 'ES256', use: 'sig' }, { ...rsa.jwk, kid: 'rsa', alg: 'PS256' }];
  expect(await registeredKeyOf(certificate, keys)).toEqual({ ok: true, kid: 'mine' });
  expect(await registeredKeyOf(new X509Certificate(selfSignedCertificate(rsa.pem, 'tms-rsa')), keys)).toEqual({ ok: true, kid: 'rsa' });
  expect(await registeredKeyOf(certificate, [keys[0], keys[2]])).toEqual({ ok: false, reason: expect.stringContaining('none of the client') });
  expect(await registeredKeyOf(certificate, [])).toEqual({ ok: false, reason: expect.stringContaining('none of the client') });
  // A registered key the thumbprint cannot be computed for is passed over, not an error.
  expect(await registeredKeyOf(certificate, [{ kty: 'EC' } as JWK, keys[1]])).toEqual({ ok: true, kid: 'mine' });
});

test('only while the certificate is valid', async () => {
  const keys = [{ ...ec.jwk, kid: 'mine' }];
  expect(await registeredKeyOf(certificate, keys, new Date(Date.parse(certificate.validTo) + 1000))).toEqual({ ok: false, reason: 'the client certificate has expired' });
  expect(await registeredKeyOf(certificate, keys, new Date(Date.parse(certificate.validFrom) - 1000))).toEqual({ ok: false, reason: 'the client certificate is not valid yet' });
});
