// Reading a JSON document that may be hostile, with bounds on everything before anything else
// reads it: its length before parsing; its nesting, by a linear scan before parsing (nothing
// afterwards recurses deeper than this); then, walking the parsed value without recursion, the
// number of values, the length of each array, and keys that would reach an object's prototype in
// code less careful than JSON.parse (`__proto__`, `constructor`, `prototype`). Each bound broken
// is a quarantine reason with where it is (a character position, or a JSON Pointer).
import type { QuarantineReason } from '../store';

export const LIMITS = {
  /** Characters of the document (the gateway's own `maxMessageBytes`, 1 MB by default, is usually lower). */
  characters: 4_000_000,
  /** Nesting of arrays and objects (GS1's richest example nests 12 deep). */
  depth: 32,
  /** Values in the document (objects, arrays, strings, numbers, …). */
  values: 200_000,
  /** Items of one array. */
  arrayItems: 10_000,
  /** Items of one `@context` array (whose objects GS1's schema compares pairwise). */
  contextItems: 50,
  /** Events in one document. */
  events: 1_000,
} as const;

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A JSON Pointer (RFC 6901) token. */
export const token = (key: string | number) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

/** Line and column (from 1) of a character position. */
function lineAndColumn(text: string, position: number): string {
  let line = 1;
  let start = 0;
  for (let i = 0; i < position && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return `line ${line}, column ${position - start + 1}`;
}

/** The first place the text nests deeper than the limit (outside strings), or nothing. */
function tooDeep(text: string, limit: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash escapes the next character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > limit) return i;
    } else if (c === 93 || c === 125) depth--;
  }
  return undefined;
}

/** A parsed document, with how many values it holds (objects, arrays, strings, numbers, …). */
export type ParsedJson = { ok: true; value: unknown; values: number } | { ok: false; reasons: QuarantineReason[] };

/** Parses a document within the bounds, or says which one it breaks and where. */
export function parseJson(text: string): ParsedJson {
  const fail = (code: string, message: string, position?: string): ParsedJson => ({ ok: false, reasons: [{ code, message, ...(position !== undefined ? { position } : {}) }] });
  if (text.length > LIMITS.characters) return fail('TOO_LARGE', `the document has ${text.length} characters; at most ${LIMITS.characters} are read`);
  const deep = tooDeep(text, LIMITS.depth);
  if (deep !== undefined) return fail('TOO_DEEP', `arrays and objects nest deeper than ${LIMITS.depth} levels`, `character ${deep + 1} (${lineAndColumn(text, deep)})`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const at = /position (\d+)/.exec(message);
    return fail('NOT_JSON', `not JSON: ${message.slice(0, 200)}`, at ? `character ${Number(at[1]) + 1} (${lineAndColumn(text, Number(at[1]))})` : undefined);
  }
  const { reasons, values } = walk(value);
  return reasons.length ? { ok: false, reasons } : { ok: true, value, values };
}

/** Counts values and checks arrays and keys, without recursion; the first reason of each kind. */
function walk(root: unknown): { reasons: QuarantineReason[]; values: number } {
  const reasons: QuarantineReason[] = [];
  const found = new Set<string>();
  const add = (code: string, message: string, position: string) => {
    if (found.has(code)) return;
    found.add(code);
    reasons.push({ code, message, position });
  };
  let values = 0;
  const stack: Array<[unknown, string, string | undefined]> = [[root, '', undefined]];
  while (stack.length) {
    const [value, pointer, key] = stack.pop()!;
    if (++values > LIMITS.values) {
      add('TOO_LARGE', `the document holds more than ${LIMITS.values} values`, pointer);
      break;
    }
    if (Array.isArray(value)) {
      const limit = key === '@context' ? LIMITS.contextItems : LIMITS.arrayItems;
      if (value.length > limit) {
        add('TOO_MANY_ITEMS', `an array of ${value.length} items; at most ${limit} are read${key === '@context' ? ' in a @context' : ''}`, pointer);
        continue;
      }
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${pointer}/${i}`, undefined]);
    } else if (value !== null && typeof value === 'object') {
      for (const k of Object.keys(value)) {
        if (UNSAFE_KEYS.has(k)) add('UNSAFE_KEY', `the key "${k}" is never read (it names an object's prototype in JavaScript)`, `${pointer}/${token(k)}`);
        stack.push([(value as Record<string, unknown>)[k], `${pointer}/${token(k)}`, k]);
      }
    }
  }
  return { reasons, values };
}

/** The value at a JSON Pointer, or undefined (own properties only). */
export function at(root: unknown, pointer: string): unknown {
  if (!pointer) return root;
  let value = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
