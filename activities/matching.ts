// The matching activities the flows call (workflows/flows/matching.ts): the candidate search, a
// pair's evaluation and the open listings and proposals of organizations, on the read model
// (read-model/matching.ts).
import type { Queryable } from '../core/db';
import type { MatchInput } from '../domain/flows';
import type { PairQuery } from '../domain/activities';
import { DEFAULT_MATCHING, evaluatePair, findMatches, openListingsOf, type MatchingSettings } from '../read-model/matching';
import { openProposalsOf } from '../read-model/match-proposal';
import { hasRelationshipInForce } from '../read-model/partner-relationship';

export type { MatchingSettings };

export function createMatchingActivities(db: Queryable, settings: MatchingSettings = DEFAULT_MATCHING) {
  return {
    findMatches: (input: MatchInput) => findMatches(db, input, settings),
    evaluatePair: (pair: PairQuery) => evaluatePair(db, pair, settings),
    openListingsOf: (organizationIds: string[]) => openListingsOf(db, organizationIds),
    openProposalsOf: (relationshipId: string, at: string) => openProposalsOf(db, relationshipId, at),
    hasRelationshipInForce: (organizationId: string) => hasRelationshipInForce(db, organizationId),
  };
}
