// One webhook POST to a checked target (core/webhooks/target.ts), and the per-host concurrency
// limit deliveries run under (issue "Webhook subscriptions and delivery", part 2). The same
// request, as a GET whose bounded body is kept, fetches a connector's jwks_uri
// (core/client-key-sets.ts): one SSRF-safe way out of the broker.
//
// The socket connects to the address the check judged, through the `lookup` hook: the URL's
// host name is used only for SNI, the certificate check and the Host header, never looked up
// again, so a name rebound after the check cannot redirect the connection. A webhook's connection
// is kept alive for the next delivery to the same checked address (an agent per address: a socket
// is never reused for another address, whatever its name resolves to later), so a busy
// subscription pays one TLS handshake, not one a delivery; a kept socket the receiver closed
// meanwhile is retried once on a new one. Redirects are never
// followed (https.request does not); a 3xx is a failed delivery. The response body is read up to
// a limit and thrown away: it is never returned nor logged (spec: "the response body is not
// returned to the registering organization"); only status and timing leave this module.
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import * as tls from 'node:tls';
import type { CheckedTarget } from './target';

export interface SendResult {
  /** A 2xx answer. */
  ok: boolean;
  status?: number;
  /** From the start to the response's status line (or to the failure). */
  latencyMs: number;
  /** Retry-After of a 429 or 503, in seconds from now. */
  retryAfterSeconds?: number;
  error?: 'timeout' | 'connection' | 'tls' | 'redirect' | 'status' | 'target-refused' | 'response-too-large';
  /** The body, when asked for (keepBody) and within maxResponseBytes. */
  body?: Buffer;
  /** The response headers, when the body was asked for. */
  headers?: Record<string, string | string[] | undefined>;
}

export interface SendInput {
  target: CheckedTarget;
  /** Every request header (content-type included); content-length is added when absent. */
  headers: Record<string, string>;
  body: string;
  /** The whole exchange, connection to status line: the spec's "a 2xx within 15 s". */
  timeoutMs?: number;
  /** TCP connection and TLS handshake. */
  connectTimeoutMs?: number;
  /** Body bytes read (and discarded) before the connection is dropped. */
  maxResponseBytes?: number;
  /** An extra certificate authority (PEM) trusted besides the system's roots. */
  ca?: string;
  /** POST (a webhook, the default) or GET (a key set). */
  method?: 'POST' | 'GET';
  /** Keep the response body (up to maxResponseBytes; beyond it, 'response-too-large') instead of discarding it. */
  keepBody?: boolean;
  /** Reuse a kept-alive connection to the checked address (webhooks); a key set's GET takes a fresh one. */
  keepAlive?: boolean;
}

const TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 5_000;
const MAX_RESPONSE_BYTES = 65_536;
/** Response headers beyond this are an abuse, not an answer: 'response-too-large'. */
const MAX_HEADER_BYTES = 16_384;

/** OpenSSL and Node codes of a failed handshake or certificate check. */
const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/;

/** Kept connections: free sockets per agent, how long one waits idle, how many addresses are kept. */
const KEPT_FREE_SOCKETS = 4;
const KEPT_IDLE_MS = 4_000;
const KEPT_ADDRESSES = 256;
/** Errors of a kept socket the receiver had closed before our request reached it. */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/** One agent per checked address (least recently used dropped beyond KEPT_ADDRESSES). */
const agents = new Map<string, https.Agent>();

function agentFor(target: CheckedTarget): https.Agent {
  const key = `${target.family}/${target.address}`;
  let agent = agents.get(key);
  if (agent) agents.delete(key);
  // Node's agent pools by host, port, servername and TLS options (the CA among them) within it.
  else agent = new https.Agent({ keepAlive: true, maxFreeSockets: KEPT_FREE_SOCKETS, timeout: KEPT_IDLE_MS, scheduling: 'lifo' });
  agents.set(key, agent);
  if (agents.size > KEPT_ADDRESSES) {
    const [oldest, old] = agents.entries().next().value!;
    agents.delete(oldest);
    old.destroy();
  }
  return agent;
}

/** Closes every kept connection (tests; a stopping process need not: an idle kept socket never holds it open, Node unrefs it). */
export function closeKeptConnections(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

export async function sendWebhook(input: SendInput): Promise<SendResult> {
  return requestChecked({ keepAlive: true, ...input });
}

/** A request to a checked target: a webhook's POST, or a GET whose body is kept. */
export async function requestChecked(input: SendInput): Promise<SendResult> {
  const first = await requestOnce(input);
  // A kept socket the receiver had closed (reset before any answer): once more, on a new socket. Had
  // the request reached it after all, the second is a duplicate, which at-least-once delivery allows
  // (a receiver deduplicates by webhook-id).
  return first.staleSocket ? (await requestOnce(input)).result : first.result;
}

async function requestOnce(input: SendInput): Promise<{ result: SendResult; staleSocket?: boolean }> {
  const { target } = input;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // The address is the one the check judged; anything else was not checked.
  if (target.url.protocol !== 'https:' || !isIP(target.address)) return { result: { ok: false, latencyMs: 0, error: 'target-refused' } };

  const urlHost = target.url.hostname.replace(/^\[(.*)\]$/, '$1');
  const ipHost = isIP(urlHost) !== 0;
  // An IP literal is connected to as such (no lookup happens for one): the checked address.
  // A name: SNI and the certificate are checked against it (no trailing dot, RFC 6066); for an
  // IP literal Node sends no SNI and checks the certificate's IP addresses.
  const host = ipHost ? target.address : urlHost;
  const servername = ipHost ? undefined : urlHost.replace(/\.$/, '');
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };

  const headers: Record<string, string> = { ...input.headers };
  if (input.method !== 'GET' && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) headers['content-length'] = String(Buffer.byteLength(input.body));

  return new Promise<{ result: SendResult; staleSocket?: boolean }>((resolve) => {
    let settled = false;
    let phase: 'connecting' | 'handshake' | 'exchange' = 'connecting';
    let answer: SendResult | undefined;
    let connectTimer: NodeJS.Timeout | undefined;

    const req = https.request({
      method: input.method ?? 'POST',
      host,
      port: target.url.port ? Number(target.url.port) : 443,
      path: `${target.url.pathname}${target.url.search}`,
      headers,
      lookup,
      family: target.family,
      servername,
      ca: input.ca ? [...tls.rootCertificates, input.ca] : undefined,
      // Kept alive per checked address (agentFor), or a socket of its own.
      agent: input.keepAlive ? agentFor(target) : false,
      maxHeaderSize: MAX_HEADER_BYTES,
    });

    // `kept`: the exchange ended cleanly (the whole response read), so its socket may serve the next
    // delivery; anything cut short destroys it.
    const finish = (result: SendResult, kept = false, staleSocket = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(connectTimer);
      if (!kept) req.destroy();
      resolve({ result, staleSocket });
    };
    const fail = (error: NonNullable<SendResult['error']>) => finish({ ok: false, latencyMs: elapsed(), error });

    // Once the status line is in, it decides: a receiver trickling its body is not a timeout.
    const deadline = setTimeout(() => (answer ? finish(answer) : fail('timeout')), input.timeoutMs ?? TIMEOUT_MS);

    req.on('socket', (socket) => {
      // A kept socket is connected and past its handshake already.
      if (req.reusedSocket) {
        phase = 'exchange';
        return;
      }
      connectTimer = setTimeout(() => fail('timeout'), input.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
      socket.once('connect', () => (phase = 'handshake'));
      socket.once('secureConnect', () => {
        phase = 'exchange';
        clearTimeout(connectTimer);
      });
    });

    req.on('error', (err: NodeJS.ErrnoException) => {
      if (answer) return finish(answer);
      const code = err.code ?? '';
      if (req.reusedSocket && STALE_SOCKET.has(code)) return finish({ ok: false, latencyMs: elapsed(), error: 'connection' }, false, true);
      if (code === 'HPE_HEADER_OVERFLOW') return fail('response-too-large');
      fail(phase === 'handshake' || TLS_ERROR.test(code) ? 'tls' : 'connection');
    });

    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const result: SendResult = { ok: status >= 200 && status < 300, status, latencyMs: elapsed() };
      if (status >= 300 && status < 400) result.error = 'redirect';
      else if (!result.ok) result.error = 'status';
      if (status === 429 || status === 503) {
        const retryAfter = parseRetryAfter(res.headers['retry-after']);
        if (retryAfter !== undefined) result.retryAfterSeconds = retryAfter;
      }
      answer = result;
      // Read and discard: the bytes are counted, never kept (unless the caller asked for them).
      let received = 0;
      const kept: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > (input.maxResponseBytes ?? MAX_RESPONSE_BYTES)) return finish(input.keepBody ? { ...result, ok: false, error: 'response-too-large' } : result);
        if (input.keepBody) kept.push(chunk);
      });
      res.on('end', () => finish(input.keepBody ? { ...result, body: Buffer.concat(kept), headers: res.headers } : result, true));
      res.on('error', () => finish(result));
      res.on('close', () => finish(result));
    });

    req.end(input.method === 'GET' ? undefined : input.body);
  });
}

/**
 * Retry-After as seconds from `now`: delta-seconds or an HTTP-date (a date in the past: 0).
 * Anything else is ignored, as the header is advisory.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text), Number.MAX_SAFE_INTEGER);
  // An HTTP-date names its weekday and month (IMF-fixdate, RFC 850, asctime); bare numbers such
  // as "2030" that Date.parse would also take are not dates here.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * A FIFO semaphore per host: at most `maxPerHost` runs at once for one key, the others wait in
 * arrival order. A host's entry exists only while something runs or waits for it.
 */
export function hostLimiter(maxPerHost: number): <T>(host: string, run: () => Promise<T>) => Promise<T> {
  const hosts = new Map<string, { running: number; waiting: (() => void)[] }>();
  return async <T>(host: string, run: () => Promise<T>): Promise<T> => {
    const key = host.toLowerCase();
    let entry = hosts.get(key);
    if (!entry) hosts.set(key, (entry = { running: 0, waiting: [] }));
    const slot = entry;
    if (slot.running < maxPerHost) slot.running++;
    // The finishing run hands its slot over: `running` stays counted.
    else await new Promise<void>((resolve) => slot.waiting.push(resolve));
    try {
      return await run();
    } finally {
      const next = slot.waiting.shift();
      if (next) next();
      else if (--slot.running === 0) hosts.delete(key);
    }
  };
}
