// Rule 2, "at most one non-terminated relationship per organization pair", and the pending cap,
// enforced with claims in PostgreSQL before a workflow is asked to act:
//   - on create, the ordered key `A>B` (A invites B): A cannot hold two open invites to B, and B
//     learns nothing of A's draft (rule 7);
//   - on request (submit), the unordered key `A|B`: once an invite is visible to both, neither
//     side can open another one in either direction.
// The projection frees both keys when the relationship terminates. A claim whose relationship
// never came into being (the create failed with an unknown outcome) is found and freed.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Queryable } from '../core/db';
import { Problem } from '../core/problems';
import { workflowId } from '../core/resources';
import type { Ctx } from './http';

export const draftKey = (requesting: string, accepting: string) => `${requesting}>${accepting}`;
export const pairKey = (a: string, b: string) => [a, b].sort().join('|');

/** Whether a claim's relationship exists: in the read model, or at least as a workflow. */
async function claimIsLive(c: Ctx, tx: Queryable, relationshipId: string): Promise<boolean> {
  const projected = await tx.query('select 1 from partner_relationships where id = $1', [relationshipId]);
  if (projected.rowCount > 0) return true;
  try {
    await c.get('services').temporal.workflow.getHandle(workflowId('partner-relationship', relationshipId)).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * Claims `key` for relationship `id` of organization `org`. Serialised per key (and per
 * organization when the pending cap is checked), so concurrent invites in either direction see
 * each other. Claiming again for the same relationship is a no-op (retries).
 */
export async function claim(c: Ctx, key: string, id: string, org: string, checkPendingCap: boolean): Promise<boolean> {
  const { db, config } = c.get('services');
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`relationship-pair:${key}`]);
    if (checkPendingCap) await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`relationship-org:${org}`]);
    const existing = await tx.query<{ relationship_id: string }>('select relationship_id from relationship_pairs where pair_key = $1', [key]);
    const holder = existing.rows[0]?.relationship_id;
    if (holder === id) return false;
    if (holder) {
      if (await claimIsLive(c, tx, holder)) {
        throw new Problem('DUPLICATE_RELATIONSHIP', 'a non-terminated relationship between these organizations already exists');
      }
      await tx.query('delete from relationship_pairs where relationship_id = $1', [holder]);
    }
    if (checkPendingCap) {
      const pending = await tx.query<{ n: number }>(
        `select count(distinct p.relationship_id)::int as n from relationship_pairs p left join partner_relationships r on r.id = p.relationship_id
          where p.requesting_organization_id = $1 and (r.status is null or r.status in ('draft', 'requested'))`,
        [org],
      );
      if (pending.rows[0].n >= config.limits.maxPendingOutbound) {
        throw new Problem('PENDING_RELATIONSHIP_LIMIT', `at most ${config.limits.maxPendingOutbound} pending outbound relationships per organization`);
      }
    }
    await tx.query('insert into relationship_pairs (pair_key, relationship_id, requesting_organization_id) values ($1, $2, $3)', [key, id, org]);
    return true;
  });
}

/** Frees a claim this request made for a command that was then refused (it changed nothing). */
export async function release(c: Ctx, key: string, id: string): Promise<void> {
  await c.get('services').db.query('delete from relationship_pairs where pair_key = $1 and relationship_id = $2', [key, id]);
}
