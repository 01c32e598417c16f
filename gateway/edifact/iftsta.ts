// IFTSTA (international multimodal status report), both ways: profile "IFTSTA D.04A"
// (docs/adapters.md has it as tables).
// - In: each status of a carrier's message (STS, in its consignment's CNI group) becomes a
//   milestone the gateway finds the movement of by the references the status names
//   (gateway/milestones.ts) and records. Only what the message says is carried: a status without a
//   reference, a time or a code the gateway can read quarantines the interchange with the reason
//   and where; a UN/ECE Rec 24 status that is no baseline milestone (customs cleared, manifested)
//   is listed in the answer, not recorded. Pure: no I/O.
// - Out: a milestone of a movement told to the shipper whose IFTMIN started it, with the shipper's
//   own consignment number and references, as an interchange the gateway reads back itself.
import { createHash } from 'node:crypto';
import type { ServedOrganization } from '../config';
import type { Milestone, MilestoneNotice, ReportedMilestone } from '../format';
import type { QuarantineReason } from '../store';
import { interchange, segment, text, type Party } from './acknowledgements';
import { zonedTime } from './dates';
import type { EdifactMessage, Segment } from './syntax';
import { ARRIVAL_PLACES, DELAY_REASONS, isRec24, MILESTONE_CODE, REASONS, REC24, REFERENCE_QUALIFIERS, type StatusCode } from './status-codes';
import { carriedOf, readsOf, segmentsFor, step, type ReadPosition, type Step } from './steps';

/** A milestone read from a status: what the gateway records, with the status it came from. */
export interface StatusMilestone extends ReportedMilestone {
  /** The Rec 24 status (STS C555 4405) and its name. */
  status: { code: string; name: string };
  /** A final status that may also report an execution outcome (docs/adapters.md, "Outcomes"). */
  outcome?: 'completed' | 'failed';
}

/** A status read and deliberately not recorded: a Rec 24 code with no baseline milestone. */
export interface IgnoredStatus {
  source: string;
  code: string;
  why: string;
}

export interface StatusMapping {
  messageReference: string;
  /** BGM C106: the status report's own number. */
  documentNumber: string;
  milestones: StatusMilestone[];
  ignored: IgnoredStatus[];
  /** What the message said that the milestones do not carry (docs/adapters.md, "lossy"). */
  dropped: string[];
}

export interface StatusContext {
  organization: ServedOrganization;
  /** Identities (EDIFACT party ids) of the other organizations the gateway serves. */
  othersIdentities: ReadonlySet<string>;
}

const value = (s: Segment, e: number, c = 0) => s.elements[e]?.[c] || undefined;
const at = (s: Segment, e?: number) => `segment ${s.position} (${s.tag})${e === undefined ? '' : `, element ${e + 1}`}`;
const UNLOCODE = /^[A-Z]{2}[A-Z2-9]{3}$/;
const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');

/**
 * BGM message functions (1225) read: original, status, duplicate (a resend: its milestones
 * deduplicate), and replace (5): its statuses are recorded, and a final one corrects the
 * movement's outcome (milestones are append-only; the outcome has a correction chain).
 */
const FUNCTIONS = ['9', '8', '7', '5'];
const REPLACE = '5';
/** The segments of a status group that start its sub-groups (transport, equipment, goods item). */
const SUB_GROUPS = new Set(['TDT', 'EQD', 'GID']);
/**
 * DTM qualifiers (2005) read as when a status happened, in this order: status change, event
 * actual, then the actual arrival (178) or departure (186) ocean and rail carriers write, the
 * arrival first for a status at a place, the departure first for one on the way.
 */
const STATUS_TIMES = ['334', '78'];
const ARRIVING: ReadonlySet<string> = new Set(['atPickup', 'atDelivery', 'delivered', 'failed']);
const timesFor = (milestone: string) => [...STATUS_TIMES, ...(ARRIVING.has(milestone) ? ['178', '186'] : ['186', '178'])];
/** DTM qualifiers of estimates a status carries: arrival or delivery (132, 17), departure or pick-up (133). */
const ESTIMATES: Readonly<Record<string, 'deliveryAt' | 'pickupAt'>> = { '132': 'deliveryAt', '17': 'deliveryAt', '133': 'pickupAt' };
/**
 * FTX text subject qualifiers (4451) whose text explains a status and travels with it as its
 * reason. Others (DEL delivery information, where carriers write who signed; SIN special
 * instructions, with names and telephone numbers) are kept only in the gateway's record of the
 * message (erased with its content), never sent to the other organization.
 */
const REASON_TEXTS: ReadonlySet<string> = new Set(['AHN', 'AAI', 'ACB', 'AAO', 'AEA']);

/**
 * A status time as an instant: 203 and 204 are local times (read in the organization's zone), 303
 * and 304 carry a zone (UTC, GMT, Z or ±HH), 205 an offset (±HHMM). A date alone (102), a period
 * (718, 719) or a time of a format not read does not say when the status happened.
 */
export function statusTime(text: string, format: string | undefined, timeZone: string | undefined): { instant?: string; problem?: 'TIME_INVALID' | 'TIME_IMPRECISE' | 'TIME_ZONE_UNKNOWN' } {
  if (format && ['102', '718', '719', '101'].includes(format)) return { problem: 'TIME_IMPRECISE' };
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(.*)$/.exec(text);
  const shape: Record<string, RegExp> = { '203': /^\d{12}$/, '204': /^\d{14}$/, '303': /^\d{12}(UTC|GMT|Z|[+-]\d{2})$/, '304': /^\d{14}(UTC|GMT|Z|[+-]\d{2})$/, '205': /^\d{12}[+-]\d{4}$/ };
  if (!m || !format || !shape[format]?.test(text)) return { problem: 'TIME_INVALID' };
  const [y, mo, d, h, mi] = m.slice(1, 6).map(Number);
  const s = m[6] ? Number(m[6]) : 0;
  const zone = m[7];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59 || new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d) return { problem: 'TIME_INVALID' };
  if (format === '203' || format === '204') {
    if (!timeZone) return { problem: 'TIME_ZONE_UNKNOWN' };
    return { instant: iso(zonedTime({ y, m: mo, d, h, mi, s }, timeZone)) };
  }
  // The offset of the zone: a local time is the UTC instant plus it, so the instant is the time less it.
  const sign = zone.startsWith('-') ? -1 : 1;
  const minutes = /^[+-]\d{2}$/.test(zone) ? Number(zone.slice(1)) * 60 : /^[+-]\d{4}$/.test(zone) ? Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3)) : 0;
  if (minutes > 14 * 60) return { problem: 'TIME_INVALID' };
  return { instant: iso(new Date(Date.UTC(y, mo - 1, d, h, mi, s) - sign * minutes * 60_000)) };
}

/** The place of a LOC as a UN/LOCODE (agency 6 or none), or the organization's own place; undefined otherwise. */
function unLocodeOf(loc: Segment, organization: ServedOrganization): string | undefined {
  const id = value(loc, 1);
  const agency = value(loc, 1, 2);
  if (!id) return undefined;
  if ((agency === undefined || agency === '6') && UNLOCODE.test(id)) return id;
  const mapped = organization.places?.[`${agency ?? ''}:${id}`];
  return mapped && UNLOCODE.test(mapped) ? mapped : undefined;
}

/** The same key for a status however often and in whichever interchange it is sent: what identifies it, digested. */
function deduplicationKeyOf(organizationId: string, references: ReadonlyArray<{ type: string; value: string }>, code: string, milestone: string, occurredAt: string): string {
  const consignment = references.find((r) => r.type === 'CNI') ?? [...references].sort((a, b) => (`${a.type}:${a.value}` < `${b.type}:${b.value}` ? -1 : 1))[0];
  const digest = createHash('sha256').update([organizationId, `${consignment.type}:${consignment.value}`, code, milestone, occurredAt].join('\n')).digest('hex');
  return `iftsta-${digest.slice(0, 40)}`;
}

/** What the steps of the mapping share: the organization's context, the reasons and what is dropped so far; each step reads the segments it declares (`all`). */
interface Reader {
  context: StatusContext;
  /** What the message said that the milestones do not carry, as the steps find it (docs/adapters.md, "lossy"). */
  dropped: Set<string>;
  /** The segments with this tag among `within` (the message's, unless given), of those the step declares. */
  all(tag: string, within?: readonly Segment[]): Segment[];
  /** Adds a reason; undefined, for a step to return with it. */
  quarantine(code: string, text: string, segment?: Segment, e?: number): undefined;
  /** The reader of a step: the same reasons and dropped, the segments it declares. */
  only(reads: Step['reads']): Reader;
}

function readerOf(message: EdifactMessage, context: StatusContext, reasons: QuarantineReason[], dropped: Set<string>, reads: Step['reads']): Reader {
  return {
    context,
    dropped,
    all: (tag, within = message.segments) => segmentsFor({ reads }, within, tag),
    quarantine: (code, text, segment, e) => void reasons.push({ code, message: text, ...(segment ? { position: at(segment, e) } : {}) }),
    only: (own) => readerOf(message, context, reasons, dropped, own),
  };
}

/** A status (STS) with what belongs to it, found by the segments' tags alone. */
interface StatusGroup {
  /** The STS: where reasons about the status point. */
  sts: Segment;
  /** The STS and its own segments, up to the next status, consignment or the end, without its sub-groups (transport, equipment, goods item). */
  segments: Segment[];
  /** The CNI of the consignment the status is in (none before the first). */
  consignment: Segment[];
}

/** A status read as a Rec 24 code with its entry (REC24). */
interface Status {
  code: string;
  entry: StatusCode;
}

/** The status reasons of an STS (C556, elements 3 to 7): each one's code, code list agency and text. */
const statusReasonsOf = (sts: Segment) => sts.elements.slice(2).map((_, i) => ({ code: value(sts, i + 2), agency: value(sts, i + 2, 2), text: value(sts, i + 2, 3) }));
/** Where statusReasonsOf reads an STS: each reason's code, agency and text. */
const REASONS_AT: ReadonlyArray<readonly [number, number]> = [2, 3, 4, 5, 6].flatMap((e) => [[e, 0], [e, 2], [e, 3]] as const);
/** Where a DTM is read: its qualifier, value and format. */
const DTM_AT: ReadonlyArray<readonly [number, number]> = [[0, 0], [0, 1], [0, 2]];

/**
 * The steps that read the message, each with the segments it reads (element, component; from 0):
 * what the mapping reads is these, and nothing else (steps.ts). The status group's steps run once
 * per status, in the order of `statusMilestone`.
 */
const STEPS = {
  document: step({ BGM: [[0, 0], [1, 0], [2, 0]] }, documentOf),
  parties: step({ NAD: [[0, 0], [1, 0]] }, partiesChecked, false),
  references: step({ RFF: [[0, 0], [0, 1]], CNI: [[0, 0], [1, 0]] }, statusReferencesOf),
  status: step({ STS: [[0, 0], [1, 0], [1, 2], [1, 3]] }, statusOf),
  milestone: step({ STS: REASONS_AT, LOC: [[0, 0]] }, milestoneOf),
  time: step({ DTM: DTM_AT }, occurredAtOf),
  place: step({ LOC: [[0, 0], [1, 0], [1, 2]] }, placeOf),
  reason: step({ STS: REASONS_AT, FTX: [[0, 0], [3, 0], [3, 1], [3, 2], [3, 3], [3, 4]] }, reasonOf),
  estimates: step({ DTM: DTM_AT }, estimatesOf),
} satisfies Record<string, Step>;

/** Where the mapping reads an IFTSTA (segment, element, component; from 0): the steps' own declarations, as IFTMIN_READS. */
export const IFTSTA_READS: readonly ReadPosition[] = readsOf(STEPS);

/** The segments the milestones carry; any other is listed as dropped. */
const CARRIED = carriedOf(STEPS);

/** One IFTSTA message to its milestones (and the statuses listed, not recorded), or the reasons it cannot be. */
export function mapIftsta(message: EdifactMessage, context: StatusContext): { statuses?: StatusMapping; reasons: QuarantineReason[] } {
  const reasons: QuarantineReason[] = [];
  // The mapping's own checks read no segment: the steps do.
  const r = readerOf(message, context, reasons, new Set<string>(), {});
  const segments = message.segments;
  STEPS.parties.run(r);
  const document = STEPS.document.run(r);
  // The message's own references (SG3, before the first consignment) apply to every status in it.
  const firstCni = segments.findIndex((s) => s.tag === 'CNI');
  const header = segments.slice(0, firstCni < 0 ? segments.length : firstCni);
  const milestones: StatusMilestone[] = [];
  const ignored: IgnoredStatus[] = [];
  for (const group of statusGroupsOf(segments)) {
    const read = statusMilestone(r, group, header, { ...document, messageReference: message.reference });
    if (read?.ignored) ignored.push(read.ignored);
    if (read?.milestone) milestones.push(read.milestone);
  }
  if (!segments.some((s) => s.tag === 'STS')) r.quarantine('STATUS_MISSING', 'the message has no status (STS)');
  if (reasons.length) return { reasons };
  for (const s of segments) if (!CARRIED.has(s.tag)) r.dropped.add(s.tag);
  return { statuses: { messageReference: message.reference, documentNumber: document.documentNumber, milestones, ignored, dropped: [...r.dropped] }, reasons };
}

/** The status groups of a message, by their segments' tags alone. */
function statusGroupsOf(segments: readonly Segment[]): StatusGroup[] {
  const groups: StatusGroup[] = [];
  let cni: Segment | undefined;
  segments.forEach((sts, i) => {
    if (sts.tag === 'CNI') cni = sts;
    if (sts.tag !== 'STS') return;
    // The status group: up to the next status, consignment or the end; its own segments come before its sub-groups.
    const rest = segments.slice(i + 1);
    const end = rest.findIndex((s) => s.tag === 'STS' || s.tag === 'CNI' || s.tag === 'UNT');
    const group = end < 0 ? rest : rest.slice(0, end);
    const sub = group.findIndex((s) => SUB_GROUPS.has(s.tag));
    groups.push({ sts, segments: [sts, ...(sub < 0 ? group : group.slice(0, sub))], consignment: cni ? [cni] : [] });
  });
  return groups;
}

/** One status to its milestone, or listed as not recorded; undefined when it cannot be read (the reasons say why). */
function statusMilestone(r: Reader, group: StatusGroup, header: readonly Segment[], document: { documentNumber: string; functionCode?: string; messageReference: string }): { milestone?: StatusMilestone; ignored?: IgnoredStatus } | undefined {
  const source = `segment ${group.sts.position} (STS)`;
  const status = STEPS.status.run(r, group, source);
  if (!status || !('code' in status)) return status;
  const placed = STEPS.milestone.run(r, group, status, source);
  if (!('milestone' in placed)) return placed;
  const { milestone } = placed;
  const references = STEPS.references.run(r, group, header);
  const occurredAt = STEPS.time.run(r, group, milestone);
  if (!references.length || !occurredAt) return undefined;

  // Where, and why; and estimates the status carries (a delay's new arrival, above all).
  const unLocode = STEPS.place.run(r, group);
  const reason = STEPS.reason.run(r, group, status, milestone);
  const estimatedTimes = STEPS.estimates.run(r, group);
  const { code, entry } = status;
  const { organization } = r.context;
  return {
    milestone: {
      references,
      milestone,
      occurredAt,
      deduplicationKey: deduplicationKeyOf(organization.organizationId, references, code, milestone, occurredAt),
      ...(unLocode ? { unLocode } : {}),
      ...(reason ? { reason } : {}),
      ...(Object.keys(estimatedTimes).length ? { estimatedTimes } : {}),
      ...(document.functionCode === REPLACE && entry.outcome ? { correction: { status: entry.outcome, reason: `replaced by IFTSTA ${document.documentNumber || document.messageReference} (BGM message function 5): ${entry.name} at ${occurredAt}`, reasonCode: 'DATA_ENTRY_ERROR' as const } } : {}),
      source,
      status: { code, name: entry.name },
      ...(entry.outcome ? { outcome: entry.outcome } : {}),
    },
  };
}

/** Another organization's identities (NAD party ids): never acted on for this one (protocol rule 16). */
function partiesChecked(r: Reader): void {
  for (const nad of r.all('NAD')) {
    const party = value(nad, 1);
    if (party && r.context.othersIdentities.has(party)) r.quarantine('NAMES_OTHER_ORGANIZATION', `party ${party} is another organization's`, nad, 1);
  }
}

/** The report's own number (BGM C106) and its message function, which must be one the mapping reads (FUNCTIONS). */
function documentOf(r: Reader): { documentNumber: string; functionCode?: string } {
  const bgm = r.all('BGM')[0];
  const documentNumber = (bgm && value(bgm, 1)) ?? '';
  const functionCode = bgm && value(bgm, 2);
  if (bgm && functionCode && !FUNCTIONS.includes(functionCode)) {
    r.quarantine('UNSUPPORTED_FUNCTION', `BGM message function ${functionCode}: a status report is read as an original (9), status (8), duplicate (7) or replacement (5); a recorded milestone cannot be cancelled`, bgm, 2);
  }
  return { documentNumber, ...(functionCode ? { functionCode } : {}) };
}

/** The status: a Rec 24 code (category 1, transport; agency 6 or none); one that is no baseline milestone is listed, not recorded. */
function statusOf(r: Reader, group: StatusGroup, source: string): Status | { ignored: IgnoredStatus } | undefined {
  const sts = r.all('STS', group.segments)[0];
  const category = value(sts, 0);
  const code = value(sts, 1);
  const agency = value(sts, 1, 2);
  const description = value(sts, 1, 3);
  if (category && category !== '1') return r.quarantine('STATUS_CODE_UNKNOWN', `STS status category ${category} is not 1 (transport): its status is not a UN/ECE Rec 24 code`, sts, 0);
  if (!code) return r.quarantine('STATUS_CODE_MISSING', 'STS carries no status description code (C555 4405)', sts, 1);
  if (agency && agency !== '6') return r.quarantine('STATUS_CODE_UNKNOWN', `status ${code}${description ? ` (${description})` : ''} is from the code list of agency ${agency}, not UN/ECE Rec 24: the gateway cannot tell which milestone it is`, sts, 1);
  if (!isRec24(code)) return r.quarantine('STATUS_CODE_UNKNOWN', `status ${code}${description ? ` (${description})` : ''} is not a code of UN/ECE Rec 24`, sts, 1);
  const entry = REC24[code];
  if (!entry) return { ignored: { source, code, why: `UN/ECE Rec 24 status ${code} is no baseline milestone` } };
  return { code, entry };
}

/** The milestone a status is: an arrival's is its place's (LOC qualifier); an en route status with a reason that says it is late reports a delay. */
function milestoneOf(r: Reader, group: StatusGroup, { code, entry }: Status, source: string): { milestone: Milestone } | { ignored: IgnoredStatus } {
  const loc = r.all('LOC', group.segments)[0];
  const placeQualifier = loc && value(loc, 0);
  const placed =
    entry.milestone !== 'arrival' ? entry.milestone : (Object.keys(ARRIVAL_PLACES) as Array<keyof typeof ARRIVAL_PLACES>).find((m) => placeQualifier !== undefined && ARRIVAL_PLACES[m].includes(placeQualifier));
  if (!placed) return { ignored: { source, code, why: `an arrival (Rec 24 status 1) ${placeQualifier ? `at a LOC+${placeQualifier} place` : 'without a LOC'}: neither the pick-up, the delivery nor a place on the way` } };
  // Its reasons are kept and its estimate read (reasonOf, estimatesOf).
  const delayed = statusReasonsOf(r.all('STS', group.segments)[0]).some((reason) => reason.code && (!reason.agency || reason.agency === '6') && DELAY_REASONS.has(reason.code));
  return { milestone: placed === 'inTransit' && delayed ? 'delayed' : placed };
}

/** References of RFF segments whose qualifier names one consignment or transport (REFERENCE_QUALIFIERS); others are dropped. */
function rffReferencesOf(r: Reader, rffs: readonly Segment[]): Array<{ type: string; value: string }> {
  return rffs.flatMap((rff) => {
    const qualifier = value(rff, 0) ?? '';
    const ref = value(rff, 0, 1);
    if (!ref) return [];
    if (!REFERENCE_QUALIFIERS.includes(qualifier)) {
      r.dropped.add(`RFF+${qualifier}`);
      return [];
    }
    return [{ type: `RFF+${qualifier}`, value: ref }];
  });
}

/** Which movement: the consignment's number and the references of the status and of the message (`header`), at most 20. */
function statusReferencesOf(r: Reader, group: StatusGroup, header: readonly Segment[]): Array<{ type: string; value: string }> {
  const references: Array<{ type: string; value: string }> = [];
  const add = (ref: { type: string; value: string }) => {
    if (!references.some((x) => x.type === ref.type && x.value === ref.value) && references.length < 20) references.push(ref);
  };
  const cni = r.all('CNI', group.consignment)[0];
  const consignment = cni && value(cni, 1);
  if (consignment) add({ type: 'CNI', value: consignment });
  rffReferencesOf(r, r.all('RFF', group.segments)).forEach(add);
  rffReferencesOf(r, r.all('RFF', header)).forEach(add);
  if (!references.length) r.quarantine('REFERENCE_MISSING', `the status names no consignment number (CNI C503) and no reference (RFF ${REFERENCE_QUALIFIERS.join(', ')}) the movement could be found by`, group.sts);
  return references;
}

const timeZoneOf = (organization: ServedOrganization) => organization.edifact?.timeZone ?? organization.loadRequests?.timeZone;

/** When: the status's own DTM (334 status change, else 78 event actual, else the actual arrival or departure). */
function occurredAtOf(r: Reader, group: StatusGroup, milestone: Milestone): string | undefined {
  const dtms = r.all('DTM', group.segments);
  const qualifiers = timesFor(milestone);
  const times = qualifiers.map((q) => dtms.filter((s) => value(s, 0) === q)).find((list) => list.length);
  if (!times) return r.quarantine('TIME_MISSING', `the status has no DTM+${qualifiers.join(' or DTM+')} (when it happened)${dtms.length ? `; its DTM ${dtms.map((s) => `+${value(s, 0)}`).join(', ')} do not say when it happened` : ''}`, group.sts);
  const read = times.map((dtm) => ({ dtm, time: statusTime(value(dtm, 0, 1) ?? '', value(dtm, 0, 2), timeZoneOf(r.context.organization)) }));
  const bad = read.find((t) => t.time.problem);
  if (bad) {
    const what = `DTM+${value(bad.dtm, 0)} ${value(bad.dtm, 0, 1) ?? '(no value)'} (format ${value(bad.dtm, 0, 2) ?? 'none'})`;
    const explain = {
      TIME_INVALID: `${what} is not a time of a format the mapping reads (203, 204 local; 205, 303, 304 with a zone)`,
      TIME_IMPRECISE: `${what} does not say when in the day it happened; a milestone needs the time`,
      TIME_ZONE_UNKNOWN: `${what} is a local time and the organization has no timeZone setting`,
    }[bad.time.problem!];
    return r.quarantine(bad.time.problem!, explain, bad.dtm, 0);
  }
  if (new Set(read.map((t) => t.time.instant)).size > 1) return r.quarantine('TIME_AMBIGUOUS', `DTM+${value(times[0], 0)} is given more than once with different times`, times[1], 0);
  return read[0].time.instant;
}

/** Where: the status's place as a UN/LOCODE; a place that is none is dropped. */
function placeOf(r: Reader, group: StatusGroup): string | undefined {
  const loc = r.all('LOC', group.segments)[0];
  const unLocode = loc && unLocodeOf(loc, r.context.organization);
  if (loc && value(loc, 1) && !unLocode) r.dropped.add(`LOC+${value(loc, 0)} ${value(loc, 1)} (not a UN/LOCODE nor one of the organization's places)`);
  return unLocode;
}

/** Why: the status's name when it is coarsened to the milestone, its reasons (C556) and the free text that explains it (FTX); other texts are dropped. */
function reasonOf(r: Reader, group: StatusGroup, { code, entry }: Status, milestone: Milestone): string | undefined {
  const why: string[] = [];
  if (code !== MILESTONE_CODE[milestone].code) why.push(entry.name);
  for (const reason of statusReasonsOf(r.all('STS', group.segments)[0])) {
    const named = reason.text || (reason.code && (!reason.agency || reason.agency === '6') && Object.hasOwn(REASONS, reason.code) ? REASONS[reason.code] : undefined) || (reason.code ? `reason ${reason.code}${reason.agency ? ` (agency ${reason.agency})` : ''}` : undefined);
    if (named) why.push(named);
  }
  for (const ftx of r.all('FTX', group.segments)) {
    const said = (ftx.elements[3] ?? []).filter(Boolean).join(' ');
    if (!said) continue;
    if (REASON_TEXTS.has(value(ftx, 0) ?? '')) why.push(said);
    else r.dropped.add(`FTX+${value(ftx, 0) ?? ''} (kept in the gateway's record of the message, not sent: it may name people)`);
  }
  return why.join('; ').slice(0, 500) || undefined;
}

/** Estimates the status carries (ESTIMATES), in the same time formats; one that cannot be read is dropped. */
function estimatesOf(r: Reader, group: StatusGroup): { pickupAt?: string; deliveryAt?: string } {
  const estimatedTimes: { pickupAt?: string; deliveryAt?: string } = {};
  for (const dtm of r.all('DTM', group.segments).filter((s) => Object.hasOwn(ESTIMATES, value(s, 0) ?? ''))) {
    const estimate = statusTime(value(dtm, 0, 1) ?? '', value(dtm, 0, 2), timeZoneOf(r.context.organization));
    if (estimate.instant) estimatedTimes[ESTIMATES[value(dtm, 0)!]] ??= estimate.instant;
    else r.dropped.add(`DTM+${value(dtm, 0)} ${value(dtm, 0, 1) ?? ''} (an estimate not read: ${estimate.problem})`);
  }
  return estimatedTimes;
}

/** An EDIFACT time in UTC: 303 (CCYYMMDDHHMM and the zone) or, with seconds, 304. */
function utc(instant: string): [string, string] {
  const d = new Date(instant);
  const digits = d.toISOString().slice(0, 19).replace(/[-T:]/g, '');
  return d.getUTCSeconds() ? [`${digits}UTC`, '304'] : [`${digits.slice(0, 12)}UTC`, '303'];
}

/**
 * The IFTSTA that tells a shipper a milestone of a movement its IFTMIN started: one consignment
 * (CNI with the shipper's own document number), one status (the milestone's Rec 24 code), the
 * shipper's references, when (DTM+334, UTC), where and why. ASCII content is sent as UNOC (syntax
 * 3); content with other characters as UNOW (UTF-8, syntax 4), so that no character is lost or
 * changed on the way.
 */
export function iftstaFor(notice: MilestoneNotice, organization: ServedOrganization, now: Date): { name: string; content: string } {
  const gateway: Party = { id: organization.edifact?.gatewayId ?? 'PCX-GATEWAY' };
  const shipper: Party = { id: organization.edifact?.senderIds[0] ?? organization.organizationId };
  const { code, place } = MILESTONE_CODE[notice.milestone];
  const [issued, issuedFormat] = utc(now.toISOString());
  const [occurred, occurredFormat] = utc(notice.occurredAt);
  const id = notice.updateId.replace(/-/g, '');
  const rffs = notice.consignment.references.flatMap((r) => {
    const m = /^RFF\+([A-Z0-9]{1,3})$/.exec(r.type);
    return m && r.value ? [segment('RFF', [m[1], r.value.slice(0, 70)])] : [];
  });
  // An arrival says by its place qualifier where it is, with or without the place's code.
  const withPlace = notice.unLocode || code === '1';
  const body = [
    segment('BGM', ['77'], id.slice(0, 35), '9'),
    segment('DTM', ['137', issued, issuedFormat]),
    segment('CNI', '1', [notice.consignment.documentNumber.slice(0, 35)]),
    segment('STS', ['1'], [code]),
    ...rffs.slice(0, 999),
    segment('DTM', ['334', occurred, occurredFormat]),
    ...(notice.reason ? [segment('FTX', 'AHN', '', '', text(notice.reason))] : []),
    ...(withPlace ? [segment('LOC', place, notice.unLocode ? [notice.unLocode, '', '6'] : [])] : []),
  ];
  const charset = body.every((s) => /^[\x20-\x7e]*$/.test(s)) ? 'UNOC' : 'UNOW';
  return { name: `${notice.updateId}.iftsta.edi`, content: interchange(gateway, shipper, id.slice(-14), now, [{ type: ['IFTSTA', 'D', '04A', 'UN'], body }], charset) };
}
