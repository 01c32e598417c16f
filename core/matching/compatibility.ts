// Compatibility of a capacity offer and a load request: pure functions, no I/O (the specification
// leaves the computation to us; docs/decisions.md, "Compatibility"). Each criterion yields a
// result with a stable reason code and the figures behind it; the explanation built from them is
// data (routeCompatibility, capacityCompatibility, compatibility, rationale) and never holds a
// protected field: only coarse terms both sides may already see, and figures derived from them.
import { boundingBox, type Area, type Box } from '../areas';
import { DIMENSIONS, EPSILON, exhausts, remainingCapacity, toBaseCapacity, type BaseCapacity } from '../../domain/capacity';
import { greatCircleModel, type DistanceModel, type Point } from './distance';
import { EXECUTION_LEAD_MINUTES, EXECUTION_LEAD_MS } from '../../domain/listing';
import { MATCHING_SCOPES, OPEN_OFFER_STATUSES, OPEN_REQUEST_STATUSES, type CapacityCompatibility, type CriterionResult, type Evaluation, type RouteCompatibility } from '../../domain/matching';


export interface Window {
  start: string;
  end: string;
  timeZone?: string;
}

/** What compatibility reads of an offer (its coarse terms; never restrictedDetails). */
export interface OfferTerms {
  id: string;
  ownerOrganizationId: string;
  status: string;
  availabilityWindow: Window;
  originArea: Area;
  destinationArea: Area;
  direction?: 'oneWay' | 'roundTrip' | 'eitherWay';
  vehicleProfile: { bodyType: string; equipment?: string[] };
  availableCapacity: Record<string, unknown>;
  constraints?: Handling;
  maximumDetour?: { kilometres?: number; minutes?: number };
}

/** What compatibility reads of a request (its coarse terms; never restrictedDetails). */
export interface RequestTerms {
  id: string;
  ownerOrganizationId: string;
  status: string;
  pickupArea: Area;
  pickupWindow: Window;
  deliveryArea: Area;
  deliveryWindow: Window;
  requiredCapacity: Record<string, unknown>;
  vehicleRequirements: { bodyTypes?: string[]; equipment?: string[] };
  goodsProfile?: { hazardous?: boolean; temperatureControlled?: boolean };
  handlingRequirements?: Handling;
}

export interface Handling {
  dangerousGoods?: { adrClasses?: string[] };
  temperature?: { minCelsius: number; maxCelsius: number };
  stackable?: boolean;
}

/** Facts about the two organizations that the read model knows. */
export interface PairFacts {
  /** The relationship in force between the two owners, if any, with its scopes. */
  relationship?: { id: string; scopes: string[]; decisionPolicy: { mode: string }; requestingOrganizationId: string };
  /** Gate 8 both ways: the offer's visibility admits the request's owner, and the reverse. */
  offerVisibleToRequestOwner: boolean;
  requestVisibleToOfferOwner: boolean;
  /** The offer's capacity already allocated to open and committed proposals (base units). */
  allocated: BaseCapacity;
  /**
   * Now (ms): the pickup must still be possible EXECUTION_LEAD_MINUTES from now, or the pair is
   * not compatible (PICKUP_WINDOW_PASSED). Absent, the windows are judged on their own.
   */
  now?: number;
}

export interface MatchSettings {
  distance: DistanceModel;
  /** km/h, for a detour given in minutes and for the transit time between pickup and delivery. */
  averageSpeedKmh: number;
}

export const DEFAULT_MATCH_SETTINGS: MatchSettings = { distance: greatCircleModel(1.3), averageSpeedKmh: 65 };


const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The area's representative point: a UN/LOCODE's coordinates, a circle's centre, else its box centre. */
export function referencePoint(area: Area, box: Box = boundingBox(area)): Point {
  if (area.kind === 'circle') return area.center;
  return [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2];
}

export function allowanceKm(detour: OfferTerms['maximumDetour'], averageSpeedKmh: number): number {
  if (!detour) return 0;
  const limits = [detour.kilometres, detour.minutes === undefined ? undefined : (detour.minutes / 60) * averageSpeedKmh].filter(
    (v): v is number => v !== undefined,
  );
  return limits.length ? Math.min(...limits) : 0;
}

function route(offer: OfferTerms, request: RequestTerms, settings: MatchSettings): RouteCompatibility {
  const { distance } = settings;
  const [origin, destination, pickup, delivery] = [offer.originArea, offer.destinationArea, request.pickupArea, request.deliveryArea].map((a) => boundingBox(a));
  const allowance = allowanceKm(offer.maximumDetour, settings.averageSpeedKmh);
  const orient = (from: Box, to: Box) => {
    const pickupOffsetKm = distance.boxKm(from, pickup);
    const deliveryOffsetKm = distance.boxKm(delivery, to);
    return { pickupOffsetKm, deliveryOffsetKm, detourKm: pickupOffsetKm + deliveryOffsetKm };
  };
  const forward = orient(origin, destination);
  // A round trip or an either-way offer may carry the load on its way back.
  const reversible = offer.direction === 'roundTrip' || offer.direction === 'eitherWay';
  const reverse = reversible ? orient(destination, origin) : undefined;
  const best = reverse && reverse.detourKm < forward.detourKm ? { ...reverse, orientation: 'reverse' as const } : { ...forward, orientation: 'forward' as const };
  return {
    distanceModel: distance.name,
    orientation: best.orientation,
    allowanceKm: round(allowance),
    pickupOffsetKm: round(best.pickupOffsetKm),
    deliveryOffsetKm: round(best.deliveryOffsetKm),
    detourKm: round(best.detourKm),
    offerDistanceKm: round(distance.km(referencePoint(offer.originArea, origin), referencePoint(offer.destinationArea, destination))),
    loadDistanceKm: round(distance.km(referencePoint(request.pickupArea, pickup), referencePoint(request.deliveryArea, delivery))),
  };
}

function capacity(offer: OfferTerms, request: RequestTerms, allocated: BaseCapacity): CapacityCompatibility {
  const available = toBaseCapacity(offer.availableCapacity);
  const remaining = remainingCapacity(available, allocated);
  const required = toBaseCapacity(request.requiredCapacity);
  const compared: CapacityCompatibility['compared'] = [];
  const notCompared: CapacityCompatibility['notCompared'] = [];
  const allocation: BaseCapacity = {};
  for (const d of DIMENSIONS) {
    const have = remaining[d.key];
    const need = required[d.key];
    if (have === undefined && need === undefined) continue;
    if (have === undefined) notCompared.push({ dimension: d.key, reason: 'absentInOffer' });
    else if (need === undefined) notCompared.push({ dimension: d.key, reason: 'absentInRequest' });
    else {
      const fits = need <= have + EPSILON;
      compared.push({ dimension: d.key, unit: d.unit, required: need, remaining: have, remainingAfter: Math.max(0, have - need), fits });
      allocation[d.key] = need;
    }
  }
  // An offer is full once any of its dimensions is used up: a lorry full by weight takes nothing more.
  return { compared, notCompared, allocation, exhaustsOffer: exhausts(remaining, allocation) };
}


const ms = (iso: string) => Date.parse(iso);
const minutes = (n: number) => Math.round(n / 60000);

function local(iso: number, timeZone?: string): string | undefined {
  if (!timeZone) return undefined;
  return new Intl.DateTimeFormat('sv-SE', { timeZone, dateStyle: 'short', timeStyle: 'short' }).format(new Date(iso)) + ` ${timeZone}`;
}

function time(offer: OfferTerms, request: RequestTerms, loadDistanceKm: number, settings: MatchSettings, now?: number): CriterionResult {
  const a = offer.availabilityWindow;
  const p = request.pickupWindow;
  const d = request.deliveryWindow;
  // The earliest a truck could be at the pickup: never before the lead from now.
  const soonest = now === undefined ? -Infinity : now + EXECUTION_LEAD_MS;
  const earliestPickup = Math.max(ms(a.start), ms(p.start), soonest);
  const latestPickup = Math.min(ms(a.end), ms(p.end));
  const transitMs = (loadDistanceKm / settings.averageSpeedKmh) * 3600_000;
  const deadline = Math.min(ms(a.end), ms(d.end));
  const arrival = Math.max(earliestPickup + transitMs, ms(d.start));
  const figures = {
    pickupOverlapMinutes: Math.max(0, minutes(latestPickup - earliestPickup)),
    transitMinutes: minutes(transitMs),
    earliestPickup: new Date(earliestPickup).toISOString(),
    latestDelivery: new Date(deadline).toISOString(),
    ...(local(earliestPickup, p.timeZone ?? a.timeZone) ? { earliestPickupLocal: local(earliestPickup, p.timeZone ?? a.timeZone) } : {}),
    ...(local(deadline, d.timeZone ?? a.timeZone) ? { latestDeliveryLocal: local(deadline, d.timeZone ?? a.timeZone) } : {}),
  };
  if (soonest > latestPickup && Math.max(ms(a.start), ms(p.start)) <= latestPickup) {
    return { criterion: 'timeWindow', result: 'fail', reasonCode: 'PICKUP_WINDOW_PASSED', figures: { ...figures, latestPickup: new Date(latestPickup).toISOString(), leadMinutes: EXECUTION_LEAD_MINUTES } };
  }
  if (earliestPickup > latestPickup) return { criterion: 'timeWindow', result: 'fail', reasonCode: 'PICKUP_OUTSIDE_AVAILABILITY', figures };
  if (ms(d.start) > ms(a.end) || ms(d.end) < earliestPickup) return { criterion: 'timeWindow', result: 'fail', reasonCode: 'DELIVERY_OUTSIDE_AVAILABILITY', figures };
  if (arrival > deadline) return { criterion: 'timeWindow', result: 'fail', reasonCode: 'TRANSIT_TOO_SHORT', figures };
  return { criterion: 'timeWindow', result: 'pass', reasonCode: 'TIME_WINDOW_FEASIBLE', figures };
}

function vehicle(offer: OfferTerms, request: RequestTerms): CriterionResult[] {
  const out: CriterionResult[] = [];
  const wanted = request.vehicleRequirements?.bodyTypes ?? [];
  const body = offer.vehicleProfile.bodyType;
  out.push(
    wanted.length === 0
      ? { criterion: 'bodyType', result: 'notApplicable', reasonCode: 'BODY_TYPE_ANY' }
      : wanted.includes(body)
        ? { criterion: 'bodyType', result: 'pass', reasonCode: 'BODY_TYPE_MATCH', figures: { offered: body, accepted: wanted } }
        : { criterion: 'bodyType', result: 'fail', reasonCode: 'BODY_TYPE_MISMATCH', figures: { offered: body, accepted: wanted } },
  );
  const needs = request.vehicleRequirements?.equipment ?? [];
  const has = offer.vehicleProfile.equipment ?? [];
  const missing = needs.filter((e) => !has.includes(e));
  out.push(
    needs.length === 0
      ? { criterion: 'equipment', result: 'notApplicable', reasonCode: 'EQUIPMENT_NOT_REQUIRED' }
      : missing.length === 0
        ? { criterion: 'equipment', result: 'pass', reasonCode: 'EQUIPMENT_AVAILABLE', figures: { required: needs } }
        : { criterion: 'equipment', result: 'fail', reasonCode: 'EQUIPMENT_MISSING', figures: { required: needs, missing } },
  );
  // Dangerous goods: every ADR class the load needs must be one the vehicle may carry; a load
  // flagged hazardous without classes needs a vehicle that accepts some class.
  const classes = request.handlingRequirements?.dangerousGoods?.adrClasses ?? [];
  const permitted = offer.constraints?.dangerousGoods?.adrClasses ?? [];
  const hazardous = classes.length > 0 || request.goodsProfile?.hazardous === true;
  const notPermitted = classes.filter((c) => !permitted.includes(c));
  out.push(
    !hazardous
      ? { criterion: 'dangerousGoods', result: 'notApplicable', reasonCode: 'DANGEROUS_GOODS_NONE' }
      : notPermitted.length === 0 && permitted.length > 0
        ? { criterion: 'dangerousGoods', result: 'pass', reasonCode: 'DANGEROUS_GOODS_PERMITTED', figures: { adrClasses: classes } }
        : { criterion: 'dangerousGoods', result: 'fail', reasonCode: 'DANGEROUS_GOODS_NOT_PERMITTED', figures: { adrClasses: classes, notPermitted } },
  );
  // Temperature: the load's range must lie within what the vehicle holds.
  const need = request.handlingRequirements?.temperature;
  const hold = offer.constraints?.temperature;
  const controlled = need !== undefined || request.goodsProfile?.temperatureControlled === true;
  out.push(
    !controlled
      ? { criterion: 'temperature', result: 'notApplicable', reasonCode: 'TEMPERATURE_NOT_REQUIRED' }
      : hold && (!need || (hold.minCelsius <= need.minCelsius && hold.maxCelsius >= need.maxCelsius))
        ? { criterion: 'temperature', result: 'pass', reasonCode: 'TEMPERATURE_SATISFIED', figures: { required: need ?? null, offered: hold } }
        : { criterion: 'temperature', result: 'fail', reasonCode: 'TEMPERATURE_NOT_SATISFIED', figures: { required: need ?? null, offered: hold ?? null } },
  );
  return out;
}

/**
 * The documented score (0..1) that orders compatible candidates:
 *   0.4 x capacity use: the largest share of a remaining dimension the load takes (filling a
 *         lorry beats splitting many),
 * + 0.35 x closeness: 1 - detour / max(allowance, 50 km),
 * + 0.25 x time slack: the pickup overlap over the pickup window, at most 1.
 */
export function score(capacityCompat: CapacityCompatibility, routeCompat: RouteCompatibility, timeResult: CriterionResult, request: RequestTerms): number {
  const use = Math.max(0, ...capacityCompat.compared.map((c) => (c.remaining > 0 ? c.required / c.remaining : 0)));
  const closeness = 1 - Math.min(1, routeCompat.detourKm / Math.max(routeCompat.allowanceKm, 50));
  const pickupMinutes = Math.max(1, minutes(ms(request.pickupWindow.end) - ms(request.pickupWindow.start)));
  const slack = Math.min(1, Number(timeResult.figures?.pickupOverlapMinutes ?? 0) / pickupMinutes);
  return Math.round((0.4 * Math.min(1, use) + 0.35 * closeness + 0.25 * slack) * 1000) / 1000;
}

/** Evaluates one offer against one request: every criterion, the explanation, the score. */
export function evaluate(offer: OfferTerms, request: RequestTerms, facts: PairFacts, settings: MatchSettings = DEFAULT_MATCH_SETTINGS): Evaluation {
  const results: CriterionResult[] = [];
  const rel = facts.relationship;
  const missingScopes = rel ? MATCHING_SCOPES.filter((s) => !rel.scopes.includes(s)) : MATCHING_SCOPES;
  results.push(
    !rel
      ? { criterion: 'relationship', result: 'fail', reasonCode: 'RELATIONSHIP_INACTIVE' }
      : missingScopes.length
        ? { criterion: 'relationship', result: 'fail', reasonCode: 'RELATIONSHIP_SCOPES_MISSING', figures: { missingScopes } }
        : { criterion: 'relationship', result: 'pass', reasonCode: 'RELATIONSHIP_ACTIVE', figures: { decisionPolicy: rel.decisionPolicy.mode } },
  );
  results.push(
    !facts.offerVisibleToRequestOwner
      ? { criterion: 'visibility', result: 'fail', reasonCode: 'OFFER_NOT_VISIBLE_TO_REQUESTER' }
      : !facts.requestVisibleToOfferOwner
        ? { criterion: 'visibility', result: 'fail', reasonCode: 'REQUEST_NOT_VISIBLE_TO_CARRIER' }
        : { criterion: 'visibility', result: 'pass', reasonCode: 'VISIBILITY_MUTUAL' },
  );
  results.push(
    !OPEN_OFFER_STATUSES.includes(offer.status)
      ? { criterion: 'status', result: 'fail', reasonCode: 'OFFER_NOT_OPEN', figures: { offerStatus: offer.status } }
      : !OPEN_REQUEST_STATUSES.includes(request.status)
        ? { criterion: 'status', result: 'fail', reasonCode: 'REQUEST_NOT_OPEN', figures: { requestStatus: request.status } }
        : { criterion: 'status', result: 'pass', reasonCode: 'LISTINGS_OPEN' },
  );

  const routeCompat = route(offer, request, settings);
  const within = (km: number) => km <= routeCompat.allowanceKm + EPSILON;
  results.push({
    criterion: 'pickupArea',
    result: within(routeCompat.pickupOffsetKm) ? 'pass' : 'fail',
    reasonCode: within(routeCompat.pickupOffsetKm) ? 'AREA_PICKUP_ON_ROUTE' : 'AREA_PICKUP_OFF_ROUTE',
    figures: { pickupOffsetKm: routeCompat.pickupOffsetKm, allowanceKm: routeCompat.allowanceKm, orientation: routeCompat.orientation },
  });
  results.push({
    criterion: 'deliveryArea',
    result: within(routeCompat.deliveryOffsetKm) ? 'pass' : 'fail',
    reasonCode: within(routeCompat.deliveryOffsetKm) ? 'AREA_DELIVERY_TOWARDS_DESTINATION' : 'AREA_DELIVERY_OFF_ROUTE',
    figures: { deliveryOffsetKm: routeCompat.deliveryOffsetKm, allowanceKm: routeCompat.allowanceKm, orientation: routeCompat.orientation },
  });
  results.push({
    criterion: 'detour',
    result: within(routeCompat.detourKm) ? 'pass' : 'fail',
    reasonCode: within(routeCompat.detourKm) ? 'DETOUR_WITHIN_LIMIT' : 'DETOUR_EXCEEDS_LIMIT',
    figures: { detourKm: routeCompat.detourKm, allowanceKm: routeCompat.allowanceKm },
  });

  const timeResult = time(offer, request, routeCompat.loadDistanceKm, settings, facts.now);
  results.push(timeResult);

  const capacityCompat = capacity(offer, request, facts.allocated);
  if (capacityCompat.compared.length === 0) {
    results.push({ criterion: 'capacity', result: 'fail', reasonCode: 'NO_COMMON_CAPACITY_DIMENSION', figures: { notCompared: capacityCompat.notCompared } });
  }
  for (const c of capacityCompat.compared) {
    const code = DIMENSIONS.find((d) => d.key === c.dimension)!.code;
    results.push({
      criterion: `capacity.${c.dimension}`,
      result: c.fits ? 'pass' : 'fail',
      reasonCode: `CAPACITY_${code}_${c.fits ? 'FITS' : 'EXCEEDS'}`,
      figures: { required: c.required, remaining: c.remaining, unit: c.unit },
    });
  }
  results.push(...vehicle(offer, request));

  const failed = results.filter((r) => r.result === 'fail');
  const compatible = failed.length === 0;
  const s = compatible ? score(capacityCompat, routeCompat, timeResult, request) : 0;
  return {
    compatible,
    score: s,
    compatibility: results,
    routeCompatibility: routeCompat,
    capacityCompatibility: capacityCompat,
    rationale: { reasonCodes: results.filter((r) => r.result !== 'notApplicable').map((r) => r.reasonCode), summary: summary(compatible, failed, routeCompat, capacityCompat) },
  };
}

function summary(compatible: boolean, failed: CriterionResult[], r: RouteCompatibility, c: CapacityCompatibility): string {
  if (!compatible) return `Not compatible: ${failed.map((f) => f.reasonCode).join(', ')}.`;
  const dims = c.compared.map((d) => `${d.dimension} ${round(d.required, 2)} of ${round(d.remaining, 2)} ${d.unit}`).join(', ');
  const way = r.orientation === 'reverse' ? ' on the return leg' : '';
  return `Compatible${way}: pickup ${r.pickupOffsetKm} km and delivery ${r.deliveryOffsetKm} km off the offer's areas (detour ${r.detourKm} of ${r.allowanceKm} km allowed, ${r.distanceModel}); load fits (${dims}).`;
}
