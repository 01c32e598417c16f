// Abuse resistance at the token endpoints (RFC 9700 section 4.x, the OAuth 2.0 Security BCP's
// advice against online guessing; docs/security.md): failed client authentications are counted per
// client id and per source address in the read model's rate counters (read-model/rate-counters.ts,
// shared by every replica), and a client id or an address with too many in the sliding window is
// answered 429 with Retry-After before its credentials are even looked at, a valid one included.
//
// A lock is never for good: throttled attempts are not counted, so it ends when the window has slid
// past the failures that caused it (Retry-After says when); an attacker who wants to keep a client
// locked must keep failing, and each of its addresses is throttled on its own. Every failure and
// every throttled attempt is counted in /metrics, and the failure that starts a lock is logged at
// warn: the operator's signal that someone is guessing.
import { Problem } from '../domain/problems';
import { countIn, peek, type Bucket, type Estimate } from '../read-model/rate-counters';
import type { Db } from '../core/db';
import { tokenAuthFailures, tokenAuthThrottled } from '../core/metrics';
import type { Logger } from '../core/log';

export interface ThrottleSettings {
  windowSeconds: number;
  /** Failed authentications of one client id in the window before it is throttled. */
  perClient: number;
  /** Failed authentications from one source address (any client ids) in the window before it is throttled. */
  perAddress: number;
}

export interface Attempt {
  /** The client id the request claims (Basic, client_id, an assertion's sub), when it names one. */
  clientId?: string;
  /** The socket's remote address. */
  address: string;
}

const CLIENT = 'token-fail-client:';

const bucketsOf = (attempt: Attempt, settings: ThrottleSettings): Bucket[] => [
  ...(attempt.clientId ? [{ key: `${CLIENT}${attempt.clientId.slice(0, 256)}`, limit: settings.perClient, windowSeconds: settings.windowSeconds }] : []),
  { key: `token-fail-address:${attempt.address}`, limit: settings.perAddress, windowSeconds: settings.windowSeconds },
];

const byOf = (estimates: Estimate[]) => (estimates.some((e) => e.bucket.key.startsWith(CLIENT)) ? 'client' : 'address');

/** Throws 429 (with Retry-After) when the client id or the address has failed too often lately. */
export async function refuseWhileThrottled(db: Db, attempt: Attempt, settings: ThrottleSettings, endpoint: string, nowMs = Date.now()): Promise<void> {
  const over = (await peek(db, bucketsOf(attempt, settings), nowMs)).filter((e) => e.estimate >= e.bucket.limit);
  if (!over.length) return;
  const by = byOf(over);
  tokenAuthThrottled.inc({ endpoint, by });
  const retryAfter = Math.max(...over.map(secondsUntilBelow));
  const description = `too many failed client authentications ${by === 'client' ? 'for this client id' : 'from this address'}: try again in ${retryAfter} s`;
  throw new Problem('RATE_LIMITED', description, { error: 'slow_down', error_description: description }, { 'retry-after': String(retryAfter) });
}

/** Counts a failed authentication (its reason for the metrics: a short, stable word); the one that starts a lock is logged. */
export async function countFailure(db: Db, log: Logger, attempt: Attempt, settings: ThrottleSettings, endpoint: string, reason: string, nowMs = Date.now()): Promise<void> {
  tokenAuthFailures.inc({ endpoint, reason });
  const reached = (await countIn(db, bucketsOf(attempt, settings), nowMs)).filter((e) => e.estimate >= e.bucket.limit && e.estimate - 1 < e.bucket.limit);
  if (reached.length) {
    // sourceIp, not `address`: the logger redacts fields named like a postal address (core/log.ts).
    log.warn({ endpoint, clientId: attempt.clientId, sourceIp: attempt.address, by: byOf(reached), windowSeconds: settings.windowSeconds, limit: reached[0].bucket.limit }, 'token endpoint: failed client authentications reached the limit; further attempts are throttled (429)');
  }
}

/**
 * Seconds until the sliding estimate falls below the limit if nothing more is counted. At a
 * fraction e of the window it is c + p(1 - e) (this window's count c, the previous one's p), and
 * c(1 - e) once the next window has begun.
 */
export function secondsUntilBelow(e: Estimate): number {
  const { count: c, previous: p, elapsed, bucket } = e;
  const w = bucket.windowSeconds;
  const limit = bucket.limit;
  let wait: number;
  if (c < limit) wait = Math.max(0, 1 - (limit - c) / p - elapsed) * w;
  else wait = (1 - elapsed) * w + (1 - limit / c) * w;
  return Math.max(1, Math.ceil(wait + 0.001));
}
