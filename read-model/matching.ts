// Matching on the read model: the candidate search (the GiST indexes of read-model/schema.sql) and the
// facts compatibility needs (relationship in force, visibility both ways, capacity already
// allocated). The activities the matching flows call (workflows/flows/matching.ts), and the
// read-model functions the API's match evaluations use.
import type { Queryable } from '../core/db';
import { boundingBox, type Area } from '../core/areas';
import { sumCapacity } from '../domain/capacity';
import { DEFAULT_MATCH_SETTINGS, evaluate, type OfferTerms, type PairFacts, type RequestTerms } from '../core/matching/compatibility';
import {
  incompleteDetail,
  MATCHING_SCOPES,
  missingPairTerms,
  missingTerms,
  notingOccurrences,
  OFFER_TERMS,
  OPEN_OFFER_STATUSES,
  OPEN_REQUEST_STATUSES,
  REQUEST_TERMS,
  type Evaluation,
} from '../domain/matching';
import { visibleTo } from './sharing';
import { capacityOffer, type CapacityOffer } from '../domain/capacity-offer';
import { loadRequest, type LoadRequest } from '../domain/load-request';
import type { MatchInput } from '../domain/flows';
import type { RequiredDecisionPolicy } from '../domain/match-proposal';
import type { PartnerRelationship } from '../domain/partner-relationship';
import { boxLiteral } from './listing';
import { partnershipsInForce } from './partner-relationship';
import { loadDocument } from './projection-document';
import type { MatchCandidate, PairEvaluation, PairQuery } from '../domain/activities';

export interface MatchingSettings {
  /** How long a broker-made proposal stays open for decisions (capped by both listings' expiresAt). */
  proposalValiditySeconds: number;
  /** At most this many open proposals per request, best scores first. */
  maxOpenProposalsPerRequest: number;
  /** At most this many candidates the index returns for one listing (before evaluation). */
  candidateLimit: number;
}

export const DEFAULT_MATCHING: MatchingSettings = { proposalValiditySeconds: 86400, maxOpenProposalsPerRequest: 3, candidateLimit: 50 };


/** The decision policy of a proposal between two organizations, from their relationship. */
export function policyOf(relationship: PartnerRelationship, initiator?: string): RequiredDecisionPolicy {
  const a = relationship.requestingOrganizationId;
  const b = relationship.acceptingOrganizationId;
  // The initiator: the organization that proposed the pair, else the one that initiated the
  // partnership under which the policy was agreed (docs/decisions.md, "The initiator").
  const initiatorOrganizationId = initiator ?? a;
  const decidingRoles = (relationship.decisionPolicy as { decidingRoles?: string[] }).decidingRoles;
  return {
    mode: relationship.decisionPolicy.mode,
    initiatorOrganizationId,
    acceptorOrganizationId: initiatorOrganizationId === a ? b : a,
    ...(decidingRoles?.length ? { decidingRoles } : {}),
    relationshipId: relationship.id,
    relationshipVersion: relationship.resourceVersion,
  };
}

/** The facts of one pair, given the relationship in force between the two owners (if any). */
export function pairFacts(offer: CapacityOffer, request: LoadRequest, relationship: PartnerRelationship | undefined): PairFacts {
  const groups = relationship?.visibilityPolicy?.groups ?? [];
  return {
    relationship: relationship && {
      id: relationship.id,
      scopes: relationship.scopes,
      decisionPolicy: relationship.decisionPolicy,
      requestingOrganizationId: relationship.requestingOrganizationId,
    },
    offerVisibleToRequestOwner: relationship !== undefined && visibleTo(offer.visibility, groups, request.ownerOrganizationId),
    requestVisibleToOfferOwner: relationship !== undefined && visibleTo(request.visibility, groups, offer.ownerOrganizationId),
    allocated: sumCapacity((offer.allocations ?? []).map((a) => a.capacity)),
    now: Date.now(),
  };
}

/** Evaluates a pair as it stands in the read model (both documents given). */
export function evaluateDocuments(offer: CapacityOffer, request: LoadRequest, relationship: PartnerRelationship | undefined): Evaluation {
  return notingOccurrences(evaluate(offer as unknown as OfferTerms, request as unknown as RequestTerms, pairFacts(offer, request, relationship), DEFAULT_MATCH_SETTINGS), offer, request);
}

/** Whether a listing has everything compatibility reads (a published one always has). */
const complete = (doc: any, fields: readonly string[]) => missingTerms(doc, fields).length === 0;

/**
 * Open offers of the given partners whose reach covers the request's pickup and delivery areas
 * in its pickup window (and, for round-trip and either-way offers, the reverse). One probe of the
 * reach index for the whole market (one per orientation); the partners filter what it finds. A
 * probe per partner with the owner in the key took as many probes as partners (docs/benchmarks.md,
 * matching).
 */
export async function offersFor(db: Queryable, request: LoadRequest, partners: string[], limit: number): Promise<CapacityOffer[]> {
  if (!partners.length || !complete(request, REQUEST_TERMS)) return [];
  const pickup = boxLiteral(boundingBox(request.pickupArea as Area));
  const delivery = boxLiteral(boundingBox(request.deliveryArea as Area));
  const { rows } = await db.query<{ doc: CapacityOffer }>(
    `select x.doc from capacity_offers x
      where x.status in ('published', 'partiallyMatched')
        and x.match_window && tstzrange($4, $5, '[]')
        and ((x.match_origin && $2::box and x.match_destination && $3::box)
          or (x.reversible and x.match_origin && $3::box and x.match_destination && $2::box))
        and x.owner_organization_id = any($1::text[])
      limit $6`,
    [partners, pickup, delivery, request.pickupWindow!.start, request.pickupWindow!.end, limit],
  );
  return rows.map((r) => r.doc);
}

/** Open requests of the given partners whose pickup and delivery lie in the offer's reach, in its availability (one probe, as offersFor). */
export async function requestsFor(db: Queryable, offer: CapacityOffer, partners: string[], limit: number): Promise<LoadRequest[]> {
  if (!partners.length || !complete(offer, OFFER_TERMS)) return [];
  const { rows: own } = await db.query<{ origin: string; destination: string; reversible: boolean }>(
    'select match_origin::text as origin, match_destination::text as destination, reversible from capacity_offers where id = $1',
    [offer.id],
  );
  if (!own[0]?.origin) return [];
  const { rows } = await db.query<{ doc: LoadRequest }>(
    `select x.doc from load_requests x
      where x.status in ('published', 'proposed')
        and x.match_window && tstzrange($4, $5, '[]')
        and ((x.match_origin && $2::box and x.match_destination && $3::box)
          or ($6 and x.match_origin && $3::box and x.match_destination && $2::box))
        and x.owner_organization_id = any($1::text[])
      limit $7`,
    [partners, own[0].origin, own[0].destination, offer.availabilityWindow!.start, offer.availabilityWindow!.end, own[0].reversible, limit],
  );
  return rows.map((r) => r.doc);
}

function validUntil(offer: CapacityOffer, request: LoadRequest, settings: MatchingSettings, now = Date.now()): string {
  const limits = [now + settings.proposalValiditySeconds * 1000, Date.parse(offer.expiresAt!), Date.parse(request.expiresAt!)].filter(Number.isFinite);
  return new Date(Math.min(...limits)).toISOString();
}

function candidate(offer: CapacityOffer, request: LoadRequest, relationship: PartnerRelationship, evaluation: Evaluation, settings: MatchingSettings): MatchCandidate {
  return {
    offer: { id: offer.id, version: offer.resourceVersion, ownerOrganizationId: offer.ownerOrganizationId },
    request: { id: request.id, version: request.resourceVersion, ownerOrganizationId: request.ownerOrganizationId },
    evaluation,
    policy: policyOf(relationship),
    validUntil: validUntil(offer, request, settings),
  };
}

/**
 * The partners matching may pair an owner's listing with: none while the owner's organization
 * record is not active (pending, suspended, ended: gate 3 would refuse its decision), and only
 * partners whose record is active (an organization of the files without a record counts as active).
 */
async function activePartnersOf(db: Queryable, owner: string) {
  const partners = await partnersOf(db, owner);
  const { rows } = await db.query<{ organization_id: string }>(
    `select doc->>'organizationId' as organization_id from organizations where doc->>'organizationId' = any($1::text[]) and status <> 'active'`,
    [[owner, ...partners.keys()]],
  );
  const inactive = new Set(rows.map((r) => r.organization_id));
  if (inactive.has(owner)) return new Map<string, never>() as typeof partners;
  for (const id of inactive) partners.delete(id);
  return partners;
}

/** Whether the broker may propose this pair: no open or earlier proposal of the pair, a free slot on the request. */
function proposable(offer: CapacityOffer, request: LoadRequest, settings: MatchingSettings): boolean {
  if ((offer.allocations ?? []).some((a) => a.requestId === request.id)) return false;
  if ((offer.proposedRequestIds ?? []).includes(request.id)) return false;
  return (request.openProposalIds ?? []).length < settings.maxOpenProposalsPerRequest;
}

/**
 * The compatible pairs of one listing, best scores first: for an offer, requests of its partners;
 * for a request, offers of its partners (as many as its free proposal slots).
 */
export async function findMatches(db: Queryable, input: MatchInput, settings: MatchingSettings = DEFAULT_MATCHING): Promise<MatchCandidate[]> {
  if (input.kind === 'capacity-offer') {
    const offer = await loadDocument<CapacityOffer>(db, capacityOffer, input.id);
    if (!offer || !OPEN_OFFER_STATUSES.includes(offer.status)) return [];
    const partners = await activePartnersOf(db, offer.ownerOrganizationId);
    const requests = await requestsFor(db, offer, [...partners.keys()], settings.candidateLimit);
    return compatible(requests.map((request) => ({ offer, request, relationship: partners.get(request.ownerOrganizationId)! })), settings);
  }
  const request = await loadDocument<LoadRequest>(db, loadRequest, input.id);
  if (!request || !OPEN_REQUEST_STATUSES.includes(request.status)) return [];
  const slots = settings.maxOpenProposalsPerRequest - (request.openProposalIds ?? []).length;
  if (slots <= 0) return [];
  const partners = await activePartnersOf(db, request.ownerOrganizationId);
  const offers = await offersFor(db, request, [...partners.keys()], settings.candidateLimit);
  return compatible(offers.map((offer) => ({ offer, request, relationship: partners.get(offer.ownerOrganizationId)! })), settings).slice(0, slots);
}

/** The relationships in force that allow matching, by partner. */
async function partnersOf(db: Queryable, organizationId: string): Promise<Map<string, PartnerRelationship>> {
  return new Map((await partnershipsInForce(db, organizationId, MATCHING_SCOPES)).map((p) => [p.organizationId, p.relationship]));
}

/** The pairs the broker may propose and that are compatible, as candidates, best scores first. */
function compatible(pairs: Array<{ offer: CapacityOffer; request: LoadRequest; relationship: PartnerRelationship }>, settings: MatchingSettings): MatchCandidate[] {
  const found: MatchCandidate[] = [];
  for (const { offer, request, relationship } of pairs) {
    if (!proposable(offer, request, settings)) continue;
    const evaluation = evaluateDocuments(offer, request, relationship);
    if (evaluation.compatible) found.push(candidate(offer, request, relationship, evaluation, settings));
  }
  return rank(found);
}

const rank = (found: MatchCandidate[]) =>
  found.sort((a, b) => b.evaluation.score - a.evaluation.score || (a.offer.id + a.request.id).localeCompare(b.offer.id + b.request.id));

/**
 * One pair re-read and re-evaluated (after a stale version): the candidate if still compatible and
 * proposable, else undefined. `repeat` lets a flow retry its own attempt (its reservation was
 * released) and a participant ask again for a pair the broker proposed before.
 */
export async function evaluatePair(db: Queryable, pair: PairQuery, settings: MatchingSettings = DEFAULT_MATCHING): Promise<PairEvaluation> {
  const [offer, request] = await Promise.all([loadDocument<CapacityOffer>(db, capacityOffer, pair.offerId), loadDocument<LoadRequest>(db, loadRequest, pair.requestId)]);
  if (!offer || !request) return {};
  // A draft may lack the terms compatibility reads: a refusal as data, never a crash to retry.
  const missing = missingPairTerms(offer, request);
  if (missing) return { refusal: { code: 'LISTING_INCOMPLETE', detail: incompleteDetail(missing), extensions: { missingTerms: missing } } };
  const partners = await partnershipsInForce(db, offer.ownerOrganizationId, MATCHING_SCOPES);
  const relationship = partners.find((p) => p.organizationId === request.ownerOrganizationId)?.relationship;
  const evaluation = evaluateDocuments(offer, request, relationship);
  if (!evaluation.compatible || !relationship) return { evaluation };
  if ((offer.allocations ?? []).some((a) => a.requestId === request.id)) {
    return { evaluation, refusal: { code: 'DUPLICATE_MATCH', detail: 'this offer and this load request already have an open proposal' } };
  }
  if ((request.openProposalIds ?? []).length >= settings.maxOpenProposalsPerRequest) {
    return { evaluation, refusal: { code: 'PROPOSAL_LIMIT_REACHED', detail: `the load request already has ${settings.maxOpenProposalsPerRequest} open proposals` } };
  }
  if (!pair.repeat && (offer.proposedRequestIds ?? []).includes(request.id)) {
    return { evaluation, refusal: { code: 'DUPLICATE_MATCH', detail: 'the broker proposed this pair before' } };
  }
  const found = candidate(offer, request, relationship, evaluation, settings);
  if (pair.initiator) found.policy = policyOf(relationship, pair.initiator);
  return { candidate: found, evaluation };
}

/** Open listings of organizations, to match again when their relationship comes into force. */
export async function openListingsOf(db: Queryable, organizationIds: string[]): Promise<MatchInput[]> {
  const { rows } = await db.query<{ kind: MatchInput['kind']; id: string }>(
    `select 'load-request' as kind, id::text from load_requests where owner_organization_id = any($1) and status = any($2)
     union all
     select 'capacity-offer' as kind, id::text from capacity_offers where owner_organization_id = any($1) and status = any($3)
     order by kind desc, id limit 500`,
    [organizationIds, OPEN_REQUEST_STATUSES, OPEN_OFFER_STATUSES],
  );
  return rows;
}
