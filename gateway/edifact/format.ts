// The EDIFACT format of the gateway: interchanges from a participant's system become what the
// exchange should do: a shipper's IFTMIN messages load requests (profile "IFTMIN D.04A"), a
// carrier's IFTSTA messages milestones of its movements (profile "IFTSTA D.04A"; the gateway finds
// their movements and records them), answered with CONTRL and APERAK; and a shipper is told the
// milestones of the movements its IFTMIN started as IFTSTA (`notify`). An interchange is processed
// as a whole: one message that cannot be read or mapped quarantines it all (the sender corrects and
// resends one file), so that no interchange is ever half acted on.
import { PcxProblemError } from '@pcx/sdk';
import type { ServedOrganization } from '../config';
import type { Format, Mapped, MilestoneResult, Quarantined, Submitted } from '../format';
import type { InboxEntry, QuarantineReason } from '../store';
import { aperak, contrl, type AperakInput, type Party } from './acknowledgements';
import { IFTMIN_READS, mapIftmin, type LoadMapping } from './iftmin';
import { IFTSTA_READS, iftstaFor, mapIftsta, type StatusMapping, type StatusMilestone } from './iftsta';
import { differences, directoryOf, knownRange } from './directory';
import { readInterchange, type EdifactMessage, type Interchange, type SyntaxProblem } from './syntax';
import { decodeInterchange } from './service';

/** The messages the gateway maps, and where each mapping reads them (those data elements must be D.04A's). */
const READ: Readonly<Record<string, ReadonlyArray<readonly [string, number, number]>>> = { IFTMIN: IFTMIN_READS, IFTSTA: IFTSTA_READS };

interface Received {
  reference: string;
  sender: Interchange['sender'];
  recipient: Interchange['recipient'];
  messages: Array<{ reference: string; type: string; version: string; release: string; agency: string }>;
}

/** The status messages of an interchange: each one's milestones are `milestones[first…first+count-1]`. */
interface StatusMessage extends Omit<StatusMapping, 'milestones'> {
  first: number;
  count: number;
}

interface EdifactMapped extends Mapped {
  received: Received;
  loads: LoadMapping[];
  /** Every status read as a milestone, in message order (the gateway resolves and records them). */
  milestones: StatusMilestone[];
  statuses: StatusMessage[];
  /** Each message of the interchange in order: a load (index into `loads`) or a status message (into `statuses`). */
  order: Array<{ kind: 'load' | 'status'; index: number }>;
  /** Each message's first and last segment position (for reasons the gateway adds after mapping). */
  spans: Array<[number, number]>;
}

interface EdifactQuarantined extends Quarantined {
  received?: Received;
  problems: SyntaxProblem[];
  /** Messages read without a syntax error, for their APERAK. */
  messages: Array<{ reference: string; documentNumber: string; reasons: QuarantineReason[] }>;
}

const receivedOf = (i: Interchange): Received => ({
  reference: i.reference,
  sender: i.sender,
  recipient: i.recipient,
  messages: i.messages.map((m) => ({ reference: m.reference, type: m.type, version: m.version, release: m.release, agency: m.agency })),
});

/** What can be found of an interchange that could not be read: its UNB, for the CONTRL. */
function unbOf(text: string): Received | undefined {
  const m = /UNB\+[^+']*\+([^+:']*)(?::([^+']*))?\+([^+:']*)(?::([^+']*))?\+[^+']*\+([^+:']*)/.exec(text);
  return m ? { reference: m[5], sender: { id: m[1], qualifier: m[2] }, recipient: { id: m[3], qualifier: m[4] }, messages: [] } : undefined;
}

const systemOf = (org: ServedOrganization, sender: string) => org.edifact?.system ?? `edifact:${sender}`;
const gatewayOf = (org: ServedOrganization): Party => ({ id: org.edifact?.gatewayId ?? 'PCX-GATEWAY' });

function map(entry: InboxEntry, org: ServedOrganization, others: ReadonlySet<string>): EdifactMapped | EdifactQuarantined {
  const quarantined = (reasons: QuarantineReason[], problems: SyntaxProblem[] = [], received?: Received, messages: EdifactQuarantined['messages'] = []): EdifactQuarantined => ({ kind: 'quarantined', reasons, problems, ...(received ? { received } : {}), messages });
  const { interchange, problems } = readInterchange(entry.content);
  if (!interchange || problems.length) {
    return quarantined(
      problems.map((p) => ({ code: 'SYNTAX_ERROR', message: `${p.message} (CONTRL error ${p.code})`, ...(p.position ? { position: p.position } : {}) })),
      problems,
      interchange ? receivedOf(interchange) : unbOf(entry.content),
    );
  }
  const received = receivedOf(interchange);
  // The sender must be this organization: its mailbox or credential decides, the UNB only confirms.
  if (!(org.edifact?.senderIds ?? []).includes(interchange.sender.id)) {
    return quarantined([{ code: 'SENDER_NOT_ORGANIZATION', message: `UNB sender ${interchange.sender.id} is not one of ${org.organizationId}'s EDIFACT identities`, position: 'segment 1 (UNB), element 2' }], [], received);
  }
  const loads: LoadMapping[] = [];
  const milestones: StatusMilestone[] = [];
  const statuses: StatusMessage[] = [];
  const order: EdifactMapped['order'] = [];
  const messages: EdifactQuarantined['messages'] = [];
  const reasons: QuarantineReason[] = [];
  for (const message of interchange.messages) {
    const documentNumber = message.segments.find((s) => s.tag === 'BGM')?.elements[1]?.[0] ?? '';
    const refused = refusalOf(message);
    if (refused) {
      messages.push({ reference: message.reference, documentNumber, reasons: [refused] });
      reasons.push(refused);
      continue;
    }
    if (message.type === 'IFTSTA') {
      const mapped = mapIftsta(message, { organization: org, othersIdentities: others });
      messages.push({ reference: message.reference, documentNumber, reasons: mapped.reasons });
      for (const r of mapped.reasons) reasons.push(r);
      if (mapped.statuses) {
        const { milestones: own, ...rest } = mapped.statuses;
        order.push({ kind: 'status', index: statuses.length });
        statuses.push({ ...rest, first: milestones.length, count: own.length });
        for (const m of own) milestones.push(m);
      }
      continue;
    }
    const mapped = mapIftmin(message, { organization: org, system: systemOf(org, interchange.sender.id), othersIdentities: others, receivedAt: entry.receivedAt || undefined });
    messages.push({ reference: message.reference, documentNumber, reasons: mapped.reasons });
    for (const r of mapped.reasons) reasons.push(r);
    if (mapped.load) {
      order.push({ kind: 'load', index: loads.length });
      loads.push(mapped.load);
    }
  }
  if (reasons.length) return quarantined(reasons, [], received, messages);
  const spans = interchange.messages.map((m): [number, number] => [m.segments[0].position, m.segments[m.segments.length - 1].position]);
  // ISO 9735: the interchange control reference (0020) is unique per sender; a second interchange with it is a resend.
  const sender = `${interchange.sender.id}${interchange.sender.qualifier ? `:${interchange.sender.qualifier}` : ''}`;
  const senderReference = { value: `${sender}/${interchange.reference}`, label: `interchange ${interchange.reference} of sender ${sender} (UNB control reference)`, position: 'segment 1 (UNB), element 5' };
  return { kind: 'mapped', received, loads, milestones, statuses, order, spans, senderReference };
}

/**
 * Why a message is not mapped at all: a type the gateway does not read, a directory it does not
 * know, or one that defines a segment the mapping reads otherwise than D.04A (naming the segment
 * and how it differs). Undefined when it is mapped.
 */
function refusalOf(message: EdifactMessage): QuarantineReason | undefined {
  const position = `segment ${message.segments[0].position} (UNH), element 2`;
  const name = `${message.type} ${message.version}.${message.release}`;
  const read = READ[message.type];
  if (!read) return { code: 'UNSUPPORTED_MESSAGE', message: `${name}: the gateway reads IFTMIN and IFTSTA`, position };
  const directory = directoryOf(message.version, message.release);
  if (!directory) return { code: 'UNSUPPORTED_DIRECTORY', message: `${name}: the gateway knows the UN/EDIFACT directories ${knownRange()}`, position };
  const differs = differences(directory, read);
  if (differs.length) {
    return { code: 'DIRECTORY_DIFFERS', message: `${name}: the mapping reads ${message.type} as D.04A defines it, and ${differs.map((d) => d.difference).join('; ')}`, position };
  }
  return undefined;
}

/** Where a reason is: the segment position it names. */
const positionOf = (r: QuarantineReason) => Number(/^segment (\d+)/.exec(r.position ?? '')?.[1] ?? NaN);

/** The APERAK answers of an interchange that was read: per message, accepted or not, with what it became or why not. */
function answersOf(result: (EdifactMapped | EdifactQuarantined) & { submitted?: Submitted }, received: Received): AperakInput[] {
  const notActed = 'not acted on: the interchange is processed as a whole, and another of its messages is quarantined';
  if (result.kind === 'quarantined' && Array.isArray(result.messages) && result.messages.length) {
    return result.messages.map((m) => ({ messageReference: m.reference, documentNumber: m.documentNumber, accepted: false, notes: m.reasons.length ? [] : [notActed], reasons: m.reasons }));
  }
  // What a result may hold, read defensively: it is the stored JSON of a mapping, maybe changed by the gateway since.
  const mapped = result as unknown as {
    kind: 'mapped' | 'quarantined';
    reasons?: QuarantineReason[];
    submitted?: Submitted;
    loads?: LoadMapping[];
    milestones?: StatusMilestone[];
    statuses?: StatusMessage[];
    order?: EdifactMapped['order'];
    spans?: EdifactMapped['spans'];
  };
  const documentNumberOf = (i: number) => {
    const entry = mapped.order?.[i];
    return entry?.kind === 'load' ? mapped.loads?.[entry.index]?.documentNumber : entry?.kind === 'status' ? mapped.statuses?.[entry.index]?.documentNumber : undefined;
  };
  // Quarantined after mapping (a milestone whose movement is unknown): each reason to the message it is in.
  if (mapped.kind === 'quarantined') {
    const spans = mapped.spans ?? [];
    const reasonsOf = (i: number) => (mapped.reasons ?? []).filter((r) => {
      const at = positionOf(r);
      return Number.isNaN(at) || !spans[i] ? true : at >= spans[i][0] && at <= spans[i][1];
    });
    return received.messages.map((m, i) => {
      const own = reasonsOf(i);
      return { messageReference: m.reference, documentNumber: documentNumberOf(i) ?? '', accepted: false, notes: own.length ? [] : [notActed], reasons: own };
    });
  }
  const submitted = mapped.submitted;
  return received.messages.map((m, i) => {
    const entry = mapped.order?.[i];
    if (submitted?.kind === 'refused') {
      return { messageReference: m.reference, documentNumber: documentNumberOf(i) ?? '', accepted: false, notes: [], reasons: [{ code: submitted.problem.code, message: `the exchange refused it (${submitted.problem.status}): ${submitted.problem.detail}` }] };
    }
    if (entry?.kind === 'load') {
      const load = mapped.loads![entry.index];
      const resource = submitted?.kind === 'created' ? submitted.resources[entry.index] : undefined;
      return { messageReference: load.messageReference, documentNumber: load.documentNumber, accepted: true, notes: resource ? [`load request ${resource.id} ${resource.status}`] : [], reasons: [] };
    }
    const status = entry?.kind === 'status' ? mapped.statuses?.[entry.index] : undefined;
    if (!status) return { messageReference: m.reference, documentNumber: '', accepted: true, notes: [], reasons: [] };
    const results: Array<MilestoneResult | undefined> = submitted?.kind === 'created' ? (submitted.milestones ?? []) : [];
    const notes: string[] = [];
    const reasons: QuarantineReason[] = [];
    for (let k = status.first; k < status.first + status.count; k++) {
      const milestone = mapped.milestones?.[k];
      const answer = results[k];
      if (!milestone) continue;
      const what = `${milestone.milestone} (status ${milestone.status?.code ?? '?'}, ${milestone.source})`;
      if (answer?.updateId) notes.push(`${what} recorded as update ${answer.updateId} of execution reference ${answer.executionReferenceId}`);
      else if (answer?.problem) reasons.push({ code: answer.problem.code, message: `the exchange refused ${what} (${answer.problem.status}): ${answer.problem.detail}`, position: milestone.source });
      if (answer?.correction) notes.push(answer.correction.corrected ? `the outcome of execution reference ${answer.executionReferenceId} corrected to ${answer.correction.status} (record ${answer.correction.outcomeId})` : `the outcome not corrected: ${answer.correction.why}`);
    }
    for (const ignored of status.ignored) notes.push(`status ${ignored.code} (${ignored.source}) not recorded: ${ignored.why}`);
    return { messageReference: status.messageReference, documentNumber: status.documentNumber, accepted: reasons.length === 0, notes, reasons };
  });
}

export const edifact: Format = {
  name: 'edifact',
  // A drop without a known ending is read as EDIFACT too (EDI drops often have none, or .txt).
  extensions: ['.edi', '.edifact', '.txt'],
  profiles: [
    { id: 'IFTMIN D.04A', version: '2', description: 'UN/EDIFACT transport instruction to a load request: each message checked against its own directory (D.93A to D.10B) and mapped where the segments read agree with D.04A; CONTRL (syntax 3) and APERAK (D.04A) answers' },
    { id: 'IFTSTA D.04A', version: '2', description: "UN/EDIFACT status report (checked against its own directory, D.93A to D.10B, mapped where the segments read agree with D.04A): a carrier's statuses (UN/ECE Rec 24) to milestones, delays with estimates, a replacing report as an outcome correction, APERAK per message; a shipper told its movements' milestones as IFTSTA D.04A" },
  ],

  // In the character set the UNB names (service.ts: UNOD as ISO 8859-2, UNOW and UNOY as UTF-8, ...).
  decode: decodeInterchange,

  map(entry, org, others) {
    return map(entry, org, new Set(others.flatMap((o) => o.edifact?.senderIds ?? [])));
  },

  // An interchange is acted on whole or not at all: when the exchange refuses one of its load
  // requests (a check only the exchange can make, such as an inactive partnership), those it
  // created for the interchange are withdrawn before the refusal is answered, never left behind.
  async submit(mapped, client, key): Promise<Submitted> {
    const { loads } = mapped as EdifactMapped;
    const resources: Array<{ kind: string; id: string; status: string }> = [];
    const created: Array<{ id: string; resourceVersion: number }> = [];
    const mappings = [];
    try {
      for (const [i, load] of loads.entries()) {
        const draft = await client.requests.create(load.body, { idempotencyKey: key(`create-${i}`) });
        created.push(draft);
        const request = load.publish ? await client.requests.publish(draft, {}, { idempotencyKey: key(`publish-${i}`) }) : draft;
        created[created.length - 1] = request;
        resources.push({ kind: 'load-request', id: request.id, status: request.status });
        for (const ref of load.body.externalReferences ?? []) mappings.push({ ...ref, resourceKind: 'load-request', resourceId: request.id });
      }
    } catch (err) {
      // Not a refusal (unreachable, 5xx, 429, a key in progress): the step is retried and its keys find what was done.
      if (!(err instanceof PcxProblemError) || err.status >= 500 || err.status === 429 || err.code === 'IDEMPOTENCY_IN_PROGRESS') throw err;
      for (const [i, resource] of created.entries()) {
        await client.requests.withdraw(resource, { reason: `not acted on: the exchange refused another load request of the same interchange (${err.code})` }, { idempotencyKey: key(`withdraw-${i}`) });
      }
      throw err;
    }
    return { kind: 'created', resources, mappings };
  },

  acknowledge(entry, org, now) {
    const result = entry.result as (EdifactMapped | EdifactQuarantined) & { submitted?: Submitted };
    const base = (entry.name ?? entry.id).replace(/\.[A-Za-z0-9]+$/, '');
    // Each answer is an interchange with a control reference of its own (0020, at most 14 characters).
    const reference = entry.id.slice(-13);
    const received = result.received ?? { reference: 'UNKNOWN', sender: { id: org.edifact?.senderIds[0] ?? org.organizationId, qualifier: undefined }, recipient: { id: gatewayOf(org).id, qualifier: undefined }, messages: [] };
    // A result quarantined after mapping (by the gateway: a milestone's movement unknown) has no syntax problems;
    // one screened out before it was read (too large, not text) is rejected whole: 21 invalid characters, else 18 unspecified.
    // A resend of an interchange acted on before (its control reference seen): 26, duplicate detected.
    const whole = (result as { screened?: boolean }).screened || (result as { duplicateOf?: string }).duplicateOf;
    const screened = whole ? ((result as { reasons?: QuarantineReason[] }).reasons ?? []).map((r): SyntaxProblem => ({ code: r.code === 'NOT_TEXT' ? '21' : r.code === 'DUPLICATE_TRANSMISSION' ? '26' : '18', message: r.message })) : undefined;
    const problems = screened ?? (result.kind === 'quarantined' ? result.problems : undefined) ?? [];
    const out = [{ kind: 'contrl', name: `${base}.contrl.edi`, content: contrl({ received, problems }, gatewayOf(org), `${reference}C`, now) }];
    // An APERAK only for messages read without a syntax error.
    if (problems.length || !result.received) return out;
    const answers = answersOf(result, received);
    out.push({ kind: 'aperak', name: `${base}.aperak.edi`, content: aperak(answers, received.sender, gatewayOf(org), `${reference}A`, now) });
    return out;
  },

  notify(notice, org, now) {
    return { kind: 'iftsta', ...iftstaFor(notice, org, now) };
  },
};
