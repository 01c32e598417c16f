// IFTMIN (transport instruction) to a load request: the mapping of profile "IFTMIN D.04A"
// (docs/adapters.md has it as a table). Only what the message says is carried; a value the
// exchange needs that the message lacks comes from the organization's own adapter settings or
// nowhere: the message is then quarantined with the reason and where it should have been, never
// completed by a guess. Pure: no I/O.
import type { components, CreateBody } from '@pcx/sdk';
import { loadAreaIndex } from '../../core/areas';
import { placesNamed } from '../../core/place-names';
import type { ServedOrganization } from '../config';
import { EXECUTION_LEAD_MINUTES } from '../listings';
import type { QuarantineReason } from '../store';
import { periodOf, type Period } from './dates';
import type { EdifactMessage, Segment } from './syntax';
import { numberOf } from './service';
import { carriedOf, readsOf, segmentsFor, step, type ReadPosition, type Step } from './steps';

export type ExternalReference = components['schemas']['CommonExternalReference'];

/** The body of the load request an IFTMIN becomes (LoadRequestCreateRequest): the compiler checks the mapping against the document. */
export type LoadRequestBody = CreateBody<'load-requests'>;
type Schemas = components['schemas'];
type Capacity = Schemas['LogisticsCapacity'];
type Handling = Schemas['LogisticsHandling'];
type GoodsDetails = NonNullable<Schemas['LoadRequestRestrictedDetails']['goodsDetails']>;
type AdrClass = Schemas['LogisticsHandlingDangerousGoodsAdrClasses'][number];
type PackingGroup = NonNullable<GoodsDetails['packingGroups']>[number];

export interface LoadMapping {
  messageReference: string;
  documentNumber: string;
  body: LoadRequestBody;
  publish: boolean;
  /** What the message said that the load request does not carry (docs/adapters.md, "lossy"). */
  dropped: string[];
}

const value = (s: Segment, e: number, c = 0) => s.elements[e]?.[c] || undefined;
const at = (s: Segment, e?: number) => `segment ${s.position} (${s.tag})${e === undefined ? '' : `, element ${e + 1}`}`;
const UNLOCODE = /^[A-Z]{2}[A-Z2-9]{3}$/;

/** LOC qualifiers (3227) read as where the load is picked up, and delivered, in this order of preference. */
const PICKUP_PLACES = ['9', '5', '10'];
const DELIVERY_PLACES = ['7', '11', '12', '8'];
/** DTM qualifiers (2005): a pair of earliest and latest first, then the single ones in this order. */
const PICKUP_TIMES = { earliest: '234', latest: '235', single: ['200', '10', '133'] };
const DELIVERY_TIMES = { earliest: '64', latest: '63', single: ['2', '17', '69', '132'] };
const WEIGHT_UNITS: Readonly<Record<string, Schemas['LogisticsMass']['unitCode']>> = { KGM: 'KGM', TNE: 'TNE', GRM: 'GRM', LBR: 'LBR' };
const VOLUME_UNITS: Readonly<Record<string, Schemas['LogisticsVolume']['unitCode']>> = { MTQ: 'MTQ', LTR: 'LTR', DMQ: 'DMQ', FTQ: 'FTQ' };
/** Packing groups (DGS 8339) as the exchange names them. */
const PACKING_GROUPS: Readonly<Record<string, PackingGroup>> = { '1': 'I', '2': 'II', '3': 'III', I: 'I', II: 'II', III: 'III' };
/** ADR classes as the exchange names them: divisions of 1 and 2 are their class. */
const ADR_CLASS = /^(1|2|3|4\.[123]|5\.[12]|6\.[12]|7|8|9)(\.\d+)?$/;
/** The classes ADR_CLASS reads, as the document's values (finding one in this list is what types it). */
const ADR_CLASSES: readonly AdrClass[] = ['1', '2', '3', '4.1', '4.2', '4.3', '5.1', '5.2', '6.1', '6.2', '7', '8', '9'];

export interface MappingContext {
  organization: ServedOrganization;
  /** The `system` of the message's external references. */
  system: string;
  /** Identities (EDIFACT party ids) of the other organizations the gateway serves. */
  othersIdentities: ReadonlySet<string>;
  /**
   * When the message arrived (its inbox entry's receivedAt): a window that ends too soon after it
   * for a transport to be arranged is refused here, as the exchange would refuse to publish it,
   * before anything is created.
   */
  receivedAt?: string;
}

/** What the steps of a mapping share: the organization's context and the reasons found so far; each step reads the segments it declares (`all`). */
interface Reader {
  context: MappingContext;
  reasons: QuarantineReason[];
  /** The segments with this tag (and qualifier, at element `e`, component `c`), of those the step declares. */
  all(tag: string, qualifier?: string, e?: number, c?: number): Segment[];
  /** Adds a reason; undefined, for a step to return with it. */
  quarantine(code: string, text: string, segment?: Segment, e?: number): undefined;
  /** The reader of a step: the same reasons, the segments it declares. */
  only(reads: Step['reads']): Reader;
}

function readerOf(message: EdifactMessage, context: MappingContext, reasons: QuarantineReason[], reads: Step['reads']): Reader {
  return {
    context,
    reasons,
    all: (tag, qualifier, e = 0, c = 0) => segmentsFor({ reads }, message.segments, tag).filter((s) => qualifier === undefined || value(s, e, c) === qualifier),
    quarantine: (code, text, segment, e) => void reasons.push({ code, message: text, ...(segment ? { position: at(segment, e) } : {}) }),
    only: (own) => readerOf(message, context, reasons, own),
  };
}

/**
 * The steps that read the message, each with the segments it reads (element, component; from 0):
 * what the mapping reads is these, and nothing else (steps.ts). Listed in the order of the
 * positions they contribute to IFTMIN_READS; mapIftmin runs them in its own.
 */
const STEPS = {
  document: step({ BGM: [[0, 0], [1, 0], [2, 0]] }, documentOf),
  parties: step({ NAD: [[0, 0], [1, 0]] }, partiesChecked, false),
  references: step({ RFF: [[0, 0], [0, 1]] }, referencesOf),
  places: step({ LOC: [[0, 0], [1, 0], [1, 2], [1, 3]] }, place),
  windows: step({ DTM: [[0, 0], [0, 1], [0, 2]] }, window),
  capacity: step({ CNT: [[0, 0], [0, 1], [0, 2]], MEA: [[0, 0], [1, 0], [2, 0], [2, 1]] }, capacity),
  handling: step({ DGS: [[0, 0], [1, 0], [2, 0], [4, 0]], TMP: [[0, 0], [1, 0], [1, 1]], RNG: [[0, 0], [1, 0], [1, 1], [1, 2]] }, handlingRequirements),
} satisfies Record<string, Step>;

/**
 * Where the mapping reads an IFTMIN (segment, element, component; from 0), for reading a message
 * of another directory only where these are the same data elements as in D.04A (directory.ts):
 * the steps' own declarations.
 */
export const IFTMIN_READS: readonly ReadPosition[] = readsOf(STEPS);

/** The segments the load request carries; any other is listed as dropped (docs/adapters.md, "lossy"). */
const CARRIED = carriedOf(STEPS);

/** One IFTMIN message to one load request, or the reasons it cannot be. */
export function mapIftmin(message: EdifactMessage, context: MappingContext): { load?: LoadMapping; reasons: QuarantineReason[] } {
  // The mapping's own checks read no segment: the steps do.
  const r = readerOf(message, context, [], {});
  const { reasons, quarantine } = r;
  const settings = context.organization.loadRequests ?? { publish: false };

  STEPS.parties.run(r);
  const { documentNumber, reference } = STEPS.document.run(r);
  const pickupArea = STEPS.places.run(r, PICKUP_PLACES, 'pickup');
  const deliveryArea = STEPS.places.run(r, DELIVERY_PLACES, 'delivery');
  const timeZone = settings.timeZone;
  if (!timeZone) quarantine('TIME_ZONE_UNKNOWN', 'EDIFACT times carry no zone and the organization has no timeZone setting');
  const pickupWindow = timeZone ? STEPS.windows.run(r, PICKUP_TIMES, 'pickup', timeZone) : undefined;
  const deliveryWindow = timeZone ? STEPS.windows.run(r, DELIVERY_TIMES, 'delivery', timeZone) : undefined;
  if (pickupWindow && deliveryWindow) windowsChecked(r, pickupWindow, deliveryWindow);
  const requiredCapacity = STEPS.capacity.run(r);
  const { handling, goodsDetails } = STEPS.handling.run(r);
  const goodsProfile = goods(r, handling);
  const vehicleRequirements = settings.bodyTypes?.length ? { bodyTypes: [...settings.bodyTypes] } : undefined;
  if (settings.publish && !vehicleRequirements) quarantine('VEHICLE_REQUIREMENTS_MISSING', 'an IFTMIN names no body type and the organization sets none (loadRequests.bodyTypes) to publish with');
  if (settings.publish && !goodsProfile) quarantine('GOODS_PROFILE_MISSING', 'no GDS nature of cargo the mapping reads, and the organization sets no goods category (loadRequests.goodsCategory)');
  const references = STEPS.references.run(r, reference);
  if (reasons.length) return { reasons };

  const expiresAt = settings.publish && pickupWindow ? expiryOf(pickupWindow, settings.expiresBeforePickupHours ?? 0, context.receivedAt) : undefined;
  const body: LoadRequestBody = {
    pickupArea,
    pickupWindow: { start: pickupWindow!.start, end: pickupWindow!.end, timeZone },
    deliveryArea,
    deliveryWindow: { start: deliveryWindow!.start, end: deliveryWindow!.end, timeZone },
    requiredCapacity,
    ...(vehicleRequirements ? { vehicleRequirements } : {}),
    ...(goodsProfile ? { goodsProfile } : {}),
    ...(Object.keys(handling).length ? { handlingRequirements: handling } : {}),
    // The substances themselves are exact goods details: restricted until a match is accepted (LoadRequest rule 8).
    ...(goodsDetails ? { restrictedDetails: { goodsDetails } } : {}),
    ...(expiresAt ? { expiresAt } : {}),
    ...(settings.publish ? { visibility: settings.visibility ?? { mode: 'open' } } : {}),
    externalReferences: references,
  };
  const dropped = [...new Set(message.segments.map((s) => s.tag).filter((tag) => !CARRIED.has(tag)))];
  return { load: { messageReference: message.reference, documentNumber: documentNumber!, body, publish: settings.publish, dropped }, reasons };
}

/** Another organization's identities (NAD party ids): never acted on for this one (protocol rule 16). */
function partiesChecked(r: Reader): void {
  for (const nad of r.all('NAD')) {
    const party = value(nad, 1);
    if (party && r.context.othersIdentities.has(party)) r.quarantine('NAMES_OTHER_ORGANIZATION', `party ${party} is another organization's`, nad, 1);
  }
}

/** The document number (BGM C106) and the external reference it is; only an original (message function 9) is read. */
function documentOf(r: Reader): { documentNumber?: string; reference?: ExternalReference } {
  const bgm = r.all('BGM')[0];
  const documentNumber = bgm && value(bgm, 1);
  if (!bgm || !documentNumber) r.quarantine('DOCUMENT_NUMBER_MISSING', 'BGM carries no document number (C106)', bgm);
  const functionCode = bgm && value(bgm, 2);
  if (bgm && functionCode && functionCode !== '9') r.quarantine('UNSUPPORTED_FUNCTION', `BGM message function ${functionCode}: only 9 (original) is read; cancellations and changes go through the API`, bgm, 2);
  if (!documentNumber) return {};
  return { documentNumber, reference: { system: r.context.system, type: `BGM+${value(bgm!, 0) ?? ''}`, value: documentNumber } };
}

/** The external references: the document's, then each RFF's (any qualifier), at most 20. */
function referencesOf(r: Reader, document: ExternalReference | undefined): ExternalReference[] {
  const references: ExternalReference[] = document ? [document] : [];
  for (const rff of r.all('RFF')) {
    const qualifier = value(rff, 0);
    const ref = value(rff, 0, 1);
    if (qualifier && ref && references.length < 20) references.push({ system: r.context.system, type: `RFF+${qualifier}`, value: ref });
  }
  return references;
}

/** The area of the first place qualifier present; two different places under it are ambiguous. */
function place(r: Reader, qualifiers: readonly string[], side: string): Schemas['LogisticsArea'] | undefined {
  for (const qualifier of qualifiers) {
    const locs = r.all('LOC', qualifier);
    if (!locs.length) continue;
    const codes = new Set<string>();
    for (const loc of locs) {
      const id = value(loc, 1);
      const agency = value(loc, 1, 2);
      const name = value(loc, 1, 3);
      const asCode = id && (agency === '6' || (!agency && UNLOCODE.test(id)));
      let mapped = id && (asCode ? (UNLOCODE.test(id) ? id : undefined) : r.context.organization.places?.[`${agency ?? ''}:${id}`]);
      // A code of the UN/LOCODE's form that the list does not have: the exchange would refuse it.
      if (mapped && asCode && !loadAreaIndex().unlocode(mapped)) {
        r.quarantine('PLACE_UNKNOWN', `LOC+${qualifier} ${mapped} is not in the UN/LOCODE list the exchange uses (${name ? `named ${name}; ` : ''}check the code, or map it in the organization's places)`, loc, 1);
        return undefined;
      }
      // Only a name (C517 3224): the place of that name, when there is exactly one.
      if (!mapped && name && !(id && r.context.organization.places)) {
        const named = placesNamed(name);
        if (named.length === 1) mapped = named[0].code;
        else if (named.length > 1) {
          r.quarantine('PLACE_AMBIGUOUS', `LOC+${qualifier} names "${name}", which is ${named.length} places: ${named.slice(0, 10).map((p) => p.code).join(', ')}${named.length > 10 ? ', …' : ''}; send its UN/LOCODE`, loc, 1);
          return undefined;
        }
      }
      if (!mapped) {
        r.quarantine('PLACE_UNMAPPED', `LOC+${qualifier} ${id ?? '(no id)'}${name ? ` (${name})` : ''}, agency ${agency ?? 'none'}, is neither a UN/LOCODE, one of the organization's places, nor a place name of the UN/LOCODE list`, loc, 1);
        return undefined;
      }
      codes.add(mapped);
    }
    if (codes.size > 1) {
      r.quarantine('PLACE_AMBIGUOUS', `LOC+${qualifier} names ${[...codes].join(' and ')} as the ${side} place`, locs[1], 1);
      return undefined;
    }
    return { kind: 'unlocode', code: [...codes][0] };
  }
  r.quarantine('PLACE_MISSING', `no LOC with qualifier ${qualifiers.join(', ')} for the ${side} place`);
  return undefined;
}

/** The window: an earliest and latest pair, else the first single time present. */
/** A window and the DTM that ends it (for reasons that name where). */
type Window = Period & { at?: Segment };

function window(r: Reader, times: { earliest: string; latest: string; single: readonly string[] }, side: string, zone: string): Window | undefined {
  const read = (qualifier: string): { period: Period; segment: Segment } | undefined | null => {
    const dtms = r.all('DTM', qualifier);
    if (!dtms.length) return undefined;
    const periods = dtms.map((dtm) => ({ segment: dtm, period: periodOf(value(dtm, 0, 1) ?? '', value(dtm, 0, 2) ?? '102', zone) }));
    const bad = periods.find((p) => !p.period);
    if (bad) {
      r.quarantine('TIME_INVALID', `DTM+${qualifier} ${value(bad.segment, 0, 1)} is not a date or period of format ${value(bad.segment, 0, 2) ?? '102'} the mapping reads (102, 203, 204, 718, 719)`, bad.segment, 0);
      return null;
    }
    if (new Set(periods.map((p) => `${p.period!.start}/${p.period!.end}`)).size > 1) {
      r.quarantine('TIME_AMBIGUOUS', `DTM+${qualifier} is given more than once with different values`, dtms[1], 0);
      return null;
    }
    return { period: periods[0].period!, segment: dtms[0] };
  };
  const earliest = read(times.earliest);
  const latest = read(times.latest);
  if (earliest === null || latest === null) return undefined;
  if (earliest && latest) {
    const period = { start: earliest.period.start, end: latest.period.precision === 'day' ? latest.period.end : latest.period.start, precision: 'minute' as const };
    if (period.start >= period.end) r.quarantine('WINDOW_INVALID', `the ${side} window ends (DTM+${times.latest}) before it starts (DTM+${times.earliest})`, latest.segment, 0);
    return period.start < period.end ? { ...period, at: latest.segment } : undefined;
  }
  // A lone earliest or latest bound is not a window, but a window that breaks it is a contradiction.
  const bound = earliest ?? latest;
  const breaks = (p: Period) => (earliest ? p.start < earliest.period.start : latest ? p.end > (latest.period.precision === 'day' ? latest.period.end : latest.period.start) : false);
  const checked = (p: Period, segment: Segment): Window | undefined => {
    if (bound && breaks(p)) {
      r.quarantine('WINDOW_CONFLICT', `the ${side} window from ${at(segment)} (${p.start} to ${p.end}) breaks DTM+${earliest ? times.earliest : times.latest} at ${at(bound.segment)}`, bound.segment, 0);
      return undefined;
    }
    return { ...p, at: segment };
  };
  for (const qualifier of times.single) {
    const single = read(qualifier);
    if (single === null) return undefined;
    if (!single) continue;
    if (single.period.start < single.period.end) return checked(single.period, single.segment);
    const minutes = r.context.organization.loadRequests?.pointTimeMinutes;
    if (!minutes) {
      r.quarantine('WINDOW_INCOMPLETE', `DTM+${qualifier} names a time, not a window, and the organization sets no pointTimeMinutes for what a requested time means`, single.segment, 0);
      return undefined;
    }
    return checked({ start: single.period.start, end: new Date(Date.parse(single.period.start) + minutes * 60_000).toISOString().replace('.000Z', 'Z'), precision: 'minute' }, single.segment);
  }
  // Only an earliest or only a latest time: a requested time from it (the organization's
  // pointTimeMinutes after the earliest, or before the latest); a date is its whole day.
  if (bound) {
    const qualifier = earliest ? times.earliest : times.latest;
    if (bound.period.precision === 'day') return { ...bound.period, at: bound.segment };
    const minutes = r.context.organization.loadRequests?.pointTimeMinutes;
    if (!minutes) {
      r.quarantine('WINDOW_INCOMPLETE', `DTM+${qualifier} gives only the ${earliest ? 'earliest' : 'latest'} ${side} time, with no ${earliest ? `DTM+${times.latest} latest` : `DTM+${times.earliest} earliest`} time or requested time (DTM+${times.single.join(', DTM+')}), and the organization sets no pointTimeMinutes for what one time means`, bound.segment, 0);
      return undefined;
    }
    const t = Date.parse(bound.period.start);
    const [start, end] = earliest ? [t, t + minutes * 60_000] : [t - minutes * 60_000, t];
    return { start: iso(start), end: iso(end), precision: 'minute', at: bound.segment };
  }
  r.quarantine('WINDOW_MISSING', `no DTM with qualifier ${[times.earliest, times.latest, ...times.single].join(', ')} for the ${side} window`);
  return undefined;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * What the exchange would refuse at publish, refused here before anything is created: a delivery
 * window that ends before the pickup window starts, and a window that ends less than the
 * exchange's lead time after the message arrived (no transport could be arranged in it).
 */
function windowsChecked(r: Reader, pickup: Window, delivery: Window) {
  if (Date.parse(delivery.end) <= Date.parse(pickup.start)) {
    r.quarantine('WINDOW_CONFLICT', `the delivery window (${delivery.start} to ${delivery.end}${delivery.at ? `, ${at(delivery.at)}` : ''}) ends before the pickup window starts (${pickup.start}${pickup.at ? `, ${at(pickup.at)}` : ''})`, delivery.at, 0);
  }
  const received = r.context.receivedAt ? Date.parse(r.context.receivedAt) : NaN;
  if (!Number.isFinite(received)) return;
  for (const [side, w] of [['pickup', pickup], ['delivery', delivery]] as const) {
    if (Date.parse(w.end) - EXECUTION_LEAD_MINUTES * 60_000 <= received) {
      r.quarantine('WINDOW_PASSED', `the ${side} window ends at ${w.end}${w.at ? ` (${at(w.at)})` : ''}, less than ${EXECUTION_LEAD_MINUTES} minutes after the message arrived (${r.context.receivedAt}): no transport could be arranged in it`, w.at, 0);
    }
  }
}

/**
 * When the load request stops being offered: the organization's hours before the pickup window
 * starts; when that moment is already past on arrival (a pickup today), the latest moment a match
 * can still be executed in the pickup window (its end less the exchange's lead time).
 */
function expiryOf(pickup: Period, hoursBefore: number, receivedAt: string | undefined): string {
  const wanted = Date.parse(pickup.start) - hoursBefore * 3_600_000;
  const received = receivedAt ? Date.parse(receivedAt) : NaN;
  if (Number.isFinite(received) && wanted <= received) return iso(Date.parse(pickup.end) - EXECUTION_LEAD_MINUTES * 60_000);
  return iso(wanted);
}

/**
 * MEA measured attributes (6313) read as the capacity a load needs: gross weight as senders write
 * it (G, and AAD "total gross weight", the standard's and most guides' choice), volume (AAW gross
 * volume, ABJ volume) and loading metres (LMT), under the purposes AAE (measurement) and the older
 * WT, VOL and LMT. Totals (CNT 7 gross weight, 15 volume) win over the goods items' sum.
 */
const WEIGHT_ATTRIBUTES = ['G', 'AAD'];
const VOLUME_ATTRIBUTES = ['AAW', 'ABJ', ''];
const LENGTH_UNITS: Readonly<Record<string, Schemas['LogisticsLength']['unitCode']>> = { MTR: 'MTR', LM: 'MTR', LMT: 'MTR' };

/** Gross weight, volume and loading metres: the message's totals (CNT), else the sum of its goods items' measures. */
function capacity(r: Reader): Capacity {
  /** One measure, in the unit the exchange names it by; undefined when the message gives none above 0, or a reason says why not. */
  const measure = <U extends string>(kind: 'weight' | 'volume' | 'loadingMetres', total: string | undefined, purposes: readonly string[], attributes: readonly string[], units: Readonly<Record<string, U>>): { value: number; unitCode: U } | undefined => {
    const cnt = total ? r.all('CNT', total)[0] : undefined;
    if (cnt) {
      const unit = value(cnt, 0, 2);
      const amount = numberOf(value(cnt, 0, 1));
      if (!unit || !units[unit]) return r.quarantine('UNIT_UNKNOWN', `CNT+${total} has unit ${unit ?? '(none)'}; the ${kind} units read are ${Object.keys(units).join(', ')}`, cnt, 0);
      if (!Number.isFinite(amount)) return r.quarantine('VALUE_INVALID', `CNT+${total} ${value(cnt, 0, 1) ?? '(no value)'} is not a number`, cnt, 0);
      return amount > 0 ? { value: amount, unitCode: units[unit] } : undefined;
    }
    const meas = r.all('MEA').filter((s) => purposes.includes(value(s, 0) ?? '') && attributes.includes(value(s, 1) ?? ''));
    if (!meas.length) return;
    const unitsUsed = new Set(meas.map((m) => value(m, 2)));
    if (unitsUsed.size > 1 || !units[[...unitsUsed][0] ?? '']) return r.quarantine('UNIT_UNKNOWN', `the goods items' ${kind} is given in ${[...unitsUsed].join(' and ')}; one of ${Object.keys(units).join(', ')} is read`, meas[0], 2);
    const bad = meas.find((m) => !Number.isFinite(numberOf(value(m, 2, 1))));
    if (bad) return r.quarantine('VALUE_INVALID', `MEA+${value(bad, 0)}+${value(bad, 1) ?? ''} ${value(bad, 2, 1) ?? '(no value)'} is not a number (the decimal mark may be . or ,)`, bad, 2);
    const sum = meas.reduce((acc, m) => acc + numberOf(value(m, 2, 1)), 0);
    return sum > 0 ? { value: Math.round(sum * 1000) / 1000, unitCode: units[[...unitsUsed][0]!] } : undefined;
  };
  const weight = measure('weight', '7', ['AAE', 'WT'], WEIGHT_ATTRIBUTES, WEIGHT_UNITS);
  const volume = measure('volume', '15', ['AAE', 'VOL'], VOLUME_ATTRIBUTES, VOLUME_UNITS);
  const loadingMetres = measure('loadingMetres', undefined, ['AAE', 'LMT'], ['LMT'], LENGTH_UNITS);
  if (!weight && !volume && !loadingMetres && !r.reasons.some((r) => r.code === 'UNIT_UNKNOWN' || r.code === 'VALUE_INVALID')) {
    r.quarantine('CAPACITY_MISSING', 'no gross weight, volume or loading metres: CNT+7, CNT+15, or MEA gross weight (G, AAD), volume (AAW, ABJ) or loading metres (LMT) on the goods items');
  }
  return { ...(weight ? { weight } : {}), ...(volume ? { volume } : {}), ...(loadingMetres ? { loadingMetres } : {}) };
}

/** Dangerous goods (DGS under ADR: classes for everyone, UN numbers and packing groups as restricted goods details) and a temperature range (TMP, RNG). */
function handlingRequirements(r: Reader): { handling: Handling; goodsDetails?: GoodsDetails } {
  const out: Handling = {};
  const classes = new Set<AdrClass>();
  const unNumbers = new Set<string>();
  const packingGroups = new Set<PackingGroup>();
  for (const dgs of r.all('DGS')) {
    const regulation = value(dgs, 0);
    const hazard = value(dgs, 1);
    if (regulation === 'ZZZ' && !hazard) continue; // "no dangerous goods" in some senders' use
    const m = hazard ? ADR_CLASS.exec(hazard) : null;
    const adrClass = m ? ADR_CLASSES.find((c) => c === m[1]) : undefined;
    if (regulation !== 'ADR' || !adrClass) {
      r.quarantine('DANGEROUS_GOODS_UNREAD', `DGS ${regulation ?? ''} ${hazard ?? ''}: only ADR classes are read`, dgs, 1);
      continue;
    }
    classes.add(adrClass); // 2.1 is class 2, 4.1 its own
    // The UN number (C234 7124: four digits, sometimes written UN1203) and the packing group (8339: 1 to 3, or I to III).
    const un = /^(?:UN)?(\d{4})$/i.exec(value(dgs, 2) ?? '')?.[1];
    if (un) unNumbers.add(un);
    const group = PACKING_GROUPS[(value(dgs, 4) ?? '').toUpperCase()];
    if (group) packingGroups.add(group);
  }
  if (classes.size) out.dangerousGoods = { adrClasses: [...classes].sort() };
  const goodsDetails = unNumbers.size || packingGroups.size ? { ...(unNumbers.size ? { unNumbers: [...unNumbers].sort() } : {}), ...(packingGroups.size ? { packingGroups: [...packingGroups].sort() } : {}) } : undefined;
  const range = r.all('RNG')[0];
  const tmp = r.all('TMP')[0];
  const celsius = (v: number, unit: string | undefined) => (unit === 'FAH' ? Math.round(((v - 32) * 5) / 9 * 10) / 10 : v);
  if (range && value(range, 1) && ['CEL', 'FAH'].includes(value(range, 1)!)) {
    const min = celsius(numberOf(value(range, 1, 1)), value(range, 1));
    const max = celsius(numberOf(value(range, 1, 2)), value(range, 1));
    if (Number.isFinite(min) && Number.isFinite(max) && min <= max) out.temperature = { minCelsius: min, maxCelsius: max };
    else r.quarantine('TEMPERATURE_INVALID', 'RNG gives no minimum and maximum temperature', range, 1);
  } else if (tmp && value(tmp, 1)) {
    const t = celsius(numberOf(value(tmp, 1)), value(tmp, 1, 1));
    if (Number.isFinite(t)) out.temperature = { minCelsius: t, maxCelsius: t };
    else r.quarantine('TEMPERATURE_INVALID', `TMP ${value(tmp, 1)} is not a temperature`, tmp, 1);
  }
  return { handling: out, ...(goodsDetails ? { goodsDetails } : {}) };
}

/** A coarse goods profile: the organization's category, hazardous and temperature-controlled from the message. */
function goods(r: Reader, handlingFound: Handling): Schemas['LogisticsGoodsProfile'] | undefined {
  const category = r.context.organization.loadRequests?.goodsCategory;
  if (!category) return undefined;
  return {
    category,
    ...(handlingFound.dangerousGoods ? { hazardous: true } : {}),
    ...(handlingFound.temperature ? { temperatureControlled: true } : {}),
  };
}
