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

/**
 * A distinguished name as tls_client_auth compares it (RFC 8705 section 2.1.2: the expected
 * subject "is compared using the rules of RFC 4517 distinguishedNameMatch"; here: attribute types
 * case-insensitively, values with RFC 4514 escapes undone, surrounding and repeated spaces folded,
 * case ignored, the attributes of a multi-valued RDN in any order). From RFC 4514's string form
 * (`CN=tms.example,O=Alpine Freight\, GmbH,C=AT`, most specific first); undefined when it does not
 * parse.
 */
export function canonicalDn(rfc4514: string): string | undefined {
  const rdns = splitUnescaped(rfc4514.trim(), ',');
  if (!rdns.length || rdns.some((r) => !r.trim())) return undefined;
  const parsed = rdns.map((rdn) => splitUnescaped(rdn, '+').map(attribute));
  if (parsed.some((rdn) => rdn.some((a) => a === undefined))) return undefined;
  return canonicalOf(parsed as string[][]);
}

/** A certificate's subject in the same canonical form (Node writes it one RDN per line, the most general first). */
export function certificateSubjectDn(certificate: X509Certificate): string | undefined {
  const lines = certificate.subject.split('\n').filter(Boolean).reverse();
  const parsed = lines.map((line) => splitUnescaped(line, '+').map(attribute));
  if (!parsed.length || parsed.some((rdn) => rdn.some((a) => a === undefined))) return undefined;
  return canonicalOf(parsed as string[][]);
}

const canonicalOf = (rdns: string[][]) => rdns.map((rdn) => [...rdn].sort().join('+')).join(',');

/** `type=value`, the type lower-cased, the value unescaped, folded and lower-cased. */
function attribute(text: string): string | undefined {
  const eq = text.indexOf('=');
  if (eq <= 0) return undefined;
  const type = text.slice(0, eq).trim().toLowerCase();
  if (!/^([a-z][a-z0-9-]*|\d+(\.\d+)+)$/.test(type)) return undefined;
  const value = text
    .slice(eq + 1)
    .trim()
    .replace(/\\([0-9a-fA-F]{2})/g, (_m, hex) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\\(.)/g, '$1')
    .replace(/\s+/g, ' ')
    .toLowerCase();
  // Separators inside a value escaped again, so that no value reads as two attributes.
  return value ? `${type}=${value.replace(/[\\,+=]/g, (c) => `\\${c}`)}` : undefined;
}

/** Splits at each `separator` not escaped with a backslash. */
function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + text[i + 1];
      i++;
    } else if (ch === separator) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}
