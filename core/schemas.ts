// JSON Schema 2020-12 files in schemas/ are the source of truth for payloads. Each file's $id is
// {schema_base}/v0/<name>; this module loads them all, rewrites the base to the configured one and
// compiles validators with ajv. A failure lists every bad field as a JSON pointer and a message.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Problem, type FieldError } from '../domain/problems';

export const SCHEMA_DIR = join(__dirname, '..', 'schemas');
/** The base written in the files; replaced by the configured SCHEMA_BASE when loaded. */
export const FILE_SCHEMA_BASE = 'https://schemas.pcx.example';

export function loadSchemaFiles(schemaBase: string): Map<string, any> {
  const schemas = new Map<string, any>();
  for (const file of readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.json')).sort()) {
    const text = readFileSync(join(SCHEMA_DIR, file), 'utf8').split(FILE_SCHEMA_BASE).join(schemaBase);
    schemas.set(file.replace(/\.json$/, ''), JSON.parse(text));
  }
  return schemas;
}

export class SchemaRegistry {
  private readonly ajv: Ajv2020;
  readonly documents: Map<string, any>;

  constructor(private readonly schemaBase: string) {
    // strictTuples off: a GeoJSON position is [lon, lat] with an optional altitude (open tuple).
    // strictRequired off: if/then blocks require fields declared beside them (bodyType 'other').
    this.ajv = new Ajv2020({ allErrors: true, strict: true, strictTuples: false, strictRequired: false, allowUnionTypes: true });
    addFormats(this.ajv);
    this.documents = loadSchemaFiles(schemaBase);
    for (const doc of this.documents.values()) this.ajv.addSchema(doc);
  }

  /** Validator for a schema file, or for one of its $defs: `partner-relationship#/$defs/CreateRequest`. */
  validator(ref: string): ValidateFunction {
    const [name, fragment] = ref.split('#');
    const id = `${this.schemaBase}/v0/${name}${fragment ? `#${fragment}` : ''}`;
    const fn = this.ajv.getSchema(id);
    if (!fn) throw new Error(`no schema ${id}`);
    return fn;
  }

  /**
   * Validator for a schema that is not one of the files (an OpenAPI document's inline response
   * schema), with the same settings; it may reference the files by their ids.
   */
  compile(schema: object): ValidateFunction {
    return this.ajv.compile(schema);
  }

  /** Validates and throws a VALIDATION_FAILED problem naming each bad field. */
  assert<T>(ref: string, value: unknown): T {
    const validate = this.validator(ref);
    if (!validate(value)) throw new Problem('VALIDATION_FAILED', 'the request body does not match the schema', { errors: fieldErrors(validate.errors ?? []) });
    return value as T;
  }
}

export function fieldErrors(errors: ErrorObject[]): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    let pointer = e.instancePath;
    let message = e.message ?? 'is not valid';
    if (e.keyword === 'required') pointer = `${pointer}/${(e.params as any).missingProperty}`, (message = 'is required');
    if (e.keyword === 'additionalProperties') pointer = `${pointer}/${(e.params as any).additionalProperty}`, (message = 'is not an allowed property');
    if (e.keyword === 'enum') message = `must be one of ${(e.params as any).allowedValues.join(', ')}`;
    if (e.keyword === 'dependentRequired') {
      pointer = `${pointer}/${(e.params as any).missingProperty}`;
      message = `is required together with ${(e.params as any).property}`;
    }
    const dependent = /\/dependentSchemas\/([^/]+)\/not$/.exec(e.schemaPath);
    if (e.keyword === 'not' && dependent) {
      pointer = `${pointer}/${dependent[1]}`;
      message = 'conflicts with the same field in the other form';
    }
    const key = `${pointer} ${message}`;
    if (!seen.has(key)) seen.add(key), out.push({ pointer, message });
  }
  return out;
}
