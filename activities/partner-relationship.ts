// Read model of PartnerRelationship.
import type { Queryable } from '../core/db';
import type { PartnerRelationship } from '../workflows/partner-relationship';

export async function projectPartnerRelationship(tx: Queryable, r: PartnerRelationship): Promise<number | undefined> {
  const result = await tx.query<{ previous_version: number | null }>(
    `with previous as (select resource_version from partner_relationships where id = $1)
     insert into partner_relationships
       (id, resource_version, requesting_organization_id, accepting_organization_id, status,
        effective_from, effective_until, submitted_at, created_at, updated_at, doc)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     on conflict (id) do update set
       resource_version = excluded.resource_version, status = excluded.status,
       effective_from = excluded.effective_from, effective_until = excluded.effective_until,
       submitted_at = excluded.submitted_at,
       updated_at = excluded.updated_at, doc = excluded.doc
     where partner_relationships.resource_version <= excluded.resource_version
     returning (select resource_version from previous) as previous_version`,
    [
      r.id,
      r.resourceVersion,
      r.requestingOrganizationId,
      r.acceptingOrganizationId,
      r.status,
      r.effectiveFrom ?? null,
      r.effectiveUntil ?? null,
      r.submittedAt ?? null,
      r.createdAt,
      r.updatedAt,
      JSON.stringify(r),
    ],
  );
  if (r.status === 'terminated') {
    // The pair may be partnered anew (rules 2 and 6).
    await tx.query('delete from relationship_pairs where relationship_id = $1', [r.id]);
  }
  return result.rows[0]?.previous_version ?? undefined;
}
