// What matching explains, as data a proposal carries (routeCompatibility, capacityCompatibility,
// compatibility, rationale), and the rules of which terms a pair needs before it can be evaluated.
// Pure definitions: the computation is core/matching/compatibility.ts; the entity workflows, the
// activity contract and the API read these.
import type { BaseCapacity } from './capacity';

export type Result = 'pass' | 'fail' | 'notApplicable';

export interface CriterionResult {
  criterion: string;
  result: Result;
  reasonCode: string;
  figures?: Record<string, unknown>;
}

export interface RouteCompatibility {
  distanceModel: string;
  orientation: 'forward' | 'reverse';
  allowanceKm: number;
  pickupOffsetKm: number;
  deliveryOffsetKm: number;
  detourKm: number;
  offerDistanceKm: number;
  loadDistanceKm: number;
}

export interface CapacityCompatibility {
  compared: Array<{ dimension: string; unit: string; required: number; remaining: number; remainingAfter: number; fits: boolean }>;
  notCompared: Array<{ dimension: string; reason: 'absentInOffer' | 'absentInRequest' }>;
  /** What a proposal reserves on the offer (base units), the compared dimensions only. */
  allocation: BaseCapacity;
  /** Whether the offer has nothing left once this allocation is made (some dimension at zero). */
  exhaustsOffer: boolean;
}

export interface Evaluation {
  compatible: boolean;
  /** 0..1, higher is better; orders candidates (see score()). */
  score: number;
  compatibility: CriterionResult[];
  routeCompatibility: RouteCompatibility;
  capacityCompatibility: CapacityCompatibility;
  rationale: Rationale;
}

/** Why, in codes and a sentence, and (for occurrences of recurring series) which occurrence of which series each side is. */
export interface Rationale {
  reasonCodes: string[];
  summary: string;
  occurrences?: OccurrenceNote[];
}

/** A side of the pair that is one occurrence of a recurring series (domain/listing-series.ts). */
export interface OccurrenceNote {
  listing: 'capacityOffer' | 'loadRequest';
  seriesId: string;
  /** The occurrence's local date in its series' time zone. */
  occurrenceKey: string;
}

/**
 * The evaluation of a pair, saying which occurrence of which series each side is: matching treats
 * occurrences one by one, as any listing, and the explanation names them (issue 33).
 */
export function notingOccurrences(evaluation: Evaluation, offer: { seriesId?: string; occurrenceKey?: string }, request: { seriesId?: string; occurrenceKey?: string }): Evaluation {
  const notes: OccurrenceNote[] = [];
  if (offer.seriesId && offer.occurrenceKey) notes.push({ listing: 'capacityOffer', seriesId: offer.seriesId, occurrenceKey: offer.occurrenceKey });
  if (request.seriesId && request.occurrenceKey) notes.push({ listing: 'loadRequest', seriesId: request.seriesId, occurrenceKey: request.occurrenceKey });
  if (!notes.length) return evaluation;
  const words = notes.map((n) => `the ${n.listing === 'capacityOffer' ? 'capacity offer' : 'load request'} is the ${n.occurrenceKey} occurrence of recurring series ${n.seriesId}`);
  const sentence = `${words.join('; ')}.`;
  return { ...evaluation, rationale: { ...evaluation.rationale, summary: `${evaluation.rationale.summary} ${sentence[0].toUpperCase()}${sentence.slice(1)}`, occurrences: notes } };
}

export const OPEN_OFFER_STATUSES = ['published', 'partiallyMatched'];
export const OPEN_REQUEST_STATUSES = ['published', 'proposed'];
/** Offer rule 9: matching needs a relationship covering both. */
export const MATCHING_SCOPES = ['capacity:publish', 'loads:read'];

/**
 * The terms compatibility reads of each side. A published listing has them all (publish requires
 * them); a draft may lack any, and such a pair cannot be evaluated at all (docs/decisions.md,
 * "Matching on listings that lack terms").
 */
export const OFFER_TERMS = ['availabilityWindow', 'originArea', 'destinationArea', 'vehicleProfile', 'availableCapacity'] as const;
export const REQUEST_TERMS = ['pickupArea', 'pickupWindow', 'deliveryArea', 'deliveryWindow', 'requiredCapacity', 'vehicleRequirements'] as const;

/** The terms a listing lacks for matching (empty when it can be evaluated). */
export function missingTerms(listing: Record<string, unknown>, terms: readonly string[]): string[] {
  return terms.filter((t) => listing[t] === undefined || listing[t] === null);
}

/** What a pair lacks for an evaluation, side by side; undefined when both sides are complete. */
export function missingPairTerms(offer: object, request: object): { capacityOffer: string[]; loadRequest: string[] } | undefined {
  const capacityOffer = missingTerms(offer as Record<string, unknown>, OFFER_TERMS);
  const loadRequest = missingTerms(request as Record<string, unknown>, REQUEST_TERMS);
  return capacityOffer.length || loadRequest.length ? { capacityOffer, loadRequest } : undefined;
}

/** The sentence naming what a pair lacks for matching (API and flows say it alike). */
export function incompleteDetail(missing: { capacityOffer: string[]; loadRequest: string[] }): string {
  const sides = [
    missing.capacityOffer.length ? `the capacity offer lacks ${missing.capacityOffer.join(', ')}` : '',
    missing.loadRequest.length ? `the load request lacks ${missing.loadRequest.join(', ')}` : '',
  ].filter(Boolean);
  return `matching cannot evaluate this pair: ${sides.join('; ')}`;
}
