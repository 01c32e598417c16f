// Mutual TLS for connectors (RFC 8705): a fetch that presents the connector's certificate on every
// connection, through undici (Node's own fetch engine, as a package: its Agent takes a client
// certificate, which the global fetch cannot be given). Loaded only by a client with a certificate.
import type { Agent as UndiciAgent } from 'undici';

export function mutualTlsFetch(certificate: { cert: string | Buffer; key: string | Buffer; ca?: string | Buffer }): typeof fetch {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const undici = require('undici') as typeof import('undici');
  const dispatcher: UndiciAgent = new undici.Agent({ connect: { cert: certificate.cert, key: certificate.key, ...(certificate.ca ? { ca: certificate.ca } : {}) } });
  return ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => undici.fetch(input as any, { ...(init as any), dispatcher })) as unknown as typeof fetch;
}
