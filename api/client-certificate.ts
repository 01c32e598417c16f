// The client certificate a request came with (RFC 8705), and the address it came from. Only the
// broker's mutual-TLS listener (MTLS_PORT, broker.ts) asks for a certificate; on the plain listener,
// and behind a TLS terminator, there is none. The handshake proved that the client holds the
// certificate's private key; whether the certificate chains to one of the operator's trust anchors
// (CLIENT_CA_FILE) the TLS layer decided too (`chainTrusted`); what the certificate means is the
// token endpoint's and gate 1's decision.
import type { X509Certificate } from 'node:crypto';
import { TLSSocket } from 'node:tls';
import type { Ctx } from './http';

const socketOf = (c: Ctx) => (c.env as { incoming?: { socket?: unknown } } | undefined)?.incoming?.socket;

export function clientCertificate(c: Ctx): X509Certificate | undefined {
  // @hono/node-server passes the Node request as the environment (HttpBindings).
  const socket = socketOf(c);
  return socket instanceof TLSSocket ? socket.getPeerX509Certificate() : undefined;
}

/** Whether the client certificate chains to one of the mutual-TLS listener's trust anchors (OpenSSL verified it in the handshake). */
export function clientCertificateTrusted(c: Ctx): boolean {
  const socket = socketOf(c);
  return socket instanceof TLSSocket && socket.authorized === true;
}

/** The address the request's connection comes from (the token endpoint's throttle counts by it). */
export function clientAddress(c: Ctx): string {
  const socket = socketOf(c) as { remoteAddress?: string } | undefined;
  return (socket?.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
}
