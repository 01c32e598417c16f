// What the sender of an interchange gets back, as EDI users expect it:
// - CONTRL (syntax and service report, ISO 9735 syntax version 3): the interchange and each of its
//   messages acknowledged (action 7) or rejected (action 4), with the syntax error (data element
//   0085) and the segment and element at fault;
// - APERAK (application error and acknowledgement, D.04A) for each message read without a syntax
//   error: accepted (BGM 1225 = 29) with what it became at the exchange, or not accepted (27) with
//   each reason (ERC: 12 invalid value, 13 missing) and where in the message it is (FTX).
// Each answer is an interchange of its own, from the gateway's identity to the sender's.
import type { QuarantineReason } from '../store';
import type { Interchange, SyntaxProblem } from './syntax';

export interface Party {
  id: string;
  qualifier?: string;
}

const escape = (text: string) => text.replace(/([?+:'])/g, '?$1');
/** Leaves out the empty entries at the end (before escaping: an escaped separator at the end is a value's). */
const trimmed = (values: readonly string[]) => values.slice(0, values.reduce((last, v, i) => (v !== '' ? i + 1 : last), 0));
const element = (e: string | readonly (string | undefined)[]) => (typeof e === 'string' ? escape(e) : trimmed(e.map((c) => c ?? '')).map(escape).join(':'));
/** A segment, each element a value or its components, with the release character before every service character in them. */
export const segment = (tag: string, ...elements: Array<string | readonly (string | undefined)[]>) => `${[tag, ...trimmed(elements.map(element))].join('+')}'`;

const stamp = (now: Date) => {
  const iso = now.toISOString();
  return { date: iso.slice(2, 10).replace(/-/g, ''), time: iso.slice(11, 16).replace(':', ''), full: iso.slice(0, 16).replace(/[-T:]/g, '') };
};

/**
 * One interchange around `messages`, each a list of segments between UNH and UNT. UNOC (ISO
 * 8859-1, syntax 3) unless `charset` says UNOW (UTF-8, which needs syntax 4 and its CCYYMMDD date).
 */
export function interchange(from: Party, to: Party, reference: string, now: Date, messages: Array<{ type: string[]; body: string[] }>, charset: 'UNOC' | 'UNOW' = 'UNOC'): string {
  const when = stamp(now);
  const syntax = charset === 'UNOW' ? ['UNOW', '4'] : ['UNOC', '3'];
  const date = charset === 'UNOW' ? `20${when.date}` : when.date;
  const lines = [`UNA:+.? '`, segment('UNB', syntax, [from.id, from.qualifier], [to.id, to.qualifier], [date, when.time], reference)];
  messages.forEach((message, i) => {
    const ref = String(i + 1);
    // One by one: a CONTRL of a broken interchange can have more lines than a call has room for arguments.
    lines.push(segment('UNH', ref, message.type));
    for (const line of message.body) lines.push(line);
    lines.push(segment('UNT', String(message.body.length + 2), ref));
  });
  lines.push(segment('UNZ', String(messages.length), reference));
  return lines.join('\n') + '\n';
}

/** The problems a CONTRL reports of one message, at most. */
const MAX_PROBLEMS = 99;

/** Where a problem is, as CONTRL's UCS (segment position) and UCD (element position). */
const positionOf = (p: SyntaxProblem) => {
  const m = /segment (\d+)(?: \([A-Z]*\))?(?:, element (\d+))?(?:, component (\d+))?/.exec(p.position ?? '');
  return m ? { segment: m[1], element: m[2], component: m[3] } : undefined;
};

export interface ContrlInput {
  /** The interchange as far as it was read (its UNB at least), or what could be found of it. */
  received: Pick<Interchange, 'reference' | 'sender' | 'recipient'> & { messages: Array<{ reference: string; type: string; version: string; release: string; agency: string }> };
  problems: readonly SyntaxProblem[];
}

/** The CONTRL for an interchange: accepted (7) when there is no problem, else rejected (4) where the problems are. */
export function contrl(input: ContrlInput, gateway: Party, reference: string, now: Date): string {
  const { received, problems } = input;
  const envelopeProblems = problems.filter((p) => !p.messageReference);
  const body = [segment('UCI', received.reference, [received.sender.id, received.sender.qualifier], [received.recipient.id, received.recipient.qualifier], problems.length ? '4' : '7', envelopeProblems[0]?.code ?? '')];
  // Each problem under the message it is in (by its index: a broken interchange repeats references),
  // at most MAX_PROBLEMS of a message (the first say where to look; a thousand more say no more).
  const byMessage = new Map<number | string, SyntaxProblem[]>();
  for (const p of problems) {
    if (!p.messageReference) continue;
    const key = p.messageIndex ?? p.messageReference;
    const list = byMessage.get(key) ?? byMessage.set(key, []).get(key)!;
    if (list.length < MAX_PROBLEMS) list.push(p);
  }
  for (const [index, message] of received.messages.entries()) {
    const own = byMessage.get(index) ?? (problems.some((p) => p.messageIndex !== undefined) ? [] : (byMessage.get(message.reference) ?? []));
    body.push(segment('UCM', message.reference, [message.type, message.version, message.release, message.agency], own.length || envelopeProblems.length ? '4' : '7', own[0]?.code ?? ''));
    for (const problem of own) {
      const at = positionOf(problem);
      if (!at) continue;
      body.push(segment('UCS', at.segment, problem.code));
      if (at.element) body.push(segment('UCD', problem.code, [at.element, at.component]));
    }
  }
  return interchange(gateway, received.sender, reference, now, [{ type: ['CONTRL', 'D', '3', 'UN'], body }]);
}

export interface AperakInput {
  messageReference: string;
  documentNumber: string;
  accepted: boolean;
  /** What the message became (accepted), or why not (rejected). */
  notes: readonly string[];
  reasons: readonly QuarantineReason[];
}

/** FTX text: at most five components of 512 characters. */
export const text = (value: string) => {
  const parts: string[] = [];
  for (let i = 0; i < value.length && parts.length < 5; i += 512) parts.push(value.slice(i, i + 512));
  return parts;
};

/** The APERAK for each message read: accepted or not, with what it became or why not. */
export function aperak(messages: readonly AperakInput[], sender: Party, gateway: Party, reference: string, now: Date): string {
  const when = stamp(now);
  return interchange(
    gateway,
    sender,
    reference,
    now,
    messages.map((m, i) => ({
      type: ['APERAK', 'D', '04A', 'UN'],
      body: [
        segment('BGM', ['313'], `${reference}-${i + 1}`, m.accepted ? '29' : '27'),
        segment('DTM', ['137', when.full, '203']),
        ...m.notes.map((note) => segment('FTX', 'AAI', '', '', text(note))),
        segment('RFF', ['ACW', m.documentNumber]),
        segment('RFF', ['ACE', m.messageReference]),
        ...m.reasons.flatMap((r) => [segment('ERC', [/MISSING|INCOMPLETE/.test(r.code) ? '13' : '12']), segment('FTX', 'AAO', '', '', text(`${r.code}: ${r.message}${r.position ? ` (${r.position})` : ''}`))]),
      ],
    })),
  );
}
