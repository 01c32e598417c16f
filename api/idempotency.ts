// Idempotency-Key for every create and command, stored durably in PostgreSQL and scoped to
// (organization, operation, key). The operation is the method and concrete path, so one key may be
// used once per resource and command. Outcomes:
//   - first use: the key is claimed (pending), the request runs, its response is stored;
//   - same key, same payload, finished: the stored response (status, body, ETag) is returned;
//   - same key, another payload: 409 IDEMPOTENCY_CONFLICT;
//   - same key while the first request runs: 409 IDEMPOTENCY_IN_PROGRESS (never runs twice);
//   - a refused request (4xx) frees the key: nothing changed, so nothing is remembered;
//   - an unknown outcome (crash, timeout) keeps the claim; a retry takes it over and re-sends the
//     same command id, which the entity workflow answers from its memory of recent commands.
// A claim is a short lease that its holder renews while the request runs. A holder that died
// (the broker was killed mid-command) stops renewing, so a connector's retry takes the claim over
// within seconds instead of waiting out a long lock; re-sending the command is safe because the
// command id is also the Update id, which Temporal and the workflow deduplicate. A lifecycle
// command's id is derived from the key (keyCommandId), so that even a retry whose record the read
// model lost (restored to an older point) is recognized by the workflow; a create with a random id
// is found again through the key its workflow recorded in Temporal (keyCreateKey, CommandIds).
import { idempotencyTakeovers } from '../core/metrics';
import { createHash } from 'node:crypto';
import { uuid7 } from '../domain/ids';
import { Problem } from '../domain/problems';
import { completeClaim, deleteExpiredKey, insertClaim, lapseClaim, readKey, releaseClaim, renewClaim, takeOverLapsedClaim, type Slot } from '../read-model/idempotency-keys';
import type { Ctx } from './http';
import { KeyRing } from '../core/secrets';
import type { Db } from '../core/db';
import { currentFeedHistoryStart } from '../read-model/events';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /**
   * Top-level fields of the body that hold a secret (a webhook signing secret): stored sealed
   * (core/secrets.ts), bound to this key, and opened again for a replay; never in clear at rest.
   */
  secretFields?: string[];
}

/** What the stored answer's sealed fields are bound to: the organization, operation and key. */
const sealContext = (slot: Slot, field: string) => `idempotency:${slot.org}\n${slot.operation}\n${slot.key}\n${field}`;

/** The answer as stored: its secret fields sealed. */
function sealed(slot: Slot, response: StoredResponse, ring: KeyRing): StoredResponse {
  if (!response.secretFields?.length || !response.body || typeof response.body !== 'object') return response;
  const body = { ...(response.body as Record<string, unknown>) };
  for (const field of response.secretFields) if (typeof body[field] === 'string') body[field] = ring.seal(body[field] as string, sealContext(slot, field));
  return { status: response.status, headers: response.headers, body };
}

/** A stored answer replayed: its sealed fields opened (a value no longer opening is left out). */
function opened(slot: Slot, body: unknown, ring: KeyRing): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (typeof value === 'string' && KeyRing.keyOf(value) !== undefined) {
      try {
        out[field] = ring.open(value, sealContext(slot, field));
      } catch {
        // Sealed under a key removed from the ring since (the answer outlived a rotation): the
        // replay answers without the secret, as a read does.
      }
    } else out[field] = value;
  }
  return out;
}

/** How long a claim lasts without renewal: a retry may take over a claim its holder stopped renewing. */
const LEASE_SECONDS = 4;
/** How often the holder renews its lease while the request runs. */
const RENEW_EVERY_MS = 1000;

/** A hash of the request that ignores the order of object keys (the same payload is the same). */
export function fingerprint(parts: unknown[]): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Where the command id of a key's first use comes from:
 * - `derived`: from the key and the request (`keyCommandId`): lifecycle commands, and creates whose
 *   resource id is not the command id (a derived or chosen id);
 * - `create`: a create whose resource id is its command id, a random UUIDv7 (lists and cursors
 *   order by it). Its workflow records a key derived from the request (`createKey`), and a first
 *   use of the key asks Temporal for the resource it made: one made before a restore of the read
 *   model alone took the key's record is answered again instead of made twice.
 * Without a key every request gets a random UUIDv7.
 */
export type CommandIds = 'derived' | 'create';

/** A create under `CommandIds` `create`: the key its workflow records, and whether Temporal already knew it (its resource's id is the command id). */
export interface KeyedCreate {
  createKey: string;
  found: boolean;
}

export async function idempotent(
  c: Ctx,
  requestHash: string,
  run: (commandId: string, create?: KeyedCreate) => Promise<StoredResponse>,
  options: { commandIds?: CommandIds } = {},
): Promise<StoredResponse> {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return run(uuid7());
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new Problem('VALIDATION_FAILED', 'Idempotency-Key must be 1 to 255 visible ASCII characters', {
      errors: [{ pointer: '/headers/Idempotency-Key', message: 'is not valid' }],
    });
  }
  const { db, config, secrets, entities } = c.get('services');
  const slot: Slot = { db, org: c.get('principal').organizationId, operation: `${c.req.method} ${new URL(c.req.url).pathname}`, key, token: uuid7() };
  const createKey = options.commandIds === 'create' ? keyCreateKey(slot, requestHash) : undefined;
  let found: string | undefined;
  const fresh =
    options.commandIds === 'derived'
      ? async () => keyCommandId(slot, requestHash)
      : createKey && (await mayHaveLostKeys(db, config.idempotencyTtlSeconds))
        ? // Temporal is asked only when the key has no record (a claim that would be inserted).
          async () => (found = (await readKey(slot)) ? undefined : await entities.createdWith(createKey, new Date(Date.now() - config.idempotencyTtlSeconds * 1000))) ?? uuid7()
        : async () => uuid7();
  const claimed = await claimSlot(slot, requestHash, config.idempotencyTtlSeconds, fresh);
  if ('replay' in claimed) return { ...claimed.replay, body: opened(slot, claimed.replay.body, secrets) };
  return runClaimed(slot, claimed.commandId, (commandId) => run(commandId, createKey ? { createKey, found: found === commandId } : undefined), secrets);
}

/** How long a process trusts what it read of the feed history's start. */
const HISTORY_START_CACHE_MS = 60_000;
const historyStarts = new WeakMap<object, { at: Date; readAt: number }>();

/**
 * Whether the read model may lack the records of keys still within their lifetime: its feed
 * history (the database, a rebuild of it, or the last restore) is younger than the keys' TTL. Only
 * then can a key unknown here belong to a create Temporal made, so only then is visibility asked;
 * a broker whose read model is older than a day pays nothing for it. A restore or a rebuild is made
 * with the brokers stopped, so a minute's cache of the start is never stale where it matters.
 */
async function mayHaveLostKeys(db: Db, ttlSeconds: number): Promise<boolean> {
  let known = historyStarts.get(db);
  if (!known || Date.now() - known.readAt > HISTORY_START_CACHE_MS) {
    known = { at: await currentFeedHistoryStart(db), readAt: Date.now() };
    historyStarts.set(db, known);
  }
  return Date.now() - known.at.getTime() < ttlSeconds * 1000;
}

/** A hex digest of what a key's request is, tagged (a command id, a create key). */
function keyDigest(tag: string, slot: Pick<Slot, 'org' | 'operation' | 'key'>, requestHash: string): string {
  return createHash('sha256').update(canonicalJson([tag, slot.org, slot.operation, slot.key, requestHash])).digest('hex');
}

/**
 * The value a keyed create's workflow records as its `PcxCreateKey` search attribute: derived from
 * (organization, operation, key, request), so that only the same request with the same key finds
 * it. Hex, so it needs no quoting in a visibility query.
 */
export function keyCreateKey(slot: Pick<Slot, 'org' | 'operation' | 'key'>, requestHash: string): string {
  return keyDigest('create-key', slot, requestHash).slice(0, 48);
}

/**
 * The command id of a lifecycle command sent with an Idempotency-Key: derived from (organization,
 * operation, key, request), not drawn at random, so that the same request retried after the read
 * model lost its row (a restore of the read model alone to an older point) is sent again as the
 * same Update id, which the entity workflow recognizes among its recent commands and answers
 * without applying it twice. A UUIDv8 (version nibble 8, RFC 9562 variant). Creates keep a random
 * UUIDv7 (their resource id, which lists and cursors order by creation).
 */
export function keyCommandId(slot: Pick<Slot, 'org' | 'operation' | 'key'>, requestHash: string): string {
  const hex = keyDigest('command-id', slot, requestHash);
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const v = `${hex.slice(0, 12)}8${hex.slice(13, 16)}${variant}${hex.slice(17, 32)}`;
  return `${v.slice(0, 8)}-${v.slice(8, 12)}-${v.slice(12, 16)}-${v.slice(16, 20)}-${v.slice(20, 32)}`;
}

/**
 * Claims the key: a new claim (its command id), a lapsed claim taken over (the same command id,
 * so the retry re-sends the same command), or the stored answer of a completed request. A claim
 * still held is IDEMPOTENCY_IN_PROGRESS; the same key with another request IDEMPOTENCY_CONFLICT.
 */
async function claimSlot(slot: Slot, requestHash: string, ttlSeconds: number, fresh: () => Promise<string>): Promise<{ commandId: string } | { replay: StoredResponse }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await insertClaim(slot, requestHash, await fresh(), LEASE_SECONDS, ttlSeconds);
    if (claimed) return { commandId: claimed };
    const row = await readKey(slot);
    if (!row) continue; // freed in between: claim again
    if (row.expired) {
      await deleteExpiredKey(slot);
      continue;
    }
    if (row.request_hash !== requestHash) throw new Problem('IDEMPOTENCY_CONFLICT', 'this Idempotency-Key was already used with another request');
    if (row.state === 'completed') return { replay: { status: row.response_status, headers: { ...row.response_headers, 'idempotent-replayed': 'true' }, body: row.response_body } };
    if (!row.claim_lapsed) break;
    const taken = await takeOverLapsedClaim(slot, LEASE_SECONDS);
    if (taken) {
      idempotencyTakeovers.inc();
      return { commandId: taken };
    }
  }
  throw new Problem('IDEMPOTENCY_IN_PROGRESS', 'a request with this Idempotency-Key is still being processed; retry later', {}, { 'retry-after': '1' });
}

/**
 * Runs the request under its claim, renewing the lease meanwhile: its answer is stored; a refusal
 * (4xx, nothing changed) frees the key; an unknown outcome lets a retry take the claim over at once.
 */
async function runClaimed(slot: Slot, commandId: string, run: (commandId: string) => Promise<StoredResponse>, secrets: KeyRing): Promise<StoredResponse> {
  const renewal = setInterval(() => {
    // A missed renewal only lets a retry take over earlier; the command id keeps it safe.
    renewClaim(slot, LEASE_SECONDS).catch(() => undefined);
  }, RENEW_EVERY_MS);
  renewal.unref();
  try {
    const response = await run(commandId);
    await completeClaim(slot, sealed(slot, response, secrets));
    return response;
  } catch (err) {
    if (err instanceof Problem && err.status < 500) await releaseClaim(slot);
    else await lapseClaim(slot).catch(() => undefined);
    throw err;
  } finally {
    clearInterval(renewal);
  }
}
