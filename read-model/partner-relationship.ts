// Read model of PartnerRelationship.
import type { Queryable } from '../core/db';
import type { PartnerRelationship } from '../domain/partner-relationship';
import { betweenSql, inForceSql, nowParam } from './sharing';

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

// Read-model queries of relationships. The API and the projections ask these, never inline SQL.

/** A relationship in force now between two organizations (gate 5), with what gates 7 and 8 read. */
export interface RelationshipInForce {
  id: string;
  scopes: string[];
  visibilityPolicy: { groups: string[] };
  decisionPolicy: { mode: 'BILATERAL_REQUIRED' | 'INITIATOR_ONLY' };
  resourceVersion: number;
}

/**
 * The active relationship between two organizations, if one is in force now. A relationship whose
 * effectiveUntil has passed is treated as suspended at once (rule 5), before its workflow has
 * moved it to terminated; one whose effectiveFrom lies ahead is not yet in force.
 */
export async function relationshipInForce(db: Queryable, a: string, b: string): Promise<RelationshipInForce | undefined> {
  const { rows } = await db.query<{ doc: PartnerRelationship }>(
    `select doc from partner_relationships r where ${inForceSql('r', '$3')} and ${betweenSql('r', '$1', '$2')} limit 1`,
    [a, b, nowParam()],
  );
  const doc = rows[0]?.doc;
  return doc && { id: doc.id, scopes: doc.scopes, visibilityPolicy: doc.visibilityPolicy, decisionPolicy: doc.decisionPolicy, resourceVersion: doc.resourceVersion };
}

/** Whether a relationship in force now between `a` and `b` grants every one of `scopes`. */
export async function grantedInForce(db: Queryable, a: string, b: string, scopes: string[]): Promise<boolean> {
  const relationship = await relationshipInForce(db, a, b);
  return relationship !== undefined && scopes.every((s) => relationship.scopes.includes(s));
}

/** Whether the organization has at least one relationship in force now (publishing to partners). */
export async function hasRelationshipInForce(db: Queryable, organizationId: string): Promise<boolean> {
  const { rows } = await db.query(
    `select 1 from partner_relationships r
      where ${inForceSql('r', '$2')} and (r.requesting_organization_id = $1 or r.accepting_organization_id = $1) limit 1`,
    [organizationId, nowParam()],
  );
  return rows.length > 0;
}

/** The organizations partnered with `organizationId` now through a relationship granting `scope`, with its groups. */
export async function partnersInForce(db: Queryable, organizationId: string, scope: string, at: string = nowParam()): Promise<Array<{ organizationId: string; groups: string[] }>> {
  const { rows } = await db.query<{ org: string; groups: string[] | null }>(
    `select case when r.requesting_organization_id = $1 then r.accepting_organization_id else r.requesting_organization_id end as org,
            r.doc->'visibilityPolicy'->'groups' as groups
       from partner_relationships r
      where ${inForceSql('r', '$3')} and (r.requesting_organization_id = $1 or r.accepting_organization_id = $1)
        and r.doc->'scopes' ? $2`,
    [organizationId, scope, at],
  );
  return rows.map((r) => ({ organizationId: r.org, groups: r.groups ?? [] }));
}

export interface RelationshipFilter {
  statuses?: string[];
  counterpart?: string;
  after?: string;
  limit: number;
}

/**
 * The relationships an organization sees (rule 7: the accepting organization only once
 * requested), in id order, one more than `limit` to tell whether a next page exists.
 */
export async function listRelationships(db: Queryable, organizationId: string, filter: RelationshipFilter): Promise<PartnerRelationship[]> {
  const { rows } = await db.query<{ doc: PartnerRelationship }>(
    `select doc from partner_relationships
      where (requesting_organization_id = $1 or (accepting_organization_id = $1 and submitted_at is not null))
        and ($2::text[] is null or status = any($2::text[]))
        and ($3::text is null or requesting_organization_id = $3 or accepting_organization_id = $3)
        and ($4::uuid is null or id > $4::uuid)
      order by id limit $5`,
    [organizationId, filter.statuses ?? null, filter.counterpart ?? null, filter.after ?? null, filter.limit + 1],
  );
  return rows.map((r) => r.doc);
}

/** A relationship in force, seen from one of its organizations: the other one and the relationship. */
export interface Partnership {
  organizationId: string;
  relationship: PartnerRelationship;
}

/** Every relationship in force now of an organization whose scopes include all of `scopes`. */
export async function partnershipsInForce(db: Queryable, organizationId: string, scopes: string[]): Promise<Partnership[]> {
  const { rows } = await db.query<{ org: string; doc: PartnerRelationship }>(
    `select case when r.requesting_organization_id = $1 then r.accepting_organization_id else r.requesting_organization_id end as org, r.doc
       from partner_relationships r
      where ${inForceSql('r', '$3')} and (r.requesting_organization_id = $1 or r.accepting_organization_id = $1)
        and r.doc->'scopes' @> $2::jsonb`,
    [organizationId, JSON.stringify(scopes), nowParam()],
  );
  return rows.map((r) => ({ organizationId: r.org, relationship: r.doc }));
}

/**
 * The organizations in a relationship with `organizationId` that it can see (a draft only on its
 * requesting side, rule 7), each with the statuses of its relationships (GET /partners).
 */
export async function relationshipsSeenBy(db: Queryable, organizationId: string): Promise<Array<{ other: string; status: string }>> {
  const { rows } = await db.query<{ other: string; status: string }>(
    `select case when requesting_organization_id = $1 then accepting_organization_id else requesting_organization_id end as other, status
       from partner_relationships
      where requesting_organization_id = $1 or (accepting_organization_id = $1 and submitted_at is not null)`,
    [organizationId],
  );
  return rows;
}

/** Which relationship names an organization when there are several: the most current first. */
const CURRENCY = ['active', 'suspended', 'requested', 'draft', 'terminated'];

/**
 * Each organization `organizationId` can see a relationship with, and the status of the most
 * current of them (active before suspended before requested before draft before terminated):
 * GET /partners and GET /directory say how the caller stands with an organization alike.
 */
export async function currentRelationships(db: Queryable, organizationId: string): Promise<Map<string, string>> {
  const best = new Map<string, string>();
  for (const r of await relationshipsSeenBy(db, organizationId)) {
    const current = best.get(r.other);
    if (!current || CURRENCY.indexOf(r.status) < CURRENCY.indexOf(current)) best.set(r.other, r.status);
  }
  return best;
}
