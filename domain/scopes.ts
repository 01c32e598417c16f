// The flat scope vocabulary (specification, Authentication, "Recommended scopes"). Matching is
// exact: no scope implies another (matches:read never implies matches:decide).
export const SCOPES = [
  'relationships:manage',
  'capacity:publish',
  'capacity:read',
  'loads:publish',
  'loads:read',
  'matches:read',
  'matches:decide',
  'tenders:publish',
  'tenders:read',
  'tenders:decide',
  'commitments:read',
  'handovers:write',
  'handovers:read',
  'handovers:acknowledge',
  'execution:update',
  'outcomes:write',
  'outcomes:review',
  'connectors:manage',
  // Not in the specification's list: the protocol operator's administrative scope (admin cancel
  // of offers and requests). Held only by connectors of organizations with role "operator".
  'exchange:admin',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Scopes that a PartnerRelationship can grant between two organizations (data sharing and decisions). */
export const RELATIONSHIP_SCOPES: readonly Scope[] = SCOPES.filter(
  (s) => s !== 'relationships:manage' && s !== 'connectors:manage' && s !== 'exchange:admin',
);

export function parseScopeClaim(claim: unknown): Set<string> {
  if (typeof claim !== 'string') return new Set();
  return new Set(claim.split(' ').filter(Boolean));
}
