// Signing of webhook messages by the Standard Webhooks scheme (the standardwebhooks package: no
// hand-written HMAC): webhook-id, webhook-timestamp and one `v1,<signature>` per secret that signs.
import { Webhook } from 'standardwebhooks';

/** The headers of one signed message (Standard Webhooks): every secret that signs now signs it. */
export function signedHeaders(secrets: readonly string[], messageId: string, at: Date, body: string): Record<string, string> {
  return {
    'content-type': 'application/cloudevents+json',
    'user-agent': 'PCX-Webhooks/1',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(messageId, at, body)).join(' '),
  };
}

