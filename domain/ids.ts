// Resource ids: what one looks like, ids created inside workflows (proposals made by matching:
// UUIDv7, which the specification prefers, from the workflow's clock and its seeded random, so a
// replay makes the same id), and ids derived from another resource's id.
import { uuid4 } from '@temporalio/workflow';

/** A resource id as the API accepts it in paths, bodies and query parameters (any UUID version). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

/** Only inside a workflow (uuid4 is the workflow's seeded random). */
export function uuid7(): string {
  const hex = uuid4().replace(/-/g, '');
  const ms = Date.now().toString(16).padStart(12, '0').slice(-12);
  // 48 bits of time, version 7, then 74 random bits with the RFC 4122 variant.
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const v = `${ms}7${hex.slice(13, 16)}${variant}${hex.slice(17, 32)}`;
  return `${v.slice(0, 8)}-${v.slice(8, 12)}-${v.slice(12, 16)}-${v.slice(16, 20)}-${v.slice(20, 32)}`;
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
export const DERIVED = { executionReference: 0xe01, executionHandover: 0xe02 } as const;
