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
import type { MilestoneNotice, ReportedMilestone } from '../format';
import type { QuarantineReason } from '../store';
import { interchange, segment, text, type Party } from './acknowledgements';
import { zonedTime } from './dates';
import type { EdifactMessage, Segment } from './syntax';
import { ARRIVAL_PLACES, DELAY_REASONS, isRec24, MILESTONE_CODE, REASONS, REC24, REFERENCE_QUALIFIERS } from './status-codes';

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

/** Where the mapping reads an IFTSTA (segment, element, component; from 0): see IFTMIN_READS. */
export const IFTSTA_READS: ReadonlyArray<readonly [string, number, number]> = [
  ['BGM', 0, 0], ['BGM', 1, 0], ['BGM', 2, 0],
  ['NAD', 0, 0], ['NAD', 1, 0],
  ['RFF', 0, 0], ['RFF', 0, 1],
  ['CNI', 0, 0], ['CNI', 1, 0],
  ['STS', 0, 0], ['STS', 1, 0], ['STS', 1, 2], ['STS', 1, 3],
  ...[2, 3, 4, 5, 6].flatMap((e) => [['STS', e, 0], ['STS', e, 2], ['STS', e, 3]] as const),
  ['DTM', 0, 0], ['DTM', 0, 1], ['DTM', 0, 2],
  ['LOC', 0, 0], ['LOC', 1, 0], ['LOC', 1, 2],
  ['FTX', 0, 0], ['FTX', 3, 0],
];

/** One IFTSTA message to its milestones (and the statuses listed, not recorded), or the reasons it cannot be. */
export function mapIftsta(message: EdifactMessage, context: StatusContext): { statuses?: StatusMapping; reasons: QuarantineReason[] } {
  const reasons: QuarantineReason[] = [];
  const quarantine = (code: string, textOf: string, s?: Segment, e?: number) => void reasons.push({ code, message: textOf, ...(s ? { position: at(s, e) } : {}) });
  const { organization } = context;
  const segments = message.segments;
  const dropped = new Set<string>();

  // Another organization's identities: never acted on for this one (protocol rule 16).
  for (const nad of segments.filter((s) => s.tag === 'NAD')) {
    const party = value(nad, 1);
    if (party && context.othersIdentities.has(party)) quarantine('NAMES_OTHER_ORGANIZATION', `party ${party} is another organization's`, nad, 1);
  }
  const bgm = segments.find((s) => s.tag === 'BGM');
  const documentNumber = (bgm && value(bgm, 1)) ?? '';
  const functionCode = bgm && value(bgm, 2);
  if (bgm && functionCode && !FUNCTIONS.includes(functionCode)) {
    quarantine('UNSUPPORTED_FUNCTION', `BGM message function ${functionCode}: a status report is read as an original (9), status (8), duplicate (7) or replacement (5); a recorded milestone cannot be cancelled`, bgm, 2);
  }

  // The message's own references (SG3, before the first consignment) apply to every status in it.
  const firstCni = segments.findIndex((s) => s.tag === 'CNI');
  const headerReferences = segments.slice(0, firstCni < 0 ? segments.length : firstCni).filter((s) => s.tag === 'RFF');
  const referencesOf = (rffs: readonly Segment[]) =>
    rffs.flatMap((rff) => {
      const qualifier = value(rff, 0) ?? '';
      const ref = value(rff, 0, 1);
      if (!ref) return [];
      if (!REFERENCE_QUALIFIERS.includes(qualifier)) {
        dropped.add(`RFF+${qualifier}`);
        return [];
      }
      return [{ type: `RFF+${qualifier}`, value: ref }];
    });

  const milestones: StatusMilestone[] = [];
  const ignored: IgnoredStatus[] = [];
  let cni: Segment | undefined;
  segments.forEach((sts, i) => {
    if (sts.tag === 'CNI') cni = sts;
    if (sts.tag !== 'STS') return;
    // The status group: up to the next status, consignment or the end; its own segments come before its sub-groups.
    const rest = segments.slice(i + 1);
    const end = rest.findIndex((s) => s.tag === 'STS' || s.tag === 'CNI' || s.tag === 'UNT');
    const group = end < 0 ? rest : rest.slice(0, end);
    const sub = group.findIndex((s) => SUB_GROUPS.has(s.tag));
    const own = sub < 0 ? group : group.slice(0, sub);
    const source = `segment ${sts.position} (STS)`;

    // The status: a Rec 24 code (category 1, transport; agency 6 or none).
    const category = value(sts, 0);
    const code = value(sts, 1);
    const agency = value(sts, 1, 2);
    const description = value(sts, 1, 3);
    if (category && category !== '1') return quarantine('STATUS_CODE_UNKNOWN', `STS status category ${category} is not 1 (transport): its status is not a UN/ECE Rec 24 code`, sts, 0);
    if (!code) return quarantine('STATUS_CODE_MISSING', 'STS carries no status description code (C555 4405)', sts, 1);
    if (agency && agency !== '6') return quarantine('STATUS_CODE_UNKNOWN', `status ${code}${description ? ` (${description})` : ''} is from the code list of agency ${agency}, not UN/ECE Rec 24: the gateway cannot tell which milestone it is`, sts, 1);
    if (!isRec24(code)) return quarantine('STATUS_CODE_UNKNOWN', `status ${code}${description ? ` (${description})` : ''} is not a code of UN/ECE Rec 24`, sts, 1);
    const entry = REC24[code];
    if (!entry) return void ignored.push({ source, code, why: `UN/ECE Rec 24 status ${code} is no baseline milestone` });
    const loc = own.find((s) => s.tag === 'LOC');
    const placeQualifier = loc && value(loc, 0);
    const placed =
      entry.milestone !== 'arrival' ? entry.milestone : (Object.keys(ARRIVAL_PLACES) as Array<keyof typeof ARRIVAL_PLACES>).find((m) => placeQualifier !== undefined && ARRIVAL_PLACES[m].includes(placeQualifier));
    if (!placed) return void ignored.push({ source, code, why: `an arrival (Rec 24 status 1) ${placeQualifier ? `at a LOC+${placeQualifier} place` : 'without a LOC'}: neither the pick-up, the delivery nor a place on the way` });
    // An en route status with a reason that says it is late reports a delay (its reason and estimate kept).
    const delayReason = sts.elements.slice(2).find(([reasonCode, , reasonAgency]) => reasonCode && (!reasonAgency || reasonAgency === '6') && DELAY_REASONS.has(reasonCode));
    const milestone = placed === 'inTransit' && delayReason ? 'delayed' : placed;

    // Which movement: the consignment's number and the references of the status and of the message.
    const references: Array<{ type: string; value: string }> = [];
    const add = (r: { type: string; value: string }) => {
      if (!references.some((x) => x.type === r.type && x.value === r.value) && references.length < 20) references.push(r);
    };
    const consignment = cni && value(cni, 1);
    if (consignment) add({ type: 'CNI', value: consignment });
    referencesOf(own.filter((s) => s.tag === 'RFF')).forEach(add);
    referencesOf(headerReferences).forEach(add);
    if (!references.length) quarantine('REFERENCE_MISSING', `the status names no consignment number (CNI C503) and no reference (RFF ${REFERENCE_QUALIFIERS.join(', ')}) the movement could be found by`, sts);

    // When: the status's own DTM (334 status change, else 78 event actual, else the actual arrival or departure).
    const qualifiers = timesFor(milestone);
    const times = qualifiers.map((q) => own.filter((s) => s.tag === 'DTM' && value(s, 0) === q)).find((list) => list.length);
    let occurredAt: string | undefined;
    if (!times) quarantine('TIME_MISSING', `the status has no DTM+${qualifiers.join(' or DTM+')} (when it happened)${own.some((s) => s.tag === 'DTM') ? `; its DTM ${own.filter((s) => s.tag === 'DTM').map((s) => `+${value(s, 0)}`).join(', ')} do not say when it happened` : ''}`, sts);
    else {
      const read = times.map((dtm) => ({ dtm, time: statusTime(value(dtm, 0, 1) ?? '', value(dtm, 0, 2), organization.edifact?.timeZone ?? organization.loadRequests?.timeZone) }));
      const bad = read.find((r) => r.time.problem);
      if (bad) {
        const what = `DTM+${value(bad.dtm, 0)} ${value(bad.dtm, 0, 1) ?? '(no value)'} (format ${value(bad.dtm, 0, 2) ?? 'none'})`;
        const explain = {
          TIME_INVALID: `${what} is not a time of a format the mapping reads (203, 204 local; 205, 303, 304 with a zone)`,
          TIME_IMPRECISE: `${what} does not say when in the day it happened; a milestone needs the time`,
          TIME_ZONE_UNKNOWN: `${what} is a local time and the organization has no timeZone setting`,
        }[bad.time.problem!];
        quarantine(bad.time.problem!, explain, bad.dtm, 0);
      } else if (new Set(read.map((r) => r.time.instant)).size > 1) quarantine('TIME_AMBIGUOUS', `DTM+${value(times[0], 0)} is given more than once with different times`, times[1], 0);
      else occurredAt = read[0].time.instant;
    }
    if (!references.length || !occurredAt) return;

    // Where, and why: the status's place; its reasons (C556) and free text (FTX).
    const unLocode = loc && unLocodeOf(loc, organization);
    if (loc && value(loc, 1) && !unLocode) dropped.add(`LOC+${placeQualifier} ${value(loc, 1)} (not a UN/LOCODE nor one of the organization's places)`);
    const why: string[] = [];
    if (code !== MILESTONE_CODE[milestone].code) why.push(entry.name);
    for (const reason of sts.elements.slice(2)) {
      const [reasonCode, , reasonAgency, reasonText] = reason;
      const named = reasonText || (reasonCode && (!reasonAgency || reasonAgency === '6') && Object.hasOwn(REASONS, reasonCode) ? REASONS[reasonCode] : undefined) || (reasonCode ? `reason ${reasonCode}${reasonAgency ? ` (agency ${reasonAgency})` : ''}` : undefined);
      if (named) why.push(named);
    }
    for (const ftx of own.filter((s) => s.tag === 'FTX')) {
      const said = (ftx.elements[3] ?? []).filter(Boolean).join(' ');
      if (!said) continue;
      if (REASON_TEXTS.has(value(ftx, 0) ?? '')) why.push(said);
      else dropped.add(`FTX+${value(ftx, 0) ?? ''} (kept in the gateway's record of the message, not sent: it may name people)`);
    }
    const reason = why.join('; ').slice(0, 500) || undefined;
    // Estimates the status carries (a delay's new arrival, above all), in the same time formats.
    const estimatedTimes: Record<string, string> = {};
    for (const dtm of own.filter((s) => s.tag === 'DTM' && Object.hasOwn(ESTIMATES, value(s, 0) ?? ''))) {
      const estimate = statusTime(value(dtm, 0, 1) ?? '', value(dtm, 0, 2), organization.edifact?.timeZone ?? organization.loadRequests?.timeZone);
      if (estimate.instant) estimatedTimes[ESTIMATES[value(dtm, 0)!]] ??= estimate.instant;
      else dropped.add(`DTM+${value(dtm, 0)} ${value(dtm, 0, 1) ?? ''} (an estimate not read: ${estimate.problem})`);
    }
    milestones.push({
      references,
      milestone,
      occurredAt,
      deduplicationKey: deduplicationKeyOf(organization.organizationId, references, code, milestone, occurredAt),
      ...(unLocode ? { unLocode } : {}),
      ...(reason ? { reason } : {}),
      ...(Object.keys(estimatedTimes).length ? { estimatedTimes } : {}),
      ...(functionCode === REPLACE && entry.outcome ? { correction: { status: entry.outcome, reason: `replaced by IFTSTA ${documentNumber || message.reference} (BGM message function 5): ${entry.name} at ${occurredAt}`, reasonCode: 'DATA_ENTRY_ERROR' as const } } : {}),
      source,
      status: { code, name: entry.name },
      ...(entry.outcome ? { outcome: entry.outcome } : {}),
    });
  });
  if (!segments.some((s) => s.tag === 'STS')) quarantine('STATUS_MISSING', 'the message has no status (STS)');
  if (reasons.length) return { reasons };
  const read = new Set(['UNH', 'BGM', 'DTM', 'RFF', 'CNI', 'STS', 'LOC', 'FTX', 'UNT']);
  for (const s of segments) if (!read.has(s.tag)) dropped.add(s.tag);
  return { statuses: { messageReference: message.reference, documentNumber, milestones, ignored, dropped: [...dropped] }, reasons };
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
