// The EPCIS format of the gateway (profile "EPCIS 2.0 JSON"): capture documents (and query
// documents, a subscription's results) from a carrier's track-and-trace, JSON or JSON-LD valid
// against GS1's JSON Schema, become milestones of the carrier's movements; a shipper that reads
// EPCIS is told milestones as EPCIS events. A document is processed as a whole: one event that
// cannot be read safely quarantines it, so that nothing is half acted on; events that report no
// milestone are dropped and listed. There is no EPCIS acknowledgement: the sender gets a JSON
// result per document (`<name>.result.json`).
import type { ServedOrganization } from '../config';
import type { Format, Mapped, MilestoneResult, Quarantined, ReportedMilestone, Submitted } from '../format';
import type { InboxEntry, QuarantineReason } from '../store';
import { mapEvents, othersGlnsOf, pcxPrefixesOf, type EventOutcome } from './events';
import { glnOfIdentity } from './identifiers';
import { LIMITS, parseJson } from './json';
import { milestoneNotice } from './notify';
import { SCHEMA_VERSION, schemaReasons } from './schema';

export const PROFILE = {
  id: 'EPCIS 2.0 JSON',
  version: '1',
  description: `GS1 EPCIS 2.0 capture and query documents (JSON, JSON-LD), valid against ${SCHEMA_VERSION}, to milestones (CBV business steps by the gateway's table); milestones to a shipper as EPCIS ObjectEvents; a JSON result per document`,
} as const;
const PROFILE_NAME = `${PROFILE.id} ${PROFILE.version}`;

/** Where a document's events are, by its type. */
const EVENT_LISTS: Readonly<Record<string, string[]>> = {
  EPCISDocument: ['epcisBody', 'eventList'],
  EPCISQueryDocument: ['epcisBody', 'queryResults', 'resultsBody', 'eventList'],
};

interface DocumentSummary {
  type: string;
  id?: string;
  creationDate?: string;
  sender?: string;
  queryName?: string;
  subscriptionID?: string;
  events: number;
}

export interface EpcisMapped extends Mapped {
  profile: string;
  document: DocumentSummary;
  milestones: ReportedMilestone[];
  events: EventOutcome[];
}

export interface EpcisQuarantined extends Quarantined {
  profile: string;
  document?: DocumentSummary;
  events?: EventOutcome[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (o: Json, key: string) => (Object.prototype.hasOwnProperty.call(o, key) && typeof o[key] === 'string' ? (o[key] as string) : undefined);

function eventsOf(document: Json): unknown {
  const path = EVENT_LISTS[str(document, 'type') ?? ''];
  let value: unknown = document;
  for (const key of path ?? []) value = isObject(value) && Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
  return path ? value : undefined;
}

function summaryOf(document: Json, events: number): DocumentSummary {
  const body = isObject(document.epcisBody) ? document.epcisBody : {};
  const results = isObject(body.queryResults) ? body.queryResults : {};
  const pick = (o: Json, key: string) => (str(o, key) !== undefined ? { [key]: str(o, key)!.slice(0, 200) } : {});
  return { type: str(document, 'type') ?? '', ...pick(document, 'id'), ...pick(document, 'creationDate'), ...pick(document, 'sender'), ...pick(results, 'queryName'), ...pick(results, 'subscriptionID'), events };
}

function map(entry: InboxEntry, organization: ServedOrganization, others: readonly ServedOrganization[]): EpcisMapped | EpcisQuarantined {
  const quarantined = (reasons: QuarantineReason[], details: Partial<EpcisQuarantined> = {}): EpcisQuarantined => ({ kind: 'quarantined', profile: PROFILE_NAME, reasons, ...details });
  const parsed = parseJson(entry.content);
  if (!parsed.ok) return quarantined(parsed.reasons);
  const document = parsed.value;
  if (!isObject(document)) return quarantined([{ code: 'UNSUPPORTED_DOCUMENT', message: 'not an EPCIS document: the JSON is no object', position: '' }]);
  // Counted before the schema is: a document of too many events is not validated at all.
  const listed = eventsOf(document);
  if (Array.isArray(listed) && listed.length > LIMITS.events) {
    return quarantined([{ code: 'TOO_MANY_EVENTS', message: `${listed.length} events; at most ${LIMITS.events} are read in one document`, position: `/${EVENT_LISTS[str(document, 'type')!].join('/')}` }]);
  }
  const invalid = schemaReasons(document, parsed.values);
  if (invalid.length) return quarantined(invalid);
  const type = str(document, 'type') ?? '';
  if (!EVENT_LISTS[type]) {
    return quarantined([{ code: 'UNSUPPORTED_DOCUMENT', message: `${type.slice(0, 100)}: the gateway reads an EPCISDocument (capture) or an EPCISQueryDocument (a subscription's results), not a single event`, position: '/type' }]);
  }
  const events = listed as unknown[];
  const base = `/${EVENT_LISTS[type].join('/')}`;
  const summary = summaryOf(document, events.length);
  const othersGlns = othersGlnsOf(organization, others);
  const reasons: QuarantineReason[] = [];
  const sender = str(document, 'sender');
  const senderGln = sender !== undefined ? glnOfIdentity(sender) : undefined;
  if (senderGln && othersGlns.has(senderGln)) reasons.push({ code: 'NAMES_OTHER_ORGANIZATION', message: `the sender, GLN ${senderGln}, is another organization's`, position: '/sender' });
  const mapped = mapEvents(events, base, { organization, othersGlns, pcxPrefixes: pcxPrefixesOf(document['@context']) });
  for (const r of mapped.reasons) reasons.push(r);
  if (reasons.length) return quarantined(reasons, { document: summary, events: mapped.outcomes });
  if (!mapped.milestones.length) {
    return quarantined([{ code: 'NO_MILESTONE', message: `none of the ${events.length} events reports a milestone (business steps: ${[...new Set(mapped.outcomes.map((o) => o.bizStep ?? 'none'))].join(', ').slice(0, 300)})`, position: base }], { document: summary, events: mapped.outcomes });
  }
  return { kind: 'mapped', profile: PROFILE_NAME, document: summary, milestones: mapped.milestones, events: mapped.outcomes };
}

/** The result a sender reads for one document: per event what it became at the exchange, or why the document was not acted on. */
export function resultOf(entry: InboxEntry, now: Date): Record<string, unknown> {
  const result = (entry.result ?? { kind: 'quarantined', reasons: [] }) as (EpcisMapped | EpcisQuarantined) & { submitted?: Submitted };
  const submitted = result.submitted;
  const recorded: MilestoneResult[] = submitted?.kind === 'created' ? (submitted.milestones ?? []) : [];
  const events: Array<Record<string, unknown>> = (result.events ?? []).map(({ index, ...event }) => {
    if (index === undefined || result.kind === 'quarantined') return event;
    if (submitted?.kind === 'refused') return { ...event, problem: submitted.problem };
    const answer = recorded[index];
    return { ...event, ...(answer ? { executionReferenceId: answer.executionReferenceId, ...(answer.updateId ? { updateId: answer.updateId } : {}), ...(answer.problem ? { problem: answer.problem } : {}), ...(answer.correction ? { correction: answer.correction } : {}) } : {}) };
  });
  const acted = events.filter((e) => e.milestone !== undefined);
  const refused = acted.filter((e) => e.problem !== undefined);
  const status = result.kind === 'quarantined' ? 'quarantined' : !refused.length ? 'recorded' : refused.length === acted.length ? 'refused' : 'partly-refused';
  return {
    profile: result.profile ?? PROFILE_NAME,
    message: { id: entry.id, name: entry.name, receivedAt: entry.receivedAt },
    writtenAt: now.toISOString(),
    status,
    ...(result.document ? { document: result.document } : {}),
    ...(result.kind === 'quarantined' ? { reasons: result.reasons } : {}),
    events,
  };
}

export const epcis: Format = {
  name: 'epcis',
  extensions: ['.jsonld', '.json'],
  profiles: [PROFILE],

  // JSON is UTF-8 (RFC 8259); a byte order mark is dropped.
  decode(bytes) {
    return bytes.toString('utf8').replace(/^\uFEFF/, '');
  },

  map,

  // Nothing to create: the gateway finds each milestone's movement and records it (gateway/milestones.ts).
  async submit(): Promise<Submitted> {
    return { kind: 'created', resources: [], mappings: [] };
  },

  acknowledge(entry, _organization, now) {
    const base = (entry.name ?? entry.id).replace(/\.[A-Za-z0-9]+$/, '');
    return [{ kind: 'epcis-result', name: `${base}.result.json`, content: `${JSON.stringify(resultOf(entry, now), null, 2)}\n` }];
  },

  notify: milestoneNotice,
};
