// The self-contained OpenAPI document (GET /openapi.bundled.json, docs/decisions.md "Bundled
// OpenAPI document"): the document (api/documents.ts) with every JSON Schema it reaches, directly or
// through other schemas, copied under components/schemas and every $ref made internal. Built from
// the schema files when the broker starts; they stay the only source of the bodies.
//
// Names are derived, never positional: a file's root schema is the file name in PascalCase
// (`capacity-offer.json` -> `CapacityOffer`), one of its $defs the file name and the definition
// (`capacity-offer.json#/$defs/CreateRequest` -> `CapacityOfferCreateRequest`), and a schema
// referenced deeper inside a definition adds the names along the pointer
// (`logistics.json#/$defs/Handling/properties/temperature` -> `LogisticsHandlingTemperature`).
// Adding a schema or a definition therefore never renames another one.
import { FILE_SCHEMA_BASE, loadSchemaFiles } from '../core/schemas';

type Json = any;

/** A reference of the source document to a schema file: `./capacity-offer.json#/$defs/Page`. */
const FILE_REF = /^\.\/([a-z0-9-]+)\.json(?:#(.*))?$/;
/** Schema ids of the files: `https://schemas.pcx.example/v0/<name>`. */
const FILE_ID = new RegExp(`^${FILE_SCHEMA_BASE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/v0/([a-z0-9-]+)$`);
/** Keywords whose values are data, not schemas: never read as holding references. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);
/** Pointer segments that only say where a schema sits (left out of derived names). */
const STRUCTURAL = new Set(['$defs', 'properties', 'items', 'prefixItems', 'additionalProperties', 'patternProperties', 'allOf', 'anyOf', 'oneOf']);

/** A schema the bundle names: a file and a JSON pointer into it ('' for the file's root). */
interface Target {
  file: string;
  pointer: string;
}
const keyOf = (t: Target) => `${t.file}#${t.pointer}`;

const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');

const unescapeToken = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');
const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The components/schemas name of a target (see the header). */
export function componentName(file: string, pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => unescapeToken(decodeURIComponent(s)))
    .filter((s) => !STRUCTURAL.has(s));
  return pascal(file) + segments.map(pascal).join('');
}

function resolvePointer(root: Json, pointer: string): Json {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const token = unescapeToken(decodeURIComponent(raw));
    if (node === null || typeof node !== 'object' || !(token in node)) return undefined;
    node = node[token];
  }
  return node;
}

/** The target a `$ref` written in schema file `file` points at. */
function schemaRefTarget(file: string, ref: string): Target {
  const url = new URL(ref, `${FILE_SCHEMA_BASE}/v0/${file}`);
  const m = FILE_ID.exec(`${url.origin}${url.pathname}`);
  if (!m) throw new Error(`schema ${file}: reference ${ref} leaves the schema files`);
  return { file: m[1], pointer: decodeURIComponent(url.hash.replace(/^#/, '')) };
}

/**
 * Walks a schema: `ref` for every `$ref`, `part` for every subschema that `isPart` says is a
 * component of its own (not entered). Data keywords are not schemas; `$defs` of the schema walked
 * are left out (each definition is a component of its own, when something references it).
 */
function walk(node: Json, pointer: string, on: { ref: (ref: string) => void; isPart?: (pointer: string) => boolean; part?: (pointer: string) => void }, root = true): void {
  if (!root && on.isPart?.(pointer)) return on.part?.(pointer);
  if (Array.isArray(node)) return node.forEach((v, i) => walk(v, `${pointer}/${i}`, on, false));
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') on.ref(v);
    else if (k === '$defs' && root) continue;
    else if (!DATA_KEYWORDS.has(k)) walk(v, `${pointer}/${escapeToken(k)}`, on, false);
  }
}

/**
 * The bundled document: `source` (api/documents.ts) with `servers` naming the broker at
 * `publicBaseUrl`, every reachable schema of the files in components/schemas, no external $ref.
 * Throws when two schemas would get one name, or a reference does not resolve.
 */
export function bundleOpenApi(publicBaseUrl: string, source: Json): Json {
  const doc = structuredClone(source);
  const files = loadSchemaFiles(FILE_SCHEMA_BASE);
  const targets = new Map<string, Target & { name: string; schema: Json }>();
  const names = new Map<string, string>(); // name -> target key
  // Every location some schema file references. A subschema referenced on its own (a deep target)
  // is a component wherever it appears, so a component's content depends on the files alone,
  // never on which operations the document has.
  const referenced = new Set<string>();
  for (const [file, schema] of files) walk(schema, '', { ref: (ref) => referenced.add(keyOf(schemaRefTarget(file, ref))) }, false);

  const reach = (target: Target): string => {
    const key = keyOf(target);
    const known = targets.get(key);
    if (known) return known.name;
    const file = files.get(target.file);
    const schema = file === undefined ? undefined : resolvePointer(file, target.pointer);
    if (schema === undefined) throw new Error(`OpenAPI bundle: ${key} does not resolve`);
    const name = componentName(target.file, target.pointer);
    if (names.has(name)) throw new Error(`OpenAPI bundle: ${key} and ${names.get(name)} would both be named ${name}`);
    names.set(name, key);
    targets.set(key, { ...target, name, schema });
    walk(schema, target.pointer, {
      ref: (ref) => reach(schemaRefTarget(target.file, ref)),
      isPart: (pointer) => referenced.has(`${target.file}#${pointer}`),
      part: (pointer) => reach({ file: target.file, pointer }),
    });
    return name;
  };

  // The document's own references to files become references to components.
  const rewriteDocument = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(rewriteDocument);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      const m = k === '$ref' && typeof v === 'string' ? FILE_REF.exec(v) : null;
      out[k] = m ? `#/components/schemas/${reach({ file: m[1], pointer: m[2] ?? '' })}` : rewriteDocument(v);
    }
    return out;
  };
  const bundled = rewriteDocument(doc);

  // Each component: its schema with references made internal; a part of it that is a component
  // itself (a deep target such as LogisticsHandlingTemperature) becomes a reference to that one.
  const byLocation = new Map([...targets.values()].map((t) => [keyOf(t), t.name]));
  const copy = (file: string, node: Json, pointer: string, root: boolean): Json => {
    if (!root && byLocation.has(`${file}#${pointer}`)) return { $ref: `#/components/schemas/${byLocation.get(`${file}#${pointer}`)}` };
    if (Array.isArray(node)) return node.map((v, i) => copy(file, v, `${pointer}/${i}`, false));
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out[k] = `#/components/schemas/${byLocation.get(keyOf(schemaRefTarget(file, v)))}`;
      else if (root && (k === '$id' || k === '$schema' || k === '$defs')) continue; // ids would rebase the internal references
      else if (k === '$id' || k === '$anchor' || k === '$dynamicAnchor' || k === '$dynamicRef') throw new Error(`OpenAPI bundle: ${file}#${pointer} uses ${k}`);
      else out[k] = DATA_KEYWORDS.has(k) ? structuredClone(v) : copy(file, v, `${pointer}/${escapeToken(k)}`, false);
    }
    return out;
  };

  const own: Record<string, Json> = bundled.components?.schemas ?? {};
  for (const name of Object.keys(own)) {
    if (names.has(name)) throw new Error(`OpenAPI bundle: components/schemas/${name} of the document's frame (openapi.yaml) and ${names.get(name)} would share a name`);
  }
  const generated = [...targets.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  bundled.components = {
    ...bundled.components,
    schemas: { ...own, ...Object.fromEntries(generated.map((t) => [t.name, copy(t.file, t.schema, t.pointer, true)])) },
  };
  return withServer(bundled, publicBaseUrl);
}

/** The document with `servers` naming this broker (right after `info`, where readers look for it). */
export function withServer(doc: Json, publicBaseUrl: string): Json {
  const { openapi, info, servers: _servers, ...rest } = doc;
  return { openapi, info, servers: [{ url: publicBaseUrl, description: 'This broker (its PUBLIC_BASE_URL).' }], ...rest };
}
