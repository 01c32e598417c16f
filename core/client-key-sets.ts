// Key sets connectors publish themselves (RFC 7591 `jwks_uri`): a connector that rotates its own
// keys registers the address once, and the broker fetches the set when an assertion needs it. The
// fetch goes out the way webhooks do (core/webhooks/target.ts and send.ts): HTTPS only, the name
// resolved and every address checked against private, loopback, link-local and metadata ranges,
// the connection pinned to the address checked, no redirect followed, a bounded body. A set is
// kept as long as its Cache-Control max-age says, between MIN_TTL and MAX_TTL, and fetched again
// at once when an assertion names a kid the set lacks (a key the client just added), at most once
// per REFETCH_FLOOR per address (a few seconds: a client that just published a key waits that long at
// most), so assertions with random kids cannot make the broker flood the client's host.
// Every key of a set passes core/public-keys.ts; a key that does not is left out and named.
import type { JWK } from 'jose';
import { checkPublicJwk } from './public-keys';
import { checkTarget, type Resolve } from './webhooks/target';
import { requestChecked } from './webhooks/send';

export const MIN_TTL_SECONDS = 300;
export const MAX_TTL_SECONDS = 86_400;
export const REFETCH_FLOOR_SECONDS = 5;
/** A set that could not be fetched again is used for this long past its expiry (the client's host may be down for a while). */
const STALE_GRACE_SECONDS = 86_400;
const MAX_BYTES = 65_536;
const MAX_KEYS = 20;

export interface KeySetPolicy {
  allowCidrs: string[];
  resolve: Resolve;
  /** An extra certificate authority trusted for the client's host (tests). */
  ca?: string;
}

export interface FetchedKeySet {
  keys: JWK[];
  /** Keys the set held that were left out, and why. */
  refused: string[];
}

interface Entry {
  set: FetchedKeySet;
  fetchedAt: number;
  expiresAt: number;
}

export interface KeySetCache {
  /** The usable keys at `uri`; fetched when not kept or expired, or again when `kid` is not among them (rate-limited). */
  keys(uri: string, kid?: string): Promise<FetchedKeySet>;
}

/** Why a key set could not be had. */
export class KeySetUnavailable extends Error {
  constructor(readonly uri: string, reason: string) {
    super(`the key set at ${uri} could not be fetched: ${reason}`);
    this.name = 'KeySetUnavailable';
  }
}

export function keySetCache(policy: KeySetPolicy, clock: () => number = Date.now): KeySetCache {
  const kept = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<Entry>>();
  const fetchOnce = (uri: string) => {
    let pending = inFlight.get(uri);
    if (!pending) {
      pending = fetchKeySet(uri, policy, clock).finally(() => inFlight.delete(uri));
      inFlight.set(uri, pending);
    }
    return pending;
  };
  return {
    async keys(uri, kid) {
      const now = clock() / 1000;
      const entry = kept.get(uri);
      const missing = kid !== undefined && entry && !entry.set.keys.some((k) => k.kid === kid);
      const due = !entry || entry.expiresAt <= now || (missing && now - entry.fetchedAt >= REFETCH_FLOOR_SECONDS);
      if (!due) return entry!.set;
      try {
        const fresh = await fetchOnce(uri);
        kept.set(uri, fresh);
        if (kept.size > 10_000) kept.delete(kept.keys().next().value!);
        return fresh.set;
      } catch (err) {
        // The set kept before still counts for a while: its keys were the client's a moment ago.
        if (entry && now - entry.expiresAt < STALE_GRACE_SECONDS) return entry.set;
        throw err;
      }
    },
  };
}

async function fetchKeySet(uri: string, policy: KeySetPolicy, clock: () => number): Promise<Entry> {
  const checked = await checkTarget(uri, { allowCidrs: policy.allowCidrs, resolve: policy.resolve });
  if (!checked.ok) throw new KeySetUnavailable(uri, checked.detail);
  const answer = await requestChecked({ target: checked.target, method: 'GET', headers: { accept: 'application/jwk-set+json, application/json' }, body: '', keepBody: true, maxResponseBytes: MAX_BYTES, timeoutMs: 5000, ...(policy.ca ? { ca: policy.ca } : {}) });
  if (!answer.ok || !answer.body) throw new KeySetUnavailable(uri, answer.status ? `it answered ${answer.status}${answer.error === 'redirect' ? ' (redirects are not followed)' : ''}` : (answer.error ?? 'no answer'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw new KeySetUnavailable(uri, 'it is not JSON');
  }
  const keys = (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(keys)) throw new KeySetUnavailable(uri, 'it is not a JWK Set ({"keys": [...]})');
  const set: FetchedKeySet = { keys: [], refused: [] };
  for (const [i, key] of keys.slice(0, MAX_KEYS).entries()) {
    const name = typeof key?.kid === 'string' ? key.kid : `keys[${i}]`;
    if (!key || typeof key !== 'object') set.refused.push(`${name}: not a key`);
    else if (key.use !== undefined && key.use !== 'sig') set.refused.push(`${name}: not a signing key (use ${key.use})`);
    else {
      const check = checkPublicJwk(key);
      if (check.ok) set.keys.push(key as JWK);
      else set.refused.push(`${name}: ${check.reason}`);
    }
  }
  const now = clock() / 1000;
  return { set, fetchedAt: now, expiresAt: now + ttlOf(answer.headers?.['cache-control']) };
}

/** Seconds a set is kept: its max-age within [MIN_TTL, MAX_TTL]; no-store, no-cache or none: MIN_TTL. */
export function ttlOf(cacheControl: string | string[] | undefined): number {
  const value = Array.isArray(cacheControl) ? cacheControl.join(',') : (cacheControl ?? '');
  if (/(^|,)\s*(no-store|no-cache)\b/i.test(value)) return MIN_TTL_SECONDS;
  const maxAge = /(^|,)\s*(?:s-)?max-age\s*=\s*"?(\d+)"?/i.exec(value);
  const seconds = maxAge ? Number(maxAge[2]) : MIN_TTL_SECONDS;
  return Math.min(MAX_TTL_SECONDS, Math.max(MIN_TTL_SECONDS, seconds));
}
