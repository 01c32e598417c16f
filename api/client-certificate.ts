// The client certificate a request came with (RFC 8705). Only the broker's mutual-TLS listener
// (MTLS_PORT, broker.ts) asks for one; on the plain listener, and behind a TLS terminator, there is
// none. The handshake proved that the client holds the certificate's private key; whether the
// certificate means anything is the token endpoint's and gate 1's decision.
import type { X509Certificate } from 'node:crypto';
import { TLSSocket } from 'node:tls';
import type { Ctx } from './http';

export function clientCertificate(c: Ctx): X509Certificate | undefined {
  // @hono/node-server passes the Node request as the environment (HttpBindings).
  const socket = (c.env as { incoming?: { socket?: unknown } } | undefined)?.incoming?.socket;
  return socket instanceof TLSSocket ? socket.getPeerX509Certificate() : undefined;
}
