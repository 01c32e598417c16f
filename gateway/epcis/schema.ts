// GS1's JSON Schema for EPCIS 2.0 (gateway/epcis/EPCIS-JSON-Schema.json, vendored as published:
// gateway/epcis/README.md), compiled with ajv (draft-07, the schema's $schema) and ajv-formats, as
// GS1's own validate scripts do: once, when first needed (the validator that decides at the first
// document, the one that finds every error at the first invalid one). Its errors become quarantine
// reasons, one per JSON Pointer, at most MAX_REASONS.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { QuarantineReason } from '../store';
import { at } from './json';

export const SCHEMA_FILE = join(__dirname, 'EPCIS-JSON-Schema.json');
/** The schema's version, named in the profile's description: the file's git blob in github.com/gs1/EPCIS, and when it last changed there. */
export const SCHEMA_VERSION = "GS1's EPCIS 2.0 JSON Schema (github.com/gs1/EPCIS EPCIS-JSON-Schema.json, blob 4a83ec4e, changed 2022-07-13)";
const MAX_REASONS = 10;

/** A document of more values than this is searched for its first error only (see `schemaReasons`). */
export const SEARCHED_VALUES = 10_000;
const compiled: { first?: ValidateFunction; all?: ValidateFunction } = {};

function compile(allErrors: boolean): ValidateFunction {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
  const definitions = schema.definitions;
  definitions.epcList.items.type = 'string';
  for (const list of ['set', 'unset']) definitions.persistentDisposition.allOf[0].properties[list].items.type = 'string';
  const ajv = new Ajv({ allErrors, strict: false, logger: false });
  addFormats(ajv);
  return ajv.compile(schema);
}

/**
 * The validator that stops at a document's first error: what decides. One change is made in
 * memory, not to the file: `"type": "string"` beside the `$ref` of the items of `uniqueItems`
 * arrays whose items are strings by the referenced definition (epcList, persistentDisposition's
 * set and unset). It accepts and refuses exactly the same documents, and lets ajv check uniqueness
 * with a hash (linear) instead of comparing every pair (quadratic: 10 000 EPCs took 0.8 s).
 */
export function validator(): ValidateFunction {
  return (compiled.first ??= compile(false));
}

/**
 * The validator that finds every error, compiled when a first document is invalid. ajv merges the
 * errors of a referenced definition into its caller's by copying them, so its time grows with the
 * square of the errors (30 000 took a second): it only searches documents of at most
 * SEARCHED_VALUES values; a larger invalid document is told its first error.
 */
const everyError = (): ValidateFunction => (compiled.all ??= compile(true));

/** Keywords that only say a sub-schema failed: left out where a more precise error says why. */
const WRAPPERS = new Set(['if', 'then', 'else', 'anyOf', 'allOf', 'oneOf', 'not', '$ref']);

function describe(e: ErrorObject): string {
  let text = e.message ?? e.keyword;
  if (e.keyword === 'additionalProperties') text += ` ("${(e.params as { additionalProperty: string }).additionalProperty}")`;
  if (e.propertyName !== undefined) text = `property name "${e.propertyName.slice(0, 80)}": ${text}`;
  return text;
}

/** Quarantine reasons (SCHEMA_INVALID) for what GS1's schema finds wrong, or none. */
export function schemaReasons(document: unknown, values = Infinity): QuarantineReason[] {
  const first = validator();
  if (first(document)) return [];
  const searched = values <= SEARCHED_VALUES;
  const all = searched ? everyError() : undefined;
  if (all) all(document);
  const errors = (all ? all.errors : first.errors) ?? [];
  // The pointers at or above a precise error: a wrapper there says nothing more.
  const explained = new Set<string>();
  for (const e of errors) {
    if (WRAPPERS.has(e.keyword)) continue;
    for (let pointer = e.instancePath; !explained.has(pointer); pointer = pointer.slice(0, Math.max(0, pointer.lastIndexOf('/')))) {
      explained.add(pointer);
      if (!pointer) break;
    }
  }
  const kept = errors.filter((e) => !WRAPPERS.has(e.keyword) || !explained.has(e.instancePath));
  const byPointer = new Map<string, string[]>();
  for (const e of kept) {
    const texts = byPointer.get(e.instancePath) ?? [];
    const text = describe(e);
    if (!texts.includes(text)) texts.push(text);
    byPointer.set(e.instancePath, texts);
  }
  const reasons: QuarantineReason[] = [];
  for (const [pointer, texts] of byPointer) {
    if (reasons.length === MAX_REASONS) break;
    const value = at(document, pointer);
    // The URN form of a CBV term is EPCIS 1.x XML's; the schema's pattern says only "must match".
    const hint = typeof value === 'string' && value.startsWith('urn:epcglobal:cbv:') ? ' (EPCIS 2.0 JSON writes a CBV term bare, e.g. "departing", or as its Web URI https://ref.gs1.org/cbv/BizStep-departing; the urn:epcglobal:cbv: form is EPCIS 1.x XML\'s)' : '';
    reasons.push({ code: 'SCHEMA_INVALID', message: `GS1's EPCIS 2.0 JSON Schema: ${texts.join('; ')}${hint}`, position: pointer });
  }
  const more = byPointer.size - reasons.length;
  if (more > 0) reasons[reasons.length - 1].message += ` (and ${more} more places)`;
  if (!searched) reasons[reasons.length - 1].message += ` (the first error found: a document of more than ${SEARCHED_VALUES} values is not searched for all)`;
  return reasons;
}
