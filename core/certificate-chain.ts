// A credential's certificate chain (RFC 7517's `x5c`: base64 DER, the leaf first, each certified by
// the next), registered with its public key instead of a bare JWK (issue 29: "add a public key as
// a JWK or a certificate chain"; iSHARE registers parties by their eIDAS certificates). The chain
// must hold together: the leaf's public key is the JWK's, each certificate is issued and signed by
// the next, and each is valid now. Whose chain it is (the CA) is the operator's verification, not
// this check's; the chain is kept on the credential for that, and the credential ends when the
// leaf does (its notAfter is the credential's latest expiry).
import { createPublicKey, X509Certificate } from 'node:crypto';

export const MAX_CHAIN = 5;

export type ChainCheck = { ok: true; notAfter: string; subject: string } | { ok: false; reason: string };

export function checkCertificateChain(jwk: Record<string, unknown>, x5c: unknown, now = Date.now()): ChainCheck {
  if (!Array.isArray(x5c) || x5c.length === 0 || x5c.length > MAX_CHAIN || x5c.some((c) => typeof c !== 'string')) {
    return { ok: false, reason: `x5c is 1 to ${MAX_CHAIN} certificates, base64 DER, the leaf first` };
  }
  let chain: X509Certificate[];
  try {
    chain = (x5c as string[]).map((c) => new X509Certificate(Buffer.from(c, 'base64')));
  } catch {
    return { ok: false, reason: 'x5c holds something that is not an X.509 certificate (base64 DER)' };
  }
  const { x5c: _chain, kid: _kid, alg: _alg, use: _use, ...keyMembers } = jwk;
  const leafKey = chain[0].publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const given = createPublicKey({ key: keyMembers as any, format: 'jwk' }).export({ format: 'jwk' }) as Record<string, unknown>;
  if (JSON.stringify(sorted(leafKey)) !== JSON.stringify(sorted(given))) return { ok: false, reason: "the certificate's public key is not the key given (x5c[0] must certify this JWK)" };
  for (let i = 0; i < chain.length; i++) {
    const cert = chain[i];
    if (Date.parse(cert.validFrom) > now || Date.parse(cert.validTo) <= now) return { ok: false, reason: `x5c[${i}] is not valid now (${cert.validFrom} to ${cert.validTo})` };
    const issuer = chain[i + 1];
    if (issuer && !(cert.checkIssued(issuer) && cert.verify(issuer.publicKey))) return { ok: false, reason: `x5c[${i}] is not issued and signed by x5c[${i + 1}]` };
  }
  return { ok: true, notAfter: new Date(Date.parse(chain[0].validTo)).toISOString().replace(/\.000Z$/, 'Z'), subject: chain[0].subject };
}

const sorted = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
