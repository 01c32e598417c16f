// UN/EDIFACT syntax (ISO 9735): an interchange tokenized by the service layer (service.ts: the
// UNA service characters or the level's defaults, the release character, syntax 4's repetitions,
// the character set the UNB names), then checked here against the directory: each segment's
// elements and components (how many, which are mandatory, their representation: an..35, n..15),
// the envelope (UNB and UNZ, functional groups UNG and UNE, each message's UNH and UNT, their
// references and counts) and each message's segment table (node-edifact's Tracker over the
// directory's tables). Every problem names where it is: the segment's position in the
// interchange (1 for the first after UNA), its tag, and the element and component where known.
import { Tracker, type ElementDefinition, type SegmentDefinition } from 'edifact';
import { directoryOf, type Directory } from './directory';
import { CHARACTER_SETS, tokenize, TokenizeError, type ServiceCharacters, type Token } from './service';

/** A segment: its position in the interchange (from 1, UNA not counted), tag, and elements (each a list of components; of a repeated element, syntax 4, its first occurrence, the rest in `repetitions`). */
export type Segment = Token;

export interface EdifactMessage {
  reference: string;
  type: string;
  version: string;
  release: string;
  agency: string;
  association: string | undefined;
  /** From UNH to UNT, both included. */
  segments: Segment[];
}

export interface Interchange {
  syntax: { identifier: string; version: string };
  /** The service characters it was written with (its UNA, or the level's defaults): the decimal mark among them. */
  characters: ServiceCharacters;
  sender: { id: string; qualifier: string | undefined };
  recipient: { id: string; qualifier: string | undefined };
  preparedAt: { date: string; time: string };
  reference: string;
  messages: EdifactMessage[];
}

export interface SyntaxProblem {
  /** An UN/EDIFACT syntax error code (CONTRL, data element 0085) and what it means here. */
  code: string;
  message: string;
  position?: string;
  /** The message the problem is in, when it is in one. */
  messageReference?: string;
  /** Which message of the interchange it is in, from 0 (references repeat in broken interchanges). */
  messageIndex?: number;
}


/** The service segments of syntax versions 3 and 4, as far as the gateway reads them. */
const SERVICE: Record<string, SegmentDefinition | ElementDefinition> = {
  UNB: { requires: 5, elements: ['S001', 'S002', 'S003', 'S004', '0020', 'S005', '0026', '0029', '0031', '0032', '0035'] },
  UNZ: { requires: 2, elements: ['0036', '0020'] },
  UNH: { requires: 2, elements: ['0062', 'S009', '0068', 'S010', 'S016', 'S017', 'S018'] },
  UNT: { requires: 2, elements: ['0074', '0062'] },
  UNG: { requires: 0, elements: ['0038', 'S006', 'S007', 'S004', '0048', '0051', 'S008', '0058'] },
  UNE: { requires: 2, elements: ['0060', '0048'] },
  S001: { requires: 2, components: ['a4', 'an1', 'an..6', 'an..3'] },
  S002: { requires: 1, components: ['an..35', 'an..4', 'an..35', 'an..35'] },
  S003: { requires: 1, components: ['an..35', 'an..4', 'an..35', 'an..35'] },
  S004: { requires: 2, components: ['n..8', 'n4'] },
  '0020': { requires: 1, components: ['an..14'] },
  S005: { requires: 1, components: ['an..14', 'an2'] },
  '0026': { requires: 1, components: ['an..14'] },
  '0029': { requires: 1, components: ['a1'] },
  '0031': { requires: 1, components: ['n1'] },
  '0032': { requires: 1, components: ['an..35'] },
  '0035': { requires: 1, components: ['n1'] },
  '0036': { requires: 1, components: ['n..6'] },
  '0062': { requires: 1, components: ['an..14'] },
  S009: { requires: 4, components: ['an..6', 'an..3', 'an..3', 'an..3', 'an..6', 'an..6', 'an..6'] },
  '0068': { requires: 1, components: ['an..35'] },
  S010: { requires: 1, components: ['n..2', 'a1'] },
  '0074': { requires: 1, components: ['n..10'] },
};

/** Finds the directory of a message by its UNH's version and release (directory.ts's directoryOf). */
export type Directories = (version: string, release: string) => Directory | undefined;

/**
 * Reads an interchange: its segments and messages, or the problems that keep it from being read.
 * Each message is checked against its own directory (the version and release its UNH names); a
 * message of a directory `directories` does not know is read but not checked (the format refuses it).
 */
export function readInterchange(text: string, directories: Directories = directoryOf): { interchange?: Interchange; problems: SyntaxProblem[] } {
  let tokenized;
  try {
    tokenized = tokenize(text);
  } catch (err) {
    if (!(err instanceof TokenizeError)) throw err;
    return { problems: [{ code: err.code, message: err.message, ...(err.position ? { position: err.position } : {}) }] };
  }
  const { segments, characters } = tokenized;
  const unb = segments[0];
  // The character set was applied when the bytes were read (service.ts, decodeInterchange): here it must be one the gateway knows.
  const identifier = unb?.tag === 'UNB' ? unb.elements[0]?.[0] : undefined;
  if (identifier !== undefined && !CHARACTER_SETS[identifier]) {
    return { problems: [{ code: SYNTAX_CODE.unsupported, message: `the character set ${identifier} is not supported (UNOA to UNOK, UNOW and UNOY are)`, position: 'segment 1 (UNB), element 1' }] };
  }
  // The service segments against ISO 9735; each message's against its directory, in envelope().
  const problems: SyntaxProblem[] = [];
  for (const segment of segments) if (SERVICE_SEGMENTS.has(segment.tag) && segment.tag !== 'UNH' && segment.tag !== 'UNT') for (const p of elementProblems(segment, undefined)) problems.push(p);
  const result = envelope(segments, directories, characters);
  for (const p of result.problems) problems.push(p);
  return { ...result, problems };
}

const SERVICE_SEGMENTS = new Set(['UNB', 'UNZ', 'UNG', 'UNE', 'UNH', 'UNT']);
const definitionOf = (directory: Directory | undefined, id: string) => (SERVICE[id] as ElementDefinition | undefined) ?? directory?.elements[id];

/** A component's value against its representation (a, n, an; fixed or up to a length). */
function representationProblem(value: string, formatString: string): string | undefined {
  const [, kind, upTo, length] = /^(an|a|n)(\.\.)?(\d+)$/.exec(formatString) ?? [];
  if (!kind) return undefined;
  const max = Number(length);
  // A numeric value's sign and decimal mark do not count towards its length (ISO 9735, 10).
  const counted = kind === 'n' ? value.replace(/^-/, '').replace(/[.,]/, '') : value;
  if (counted.length > max || (!upTo && counted.length !== max)) return `${value} is not ${formatString}`;
  if (kind === 'n' && !/^-?(\d+([.,]\d*)?|[.,]\d+)$/.test(value)) return `${value} is not numeric (${formatString})`;
  return undefined;
}

/** A segment's elements and components against the directory (a service segment's against ISO 9735): counts, mandatory ones, representation. */
function elementProblems(segment: Segment, directory: Directory | undefined): SyntaxProblem[] {
  const definition = (SERVICE[segment.tag] as SegmentDefinition | undefined) ?? directory?.segments[segment.tag];
  const at = (e: number, c?: number) => `segment ${segment.position} (${segment.tag}), element ${e + 1}${c === undefined ? '' : `, component ${c + 1}`}`;
  if (!definition) return directory ? [{ code: '14', message: `${segment.tag} is not a segment of directory ${directory.id}`, position: `segment ${segment.position} (${segment.tag})` }] : [];
  const problems: SyntaxProblem[] = [];
  if (segment.elements.length > definition.elements.length) problems.push({ code: '16', message: `${segment.tag} has ${segment.elements.length} elements, at most ${definition.elements.length}`, position: at(definition.elements.length) });
  definition.elements.forEach((id, e) => {
    const components = segment.elements[e] ?? [];
    const element = definitionOf(directory, id);
    const present = components.some((v) => v !== '');
    if (e < definition.requires && !present) problems.push({ code: '13', message: `${segment.tag} needs element ${id}`, position: at(e) });
    if (!element || !present) return;
    if (components.length > element.components.length) problems.push({ code: '16', message: `${id} has ${components.length} components, at most ${element.components.length}`, position: at(e, element.components.length) });
    element.components.forEach((formatString, c) => {
      const value = components[c] ?? '';
      if (value === '') {
        if (c < element.requires) problems.push({ code: '13', message: `${id} needs its component ${c + 1}`, position: at(e, c) });
        return;
      }
      const wrong = representationProblem(value, formatString);
      if (wrong) problems.push({ code: SYNTAX_CODE.invalid, message: wrong, position: at(e, c) });
    });
  });
  return problems;
}

/** CONTRL's syntax error codes (data element 0085) the gateway reports. */
export const SYNTAX_CODE = {
  invalid: '12', // invalid value
  missing: '13', // missing
  unsupported: '2', // syntax version or level not supported
  countMismatch: '29', // control count does not match number of instances received
  referenceMismatch: '28', // references do not match
  tooMany: '35', // too many repetitions
  notSupported: '22', // message type not supported (unknown)
} as const;

function envelope(segments: Segment[], directories: Directories, characters: ServiceCharacters): { interchange?: Interchange; problems: SyntaxProblem[] } {
  const problems: SyntaxProblem[] = [];
  const at = (s: Segment) => `segment ${s.position} (${s.tag})`;
  const unb = segments[0];
  const unz = segments[segments.length - 1];
  if (!unb || unb.tag !== 'UNB') return { problems: [{ code: SYNTAX_CODE.missing, message: 'the interchange does not begin with UNB', position: unb ? at(unb) : undefined }] };
  if (!unz || unz.tag !== 'UNZ') return { problems: [{ code: SYNTAX_CODE.missing, message: 'the interchange does not end with UNZ', position: unz ? at(unz) : undefined }] };
  const value = (s: Segment, e: number, c = 0) => s.elements[e]?.[c] || undefined;
  const interchange: Interchange = {
    syntax: { identifier: value(unb, 0)!, version: value(unb, 0, 1) ?? '' },
    characters,
    sender: { id: value(unb, 1) ?? '', qualifier: value(unb, 1, 1) },
    recipient: { id: value(unb, 2) ?? '', qualifier: value(unb, 2, 1) },
    preparedAt: { date: value(unb, 3) ?? '', time: value(unb, 3, 1) ?? '' },
    reference: value(unb, 4) ?? '',
    messages: [],
  };
  if (!['1', '2', '3', '4'].includes(interchange.syntax.version)) problems.push({ code: SYNTAX_CODE.unsupported, message: `syntax version ${interchange.syntax.version} is not supported`, position: `${at(unb)}, element 1` });
  if (value(unz, 1) !== interchange.reference) problems.push({ code: SYNTAX_CODE.referenceMismatch, message: `UNZ names interchange ${value(unz, 1)}, UNB ${interchange.reference}`, position: `${at(unz)}, element 2` });
  let open: { unh: Segment; segments: Segment[] } | undefined;
  // Functional groups (UNG ... UNE): their messages are the interchange's; the UNE counts them, and
  // the UNZ counts groups instead of messages where there are groups.
  let group: { ung: Segment; messages: number } | undefined;
  let groups = 0;
  for (const segment of segments.slice(1, -1)) {
    if (segment.tag === 'UNG') {
      if (group) problems.push({ code: SYNTAX_CODE.missing, message: `group ${value(group.ung, 4)} has no UNE before the next UNG`, position: at(segment) });
      group = { ung: segment, messages: 0 };
      groups++;
      continue;
    }
    if (segment.tag === 'UNE') {
      if (!group) {
        problems.push({ code: SYNTAX_CODE.invalid, message: 'UNE without a UNG', position: at(segment) });
        continue;
      }
      if (Number(value(segment, 0)) !== group.messages) problems.push({ code: SYNTAX_CODE.countMismatch, message: `UNE counts ${value(segment, 0)} messages, the group has ${group.messages}`, position: `${at(segment)}, element 1` });
      if (value(segment, 1) !== value(group.ung, 4)) problems.push({ code: SYNTAX_CODE.referenceMismatch, message: `UNE names group ${value(segment, 1)}, UNG ${value(group.ung, 4)}`, position: `${at(segment)}, element 2` });
      group = undefined;
      continue;
    }
    if (segment.tag === 'UNH') {
      if (open) problems.push({ code: SYNTAX_CODE.missing, message: `message ${value(open.unh, 0)} has no UNT before the next UNH`, position: at(segment) });
      open = { unh: segment, segments: [segment] };
      continue;
    }
    if (!open) {
      problems.push({ code: SYNTAX_CODE.invalid, message: `${segment.tag} outside a message`, position: at(segment) });
      continue;
    }
    open.segments.push(segment);
    if (segment.tag !== 'UNT') continue;
    const message = messageOf(open.unh, open.segments, value);
    // Added one at a time: a broken interchange may have more problems than a call has room for arguments.
    const inMessage = { messageReference: message.reference, messageIndex: interchange.messages.length };
    const add = (found: Iterable<SyntaxProblem>) => {
      for (const p of found) problems.push({ ...p, ...inMessage });
    };
    if (Number(value(segment, 0)) !== open.segments.length) {
      add([{ code: SYNTAX_CODE.countMismatch, message: `UNT counts ${value(segment, 0)} segments, the message has ${open.segments.length}`, position: `${at(segment)}, element 1` }]);
    }
    if (value(segment, 1) !== message.reference) add([{ code: SYNTAX_CODE.referenceMismatch, message: `UNT names message ${value(segment, 1)}, UNH ${message.reference}`, position: `${at(segment)}, element 2` }]);
    // Checked against its directory where the gateway has the message's table (IFTMIN, IFTSTA,
    // APERAK); another message is refused by type, its envelope checked all the same.
    const directory = directories(message.version, message.release);
    if (directory?.messages[message.type]) {
      for (const s of message.segments) add(elementProblems(s, directory));
      add(structureProblems(message, directory));
    } else for (const s of message.segments) if (s.tag === 'UNH' || s.tag === 'UNT') add(elementProblems(s, undefined));
    interchange.messages.push(message);
    if (group) group.messages++;
    open = undefined;
  }
  if (open) problems.push({ code: SYNTAX_CODE.missing, message: `message ${value(open.unh, 0)} has no UNT`, position: at(open.unh) });
  if (group) problems.push({ code: SYNTAX_CODE.missing, message: `group ${value(group.ung, 4)} has no UNE`, position: at(group.ung) });
  const counted = groups ? { n: groups, what: 'groups' } : { n: interchange.messages.length, what: 'messages' };
  if (Number(value(unz, 0)) !== counted.n) {
    problems.push({ code: SYNTAX_CODE.countMismatch, message: `UNZ counts ${value(unz, 0)} ${counted.what}, the interchange has ${counted.n}`, position: `${at(unz)}, element 1` });
  }
  return { interchange, problems };
}

function messageOf(unh: Segment, segments: Segment[], value: (s: Segment, e: number, c?: number) => string | undefined): EdifactMessage {
  return {
    reference: value(unh, 0) ?? '',
    type: value(unh, 1) ?? '',
    version: value(unh, 1, 1) ?? '',
    release: value(unh, 1, 2) ?? '',
    agency: value(unh, 1, 3) ?? '',
    association: value(unh, 1, 4),
    segments,
  };
}

/** The message's segments against its segment table (order, mandatory segments, repetitions). */
function structureProblems(message: EdifactMessage, directory: Directory): SyntaxProblem[] {
  const table = directory.messages[message.type];
  if (!table) return [];
  const problems: SyntaxProblem[] = [];
  const tracker = new Tracker(table);
  let current: Segment | undefined;
  tracker.on('error', (err: Error) => {
    problems.push({ code: /repeated/.test(err.message) ? SYNTAX_CODE.tooMany : SYNTAX_CODE.invalid, message: err.message, position: current ? `segment ${current.position} (${current.tag})` : undefined, messageReference: message.reference });
  });
  for (const segment of message.segments) {
    current = segment;
    tracker.accept(segment.tag);
    if (problems.length) break; // the first misplaced segment says it; the rest would only echo it
  }
  return problems;
}
