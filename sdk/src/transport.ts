// The HTTP layer under every call: the token, the Idempotency-Key, retries and timeouts.
//
// Retries (as Stripe's and OpenAI's SDKs do): a network failure, a timeout, 429, 502, 503, 504
// and 409 IDEMPOTENCY_IN_PROGRESS are retried with exponential backoff and full jitter, a
// Retry-After honoured (capped); any other answer is final, so a command is never retried on a
// 4xx that says it was wrong. Every retry of one call carries the same Idempotency-Key (made here
// when the caller gave none), so a command the broker did complete before the connection broke is
// answered from its record, not done twice. A 401 with a token this layer obtained renews the
// token once.
import { PcxConnectionError, PcxTimeoutError, problemError, problemOfStatus, type Problem } from './errors';
import { clientAssertion, type PrivateJwk } from './keys';
import type { DpopKey } from './dpop';

export interface RetryPolicy {
  /** Retries after the first attempt (default 4). */
  maxRetries: number;
  /** The first backoff (default 500 ms); doubled each retry, capped at maxDelayMs (default 8 s). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the answer is returned (default 60 s). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60_000 };

/** What a retry was for, given to `onRetry` (the CLI shows it on stderr). */
export interface RetryInfo {
  method: string;
  path: string;
  attempt: number;
  delayMs: number;
  reason: string;
  idempotencyKey?: string;
}

/** Where tokens come from: client credentials (renewed before they expire), or the caller's. */
export interface TokenSource {
  token(): Promise<string>;
  /** Forget the current token (a 401 answered it); false when the source cannot get another. */
  invalidate(): boolean;
  /** The headers that authorize one request: `Authorization` (Bearer or DPoP) and, for a DPoP-bound token, its proof. */
  authorize?(method: string, url: URL): Promise<Record<string, string>>;
  /** Learns from an answer (a DPoP nonce); true when the request should be sent again at once with a new proof. */
  learn?(res: Response, url: URL): boolean;
}

export interface ClientCredentialsOptions {
  /** The token endpoint, or how to find it (discovery, sdk/src/discovery.ts). */
  tokenUrl: string | (() => Promise<string>);
  clientId: string;
  /** client_secret_post. */
  clientSecret?: string;
  /** private_key_jwt (RFC 7523): a new assertion per request. */
  privateKey?: PrivateJwk;
  /** The client authenticates with the TLS client certificate of `fetch` (RFC 8705): the form names the client only. */
  certificate?: boolean;
  /** DPoP (RFC 9449): tokens bound to this key, each request with a proof. */
  dpop?: DpopKey;
  scope?: string;
  fetch: typeof fetch;
  now?: () => number;
}

/**
 * OAuth 2.0 client credentials at the broker's token endpoint: one request in flight, renewed
 * before expiry. The client authenticates with its secret (client_secret_post), with a new client
 * assertion per request given its private key (private_key_jwt, RFC 7523; sdk/src/keys.ts), or
 * with its TLS client certificate (RFC 8705: self_signed_tls_client_auth or tls_client_auth). With
 * a DPoP key its tokens are bound to that key and every call carries a proof (RFC 9449).
 */
export class ClientCredentials implements TokenSource {
  private current: { token: string; type: 'Bearer' | 'DPoP'; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;
  private resolvedTokenUrl: string | undefined;
  constructor(private readonly opts: ClientCredentialsOptions) {
    if ([opts.clientSecret, opts.privateKey, opts.certificate].filter(Boolean).length !== 1) throw new TypeError('client credentials need one of a clientSecret, a privateKey or a certificate');
  }

  private async tokenUrl(): Promise<string> {
    this.resolvedTokenUrl ??= typeof this.opts.tokenUrl === 'string' ? this.opts.tokenUrl : await this.opts.tokenUrl();
    return this.resolvedTokenUrl;
  }

  /** The client's authentication, made anew for every attempt (an assertion is accepted once). */
  private authentication(tokenUrl: string): Record<string, string> {
    if (this.opts.privateKey) {
      const assertion = clientAssertion({ clientId: this.opts.clientId, tokenUrl, privateJwk: this.opts.privateKey, now: (this.opts.now ?? Date.now)() });
      return { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion };
    }
    if (this.opts.certificate) return { client_id: this.opts.clientId };
    return { client_id: this.opts.clientId, client_secret: this.opts.clientSecret! };
  }

  async authorize(method: string, url: URL): Promise<Record<string, string>> {
    const token = await this.token();
    if (this.current?.type !== 'DPoP' || !this.opts.dpop) return { authorization: `Bearer ${token}` };
    return { authorization: `DPoP ${token}`, dpop: this.opts.dpop.proof({ method, url, accessToken: token }) };
  }

  learn(res: Response, url: URL): boolean {
    return this.opts.dpop?.learn(res, url) ?? false;
  }

  async token(): Promise<string> {
    const now = (this.opts.now ?? Date.now)();
    if (this.current && now < this.current.renewAt) return this.current.token;
    this.pending ??= this.request().finally(() => (this.pending = undefined));
    return this.pending;
  }

  invalidate(): boolean {
    this.current = undefined;
    return true;
  }

  private async request(): Promise<string> {
    let lastError: unknown;
    let tokenUrl: string;
    try {
      tokenUrl = await this.tokenUrl();
    } catch (err) {
      throw new PcxConnectionError(`the broker's token endpoint could not be discovered: ${describe(err)}`, { cause: err });
    }
    let nonceRetried = false;
    for (let attempt = 0; attempt <= DEFAULT_RETRY.maxRetries; attempt++) {
      if (attempt > 0) await sleep(backoff(attempt - 1, DEFAULT_RETRY));
      const form = new URLSearchParams({ grant_type: 'client_credentials', ...this.authentication(tokenUrl) });
      if (this.opts.scope) form.set('scope', this.opts.scope);
      const headers: Record<string, string> = this.opts.dpop ? { dpop: this.opts.dpop.proof({ method: 'POST', url: tokenUrl }) } : {};
      let res: Response;
      try {
        res = await this.opts.fetch(tokenUrl, { method: 'POST', body: form, headers, signal: AbortSignal.timeout(15_000) });
      } catch (err) {
        lastError = err;
        continue;
      }
      // The broker asked for a DPoP nonce: the same request again at once, with it (RFC 9449 section 8).
      if (this.opts.dpop && !nonceRetried && this.opts.dpop.learn(res, new URL(tokenUrl))) {
        nonceRetried = true;
        await res.body?.cancel();
        attempt--;
        continue;
      }
      const body = (await res.json().catch(() => undefined)) as { access_token?: string; token_type?: string; expires_in?: number; code?: string; detail?: string } | undefined;
      if (res.ok && body?.access_token) {
        const lifetimeMs = (body.expires_in ?? 300) * 1000;
        // Renewed at 80 % of its life and at least a minute early (a clock a little off, a slow call).
        const renewIn = Math.max(0, Math.min(lifetimeMs * 0.8, lifetimeMs - 60_000));
        this.current = { token: body.access_token, type: body.token_type?.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', renewAt: (this.opts.now ?? Date.now)() + renewIn };
        return body.access_token;
      }
      if (res.status >= 500 || res.status === 429) {
        lastError = new Error(`token endpoint answered ${res.status}`);
        continue;
      }
      // A refusal of the credentials is an answer, not a lost connection: the broker's problem
      // (invalid_client is 401 UNAUTHENTICATED), so that callers and pcx's exit code see it as such.
      const path = new URL(tokenUrl).pathname;
      const problem = body && typeof body.code === 'string' && typeof (body as { status?: unknown }).status === 'number'
        ? (body as unknown as Problem)
        : problemOfStatus(res.status, `the token endpoint refused the client credentials of ${this.opts.clientId}`);
      throw problemError(problem, { method: 'POST', path });
    }
    throw new PcxConnectionError(`no token from ${tokenUrl}: ${describe(lastError)}`, { cause: lastError });
  }
}

/**
 * A token the caller manages (an interactive user's, a test's). A function is asked again after a
 * 401, told to `renew` (the broker no longer takes the token it gave: the planner console signs
 * its user in again silently then).
 */
export class StaticToken implements TokenSource {
  private renew = false;
  constructor(private readonly get: string | ((options: { renew: boolean }) => Promise<string> | string)) {}
  async token(): Promise<string> {
    if (typeof this.get === 'string') return this.get;
    const renew = this.renew;
    this.renew = false;
    return this.get({ renew });
  }
  invalidate(): boolean {
    if (typeof this.get === 'string') return false;
    this.renew = true;
    return true;
  }
}

export interface TransportOptions {
  tokens: TokenSource;
  retry: RetryPolicy;
  /** Each attempt's limit (default 30 s). */
  timeoutMs: number;
  fetch: typeof fetch;
  userAgent: string;
  onRetry?: (info: RetryInfo) => void;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);

/** A fetch for openapi-fetch that adds the token and the Idempotency-Key and retries. */
export function createTransport(opts: TransportOptions): (request: Request) => Promise<Response> {
  return async (request: Request) => {
    const url = new URL(request.url);
    const method = request.method.toUpperCase();
    const unsafe = method !== 'GET' && method !== 'HEAD';
    const headers = new Headers(request.headers);
    headers.set('user-agent', opts.userAgent);
    if (unsafe && !headers.has('idempotency-key')) headers.set('idempotency-key', globalThis.crypto.randomUUID());
    const idempotencyKey = headers.get('idempotency-key') ?? undefined;
    // Read once, sent again on every retry.
    const body = unsafe && request.body ? await request.arrayBuffer() : undefined;
    const callerSignal = request.signal;
    let renewedToken = false;
    let nonceRetried = false;
    for (let attempt = 0; ; attempt++) {
      callerSignal.throwIfAborted();
      const authorization = opts.tokens.authorize ? await opts.tokens.authorize(method, url) : { authorization: `Bearer ${await opts.tokens.token()}` };
      for (const [name, value] of Object.entries(authorization)) headers.set(name, value);
      callerSignal.throwIfAborted();
      // Our own timer, not AbortSignal.timeout: that one is unref'd (a pending call would not keep
      // a script alive) and does not fire under some test runners' module sandboxes.
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new PcxTimeoutError(`${method} ${url.pathname}: no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
      let reason: string;
      let retryAfterMs: number | undefined;
      try {
        const res = await opts.fetch(url, { method, headers, body, signal: AbortSignal.any([callerSignal, timeout.signal]), redirect: 'manual' });
        // The timer covers the answer's head; reading its body is the caller's.
        clearTimeout(timer);
        // A DPoP nonce asked for (or renewed): the same call again with a proof that carries it.
        if (opts.tokens.learn?.(res, url) && !nonceRetried) {
          nonceRetried = true;
          await res.body?.cancel();
          attempt--;
          continue;
        }
        if (res.status === 401 && !renewedToken && opts.tokens.invalidate()) {
          renewedToken = true;
          await res.body?.cancel();
          attempt--;
          continue;
        }
        const inProgress = res.status === 409 && (await problemCodeOf(res)) === 'IDEMPOTENCY_IN_PROGRESS';
        if (!RETRY_STATUSES.has(res.status) && !inProgress) return res;
        retryAfterMs = parseRetryAfterMs(res.headers.get('retry-after'));
        if (attempt >= opts.retry.maxRetries || (retryAfterMs !== undefined && retryAfterMs > opts.retry.maxRetryAfterMs)) return res;
        await res.body?.cancel();
        reason = inProgress ? '409 IDEMPOTENCY_IN_PROGRESS' : String(res.status);
      } catch (err) {
        clearTimeout(timer);
        if (callerSignal.aborted) throw callerSignal.reason ?? err;
        const timedOut = timeout.signal.aborted;
        if (attempt >= opts.retry.maxRetries) {
          if (timedOut) throw new PcxTimeoutError(`${method} ${url.pathname}: no answer within ${opts.timeoutMs} ms (${attempt + 1} attempts)`);
          throw new PcxConnectionError(`${method} ${url.pathname}: ${describe(err)} (${attempt + 1} attempts)`, { cause: err });
        }
        reason = timedOut ? 'timeout' : describe(err);
      }
      const delayMs = retryAfterMs ?? backoff(attempt, opts.retry);
      opts.onRetry?.({ method, path: url.pathname, attempt: attempt + 1, delayMs, reason, ...(idempotencyKey ? { idempotencyKey } : {}) });
      await sleep(delayMs, callerSignal);
    }
  };
}

async function problemCodeOf(res: Response): Promise<string | undefined> {
  try {
    return ((await res.clone().json()) as { code?: string }).code;
  } catch {
    return undefined;
  }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
}

/** Equal jitter: half the exponential step, plus a random part of the other half (never a zero wait). */
export function backoff(retry: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(step / 2 + (random() * step) / 2);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP-date. */
export function parseRetryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** An answer's body as JSON, or as text when it is not JSON, or undefined when empty (read once). */
export async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
