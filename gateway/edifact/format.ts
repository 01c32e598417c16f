// The EDIFACT format of the gateway: interchanges of IFTMIN messages from a shipper's system become
// load requests (profile "IFTMIN D.04A"), answered with CONTRL and APERAK. An interchange is
// processed as a whole: one message that cannot be read or mapped quarantines it all (the sender
// corrects and resends one file), so that no interchange is ever half acted on.
import type { CreateBody } from '@pcx/sdk';
import type { ServedOrganization } from '../config';
import type { Format, Mapped, Quarantined, Submitted } from '../format';
import type { InboxEntry, QuarantineReason } from '../store';
import { aperak, contrl, type AperakInput, type Party } from './acknowledgements';
import { d04a } from './directory';
import { mapIftmin, type LoadMapping } from './iftmin';
import { readInterchange, type Interchange, type SyntaxProblem } from './syntax';

/** IFTMIN of these directories is read with the D.04A definitions (the segments the mapping reads are the same in each). */
const DIRECTORIES = /^D(9[6-9][AB]|0[0-4][AB])$/;

interface Received {
  reference: string;
  sender: Interchange['sender'];
  recipient: Interchange['recipient'];
  messages: Array<{ reference: string; type: string; version: string; release: string; agency: string }>;
}

interface EdifactMapped extends Mapped {
  received: Received;
  loads: LoadMapping[];
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
  const { interchange, problems } = readInterchange(entry.content, d04a());
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
  const messages: EdifactQuarantined['messages'] = [];
  const reasons: QuarantineReason[] = [];
  for (const message of interchange.messages) {
    const directory = `${message.version}${message.release}`;
    const documentNumber = message.segments.find((s) => s.tag === 'BGM')?.elements[1]?.[0] ?? '';
    if (message.type !== 'IFTMIN' || !DIRECTORIES.test(directory)) {
      const reason = { code: 'UNSUPPORTED_MESSAGE', message: `${message.type} ${directory}: the gateway reads IFTMIN of directories D.96A to D.04A`, position: `segment ${message.segments[0].position} (UNH), element 2` };
      messages.push({ reference: message.reference, documentNumber, reasons: [reason] });
      reasons.push(reason);
      continue;
    }
    const mapped = mapIftmin(message, { organization: org, system: systemOf(org, interchange.sender.id), othersIdentities: others });
    messages.push({ reference: message.reference, documentNumber, reasons: mapped.reasons });
    reasons.push(...mapped.reasons);
    if (mapped.load) loads.push(mapped.load);
  }
  if (reasons.length) return quarantined(reasons, [], received, messages);
  return { kind: 'mapped', received, loads };
}

export const edifact: Format = {
  name: 'edifact',
  // A drop without a known ending is read as EDIFACT too (EDI drops often have none, or .txt).
  extensions: ['.edi', '.edifact', '.txt'],
  profiles: [
    { id: 'IFTMIN D.04A', version: '1', description: 'UN/EDIFACT transport instruction (directories D.96A to D.04A read with D.04A) to a load request; CONTRL (syntax 3) and APERAK (D.04A) answers' },
  ],

  // UNOW and UNOY are UTF-8 (ISO 10646); every other UN/EDIFACT set is a single-byte ISO 8859 one,
  // read byte for byte (the tokenizer then checks each character against the set the UNB names).
  decode(bytes) {
    const head = bytes.subarray(0, 64).toString('latin1');
    return /UNB\+UNO[WY]/.test(head) ? bytes.toString('utf8') : bytes.toString('latin1');
  },

  map(entry, org, others) {
    return map(entry, org, new Set(others.flatMap((o) => o.edifact?.senderIds ?? [])));
  },

  async submit(mapped, client, key): Promise<Submitted> {
    const { loads } = mapped as EdifactMapped;
    const resources: Array<{ kind: string; id: string; status: string }> = [];
    const mappings = [];
    for (const [i, load] of loads.entries()) {
      const created = await client.requests.create(load.body as CreateBody<'load-requests'>, { idempotencyKey: key(`create-${i}`) });
      const request = load.publish ? await client.requests.publish(created, {}, { idempotencyKey: key(`publish-${i}`) }) : created;
      resources.push({ kind: 'load-request', id: request.id, status: request.status });
      for (const ref of (load.body.externalReferences as Array<{ system: string; type: string; value: string }>) ?? []) mappings.push({ ...ref, resourceKind: 'load-request', resourceId: request.id });
    }
    return { kind: 'created', resources, mappings };
  },

  acknowledge(entry, org, now) {
    const result = entry.result as (EdifactMapped | EdifactQuarantined) & { submitted?: Submitted };
    const base = (entry.name ?? entry.id).replace(/\.[A-Za-z0-9]+$/, '');
    // Each answer is an interchange with a control reference of its own (0020, at most 14 characters).
    const reference = entry.id.slice(-13);
    const received = result.received ?? { reference: 'UNKNOWN', sender: { id: org.edifact?.senderIds[0] ?? org.organizationId, qualifier: undefined }, recipient: { id: gatewayOf(org).id, qualifier: undefined }, messages: [] };
    const problems = result.kind === 'quarantined' ? result.problems : [];
    const out = [{ kind: 'contrl', name: `${base}.contrl.edi`, content: contrl({ received, problems }, gatewayOf(org), `${reference}C`, now) }];
    // An APERAK only for messages read without a syntax error.
    if (problems.length || !result.received) return out;
    const answers: AperakInput[] =
      result.kind === 'quarantined'
        ? result.messages.map((m) => ({ messageReference: m.reference, documentNumber: m.documentNumber, accepted: false, notes: [], reasons: m.reasons }))
        : result.loads.map((load, i) => {
            const submitted = result.submitted;
            if (submitted?.kind === 'refused') {
              return { messageReference: load.messageReference, documentNumber: load.documentNumber, accepted: false, notes: [], reasons: [{ code: submitted.problem.code, message: `the exchange refused it (${submitted.problem.status}): ${submitted.problem.detail}` }] };
            }
            const resource = submitted?.kind === 'created' ? submitted.resources[i] : undefined;
            return { messageReference: load.messageReference, documentNumber: load.documentNumber, accepted: true, notes: resource ? [`load request ${resource.id} ${resource.status}`] : [], reasons: [] };
          });
    out.push({ kind: 'aperak', name: `${base}.aperak.edi`, content: aperak(answers, received.sender, gatewayOf(org), `${reference}A`, now) });
    return out;
  },
};
