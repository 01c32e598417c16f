// EPCIS events (checked against GS1's schema) to the milestones they report: the business step
// through the table below, the time, the movement's references, the place, and a key that is the
// same on every resend. An event that reports no milestone is listed as dropped, never guessed
// into one; one that would but cannot be read safely is a quarantine reason with its JSON Pointer.
// Pure: no I/O.
import { createHash } from 'node:crypto';
import type { ServedOrganization } from '../config';
import { MILESTONES, type Milestone, type ReportedMilestone } from '../format';
import type { QuarantineReason } from '../store';
import { cbvTerm, glnOfIdentity, glnOfUri, movementKeyOf, transactionIdOf } from './identifiers';

/**
 * CBV 2.0 business steps that report a milestone of a road movement (docs/adapters.md gives the
 * reasons). Every other step (commissioning, inspecting, packing, sensor_reporting, holding,
 * staging_outbound, …) reports none: the event is dropped. `void_shipping` retracts an earlier
 * shipping: quarantined, as the exchange cannot withdraw a milestone.
 */
export const BIZ_STEP_MILESTONES: Readonly<Record<string, Milestone>> = {
  loading: 'pickedUp',
  shipping: 'pickedUp',
  consigning: 'pickedUp',
  collecting: 'pickedUp',
  departing: 'inTransit',
  transporting: 'inTransit',
  arriving: 'atDelivery',
  unloading: 'atDelivery',
  receiving: 'delivered',
  accepting: 'delivered',
};

/** The exchange's own vocabulary for milestones the CBV has no step for (and for all the others): `<base>BizStep-<milestone>`; its extension properties are `<base><name>`. */
export const PCX_VOCABULARY = 'https://schemas.pcx.example/v0/epcis/';
export const pcxBizStep = (milestone: Milestone) => `${PCX_VOCABULARY}BizStep-${milestone}`;

/** Milestones that end a movement: the ones an error declaration corrects the outcome of. */
const FINAL_MILESTONES: ReadonlySet<Milestone> = new Set(['delivered', 'failed']);

/** Types of business transaction read as references when the organization names none. */
export const DEFAULT_REFERENCE_TYPES: readonly string[] = ['bol', 'desadv'];
const MAX_REFERENCES = 20;
const DEDUPLICATION_KEY = /^[\x21-\x7e]{1,200}$/;
const UNLOCODE = /^[A-Z]{2}[A-Z2-9]{3}$/;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const own = (o: Json, key: string): unknown => (Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined);
const text = (o: Json, key: string): string | undefined => (typeof own(o, key) === 'string' ? (own(o, key) as string) : undefined);
const list = (o: Json, key: string): unknown[] => (Array.isArray(own(o, key)) ? (own(o, key) as unknown[]) : []);
const idOf = (o: Json, key: string): string | undefined => {
  const v = own(o, key);
  return isObject(v) ? text(v, 'id') : undefined;
};

export interface MappingContext {
  organization: ServedOrganization;
  /** GLNs of the other organizations the gateway serves that this one does not list as its own. */
  othersGlns: ReadonlySet<string>;
  /** The document's compact IRI prefixes bound to PCX_VOCABULARY (for `<prefix>:reason`). */
  pcxPrefixes: readonly string[];
}

/** What became of one event: a milestone (its index in the document's milestones), or dropped and why. */
export interface EventOutcome {
  pointer: string;
  type: string;
  eventID?: string;
  bizStep?: string;
  milestone?: Milestone;
  index?: number;
  dropped?: string;
  /** What the milestone does not carry of it (a place the organization does not know). */
  notes?: string[];
}

/** The GLNs of the other organizations, less those the organization lists itself (shared places). */
export function othersGlnsOf(organization: ServedOrganization, others: readonly ServedOrganization[]): Set<string> {
  const glns = (o: ServedOrganization) => [...(o.epcis?.glns ?? []), ...Object.keys(o.places ?? {}).filter((k) => k.startsWith('9:')).map((k) => k.slice(2))];
  const own = new Set(glns(organization));
  return new Set(others.flatMap(glns).filter((g) => !own.has(g)));
}

/** The milestone of a business step (any form), by the organization's settings, then the exchange's vocabulary, then the table; `void` for void_shipping. */
export function milestoneOfBizStep(bizStep: string | undefined, organization?: ServedOrganization): Milestone | 'void' | undefined {
  if (bizStep === undefined) return undefined;
  const term = cbvTerm(bizStep, 'bizStep');
  const settings = organization?.epcis?.bizSteps ?? {};
  for (const key of [bizStep, term]) {
    if (key !== undefined && Object.prototype.hasOwnProperty.call(settings, key)) return settings[key] ?? undefined;
  }
  if (bizStep.startsWith(`${PCX_VOCABULARY}BizStep-`)) {
    const m = bizStep.slice(`${PCX_VOCABULARY}BizStep-`.length);
    return (MILESTONES as readonly string[]).includes(m) ? (m as Milestone) : undefined;
  }
  if (term === 'void_shipping') return 'void';
  return term !== undefined && Object.prototype.hasOwnProperty.call(BIZ_STEP_MILESTONES, term) ? BIZ_STEP_MILESTONES[term] : undefined;
}

/** An arrival, unloading or receipt of goods still `in_transit` (CBV: "being shipped between two trading partners") is at a place between: in transit. */
export function refined(milestone: Milestone, disposition: string | undefined): Milestone {
  return (milestone === 'atDelivery' || milestone === 'delivered') && disposition !== undefined && cbvTerm(disposition, 'disposition') === 'in_transit' ? 'inTransit' : milestone;
}

/**
 * An RFC 3339 time with its offset as UTC (`…Z`), its fraction as written (trailing zeros off, at
 * most 9 digits); nothing for a leap second or a time outside 1970-9999, which the exchange cannot
 * hold. eventTimeZoneOffset plays no part: EPCIS's eventTime carries its own offset, and
 * eventTimeZoneOffset only says the local zone of where it happened.
 */
export function utcOf(time: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(time);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  const days = new Date(Date.UTC(2000, mo, 0)).getUTCDate(); // this month's days in a leap year
  if (mo < 1 || mo > 12 || d < 1 || d > days || (mo === 2 && d === 29 && !(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) || h > 23 || mi > 59 || s > 59) return undefined;
  const offset = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  if (Number(m[10]) > 23 || Number(m[11]) > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi - offset, s, 0);
  const year = date.getUTCFullYear();
  if (year < 1970 || year > 9999) return undefined;
  const fraction = (m[7] ?? '').slice(0, 9).replace(/0+$/, '');
  return `${date.toISOString().slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

/** JSON with its object keys sorted (by UTF-16 code units, as RFC 8785) and no whitespace: the same text for the same value however it was written. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/**
 * The key of an event that is the same on every resend: its eventID when it fits the exchange's
 * key (at most 200 printable ASCII characters, no space), else `epcis-id-sha256:<digest of the
 * eventID>`; without an eventID, `epcis-sha256:<digest of the event's canonical JSON without
 * recordTime>` (recordTime is when a repository stored it, not part of what happened).
 */
export function deduplicationKeyOf(event: Json): string {
  const eventID = text(event, 'eventID');
  if (eventID !== undefined) return DEDUPLICATION_KEY.test(eventID) ? eventID : `epcis-id-sha256:${sha256(eventID)}`;
  const rest: Json = {};
  for (const key of Object.keys(event)) if (key !== 'recordTime') rest[key] = event[key];
  return `epcis-sha256:${sha256(canonical(rest))}`;
}

/** The last path segment of an http(s) URI (`https://erp.example.com/bol/4711` names 4711), decoded. */
function lastSegmentOf(uri: string): string | undefined {
  if (!/^https?:\/\//i.test(uri)) return undefined;
  try {
    const segment = new URL(uri).pathname.split('/').filter(Boolean).pop();
    return segment ? decodeURIComponent(segment) : undefined;
  } catch {
    return undefined;
  }
}

/** The references of the movement an event names: business transactions of the organization's types, and GINC and GSIN among its EPCs. */
export function referencesOf(event: Json, organization: ServedOrganization): Array<{ type: string; value: string }> {
  const types = new Set((organization.epcis?.referenceTypes ?? DEFAULT_REFERENCE_TYPES).map((t) => cbvTerm(t, 'bizTransactionType') ?? t));
  const references: Array<{ type: string; value: string }> = [];
  const add = (type: string, value: string | undefined) => {
    if (value && references.length < MAX_REFERENCES && !references.some((r) => r.type === type && r.value === value)) references.push({ type, value });
  };
  for (const bt of list(event, 'bizTransactionList')) {
    if (!isObject(bt)) continue;
    const raw = text(bt, 'type');
    const type = raw === undefined ? undefined : (cbvTerm(raw, 'bizTransactionType') ?? raw);
    const value = text(bt, 'bizTransaction');
    if (!type || !types.has(type) || !value) continue;
    add(type, value);
    // `urn:epcglobal:cbv:bt:<GLN of the issuer>:<its number>`, or a Web URI ending in the number:
    // the number is what the organization's systems know.
    add(type, transactionIdOf(value) ?? lastSegmentOf(value));
  }
  const parent = text(event, 'parentID');
  for (const epc of [...(parent ? [parent] : []), ...list(event, 'epcList'), ...list(event, 'childEPCs')]) {
    if (typeof epc !== 'string') continue;
    const key = movementKeyOf(epc);
    if (!key) continue;
    add(key.type, key.value);
    add(key.type, epc);
  }
  return references;
}

/** The places an event names (readPoint, bizLocation, sources and destinations), each with its pointer. */
function identitiesOf(event: Json, pointer: string): Array<{ uri: string; pointer: string }> {
  const named: Array<{ uri: string; pointer: string }> = [];
  for (const key of ['readPoint', 'bizLocation']) {
    const id = idOf(event, key);
    if (id) named.push({ uri: id, pointer: `${pointer}/${key}/id` });
  }
  for (const [key, field] of [
    ['sourceList', 'source'],
    ['destinationList', 'destination'],
  ]) {
    list(event, key).forEach((item, i) => {
      const uri = isObject(item) ? text(item, field) : undefined;
      if (uri) named.push({ uri, pointer: `${pointer}/${key}/${i}/${field}` });
    });
  }
  return named;
}

/** A `geo:` URI (RFC 5870, as CBV 2.0 allows for readPoint and bizLocation): its latitude and longitude. */
export function geoOf(uri: string): { lon: number; lat: number } | undefined {
  const m = /^geo:(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)(?:,-?\d+(?:\.\d+)?)?(?:;.*)?$/i.exec(uri.trim());
  if (!m) return undefined;
  const [lat, lon] = [Number(m[1]), Number(m[2])];
  return Math.abs(lat) <= 90 && Math.abs(lon) <= 180 ? { lon, lat } : undefined;
}

/**
 * Where: the UN/LOCODE of the first of readPoint and bizLocation the organization's `places` know
 * by GLN, else the first `geo:` coordinate (kept coarse by the gateway: gateway/milestones.ts); a
 * note for what is left out.
 */
function placeOf(event: Json, organization: ServedOrganization): { unLocode?: string; position?: { lon: number; lat: number }; notes: string[] } {
  const notes: string[] = [];
  let position: { lon: number; lat: number } | undefined;
  for (const key of ['readPoint', 'bizLocation']) {
    const id = idOf(event, key);
    if (!id) continue;
    const point = geoOf(id);
    if (point) {
      position ??= point;
      continue;
    }
    const gln = glnOfUri(id, ['location']);
    const code = gln ? organization.places?.[`9:${gln}`] : undefined;
    if (code && UNLOCODE.test(code)) return { unLocode: code, notes };
    notes.push(gln ? `${key} GLN ${gln} is not one of the organization's places: left out` : `${key} ${id.slice(0, 100)} names no GLN: left out`);
  }
  return { ...(position ? { position } : {}), notes };
}

function reasonOf(event: Json, pcxPrefixes: readonly string[]): string | undefined {
  for (const key of [`${PCX_VOCABULARY}reason`, ...pcxPrefixes.map((p) => `${p}:reason`)]) {
    const value = text(event, key);
    if (value?.trim()) return value.trim().slice(0, 500);
  }
  return undefined;
}

/** The compact IRI prefixes a @context (string, object or array of them) binds to the exchange's vocabulary. */
export function pcxPrefixesOf(...contexts: unknown[]): string[] {
  const prefixes: string[] = [];
  for (const context of contexts) {
    for (const item of Array.isArray(context) ? context : [context]) {
      if (!isObject(item)) continue;
      for (const [prefix, iri] of Object.entries(item)) if (iri === PCX_VOCABULARY && !prefixes.includes(prefix)) prefixes.push(prefix);
    }
  }
  return prefixes;
}

/** Maps a document's events; `base` is the event list's JSON Pointer. */
export function mapEvents(events: readonly unknown[], base: string, context: MappingContext): { milestones: ReportedMilestone[]; outcomes: EventOutcome[]; reasons: QuarantineReason[] } {
  const milestones: ReportedMilestone[] = [];
  const outcomes: EventOutcome[] = [];
  const reasons: QuarantineReason[] = [];
  const keys = new Map<string, number>();
  events.forEach((raw, i) => {
    const pointer = `${base}/${i}`;
    if (!isObject(raw)) return; // the schema refuses it before
    const event = raw;
    const type = text(event, 'type') ?? '';
    const eventID = text(event, 'eventID');
    const bizStep = text(event, 'bizStep');
    const outcome: EventOutcome = { pointer, type, ...(eventID ? { eventID } : {}), ...(bizStep ? { bizStep } : {}) };
    outcomes.push(outcome);

    // Another organization's parties and places: never acted on for this one (protocol rule 16).
    for (const named of identitiesOf(event, pointer)) {
      const gln = glnOfIdentity(named.uri);
      if (gln && context.othersGlns.has(gln)) reasons.push({ code: 'NAMES_OTHER_ORGANIZATION', message: `GLN ${gln} is another organization's`, position: named.pointer });
    }

    const found = milestoneOfBizStep(bizStep, context.organization);
    if (found === 'void') {
      reasons.push({ code: 'SHIPPING_VOIDED', message: 'void_shipping retracts an earlier shipping; the exchange cannot withdraw a recorded milestone: correct it there', position: `${pointer}/bizStep` });
      return;
    }
    if (!found) {
      outcome.dropped = bizStep ? `business step ${bizStep.slice(0, 100)} reports no milestone` : 'no business step: reports no milestone';
      return;
    }
    if (type === 'TransactionEvent' && text(event, 'action') === 'DELETE') {
      outcome.dropped = 'a TransactionEvent with action DELETE dissociates objects from a transaction: reports no milestone';
      return;
    }
    const milestone = refined(found, text(event, 'disposition'));
    // An error declaration (EPCIS 2.0, 7.4.1) says the event with this eventID was wrong. A recorded
    // milestone stays (append-only); a final one's outcome is corrected to disputed, with the
    // declaration's reason; corrective events in the document are read as events of their own.
    const declaration = own(event, 'errorDeclaration');
    if (declaration !== undefined) {
      if (!FINAL_MILESTONES.has(milestone)) {
        outcome.dropped = `an error declaration of a ${milestone} event: a milestone recorded is never withdrawn, and it reported no outcome to correct`;
        return;
      }
      const said = isObject(declaration) ? [text(declaration, 'reason'), text(declaration, 'declarationTime')].filter(Boolean).join(', declared ') : '';
      const references = referencesOf(event, context.organization);
      if (!references.length) {
        reasons.push({ code: 'REFERENCE_MISSING', message: 'the error declaration names no movement (no business transaction, GINC or GSIN)', position: pointer });
        return;
      }
      outcome.milestone = milestone;
      outcome.index = milestones.length;
      milestones.push({
        references,
        milestone,
        occurredAt: utcOf(text(event, 'eventTime') ?? '') ?? new Date(0).toISOString(),
        deduplicationKey: `${deduplicationKeyOf(event).slice(0, 170)}:declared`,
        source: `${pointer}/errorDeclaration`,
        correction: { status: 'disputed', reason: `EPCIS error declaration of event ${eventID ?? pointer}${said ? ` (${said.slice(0, 300)})` : ''}`, reasonCode: 'DATA_ENTRY_ERROR', only: true },
      });
      return;
    }
    const occurredAt = utcOf(text(event, 'eventTime') ?? '');
    if (!occurredAt) {
      reasons.push({ code: 'TIME_INVALID', message: `eventTime ${(text(event, 'eventTime') ?? '').slice(0, 40)} is a leap second or outside 1970-9999, which the exchange cannot record`, position: `${pointer}/eventTime` });
      return;
    }
    const references = referencesOf(event, context.organization);
    if (!references.length) {
      const types = (context.organization.epcis?.referenceTypes ?? DEFAULT_REFERENCE_TYPES).join(', ');
      reasons.push({ code: 'REFERENCE_MISSING', message: `the event reports ${milestone} but names no movement: no business transaction of a type read as a reference (${types}), no GINC or GSIN`, position: pointer });
      return;
    }
    const { unLocode, position, notes } = placeOf(event, context.organization);
    const deduplicationKey = deduplicationKeyOf(event);
    const reason = reasonOf(event, [...context.pcxPrefixes, ...pcxPrefixesOf(own(event, '@context'))]);
    const earlier = keys.get(deduplicationKey);
    if (earlier !== undefined) {
      const first = milestones[earlier];
      if (first.milestone === milestone && first.occurredAt === occurredAt) {
        outcome.dropped = `a repeat of ${first.source}`;
        return;
      }
      reasons.push({ code: 'DUPLICATE_EVENT', message: `the same eventID as ${first.source}, reporting something else`, position: eventID !== undefined ? `${pointer}/eventID` : pointer });
      return;
    }
    keys.set(deduplicationKey, milestones.length);
    outcome.milestone = milestone;
    outcome.index = milestones.length;
    if (notes.length) outcome.notes = notes;
    milestones.push({ references, milestone, occurredAt, deduplicationKey, ...(unLocode ? { unLocode } : position ? { position } : {}), ...(reason ? { reason } : {}), source: pointer });
  });
  return { milestones, outcomes, reasons };
}
