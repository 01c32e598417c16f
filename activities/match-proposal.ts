// Read-model queries of MatchProposal (its table has the standard shape: activities/projection.ts,
// projectDocument). The API asks these, never inline SQL.
import type { Queryable } from '../core/db';
import type { MatchProposal } from '../domain/match-proposal';

export interface ProposalFilter {
  statuses?: string[];
  /** carrier: the caller owns the offer; shipper: the caller owns the request. */
  role?: 'carrier' | 'shipper';
  offerId?: string;
  requestId?: string;
  after?: string;
  limit: number;
}

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

/** The proposals an organization takes part in, in id order, one more than `limit`. */
export async function listProposals(db: Queryable, organizationId: string, filter: ProposalFilter): Promise<MatchProposal[]> {
  const { rows } = await db.query<{ doc: MatchProposal }>(
    `select doc from match_proposals
      where participants @> array[$1]::text[]
        and ($2::text[] is null or status = any($2::text[]))
        and ($3::text is null or ($3 = 'carrier' and doc->>'offerOwnerOrganizationId' = $1) or ($3 = 'shipper' and doc->>'requestOwnerOrganizationId' = $1))
        and ($4::text is null or doc->>'capacityOfferId' = $4)
        and ($5::text is null or doc->>'loadRequestId' = $5)
        and ($6::uuid is null or id > $6::uuid)
      order by id limit $7`,
    [organizationId, filter.statuses ?? null, filter.role ?? null, filter.offerId ?? null, filter.requestId ?? null, filter.after ?? null, filter.limit + 1],
  );
  return rows.map((r) => r.doc);
}
