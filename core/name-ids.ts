// Resource ids derived from names that are taken once in the whole exchange (a connector's client
// id, an organization's id): a UUID (version 8, RFC 9562) of the name's SHA-256, the same on every
// replica at once, so the entity workflow's id is the claim (Temporal refuses a second start).
import { createHash } from 'node:crypto';

export function nameBasedId(kind: string, name: string): string {
  const hex = createHash('sha256').update(`pcx:${kind}:${name}`).digest('hex');
  const v = `${hex.slice(0, 12)}8${hex.slice(13, 16)}${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 32)}`;
  return `${v.slice(0, 8)}-${v.slice(8, 12)}-${v.slice(12, 16)}-${v.slice(16, 20)}-${v.slice(20, 32)}`;
}

/** An organization id's record id (domain/organization.ts). */
export const organizationRecordId = (organizationId: string): string => nameBasedId('organization', organizationId);
