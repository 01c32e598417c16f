// Read-model queries of MatchProposal beyond the standard list (its table has the standard shape:
// read-model/projection-document.ts).
import type { Queryable } from '../core/db';

/** Open proposals made under a relationship up to an instant (its end), in id order. */
export async function openProposalsOf(db: Queryable, relationshipId: string, at: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `select id::text from match_proposals
      where status = 'open' and doc->'requiredDecisionPolicy'->>'relationshipId' = $1 and created_at <= $2::timestamptz
      order by id`,
    [relationshipId, at],
  );
  return rows.map((r) => r.id);
}
