// The matching activities the flows call (workflows/flows/matching.ts): the candidate search, a
// pair's evaluation and the open listings and proposals of organizations, on the read model
// (read-model/matching.ts).
import type { Queryable } from '../core/db';
import type { MatchInput } from '../domain/flows';
import type { ListingStanding, PairQuery } from '../domain/activities';
import { capacityOffer, type CapacityOffer } from '../domain/capacity-offer';
import { loadRequest } from '../domain/load-request';
import { loadDocument } from '../read-model/projection-document';
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
    listingStanding: (kind: 'capacity-offer' | 'load-request', id: string) => listingStanding(db, kind, id),
  };
}

/** A listing's version, status and whether any of it is committed, from the read model. */
async function listingStanding(db: Queryable, kind: 'capacity-offer' | 'load-request', id: string): Promise<ListingStanding | undefined> {
  const doc = await loadDocument<CapacityOffer & { status: string }>(db, kind === 'capacity-offer' ? capacityOffer : loadRequest, id);
  if (!doc) return undefined;
  const committed = kind === 'capacity-offer' ? (doc.allocations ?? []).some((a) => a.state === 'committed') : doc.status === 'matched';
  return { resourceVersion: doc.resourceVersion, status: doc.status, committed };
}
