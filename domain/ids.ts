// Resource ids: what one looks like, new ids (UUIDv7, which the specification prefers), and ids
// derived from another resource's id. The one uuid7 of the project: the uuid package's v7.
import { v7 } from 'uuid';

/** A resource id as the API accepts it in paths, bodies and query parameters (any UUID version). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

/**
 * A new UUIDv7 (RFC 9562): 48 bits of the clock's milliseconds, then random bits. Outside a
 * workflow the random bits are the platform's (crypto.getRandomValues). Workflow code passes the 16
 * bytes of `random` from the workflow's seeded random (workflows/ids.ts), so that a replay makes the
 * same id; Date.now() is then the workflow's clock.
 */
export function uuid7(random?: Uint8Array, at: { msecs?: number; seq?: number } = {}): string {
  return random ? v7({ msecs: at.msecs ?? Date.now(), seq: at.seq, random }) : v7();
}

/**
 * An id derived from another resource's id, for a resource there is exactly one of per source
 * (the execution reference of an accepted proposal, the handover of a commitment): a UUIDv8 whose version nibble is 8 and whose
 * next three hex digits name the derivation (`salt`), the rest being the source id's. Two
 * requests to create it therefore address one workflow, whoever sends them.
 */
export function derivedId(sourceId: string, salt: number): string {
  const hex = sourceId.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error(`not a uuid: ${sourceId}`);
  const v = `${hex.slice(0, 12)}8${(salt & 0xfff).toString(16).padStart(3, '0')}${hex.slice(16)}`;
  return `${v.slice(0, 8)}-${v.slice(8, 12)}-${v.slice(12, 16)}-${v.slice(16, 20)}-${v.slice(20, 32)}`;
}

/** Salts of derivedId. */
export const DERIVED = { executionReference: 0xe01, executionHandover: 0xe02, seriesOccurrence: 0xe03 } as const;
