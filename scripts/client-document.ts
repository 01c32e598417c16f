// The document the Python and Java clients are generated from (clients/openapi.json): the bundled
// OpenAPI document as served, narrowed to what a connector calls and rewritten only where the
// generators (openapi-python-client, openapi-generator) cannot read JSON Schema 2020-12 as it is.
// What a rewrite loses is typing in the client, never a member on the wire (docs/clients.md).
//
//   npm run clients            writes clients/openapi.json
//   npm run clients -- --check exits 1 when the committed file is not the document of the routes now
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { documents } from '../api/app';
import { typedInheritedProperties } from './generate-contract';

export const CLIENT_DOCUMENT_FILE = join(__dirname, '..', 'clients', 'openapi.json');

/**
 * Not for a connector's client: the broker's own pages, the development sandbox, and token
 * introspection (RFC 7662: for the resource servers behind the broker; its `aud`, a string or a
 * list, is a union openapi-generator's Java cannot compile).
 */
const NOT_FOR_CLIENTS = [/^\/console(\/|$)/, /^\/docs(\/|$)/, /^\/sandbox(\/|$)/, /^\/oauth2\/introspect$/];

type Json = any;

/** The client document for the routes as they are now. */
export function clientDocument(): Json {
  const served = documents.bundled('http://localhost:8080');
  const document = typedInheritedProperties(served);
  document.paths = Object.fromEntries(Object.entries(document.paths).filter(([path]) => !NOT_FOR_CLIENTS.some((re) => re.test(path))));
  const schemas: Record<string, Json> = document.components.schemas;
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = readable(schema);
  hoistInlineObjects(schemas);
  return dropUnreferenced(document);
}

/**
 * A schema the generators read: a boolean property schema (`true`, the envelope's members listed
 * for unevaluatedProperties) becomes `{}`; a tuple's `prefixItems` is dropped where `items` types
 * the rest (a GeoJSON position is a list of numbers to a client); a string `const` says its type,
 * and a boolean one is a boolean.
 */
function readable(node: Json, key = ''): Json {
  if (Array.isArray(node)) return node.map((n) => readable(n));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries<Json>(node)) {
    if (key === 'properties' && typeof v === 'boolean') out[k] = v ? {} : { not: {} };
    else if (k === 'prefixItems' && node.items && typeof node.items === 'object') continue;
    else if (k === 'items' && v === false) continue;
    else out[k] = readable(v, k);
  }
  if (typeof out.const === 'string' && out.type === undefined) out.type = 'string';
  // openapi-generator's Java writes an untyped enum's items as strings in some places and as the enum in others.
  if (Array.isArray(out.enum) && out.type === undefined && out.enum.every((v: unknown) => typeof v === 'string')) out.type = 'string';
  // openapi-python-client writes a boolean constant's check without a space (`!= Trueand`).
  if (typeof out.const === 'boolean') {
    delete out.const;
    out.type = 'boolean';
  }
  return out;
}

/**
 * Inline object schemas become components of their own, named after where they stand (a union's
 * member after its discriminating constant). openapi-python-client names an inline object after
 * the component that holds it, so one inherited by two components through `allOf` was generated
 * twice under one name, and both components were dropped; and it cannot build a union nested in a
 * union's inline member (the polygon areas).
 */
function hoistInlineObjects(schemas: Record<string, Json>): void {
  const pascal = (s: string) => s.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, __, c: string) => c.toUpperCase());
  const unique = (name: string) => {
    let candidate = name;
    for (let i = 2; schemas[candidate]; i++) candidate = `${name}${i}`;
    return candidate;
  };
  const hoist = (schema: Json, name: string): Json => {
    const component = unique(name);
    schemas[component] = schema;
    visit(schema, component, true);
    return { $ref: `#/components/schemas/${component}` };
  };
  const memberName = (member: Json, i: number) => {
    const constant = Object.values<Json>(member.properties ?? {}).find((p) => typeof p?.const === 'string')?.const;
    return constant ? pascal(constant) : `Option${i + 1}`;
  };
  const isObject = (s: Json) => s && typeof s === 'object' && !s.$ref && s.properties && Object.keys(s.properties).length > 0;
  const isEnum = (s: Json) => s && typeof s === 'object' && Array.isArray(s.enum);
  /** An object inside `schema` becomes a component; `top`: `schema` is a component itself. */
  function visit(schema: Json, name: string, top = false): void {
    if (!schema || typeof schema !== 'object') return;
    for (const [prop, sub] of Object.entries<Json>(schema.properties ?? {})) {
      if (isObject(sub)) schema.properties[prop] = hoist(sub, name + pascal(prop));
      else visit(sub, name + pascal(prop));
    }
    // An enum of a list's items too: openapi-generator's Java iterates an inline one as strings.
    if (isObject(schema.items) || isEnum(schema.items)) schema.items = hoist(schema.items, `${name}Item`);
    else visit(schema.items, `${name}Item`);
    if (isObject(schema.additionalProperties)) schema.additionalProperties = hoist(schema.additionalProperties, `${name}Value`);
    for (const union of ['oneOf', 'anyOf', 'allOf'] as const) {
      if (!Array.isArray(schema[union])) continue;
      // A component's own union is left to the generator, which names its members well; a union
      // deeper down has its object members hoisted.
      schema[union] = schema[union].map((member: Json, i: number) => {
        if (!isObject(member) || top || union === 'allOf') return visit(member, name + memberName(member, i)), member;
        return hoist(member, name + memberName(member, i));
      });
    }
  }
  for (const [name, schema] of Object.entries(schemas)) visit(schema, name, true);
}

/** Components no path reaches (the sandbox's, the console's) are left out. */
function dropUnreferenced(document: Json): Json {
  const schemas = document.components.schemas;
  const reached = new Set<string>();
  const walk = (node: Json) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/components/schemas/')) {
      const name = node.$ref.slice('#/components/schemas/'.length);
      if (!reached.has(name)) {
        reached.add(name);
        walk(schemas[name]);
      }
    }
    for (const v of Object.values(node)) walk(v);
  };
  walk({ ...document, components: { ...document.components, schemas: undefined } });
  document.components.schemas = Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name)));
  return document;
}

if (require.main === module) {
  const text = `${JSON.stringify(clientDocument(), null, 2)}\n`;
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(CLIENT_DOCUMENT_FILE, 'utf8');
    } catch {}
    if (committed !== text) {
      process.stderr.write(`${CLIENT_DOCUMENT_FILE} is not the document of the routes now: run \`npm run clients\` and commit it (the clients are generated from it).\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(CLIENT_DOCUMENT_FILE, text);
    process.stderr.write(`wrote ${CLIENT_DOCUMENT_FILE}\n`);
  }
}
