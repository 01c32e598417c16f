// Rule 2, "at most one non-terminated relationship per organization pair", and the pending cap,
// enforced with claims in PostgreSQL before a workflow is asked to act:
//   - on create, the ordered key `A>B` (A invites B): A cannot hold two open invites to B, and B
//     learns nothing of A's draft (rule 7);
//   - on request (submit), the unordered key `A|B`: once an invite is visible to both, neither
//     side can open another one in either direction.
// The projection frees both keys when the relationship terminates. A claim whose relationship
// never came into being is dead and is freed, both when another invite for the same key arrives
// and when the pending cap is counted: it has no read-model row, and its workflow either does not
// exist (the create failed with an unknown outcome before starting it) or has closed without ever
// holding state (a create refused inside the workflow, whose empty workflow then ended).
import type { Queryable } from '../core/db';
import { Problem } from '../domain/problems';
import { dropClaims, holderOf, insertClaim, isProjected, lockFor, pendingOutbound, releaseClaim, unprojectedClaims } from '../read-model/relationship-pairs';
import { partnerRelationship } from '../domain/partner-relationship';
import type { Ctx } from './http';

export const draftKey = (requesting: string, accepting: string) => `${requesting}>${accepting}`;
export const pairKey = (a: string, b: string) => [a, b].sort().join('|');

/**
 * Whether a claim's relationship exists or may still come into being: it has a read-model row, or
 * its workflow is running. A closed workflow without a row never held state and never will
 * (creates refuse to reuse an ended workflow id), so its claim is dead.
 */
async function claimIsLive(c: Ctx, tx: Queryable, relationshipId: string): Promise<boolean> {
  if (await isProjected(tx, relationshipId)) return true;
  return (await workflowState(c, relationshipId)) === 'running';
}

function workflowState(c: Ctx, relationshipId: string): Promise<'running' | 'closed' | 'missing'> {
  return c.get('services').entities.lifecycle(partnerRelationship, relationshipId);
}

/**
 * Frees the dead claims of `org` before its pending invites are counted. Only claims without a
 * read-model row are examined. A claim whose workflow has closed is dead at once; one whose
 * workflow does not exist only after MISSING_WORKFLOW_GRACE_SECONDS, because a concurrent invite
 * of the same organization (to another partner) takes its claim a moment before it starts its
 * workflow, and must not lose it to this sweep.
 */
const MISSING_WORKFLOW_GRACE_SECONDS = 120;
async function freeDeadClaims(c: Ctx, tx: Queryable, org: string): Promise<void> {
  const rows = await unprojectedClaims(tx, org, MISSING_WORKFLOW_GRACE_SECONDS);
  // Temporal unreachable: keep the claims (counted as pending) rather than fail the invite here.
  const states = await Promise.all(rows.map((row) => workflowState(c, row.relationship_id).catch(() => 'running' as const)));
  const dead = rows.filter((row, i) => states[i] === 'closed' || (states[i] === 'missing' && row.old)).map((row) => row.relationship_id);
  await dropClaims(tx, dead);
}

/**
 * Claims `key` for relationship `id` of organization `org`. Serialised per key (and per
 * organization when the pending cap is checked), so concurrent invites in either direction see
 * each other. Claiming again for the same relationship is a no-op (retries).
 */
export async function claim(c: Ctx, key: string, id: string, org: string, checkPendingCap: boolean): Promise<boolean> {
  const { db, config } = c.get('services');
  return db.transaction(async (tx) => {
    await lockFor(tx, `relationship-pair:${key}`);
    if (checkPendingCap) await lockFor(tx, `relationship-org:${org}`);
    const holder = await holderOf(tx, key);
    if (holder === id) return false;
    if (holder) {
      if (await claimIsLive(c, tx, holder)) {
        throw new Problem('DUPLICATE_RELATIONSHIP', 'a non-terminated relationship between these organizations already exists');
      }
      await dropClaims(tx, [holder]);
    }
    if (checkPendingCap) {
      await freeDeadClaims(c, tx, org);
      if ((await pendingOutbound(tx, org)) >= config.limits.maxPendingOutbound) {
        throw new Problem('PENDING_RELATIONSHIP_LIMIT', `at most ${config.limits.maxPendingOutbound} pending outbound relationships per organization`);
      }
    }
    await insertClaim(tx, key, id, org);
    return true;
  });
}

/** Frees a claim this request made for a command that was then refused (it changed nothing). */
export async function release(c: Ctx, key: string, id: string): Promise<void> {
  await releaseClaim(c.get('services').db, key, id);
}
