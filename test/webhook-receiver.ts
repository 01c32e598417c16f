// A scriptable HTTPS webhook receiver for tests: records every request and answers as the test
// says (status, delay, headers, body). Its certificate comes from test/tls.ts, so a client
// trusting that CA can reach it as 127.0.0.1, localhost or any *.pcx.test name.
import * as https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as received. */
  body: string;
  /** Date.now() when the body was complete. */
  at: number;
}

export interface ReceiverReply {
  /** Default 204. */
  status?: number;
  /** Wait this long before answering (a slow receiver). */
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Drop the connection instead of answering (a receiver that closed a kept connection as the request came). */
  drop?: boolean;
}

export type ReceiverBehaviour = (req: { method: string; path: string; headers: IncomingHttpHeaders; body: string }) => ReceiverReply | Promise<ReceiverReply>;

export interface Receiver {
  port: number;
  /** `https://<hostname>:<port><path>`; hostname defaults to the address it listens on. */
  url(path?: string, hostname?: string): string;
  /** How to answer from now on (default: 204 with no body). */
  respond(behaviour: ReceiverBehaviour): void;
  /** Every request received, in order. */
  requests: ReceivedRequest[];
  /** TLS connections accepted so far (a client that keeps its connection alive opens one). */
  connections(): number;
  /** Resolves once `n` requests have been received; rejects after `timeoutMs` (default 10 s). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(opts: { key: string; cert: string; host?: '127.0.0.1' }): Promise<Receiver> {
  const host = opts.host ?? '127.0.0.1';
  let behaviour: ReceiverBehaviour = () => ({ status: 204 });
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let connections = 0;

  const server = https.createServer({ key: opts.key, cert: opts.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      requests.push({ method: req.method ?? '', path, headers: req.headers, body, at: Date.now() });
      for (const waiter of [...waiters]) waiter();
      let reply: ReceiverReply;
      try {
        reply = await behaviour({ method: req.method ?? '', path, headers: req.headers, body });
      } catch {
        reply = { status: 500 };
      }
      const answer = () => {
        if (res.destroyed) return;
        if (reply.drop) return void req.socket.destroy();
        res.writeHead(reply.status ?? 204, reply.headers);
        res.end(reply.body);
      };
      if (!reply.delayMs) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, reply.delayMs);
      timers.add(timer);
    });
  });
  // A client refusing the certificate, or giving up mid-answer, is part of the tests.
  server.on('tlsClientError', () => undefined);
  server.on('clientError', (_err, socket) => socket.destroy());
  server.on('secureConnection', (socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    url: (path = '/hook', hostname = host) => `https://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}${path}`,
    respond: (next) => {
      behaviour = next;
    },
    requests,
    connections: () => connections,
    waitFor: (n, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (requests.length >= n) return resolve(requests.slice(0, n));
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the receiver got ${requests.length} of ${n} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          if (requests.length < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(requests.slice(0, n));
        };
        waiters.add(check);
      }),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
