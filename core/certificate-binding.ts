// Mutual TLS for OAuth clients (RFC 8705), the parts that need no network: which registered key
// a client certificate carries (self_signed_tls_client_auth, section 2.2: the client proves
// possession of the certificate's key in the TLS handshake, and the broker trusts the key because
// the client registered it) and the certificate's thumbprint that binds a token to it (section
// 3.1, the `cnf` claim's `x5t#S256`).
import { createHash, type X509Certificate } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

/** RFC 8705 section 3.1: base64url of the SHA-256 of the certificate's DER encoding. */
export function certificateThumbprint(certificate: X509Certificate): string {
  return createHash('sha256').update(certificate.raw).digest('base64url');
}

export type CertificateMatch = { ok: true; kid: string | undefined } | { ok: false; reason: string };

/**
 * The registered key whose public key the certificate carries, while the certificate is valid:
 * keys are compared by their RFC 7638 thumbprints (the members that define the key, whatever else
 * the JWK says), so a certificate made from the key the client registered matches it.
 */
export async function registeredKeyOf(certificate: X509Certificate, keys: JWK[], now = new Date()): Promise<CertificateMatch> {
  if (now < new Date(certificate.validFrom)) return { ok: false, reason: 'the client certificate is not valid yet' };
  if (now > new Date(certificate.validTo)) return { ok: false, reason: 'the client certificate has expired' };
  let presented: string;
  try {
    presented = await calculateJwkThumbprint(certificate.publicKey.export({ format: 'jwk' }) as JWK);
  } catch {
    return { ok: false, reason: 'the client certificate carries a key of a kind the broker does not know' };
  }
  for (const key of keys) {
    let registered: string;
    try {
      registered = await calculateJwkThumbprint(key);
    } catch {
      continue;
    }
    if (registered === presented) return { ok: true, kid: key.kid };
  }
  return { ok: false, reason: "the client certificate's key is none of the client's registered keys" };
}
