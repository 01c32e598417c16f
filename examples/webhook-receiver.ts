// A runnable receiver of the broker's webhooks (docs/webhooks.md, "Receiving webhooks"):
//
//   WEBHOOK_SECRETS=whsec_... PORT=8080 npx tsx examples/webhook-receiver.ts
//
// WEBHOOK_SECRETS holds the subscription's signing secrets, comma-separated: the current one and,
// while a rotation is under way, the previous one.
//
// It listens on plain HTTP (node:http). The broker delivers to HTTPS targets only: in production
// put it behind a TLS-terminating proxy or load balancer (which forwards the body untouched), or
// serve it with node:https (`https.createServer({ key, cert }, handler)`), never plain HTTP on the
// internet.
//
// The applied events are remembered in memory (MemoryAppliedStore): enough for one process. A real
// consumer keeps them in its database and calls markApplied in the transaction that applies the
// event.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createWebhookReceiver, MemoryAppliedStore, WebhookVerificationError, type WebhookEvent } from '../sdk/src/webhooks';

const MAX_BODY_BYTES = 1024 * 1024;

const secrets = (process.env.WEBHOOK_SECRETS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter((s) => s !== '');
if (secrets.length === 0) {
  console.error('Set WEBHOOK_SECRETS to the subscription secret(s), whsec_..., comma-separated');
  process.exit(1);
}
const receiver = createWebhookReceiver({ secrets, store: new MemoryAppliedStore() });

/** The application's work. Keep it short (the broker waits at most 15 s) and idempotent. */
async function apply(event: WebhookEvent): Promise<void> {
  console.log(`apply ${event.type} ${event.subject} v${event.resourceversion} (${event.id})`);
}

/** The body exactly as received: the signature covers these bytes. */
async function rawBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Read to the end even when too large (dropping the excess), so that the answer can be sent.
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  return size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined;
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') return answer(res, 405);
  const body = await rawBody(req);
  if (body === undefined) return answer(res, 413);
  try {
    const result = await receiver.receive(body, req.headers);
    if (result.outcome === 'apply') {
      await apply(result.event);
      // Only after applying: a crash before this line means the redelivery is applied again.
      await receiver.markApplied(result.event);
    } else {
      console.log(`${result.outcome} ${result.event.subject} v${result.event.resourceversion} (${result.event.id}): ignored`);
    }
    // 2xx for apply, duplicate and stale alike: the broker stops retrying.
    return answer(res, 204);
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      // Not from the broker, replayed or tampered with: 400 (the broker counts it as a failure).
      console.warn(`refused: ${error.message}`);
      return answer(res, 400);
    }
    // The application failed: any other status makes the broker retry later.
    console.error(error);
    return answer(res, 500);
  }
}

function answer(res: ServerResponse, status: number): void {
  res.writeHead(status).end();
}

const port = Number(process.env.PORT ?? 8080);
createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    // The request broke off while its body was read, or the answer could not be written.
    console.error(error);
    if (!res.headersSent) answer(res, 500);
  });
}).listen(port, () => console.log(`webhook receiver on http://localhost:${port}/`));
