// The store of relationship-pair claims (rule 2 and the pending cap; the protocol is
// api/relationship-pairs.ts): one row per claimed key, naming the relationship that holds it and
// the organization that invited. Statements run inside the caller's transaction, after its locks.
import type { Queryable } from '../core/db';

/** Serialises the transaction with every other that takes the same lock (a key, an organization). */
export async function lockFor(tx: Queryable, name: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock(hashtext($1))', [name]);
}

/** The relationship holding `key`, if any. */
export async function holderOf(tx: Queryable, key: string): Promise<string | undefined> {
  const { rows } = await tx.query<{ relationship_id: string }>('select relationship_id from relationship_pairs where pair_key = $1', [key]);
  return rows[0]?.relationship_id;
}

/** Whether the relationship has a read-model row (it exists, whatever its state). */
export async function isProjected(tx: Queryable, relationshipId: string): Promise<boolean> {
  const { rowCount } = await tx.query('select 1 from partner_relationships where id = $1', [relationshipId]);
  return rowCount > 0;
}

/** The claims of `org` whose relationship has no read-model row, and whether each is older than `graceSeconds`. */
export async function unprojectedClaims(tx: Queryable, org: string, graceSeconds: number): Promise<Array<{ relationship_id: string; old: boolean }>> {
  const { rows } = await tx.query<{ relationship_id: string; old: boolean }>(
    `select p.relationship_id, bool_and(p.created_at < now() - make_interval(secs => $2)) as old
       from relationship_pairs p left join partner_relationships r on r.id = p.relationship_id
      where p.requesting_organization_id = $1 and r.id is null
      group by p.relationship_id`,
    [org, graceSeconds],
  );
  return rows;
}

/** Drops every claim of these relationships. */
export async function dropClaims(tx: Queryable, relationshipIds: string[]): Promise<void> {
  if (relationshipIds.length) await tx.query('delete from relationship_pairs where relationship_id = any($1::uuid[])', [relationshipIds]);
}

/** The organization's outbound relationships still pending (draft or requested, or not projected yet). */
export async function pendingOutbound(tx: Queryable, org: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `select count(distinct p.relationship_id)::int as n from relationship_pairs p left join partner_relationships r on r.id = p.relationship_id
      where p.requesting_organization_id = $1 and (r.status is null or r.status in ('draft', 'requested'))`,
    [org],
  );
  return rows[0].n;
}

export async function insertClaim(tx: Queryable, key: string, relationshipId: string, org: string): Promise<void> {
  await tx.query('insert into relationship_pairs (pair_key, relationship_id, requesting_organization_id) values ($1, $2, $3)', [key, relationshipId, org]);
}

/** Frees the claim of `key` by this relationship. */
export async function releaseClaim(db: Queryable, key: string, relationshipId: string): Promise<void> {
  await db.query('delete from relationship_pairs where pair_key = $1 and relationship_id = $2', [key, relationshipId]);
}
