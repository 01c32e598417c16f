// A credential's certificate chain (core/certificate-chain.ts), with certificates the openssl CLI
// made (test/tls.ts): the leaf certifies the key, each certificate is signed by the next, each is
// valid at the moment of the check; what is wrong is named.
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { checkCertificateChain } from '../../core/certificate-chain';
import { testCertificates } from '../tls';

const certs = testCertificates();
const der = (pem: string) => new X509Certificate(pem).raw.toString('base64');
const leafKey = createPrivateKey(certs.key).export({ format: 'jwk' }) as Record<string, unknown>;
const { d: _d, ...publicKey } = leafKey;
const chain = [der(certs.cert), der(certs.ca)];
const leaf = new X509Certificate(certs.cert);

test('a chain that certifies the key and holds together: its leaf\u2019s end and subject', () => {
  expect(checkCertificateChain({ ...publicKey, kid: 'k' }, chain)).toEqual({ ok: true, notAfter: new Date(Date.parse(leaf.validTo)).toISOString().replace('.000Z', 'Z'), subject: leaf.subject });
  expect(checkCertificateChain(publicKey, [der(certs.cert)]).ok).toBe(true);
});

test('refused: another key, a reversed order, an expired or future certificate, not a certificate, too long', () => {
  const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  expect(checkCertificateChain(other, chain)).toEqual({ ok: false, reason: expect.stringContaining('not the key given') });
  expect(checkCertificateChain(publicKey, [der(certs.cert), der(certs.cert)])).toEqual({ ok: false, reason: expect.stringContaining('not issued and signed by x5c[1]') });
  expect(checkCertificateChain(publicKey, chain, Date.parse(leaf.validTo))).toEqual({ ok: false, reason: expect.stringContaining('not valid now') });
  expect(checkCertificateChain(publicKey, chain, Date.parse(leaf.validFrom) - 1000)).toEqual({ ok: false, reason: expect.stringContaining('not valid now') });
  expect(checkCertificateChain(publicKey, ['bm90IGEgY2VydA=='])).toEqual({ ok: false, reason: expect.stringContaining('not an X.509 certificate') });
  expect(checkCertificateChain(publicKey, []).ok).toBe(false);
  expect(checkCertificateChain(publicKey, Array(6).fill(chain[0])).ok).toBe(false);
});
