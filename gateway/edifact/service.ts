// The UN/EDIFACT service layer (ISO 9735 syntax versions 3 and 4): which bytes are which
// characters (the character set the UNB's syntax identifier names), which characters separate
// (the UNA service string advice, or the defaults of the syntax level), and the segments,
// elements, repetitions and components they make, with the release character undone. Pure: the
// directory's checks and the envelope are syntax.ts's.
//
// - UNA: `UNA` and six characters: component separator, data element separator, decimal mark,
//   release character, repetition separator (syntax 4; a space, "reserved", in syntax 3) and
//   segment terminator. Any characters may serve. Without UNA: `:+.? '` (level A, with `*` as the
//   repetition separator in syntax 4) or, when the UNB is followed by the IS3 character, level B's
//   information separators (US, GS, RS, with no release character).
// - Character sets: UNOA and UNOB (ASCII subsets; read tolerantly as ASCII), UNOC (ISO 8859-1),
//   UNOD (8859-2), UNOE (8859-5), UNOF (8859-7), UNOG (8859-3), UNOH (8859-4), UNOI (8859-6),
//   UNOJ (8859-8), UNOK (8859-9), UNOW and UNOY (UTF-8: ISO 10646 as it travels). UNOX (ISO 2022
//   code extension) is refused as not supported.
// - Line breaks are not data: after a segment terminator (how files are usually written) nor inside
//   a segment (a mail transport's wrapping at 998 characters).
import iconv from 'iconv-lite';

export interface ServiceCharacters {
  component: string;
  element: string;
  decimal: string;
  release: string | undefined;
  /** Syntax 4's repetition separator; undefined in syntax 3 (or where UNA reserves it with a space). */
  repetition: string | undefined;
  terminator: string;
}

export const LEVEL_A: ServiceCharacters = { component: ':', element: '+', decimal: '.', release: '?', repetition: undefined, terminator: "'" };
const LEVEL_B: ServiceCharacters = { component: '\u001f', element: '\u001d', decimal: '.', release: undefined, repetition: '\u0019', terminator: '\u001c' };

/** The encodings of the UN/EDIFACT character sets (UNB S001/0001), for iconv-lite. */
export const CHARACTER_SETS: Readonly<Record<string, string>> = {
  UNOA: 'latin1', UNOB: 'latin1', UNOC: 'latin1', UNOD: 'iso-8859-2', UNOE: 'iso-8859-5', UNOF: 'iso-8859-7',
  UNOG: 'iso-8859-3', UNOH: 'iso-8859-4', UNOI: 'iso-8859-6', UNOJ: 'iso-8859-8', UNOK: 'iso-8859-9', UNOW: 'utf8', UNOY: 'utf8',
};

/** The syntax identifier and version a UNB names, read from the raw bytes (every set agrees on the ASCII letters of `UNB+UNOx:n`). */
export function syntaxOf(head: string): { identifier: string; version: string } | undefined {
  const m = /UNB(.)(UNO[A-Z])(?:(.)(\d))?/.exec(head);
  if (!m) return undefined;
  return { identifier: m[2], version: m[4] ?? '' };
}

/** An interchange's bytes as text, in the character set its UNB names (ISO 8859-1 when it names none or one unknown). */
export function decodeInterchange(bytes: Buffer): string {
  const head = bytes.subarray(0, 256).toString('latin1');
  const syntax = syntaxOf(head);
  const encoding = (syntax && CHARACTER_SETS[syntax.identifier]) ?? 'latin1';
  return iconv.decode(bytes, encoding).replace(/^\uFEFF/, '');
}

export interface Token {
  /** Position in the interchange, from 1 (UNA not counted). */
  position: number;
  tag: string;
  /** Elements, each a list of components; of a repeated element its first occurrence. */
  elements: string[][];
  /** Syntax 4: the further occurrences of repeated elements, by element index. */
  repetitions?: Record<number, string[][]>;
}

export interface Tokenized {
  characters: ServiceCharacters;
  segments: Token[];
}

export class TokenizeError extends Error {
  constructor(
    message: string,
    /** CONTRL's syntax error code (0085). */
    readonly code: string,
    readonly position?: string,
  ) {
    super(message);
    this.name = 'TokenizeError';
  }
}

/** The service characters of an interchange and where its segments begin (after the UNA). */
export function serviceCharactersOf(text: string): { characters: ServiceCharacters; start: number } {
  let body = text.replace(/^(\uFEFF|\u00EF\u00BB\u00BF)/, '');
  // What some exporters write before the UNA or UNB (Sage COALA's DOC+ header segment) is no part
  // of the interchange: it begins at the first UNA or UNB after a line break or a terminator.
  if (!/^UN[AB]/.test(body)) {
    const found = /(?:\r?\n|')(?=UN[AB])/.exec(body.slice(0, 64 * 1024));
    if (found) body = body.slice(found.index + found[0].length);
  }
  const skipped = text.length - body.length;
  if (body.startsWith('UNA')) {
    if (body.length < 9) throw new TokenizeError('the UNA service string advice is cut short: it has six characters after UNA', '12', 'UNA');
    const [component, element, decimal, release, repetition, terminator] = body.slice(3, 9);
    const characters: ServiceCharacters = { component, element, decimal, release: release === ' ' ? undefined : release, repetition: repetition === ' ' ? undefined : repetition, terminator };
    const used = [component, element, characters.release, characters.repetition, terminator].filter((c): c is string => c !== undefined);
    if (new Set(used).size !== used.length) throw new TokenizeError(`the UNA names one character for two purposes (${JSON.stringify(body.slice(3, 9))})`, '20', 'UNA');
    if (decimal !== '.' && decimal !== ',') throw new TokenizeError(`the UNA's decimal mark must be . or , (it is ${JSON.stringify(decimal)})`, '12', 'UNA');
    // Whatever follows the UNA before UNB (a line break) is no data.
    const rest = body.slice(9);
    return { characters, start: skipped + 9 + (rest.length - rest.replace(/^[\r\n]+/, '').length) };
  }
  // Without UNA: the defaults of the level the UNB's separator shows (syntax 4 adds `*` for repetitions).
  if (body.startsWith('UNB\u001d')) return { characters: LEVEL_B, start: skipped };
  const version = syntaxOf(body.slice(0, 64))?.version;
  return { characters: version === '4' ? { ...LEVEL_A, repetition: '*' } : LEVEL_A, start: skipped };
}

/** Splits an interchange into segments, elements, repetitions and components, with the release character undone. */
export function tokenize(text: string): Tokenized {
  const { characters, start } = serviceCharactersOf(text);
  const { component, element, release, repetition, terminator } = characters;
  const segments: Token[] = [];
  let elements: string[][] = [];
  let components: string[] = [];
  let current = '';
  let repeated: Record<number, string[][]> | undefined;
  let occurrence = 0; // of the element being read
  const endComponent = () => {
    components.push(current);
    current = '';
  };
  const endElement = () => {
    endComponent();
    if (occurrence === 0) elements.push(components);
    else ((repeated ??= {})[elements.length - 1] ??= []).push(components);
    components = [];
  };
  const endSegment = () => {
    endElement();
    const [tagElement, ...rest] = elements;
    const tag = tagElement[0] ?? '';
    const position = segments.length + 1;
    if (!/^[A-Z][A-Z0-9]{2}$/.test(tag)) throw new TokenizeError(`segment ${position} has no valid tag (${JSON.stringify(tag.slice(0, 12))})`, '22', `segment ${position}`);
    // A repeated element's occurrences belong to the element after the tag.
    const repetitions = repeated ? Object.fromEntries(Object.entries(repeated).map(([i, r]) => [Number(i) - 1, r])) : undefined;
    segments.push({ position, tag, elements: rest, ...(repetitions ? { repetitions } : {}) });
    elements = [];
    repeated = undefined;
    occurrence = 0;
  };
  const newline = terminator === '\n' || terminator === '\r';
  let inSegment = false;
  let lineStart = true; // no segment has begun on this line yet
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    // Between segments, line breaks (and the spaces some writers indent with, or leave at a line's
    // end) are layout, not data: no tag begins with a space.
    if (!inSegment && !newline) {
      if (ch === '\r' || ch === '\n') {
        lineStart = true;
        continue;
      }
      if (ch === ' ' || ch === '\t') {
        if (lineStart) continue;
        // A run of spaces up to a line break (or the end) is layout: skipped whole, in one pass.
        let j = i;
        while (j < text.length && (text[j] === ' ' || text[j] === '\t')) j++;
        if (j >= text.length || text[j] === '\r' || text[j] === '\n') {
          i = j - 1;
          continue;
        }
      }
    }
    // A line break inside a segment is a transport's wrapping (mail gateways break lines at 998
    // characters), never data: the character sets have no line break to carry.
    if (!newline && (ch === '\r' || ch === '\n')) continue;
    inSegment = true;
    lineStart = false;
    if (ch === release) {
      i++;
      if (i >= text.length) throw new TokenizeError('the interchange ends with a release character', '12', `segment ${segments.length + 1}`);
      current += text[i];
      continue;
    }
    if (ch === terminator) {
      endSegment();
      inSegment = false;
    } else if (ch === element) {
      endElement();
      occurrence = 0;
    } else if (ch === component) endComponent();
    else if (repetition !== undefined && ch === repetition && elements.length > 0) {
      endElement();
      occurrence++;
    } else {
      if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(ch)) {
        throw new TokenizeError(`segment ${segments.length + 1} holds the control character U+${ch.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`, '21', `segment ${segments.length + 1}`);
      }
      current += ch;
    }
  }
  // The last segment's terminator is often missing in files cut from logs or emails: tolerated.
  if (inSegment && (current !== '' || elements.length || components.length)) endSegment();
  return { characters, segments };
}

/** A numeric value with either decimal mark (ISO 9735: no triad separators, so a comma is only ever the decimal mark); NaN when it is none. */
export function numberOf(value: string | undefined): number {
  if (value === undefined || !/^-?(\d+([.,]\d*)?|[.,]\d+)$/.test(value)) return Number.NaN;
  return Number(value.replace(',', '.'));
}
