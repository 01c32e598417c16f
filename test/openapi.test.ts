// The OpenAPI document (schemas/openapi.yaml's frame, the paths generated from the operation
// declarations: api/documents.ts) against the Hono router and the schema files.
// Routes are static, so the app is built with stub services: no server, database or Temporal.
import { DELIVERY_STATUSES } from '../read-model/webhook-subscriptions';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, declaredOperations, documents } from '../api/app';
import { componentName } from '../api/openapi-bundle';
import type { Services } from '../api/context';
import { loadConfig, type Config } from '../core/config';
import { PROBLEMS, type ProblemCode } from '../domain/problems';
import { SCHEMA_DIR, SchemaRegistry } from '../core/schemas';
import { SCOPES } from '../domain/scopes';
import { RESOURCES } from '../domain/registry';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const PUBLIC_PATHS = ['/health/live', '/health/ready', '/metrics', '/codec/decode', '/codec/encode', '/openapi.json', '/openapi.bundled.json', '/asyncapi.json', '/schemas/v0/{name}', '/docs', '/docs/assets/{file}', '/console', '/console/', '/console/config.json', '/console/app/{file}', '/console/app/i18n/{file}', '/console/vendor/{file}', '/console/vendor/flags/{file}', '/console/basemap.geojson', '/console/places', '/console/place-search', '/oauth2/token', '/oauth2/introspect', '/oauth2/revoke', '/.well-known/jwks.json', '/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/oauth2', '/oauth2/.well-known/oauth-authorization-server', '/.well-known/transparency-log/checkpoint', '/.well-known/transparency-log/keys'];
/** Routes registered only while the development authorization server is on (and the sandbox with it). */
const DEV_AUTH_ONLY = ['POST /oauth2/token', 'POST /oauth2/introspect', 'POST /oauth2/revoke', 'GET /.well-known/jwks.json', 'GET /.well-known/oauth-authorization-server', 'GET /.well-known/oauth-authorization-server/oauth2', 'GET /oauth2/.well-known/oauth-authorization-server', 'GET /sandbox/connector-requests', 'POST /sandbox/faults', 'POST /sandbox/event-disorder', 'POST /sandbox/reset'];
const FILE_REF = /^\.\/([a-z0-9-]+)\.json(#.*)?$/;

type Json = any;

const silentLog = { debug() {}, info() {}, warn() {}, error() {} };

function stubServices(config: Config): Services {
  // Only what the routes touched below need; everything else is never reached.
  return { config, log: silentLog, schemas: new SchemaRegistry(config.schemaBase) } as unknown as Services;
}

function readDocument(): Json {
  return structuredClone(documents.source);
}

/** "METHOD /path/{param}" for every route the router registers, middleware ('ALL') excluded. */
function routerOperations(config: Config): string[] {
  const app = createApp(stubServices(config));
  const ops = app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?\??/g, '{$1}')}`);
  return [...new Set(ops)].sort();
}

function documentOperations(doc: Json): string[] {
  const ops: string[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) if (item[method]) ops.push(`${method.toUpperCase()} ${path}`);
  }
  return ops.sort();
}

function operations(doc: Json): { key: string; path: string; method: string; pathItem: Json; op: Json }[] {
  const out = [];
  for (const [path, pathItem] of Object.entries<Json>(doc.paths)) {
    for (const method of HTTP_METHODS) {
      if (pathItem[method]) out.push({ key: `${method.toUpperCase()} ${path}`, path, method, pathItem, op: pathItem[method] });
    }
  }
  return out;
}

/** Every `$ref` in a document, with the JSON pointer of the object that holds it. */
function refsOf(node: Json, at = ''): { at: string; ref: string }[] {
  if (Array.isArray(node)) return node.flatMap((v, i) => refsOf(v, `${at}/${i}`));
  if (node && typeof node === 'object') {
    return Object.entries(node).flatMap(([k, v]) =>
      k === '$ref' && typeof v === 'string' ? [{ at, ref: v }] : refsOf(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`),
    );
  }
  return [];
}

function resolvePointer(root: Json, pointer: string): Json {
  if (pointer === '' || pointer === '/') return pointer === '' ? root : root?.[''];
  let node = root;
  for (const raw of pointer.replace(/^\//, '').split('/')) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(token in node)) return undefined;
    node = node[token];
  }
  return node;
}

const schemaFiles = new Map<string, Json>();
function schemaFile(name: string): Json {
  if (!schemaFiles.has(name)) schemaFiles.set(name, JSON.parse(readFileSync(join(SCHEMA_DIR, `${name}.json`), 'utf8')));
  return schemaFiles.get(name);
}

/** Follows internal `#/components/...` references until a concrete object. */
function deref(doc: Json, node: Json): Json {
  let current = node;
  for (let i = 0; i < 10 && current && typeof current.$ref === 'string' && current.$ref.startsWith('#/'); i++) {
    current = resolvePointer(doc, current.$ref.slice(1));
  }
  return current;
}

/** Whether a schema is problem.json, directly, through a component, or as a part of allOf. */
function isProblemSchema(doc: Json, schema: Json): boolean {
  if (!schema) return false;
  if (schema.$ref === './problem.json') return true;
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/')) return isProblemSchema(doc, deref(doc, schema));
  return Array.isArray(schema.allOf) && schema.allOf.some((s: Json) => isProblemSchema(doc, s));
}

describe('the OpenAPI document', () => {
  const config = loadConfig({});
  const doc = readDocument();

  it('parses as an OpenAPI 3.1 document', () => {
    expect(typeof doc).toBe('object');
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info?.title).toEqual(expect.any(String));
    expect(doc.info?.version).toEqual(expect.any(String));
    expect(Object.keys(doc.paths ?? {}).length).toBeGreaterThan(0);
  });

  it('declares exactly the routes the router registers', () => {
    expect(config.auth.devServer).toBe(true); // the default configuration registers every route
    const router = routerOperations(config);
    const documented = documentOperations(doc);
    expect({
      missingFromDocument: router.filter((r) => !documented.includes(r)),
      missingFromRouter: documented.filter((d) => !router.includes(d)),
    }).toEqual({ missingFromDocument: [], missingFromRouter: [] });
  });

  it('documents every declared operation as the router declares it: scopes, body schema, success statuses', () => {
    createApp(stubServices(config)); // mounts every router, so that each has declared its operations
    const mismatches: string[] = [];
    const declared = declaredOperations();
    expect(declared.length).toBeGreaterThan(40);
    // Every route the app registers is declared, the public ones included (one declaration per operation).
    expect(routerOperations(config).filter((r) => !declared.some((op) => `${op.method} ${op.documentPath}` === r))).toEqual([]);
    for (const op of declared) {
      const key = `${op.method} ${op.documentPath}`;
      const documented = doc.paths?.[op.documentPath]?.[op.method.toLowerCase()];
      if (!documented) {
        mismatches.push(`${key}: not in the document`);
        continue;
      }
      // Security: none for a public route; one requirement of all the scopes, or one per alternative scope (anyScope).
      const expected = op.public ? [] : op.anyScope ? op.anyScope.map((s) => [...op.scopes, s].sort()) : [[...op.scopes].sort()];
      const actual = (documented.security ?? []).map((r: Json) => [...(r.oauth2 ?? [])].sort());
      if (JSON.stringify(actual.map((a: string[]) => a.join(' ')).sort()) !== JSON.stringify(expected.map((e) => e.join(' ')).sort())) {
        mismatches.push(`${key}: security ${JSON.stringify(actual)}, declared ${JSON.stringify(expected)}`);
      }
      // The body: the component the router validates against, by reference.
      const requestBody = documented.requestBody?.$ref ? deref(doc, documented.requestBody) : documented.requestBody;
      const bodyRef = requestBody?.content?.['application/json']?.schema?.$ref;
      const m = typeof bodyRef === 'string' ? FILE_REF.exec(bodyRef) : null;
      const documentedBody = m ? componentName(m[1], m[2]?.replace(/^#/, '') ?? '') : undefined;
      if (documentedBody !== op.body) mismatches.push(`${key}: body ${documentedBody ?? 'none'}, declared ${op.body ?? 'none'}`);
      for (const status of op.answers) if (!documented.responses?.[String(status)]) mismatches.push(`${key}: answers ${status}, not documented`);
      const documentedSuccesses = Object.keys(documented.responses ?? {}).filter((s) => /^2/.test(s)).map(Number);
      for (const status of documentedSuccesses) if (!op.answers.includes(status)) mismatches.push(`${key}: documents ${status}, the router does not declare it`);
    }
    expect(mismatches).toEqual([]);
  });

  it('without the development authorization server, lacks only the development routes', () => {
    const production = loadConfig({ DEV_AUTH: 'false', AUTH_JWKS_URL: 'https://issuer.example/jwks.json' });
    const router = routerOperations(production);
    const documented = documentOperations(doc);
    expect(router.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((d) => !router.includes(d)).sort()).toEqual([...DEV_AUTH_ONLY].sort());
  });

  it('gives every operation an id, summary, declared tags, its path parameters and security', () => {
    const tags = new Set((doc.tags ?? []).map((t: Json) => t.name));
    const scopes = doc.components?.securitySchemes?.oauth2?.flows?.clientCredentials?.scopes ?? {};
    expect(doc.components.securitySchemes.oauth2.type).toBe('oauth2');
    expect(doc.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe('/oauth2/token');
    expect(Object.keys(scopes).sort()).toEqual([...SCOPES].sort());
    const ids = new Set<string>();
    for (const { key, path, pathItem, op } of operations(doc)) {
      expect({ key, operationId: typeof op.operationId }).toEqual({ key, operationId: 'string' });
      expect({ key, duplicateId: ids.has(op.operationId) }).toEqual({ key, duplicateId: false });
      ids.add(op.operationId);
      expect({ key, summary: typeof op.summary }).toEqual({ key, summary: 'string' });
      expect({ key, tags: Array.isArray(op.tags) && op.tags.length > 0 && op.tags.every((t: string) => tags.has(t)) }).toEqual({ key, tags: true });

      const params = [...(pathItem.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => deref(doc, p));
      for (const name of [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])) {
        const declared = params.find((p: Json) => p.in === 'path' && p.name === name);
        expect({ key, pathParameter: name, declared: Boolean(declared?.required) }).toEqual({ key, pathParameter: name, declared: true });
      }

      expect({ key, security: Array.isArray(op.security) }).toEqual({ key, security: true });
      if (PUBLIC_PATHS.includes(path)) {
        expect({ key, security: op.security }).toEqual({ key, security: [] });
      } else {
        // One requirement, or one per alternative scope (reads open to writers and reviewers alike).
        expect({ key, requirements: op.security.length > 0 }).toEqual({ key, requirements: true });
        for (const requirement of op.security) {
          expect({ key, schemes: Object.keys(requirement) }).toEqual({ key, schemes: ['oauth2'] });
          for (const scope of requirement.oauth2) expect({ key, scope, known: scope in scopes }).toEqual({ key, scope, known: true });
        }
      }
      if (path.startsWith('/partner-relationships')) {
        // The retention hold is the operator's too (exchange:admin): placed and lifted by it, read by the parties.
        const hold = path.endsWith('/retention-hold');
        expect({ key, security: op.security }).toEqual({ key, security: [{ oauth2: ['relationships:manage'] }, ...(hold ? [{ oauth2: ['exchange:admin'] }] : [])] });
      }
    }
  });

  it('answers every failure of every operation with a problem document', () => {
    for (const { key, path, op } of operations(doc)) {
      const responses = op.responses ?? {};
      expect({ key, default: 'default' in responses }).toEqual({ key, default: true });
      expect({ key, uses412: '412' in responses }).toEqual({ key, uses412: false });
      for (const [status, raw] of Object.entries<Json>(responses)) {
        const response = deref(doc, raw);
        expect({ key, status, resolved: Boolean(response) }).toEqual({ key, status, resolved: true });
        const isFailure = status === 'default' || /^4\d\d$/.test(status);
        if (!isFailure) continue;
        // The OAuth endpoints answer their problems as application/json (RFC 6749 section 5.2; docs/decisions.md).
        const problem = (response.content?.['application/problem+json'] ?? (path.startsWith('/oauth2/') ? response.content?.['application/json'] : undefined))?.schema;
        expect({ key, status, problem: isProblemSchema(doc, problem) }).toEqual({ key, status, problem: true });
        expect({ key, status, correlationHeader: 'X-Correlation-Id' in (response.headers ?? {}) }).toEqual({ key, status, correlationHeader: true });
      }
      if (responses['429']) {
        expect({ key, retryAfter: 'Retry-After' in (deref(doc, responses['429']).headers ?? {}) }).toEqual({ key, retryAfter: true });
      }
    }
  });

  it('sends Location and ETag on creates and ETag on commands and single reads', () => {
    for (const { key, pathItem, op } of operations(doc)) {
      const responses = op.responses;
      if (responses['201']) {
        const headers = deref(doc, responses['201']).headers ?? {};
        expect({ key, location: 'Location' in headers, etag: 'ETag' in headers }).toEqual({ key, location: true, etag: true });
      }
      const params = [...(pathItem.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => deref(doc, p));
      // A DELETE answers 204 without a body, so without an ETag.
      const isCommand = params.some((p: Json) => p.in === 'header' && p.name === 'If-Match') && !key.startsWith('DELETE ');
      const isSingleRead = key.startsWith('GET ') && /\{id\}$/.test(key);
      if (isCommand || isSingleRead) {
        const headers = deref(doc, responses['200'] ?? {}).headers ?? {};
        expect({ key, etag: 'ETag' in headers }).toEqual({ key, etag: true });
      }
      if (isCommand) {
        expect({ key, status: ['409', '428'].filter((s) => !(s in responses)) }).toEqual({ key, status: [] });
      }
    }
  });

  it('resolves every reference: schema files and their $defs, and its own components', () => {
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const { at, ref } of refs) {
      if (ref.startsWith('#/')) {
        expect({ at, ref, resolves: resolvePointer(doc, ref.slice(1)) !== undefined }).toEqual({ at, ref, resolves: true });
        continue;
      }
      const m = FILE_REF.exec(ref);
      expect({ at, ref, form: Boolean(m) }).toEqual({ at, ref, form: true });
      const [, name, fragment] = m!;
      expect({ at, ref, fileExists: existsSync(join(SCHEMA_DIR, `${name}.json`)) }).toEqual({ at, ref, fileExists: true });
      if (fragment && fragment !== '#') {
        const schema = schemaFile(name);
        const defs = /^#\/\$defs\/([^/]+)$/.exec(fragment);
        if (defs) expect({ at, ref, def: defs[1] in (schema.$defs ?? {}) }).toEqual({ at, ref, def: true });
        expect({ at, ref, resolves: resolvePointer(schema, fragment.slice(1)) !== undefined }).toEqual({ at, ref, resolves: true });
      }
    }
  });

  it('lists every problem code with its status in info.description', () => {
    const description: string = doc.info.description;
    for (const [code, { status, name }] of Object.entries(PROBLEMS) as [ProblemCode, (typeof PROBLEMS)[ProblemCode]][]) {
      const row = `| \`${code}\` | ${status} | \`urn:exchange:protocol:error:${name}\` |`;
      expect({ code, listed: description.includes(row) }).toEqual({ code, listed: true });
    }
  });
});

/** The offer and request operations, as api/capacity-offers.ts and api/load-requests.ts configure listingRouter. */
const LISTINGS = [
  {
    collection: '/capacity-offers',
    tag: 'CapacityOffers',
    noun: 'CapacityOffer',
    schema: 'capacity-offer',
    publish: 'capacity:publish',
    read: 'capacity:read',
    cancel: ['exchange:admin', 'capacity:publish'],
  },
  {
    collection: '/load-requests',
    tag: 'LoadRequests',
    noun: 'LoadRequest',
    schema: 'load-request',
    publish: 'loads:publish',
    read: 'loads:read',
    cancel: ['exchange:admin'],
  },
] as const;

// 410: a command on a record the retention purge removed (RECORD_PURGED), as its read.
const COMMAND_STATUSES = ['200', '400', '401', '403', '404', '409', '410', '413', '415', '422', '428', '429', '503', 'default'];

describe.each(LISTINGS)('the OpenAPI document, $collection', (listing) => {
  const doc = readDocument();
  const { collection, noun, schema } = listing;
  const file = `./${schema}.json`;
  const expected: Record<string, { id: string; scopes: readonly string[]; statuses: string[]; body?: Record<string, string>; result: string }> = {
    [`POST ${collection}`]: {
      id: `create${noun}`,
      scopes: [listing.publish],
      statuses: ['201', '400', '401', '403', '409', '413', '415', '429', '503', 'default'],
      body: { 'application/json': `${file}#/$defs/CreateRequest` },
      result: file,
    },
    [`GET ${collection}`]: {
      id: `list${noun}s`,
      scopes: [listing.read],
      statuses: ['200', '400', '401', '403', '429', 'default'],
      result: `${file}#/$defs/Page`,
    },
    // 410: a listing the retention purge removed, to those who could read it (RECORD_PURGED).
    [`GET ${collection}/{id}`]: { id: `get${noun}`, scopes: [listing.read], statuses: ['200', '401', '403', '404', '410', '429', 'default'], result: file },
    [`PATCH ${collection}/{id}`]: {
      id: `update${noun}`,
      scopes: [listing.publish],
      statuses: COMMAND_STATUSES,
      body: { 'application/json': `${file}#/$defs/UpdateRequest`, 'application/merge-patch+json': `${file}#/$defs/UpdateRequest` },
      result: file,
    },
    [`POST ${collection}/{id}/publish`]: {
      id: `publish${noun}`,
      scopes: [listing.publish],
      statuses: COMMAND_STATUSES,
      body: { 'application/json': './common.json#/$defs/Command' },
      result: file,
    },
    [`POST ${collection}/{id}/withdraw`]: {
      id: `withdraw${noun}`,
      scopes: [listing.publish],
      statuses: COMMAND_STATUSES,
      body: { 'application/json': './common.json#/$defs/ReasonedCommand' },
      result: file,
    },
    [`POST ${collection}/{id}/cancel`]: {
      id: `cancel${noun}`,
      scopes: listing.cancel,
      statuses: COMMAND_STATUSES,
      body: { 'application/json': './common.json#/$defs/ReasonedCommand' },
      result: file,
    },
  };
  const ops = operations(doc).filter(({ path }) => path === collection || path.startsWith(`${collection}/`));
  const headerNames = (pathItem: Json, op: Json) =>
    [...(pathItem.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => deref(doc, p)).filter((p: Json) => p.in === 'header').map((p: Json) => p.name);

  it('documents exactly the seven listing operations, each tagged for its resource', () => {
    expect(ops.map((o) => o.key).sort()).toEqual(Object.keys(expected).sort());
    expect((doc.tags ?? []).map((t: Json) => t.name)).toContain(listing.tag);
    for (const { key, op } of ops) expect({ key, tags: op.tags }).toEqual({ key, tags: [listing.tag] });
  });

  it('names each operation, and states and requires its scopes', () => {
    for (const { key, op } of ops) {
      const want = expected[key];
      expect({ key, operationId: op.operationId }).toEqual({ key, operationId: want.id });
      expect({ key, security: op.security }).toEqual({ key, security: [{ oauth2: [...want.scopes] }] });
      for (const scope of want.scopes) expect({ key, scope, stated: String(op.description ?? '').includes(`\`${scope}\``) }).toEqual({ key, scope, stated: true });
    }
  });

  it('declares every status each operation can answer, and nothing else', () => {
    for (const { key, op } of ops) {
      expect({ key, statuses: Object.keys(op.responses).sort() }).toEqual({ key, statuses: [...expected[key].statuses].sort() });
    }
  });

  it('references the resource schema for bodies and results', () => {
    for (const { key, op } of ops) {
      const want = expected[key];
      const body = op.requestBody ? deref(doc, op.requestBody) : undefined;
      const bodyRefs = Object.fromEntries(Object.entries<Json>(body?.content ?? {}).map(([type, media]) => [type, media.schema?.$ref]));
      expect({ key, body: bodyRefs }).toEqual({ key, body: want.body ?? {} });
      const success = deref(doc, op.responses[want.statuses[0]]);
      expect({ key, result: success.content?.['application/json']?.schema?.$ref }).toEqual({ key, result: want.result });
    }
  });

  it('takes If-Match on commands and Idempotency-Key on creates and commands', () => {
    for (const { key, pathItem, op } of ops) {
      const headers = headerNames(pathItem, op);
      const isRead = key.startsWith('GET ');
      const isCreate = key === `POST ${collection}`;
      expect({ key, ifMatch: headers.includes('If-Match'), idempotencyKey: headers.includes('Idempotency-Key') }).toEqual({
        key,
        ifMatch: !isRead && !isCreate,
        idempotencyKey: !isRead,
      });
    }
  });

  it('lists with the status filter of the resource and the owner, series, area, from, to, cursor and limit filters', () => {
    const list = ops.find((o) => o.key === `GET ${collection}`)!;
    const query = (list.op.parameters ?? []).map((p: Json) => deref(doc, p)).filter((p: Json) => p.in === 'query');
    expect(query.map((p: Json) => p.name).sort()).toEqual(['area', 'cursor', 'from', 'limit', 'owner', 'series', 'status', 'to']);
    const status = query.find((p: Json) => p.name === 'status');
    expect(status.schema.items.enum).toEqual(schemaFile(schema).properties.status.enum);
  });
});

describe('served OpenAPI document', () => {
  const config = loadConfig({});

  it('rewrites every schema file reference to the immutable schema id', () => {
    const base = 'https://schemas.test.example/pcx';
    const served = documents.openapi(base);
    const refs = refsOf(served);
    expect(refs.filter(({ ref }) => /\.json(#|$)/.test(ref) || ref.startsWith('./'))).toEqual([]);
    const names = new Set(refsOf(readDocument()).map(({ ref }) => FILE_REF.exec(ref)?.[1]).filter(Boolean));
    expect(names.size).toBeGreaterThan(0);
    for (const { ref } of refs) {
      if (ref.startsWith('#/')) continue;
      const m = /^(.*)\/v0\/([a-z0-9-]+)(#.*)?$/.exec(ref);
      expect({ ref, base: m?.[1] }).toEqual({ ref, base });
      expect({ ref, known: names.has(m![2]) }).toEqual({ ref, known: true });
    }
  });

  it('serves /openapi.json, whose schema references are served by /schemas/v0/{name}', async () => {
    const app = createApp(stubServices(config));
    const res = await app.request('/openapi.json');
    expect(res.status).toBe(200);
    const served = await res.json();
    expect(served).toEqual(documents.openapi(config.schemaBase, config.publicBaseUrl));
    expect(served.servers).toEqual([{ url: config.publicBaseUrl, description: expect.any(String) }]);
    const prefix = `${config.schemaBase}/v0/`;
    const targets = new Set(
      refsOf(served)
        .map(({ ref }) => ref)
        .filter((ref) => !ref.startsWith('#/'))
        .map((ref) => ref.split('#')[0]),
    );
    expect(targets.size).toBeGreaterThan(0);
    for (const target of targets) {
      expect(target.startsWith(prefix)).toBe(true);
      const schema = await app.request(new URL(target).pathname);
      expect({ target, status: schema.status }).toEqual({ target, status: 200 });
      expect({ target, id: (await schema.json()).$id }).toEqual({ target, id: target });
    }
  });
});

describe('served bundled OpenAPI document', () => {
  it('serves /openapi.bundled.json: the bundle of the schema files for this broker, with internal references only', async () => {
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://broker.pcx.test' });
    const app = createApp(stubServices(config));
    const res = await app.request('/openapi.bundled.json');
    expect(res.status).toBe(200);
    const served = await res.json();
    expect(served).toEqual(documents.bundled(config.publicBaseUrl));
    expect(served.servers).toEqual([{ url: 'https://broker.pcx.test', description: expect.any(String) }]);
    expect(refsOf(served).filter(({ ref }) => !ref.startsWith('#/'))).toEqual([]);
    // The same operations as the document it bundles.
    expect(documentOperations(served)).toEqual(documentOperations(readDocument()));
  });

  it('serves /asyncapi.json: the event channels of this broker, their schemas those of the bundle', async () => {
    const config = loadConfig({ PUBLIC_BASE_URL: 'https://broker.pcx.test' });
    const res = await createApp(stubServices(config)).request('/asyncapi.json');
    expect(res.status).toBe(200);
    const served = await res.json();
    expect(served).toEqual(documents.asyncapi(config.publicBaseUrl));
    expect(served.servers.broker).toMatchObject({ host: 'broker.pcx.test', protocol: 'https' });
    expect(served.components.schemas.Event).toEqual(documents.bundled(config.publicBaseUrl).components.schemas.Event);
  });
});

/**
 * The query parameters each list reads (api/<router>.ts: queryValues for the list-valued status,
 * querySingle for the others and pageParams' limit and cursor): the document declares exactly these.
 */
const LIST_QUERIES: Record<string, string[]> = {
  '/directory': ['q'],
  '/partner-relationships': ['status', 'counterpart', 'cursor', 'limit'],
  '/capacity-offers': ['status', 'owner', 'series', 'area', 'from', 'to', 'cursor', 'limit'],
  '/load-requests': ['status', 'owner', 'series', 'area', 'from', 'to', 'cursor', 'limit'],
  '/listing-series': ['status', 'cursor', 'limit'],
  '/purged-records': ['kind', 'cursor', 'limit'],
  '/retention-preview': ['at', 'limit', 'organizationId'],
  '/retention-runs': ['cursor', 'limit'],
  '/match-proposals': ['status', 'role', 'offer', 'request', 'cursor', 'limit'],
  '/transport-tenders': ['status', 'proposal', 'cursor', 'limit'],
  '/transport-commitments': ['status', 'tender', 'cursor', 'limit'],
  '/execution-handovers': ['status', 'commitment', 'cursor', 'limit'],
  '/execution-references': ['status', 'proposal', 'cursor', 'limit'],
  '/execution-outcomes': ['executionReferenceId'],
  '/connectors': ['status', 'cursor', 'limit'],
  '/organizations': ['status', 'cursor', 'limit'],
  '/users': ['status', 'cursor', 'limit'],
  '/events': ['cursor', 'limit'],
  '/events/stream': ['cursor'],
  '/webhook-subscriptions': ['cursor', 'limit'],
  '/webhook-subscriptions/{id}/deliveries': ['status', 'cursor', 'limit'],
  '/sandbox/connector-requests': ['clientId', 'after', 'limit'],
  '/console/places': ['codes', 'near'],
  '/console/place-search': ['q'],
  '/reports/exchange-impact': ['from', 'to', 'format'],
  '/transparency-log/inclusion-proofs': ['recordKey', 'treeSize'],
  '/transparency-log/consistency-proofs': ['from', 'to'],
  '/transparency-log/leaves': ['cursor', 'limit'],
  '/transparency-log/checkpoint': ['witnessed'],
};

describe('the OpenAPI document, query parameters', () => {
  const doc = readDocument();
  const queryOf = (path: string) =>
    [...(doc.paths[path].parameters ?? []), ...(doc.paths[path].get.parameters ?? [])].map((p: Json) => deref(doc, p)).filter((p: Json) => p.in === 'query');

  it('declares on every list exactly the query parameters its router reads', () => {
    const lists = operations(doc).filter(({ method, op }) => method === 'get' && (op.parameters ?? []).some((p: Json) => deref(doc, p).in === 'query'));
    expect(lists.map(({ path }) => path).sort()).toEqual(Object.keys(LIST_QUERIES).sort());
    for (const [path, names] of Object.entries(LIST_QUERIES)) {
      expect({ path, names: queryOf(path).map((p: Json) => p.name).sort() }).toEqual({ path, names: [...names].sort() });
    }
  });

  it('declares status as an array of exactly the statuses the broker accepts, repeated (form, explode) or comma-separated', () => {
    const byCollection = new Map<string, { statuses: readonly string[] }>(RESOURCES.map((r) => [`/${r.collection}`, r]));
    byCollection.set('/webhook-subscriptions/{id}/deliveries', { statuses: DELIVERY_STATUSES });
    for (const path of Object.keys(LIST_QUERIES).filter((p) => LIST_QUERIES[p].includes('status'))) {
      const status = queryOf(path).find((p: Json) => p.name === 'status');
      expect({ path, style: status.style, explode: status.explode, type: status.schema.type, enum: status.schema.items.enum }).toEqual({
        path,
        style: 'form',
        explode: true,
        type: 'array',
        enum: [...byCollection.get(path)!.statuses],
      });
      expect({ path, commas: /commas/.test(status.description) }).toEqual({ path, commas: true });
    }
  });

  it('declares every other query parameter as a single value', () => {
    for (const path of Object.keys(LIST_QUERIES)) {
      for (const p of queryOf(path).filter((q: Json) => q.name !== 'status')) {
        expect({ path, name: p.name, type: p.schema.type }).toEqual({ path, name: p.name, type: p.name === 'limit' ? 'integer' : 'string' });
      }
    }
  });
});
