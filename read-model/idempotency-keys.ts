// The store of Idempotency-Keys (api/idempotency.ts holds the protocol): one row per
// (organization, operation, key) with the request's hash, the command id, a claim (its token and
// lease) while the request runs, and the stored answer once it completed. Times are the database's
// own now(), which every API replica shares.
import type { Queryable } from '../core/db';

/** One Idempotency-Key of one organization and operation, and the claim token of one request. */
export interface Slot {
  db: Queryable;
  org: string;
  operation: string;
  key: string;
  token: string;
}

export interface StoredKey {
  request_hash: string;
  command_id: string;
  state: 'pending' | 'completed';
  response_status: number;
  response_headers: Record<string, string>;
  response_body: unknown;
  claim_lapsed: boolean;
  expired: boolean;
}

/** A new claim of the key for `leaseSeconds`, kept for `ttlSeconds`; its command id, or undefined when the key exists. */
export async function insertClaim(slot: Slot, requestHash: string, commandId: string, leaseSeconds: number, ttlSeconds: number): Promise<string | undefined> {
  const { rows } = await slot.db.query<{ command_id: string }>(
    `insert into idempotency_keys (organization_id, operation, key, request_hash, command_id, claim_token, state, locked_until, expires_at)
     values ($1, $2, $3, $4, $5, $8, 'pending', now() + make_interval(secs => $6), now() + make_interval(secs => $7))
     on conflict do nothing returning command_id`,
    [slot.org, slot.operation, slot.key, requestHash, commandId, leaseSeconds, ttlSeconds, slot.token],
  );
  return rows[0]?.command_id;
}

export async function readKey(slot: Slot): Promise<StoredKey | undefined> {
  const { rows } = await slot.db.query<StoredKey>(
    `select request_hash, command_id, state, response_status, response_headers, response_body,
            locked_until < now() as claim_lapsed, expires_at < now() as expired
       from idempotency_keys where organization_id = $1 and operation = $2 and key = $3`,
    [slot.org, slot.operation, slot.key],
  );
  return rows[0];
}

export async function deleteExpiredKey(slot: Slot): Promise<void> {
  await slot.db.query('delete from idempotency_keys where organization_id = $1 and operation = $2 and key = $3 and expires_at < now()', [slot.org, slot.operation, slot.key]);
}

/** Takes over a pending claim whose lease lapsed; its command id, or undefined when another request took it first. */
export async function takeOverLapsedClaim(slot: Slot, leaseSeconds: number): Promise<string | undefined> {
  const { rows } = await slot.db.query<{ command_id: string }>(
    `update idempotency_keys set locked_until = now() + make_interval(secs => $4), claim_token = $5
      where organization_id = $1 and operation = $2 and key = $3 and state = 'pending' and locked_until < now()
      returning command_id`,
    [slot.org, slot.operation, slot.key, leaseSeconds, slot.token],
  );
  return rows[0]?.command_id;
}

// Only the current holder of the claim may renew, complete or release it.
const MINE = 'organization_id = $1 and operation = $2 and key = $3 and claim_token = $4';
const mine = (slot: Slot) => [slot.org, slot.operation, slot.key, slot.token];

export async function renewClaim(slot: Slot, leaseSeconds: number): Promise<void> {
  await slot.db.query(`update idempotency_keys set locked_until = now() + make_interval(secs => $5) where ${MINE} and state = 'pending'`, [...mine(slot), leaseSeconds]);
}

export async function completeClaim(slot: Slot, response: { status: number; headers: Record<string, string>; body: unknown }): Promise<void> {
  await slot.db.query(`update idempotency_keys set state = 'completed', response_status = $5, response_headers = $6, response_body = $7 where ${MINE}`, [
    ...mine(slot),
    response.status,
    JSON.stringify(response.headers),
    JSON.stringify(response.body),
  ]);
}

/** Frees the key: the request was refused and changed nothing. */
export async function releaseClaim(slot: Slot): Promise<void> {
  await slot.db.query(`delete from idempotency_keys where ${MINE}`, mine(slot));
}

/** Ends the lease now: the outcome is unknown, and a retry may take the claim over at once. */
export async function lapseClaim(slot: Slot): Promise<void> {
  await slot.db.query(`update idempotency_keys set locked_until = now() where ${MINE}`, mine(slot));
}

export async function purgeExpiredIdempotencyKeys(db: { query: (sql: string) => Promise<unknown> }) {
  await db.query('delete from idempotency_keys where expires_at < now()');
}
