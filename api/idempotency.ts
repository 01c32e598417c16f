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
// command id is also the Update id, which Temporal and the workflow deduplicate.
import { idempotencyTakeovers } from '../core/metrics';
import { createHash } from 'node:crypto';
import { uuid7 } from '../domain/ids';
import type { Queryable } from '../core/db';
import { Problem } from '../domain/problems';
import type { Ctx } from './http';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
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

export async function idempotent(
  c: Ctx,
  requestHash: string,
  run: (commandId: string) => Promise<StoredResponse>,
): Promise<StoredResponse> {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return run(uuid7());
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new Problem('VALIDATION_FAILED', 'Idempotency-Key must be 1 to 255 visible ASCII characters', {
      errors: [{ pointer: '/headers/Idempotency-Key', message: 'is not valid' }],
    });
  }
  const { db, config } = c.get('services');
  const slot: Slot = { db, org: c.get('principal').organizationId, operation: `${c.req.method} ${new URL(c.req.url).pathname}`, key, token: uuid7() };
  const claimed = await claimSlot(slot, requestHash, config.idempotencyTtlSeconds);
  if ('replay' in claimed) return claimed.replay;
  return runClaimed(slot, claimed.commandId, run);
}

/** One Idempotency-Key of one organization and operation, and this request's claim token. */
interface Slot {
  db: Queryable;
  org: string;
  operation: string;
  key: string;
  token: string;
}

/**
 * Claims the key: a new claim (its command id), a lapsed claim taken over (the same command id,
 * so the retry re-sends the same command), or the stored answer of a completed request. A claim
 * still held is IDEMPOTENCY_IN_PROGRESS; the same key with another request IDEMPOTENCY_CONFLICT.
 */
async function claimSlot(slot: Slot, requestHash: string, ttlSeconds: number): Promise<{ commandId: string } | { replay: StoredResponse }> {
  const { db, org, operation, key, token } = slot;
  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await db.query<{ command_id: string }>(
      `insert into idempotency_keys (organization_id, operation, key, request_hash, command_id, claim_token, state, locked_until, expires_at)
       values ($1, $2, $3, $4, $5, $8, 'pending', now() + make_interval(secs => $6), now() + make_interval(secs => $7))
       on conflict do nothing returning command_id`,
      [org, operation, key, requestHash, uuid7(), LEASE_SECONDS, ttlSeconds, token],
    );
    if (claimed.rows[0]) return { commandId: claimed.rows[0].command_id };
    const { rows } = await db.query<any>(
      `select request_hash, command_id, state, response_status, response_headers, response_body,
              locked_until < now() as claim_lapsed, expires_at < now() as expired
         from idempotency_keys where organization_id = $1 and operation = $2 and key = $3`,
      [org, operation, key],
    );
    const row = rows[0];
    if (!row) continue; // freed in between: claim again
    if (row.expired) {
      await db.query('delete from idempotency_keys where organization_id = $1 and operation = $2 and key = $3 and expires_at < now()', [org, operation, key]);
      continue;
    }
    if (row.request_hash !== requestHash) throw new Problem('IDEMPOTENCY_CONFLICT', 'this Idempotency-Key was already used with another request');
    if (row.state === 'completed') return { replay: { status: row.response_status, headers: { ...row.response_headers, 'idempotent-replayed': 'true' }, body: row.response_body } };
    if (!row.claim_lapsed) break;
    const taken = await db.query<{ command_id: string }>(
      `update idempotency_keys set locked_until = now() + make_interval(secs => $4), claim_token = $5
        where organization_id = $1 and operation = $2 and key = $3 and state = 'pending' and locked_until < now()
        returning command_id`,
      [org, operation, key, LEASE_SECONDS, token],
    );
    if (taken.rows[0]) {
      idempotencyTakeovers.inc();
      return { commandId: taken.rows[0].command_id };
    }
  }
  throw new Problem('IDEMPOTENCY_IN_PROGRESS', 'a request with this Idempotency-Key is still being processed; retry later', {}, { 'retry-after': '1' });
}

/**
 * Runs the request under its claim, renewing the lease meanwhile: its answer is stored; a refusal
 * (4xx, nothing changed) frees the key; an unknown outcome lets a retry take the claim over at once.
 */
async function runClaimed(slot: Slot, commandId: string, run: (commandId: string) => Promise<StoredResponse>): Promise<StoredResponse> {
  // Only the current holder of the claim may complete or release it.
  const mine = 'organization_id = $1 and operation = $2 and key = $3 and claim_token = $4';
  const where = [slot.org, slot.operation, slot.key, slot.token];
  const renewal = setInterval(() => {
    slot.db.query(`update idempotency_keys set locked_until = now() + make_interval(secs => $5) where ${mine} and state = 'pending'`, [...where, LEASE_SECONDS]).catch(
      () => undefined, // a missed renewal only lets a retry take over earlier; the command id keeps it safe
    );
  }, RENEW_EVERY_MS);
  renewal.unref();
  try {
    const response = await run(commandId);
    await slot.db.query(
      `update idempotency_keys set state = 'completed', response_status = $5, response_headers = $6, response_body = $7 where ${mine}`,
      [...where, response.status, JSON.stringify(response.headers), JSON.stringify(response.body)],
    );
    return response;
  } catch (err) {
    if (err instanceof Problem && err.status < 500) await slot.db.query(`delete from idempotency_keys where ${mine}`, where);
    else await slot.db.query(`update idempotency_keys set locked_until = now() where ${mine}`, where).catch(() => undefined);
    throw err;
  } finally {
    clearInterval(renewal);
  }
}

export async function purgeExpiredIdempotencyKeys(db: { query: (sql: string) => Promise<unknown> }) {
  await db.query('delete from idempotency_keys where expires_at < now()');
}
