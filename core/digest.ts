// The digest of a transport commitment: SHA-256 over the RFC 8785 (JSON Canonicalization Scheme)
// serialisation of its decision-relevant payload, so that any party can recompute it from what it
// reads (docs/decisions.md, "Commitment digest"). The digest input is an object with exactly the
// members of DIGEST_FIELDS, taken from the commitment; absent optional members are left out.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The members of the digest input, documented in docs/decisions.md and schemas/transport-commitment.json. */
export const DIGEST_FIELDS = [
  'tenderId',
  'commitmentVersion',
  'previousCommitmentId',
  'issuingOrganizationId',
  'executingOrganizationId',
  'movementScope',
  'acceptedRevision',
  'decisionPolicy',
  'relationshipId',
  'relationshipVersion',
  'capacity',
  'cancellationPolicy',
] as const;

/** The digest input of a commitment (or of the payload a commitment is created from). */
export function digestInput(commitment: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of DIGEST_FIELDS) if (commitment[field] !== undefined) out[field] = commitment[field];
  return out;
}

/** The canonical bytes the digest covers (RFC 8785: sorted keys, ECMAScript number forms, no whitespace). */
export function canonicalBytes(input: Record<string, unknown>): Buffer {
  const text = canonicalize(input);
  if (text === undefined) throw new Error('the digest input cannot be canonicalized');
  return Buffer.from(text, 'utf8');
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function commitmentDigest(commitment: Record<string, unknown>) {
  return {
    algorithm: 'SHA-256' as const,
    canonicalization: 'RFC 8785' as const,
    fields: [...DIGEST_FIELDS],
    value: sha256Hex(canonicalBytes(digestInput(commitment))),
  };
}
