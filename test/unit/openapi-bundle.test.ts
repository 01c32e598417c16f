// The self-contained OpenAPI document (GET /openapi.bundled.json, api/openapi-bundle.ts) as code
// generators see it: its structure and names, the same validation as the schema files, a lint
// with @redocly/cli, and a client generated with openapi-typescript whose use, with openapi-fetch,
// type-checks under `tsc --strict`. Built in-process from the files; no broker, database or Temporal.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { bundleOpenApi, componentName } from '../../api/openapi-bundle';
import { documents } from '../../api/app';
import { FILE_SCHEMA_BASE, SCHEMA_DIR, SchemaRegistry } from '../../core/schemas';
import { RESOURCES } from '../../domain/registry';

type Json = any;

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');
/** A production-like public address: redocly warns of servers on localhost or example.com. */
const PUBLIC_BASE_URL = 'https://pcx-broker.test';
const run = promisify(execFile);

function refsOf(node: Json, at = ''): { at: string; ref: string }[] {
  if (Array.isArray(node)) return node.flatMap((v, i) => refsOf(v, `${at}/${i}`));
  if (node && typeof node === 'object') {
    return Object.entries(node).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [{ at, ref: v }] : refsOf(v, `${at}/${k}`)));
  }
  return [];
}

function resolve(doc: Json, ref: string): Json {
  return ref
    .slice(2)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((node, token) => (node && typeof node === 'object' ? node[token] : undefined), doc);
}

const source = (): Json => structuredClone(documents.source);

describe('bundled OpenAPI document', () => {
  const doc = bundleOpenApi(PUBLIC_BASE_URL, source());
  const schemas: Record<string, Json> = doc.components.schemas;

  it('names this broker in servers, and has a contact and a license with an identifier', () => {
    expect(doc.servers).toEqual([{ url: PUBLIC_BASE_URL, description: expect.any(String) }]);
    expect(doc.info.contact?.name).toEqual(expect.any(String));
    expect(doc.info.license).toEqual({ name: expect.any(String), identifier: expect.any(String) });
  });

  it('has only internal references, each resolving, and no schema ids that would rebase them', () => {
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(100);
    for (const { at, ref } of refs) {
      expect({ at, ref, internal: ref.startsWith('#/components/') }).toEqual({ at, ref, internal: true });
      expect({ at, ref, resolves: resolve(doc, ref) !== undefined }).toEqual({ at, ref, resolves: true });
    }
    const json = JSON.stringify(schemas);
    expect(json).not.toContain('"$id"');
    expect(json).not.toContain('"$defs"');
    expect(json).not.toContain(FILE_SCHEMA_BASE);
  });

  it('names each schema after its file and definition', () => {
    expect(componentName('capacity-offer', '')).toBe('CapacityOffer');
    expect(componentName('capacity-offer', '/$defs/CreateRequest')).toBe('CapacityOfferCreateRequest');
    expect(componentName('partner-relationship', '/$defs/Page')).toBe('PartnerRelationshipPage');
    expect(componentName('logistics', '/$defs/Handling/properties/temperature')).toBe('LogisticsHandlingTemperature');
    // Every schema-file reference of openapi.yaml is the component of that name, the same schema.
    const files = new Map<string, Json>();
    const file = (name: string) => files.get(name) ?? files.set(name, JSON.parse(readFileSync(join(SCHEMA_DIR, `${name}.json`), 'utf8'))).get(name);
    for (const { ref } of refsOf(source())) {
      const m = /^\.\/([a-z0-9-]+)\.json(?:#\/\$defs\/(\w+))?$/.exec(ref);
      if (!m) continue;
      const name = componentName(m[1], m[2] ? `/$defs/${m[2]}` : '');
      const original = m[2] ? file(m[1]).$defs[m[2]] : file(m[1]);
      expect({ ref, name, present: name in schemas }).toEqual({ ref, name, present: true });
      expect({ ref, description: schemas[name].description }).toEqual({ ref, description: original.description });
    }
    for (const name of ['CapacityOfferCreateRequest', 'LoadRequestCreateRequest', 'PartnerRelationshipPage', 'CapacityOfferPage', 'TransportTenderPage', 'Problem', 'LogisticsArea']) {
      expect({ name, present: name in schemas }).toEqual({ name, present: true });
    }
  });

  it('keeps every name when the document references fewer or more schemas (names never shift)', () => {
    const smaller = source();
    delete smaller.paths['/execution-handovers'];
    delete smaller.paths['/execution-handovers/{id}'];
    delete smaller.paths['/execution-handovers/{id}/acknowledgements'];
    const fewer = bundleOpenApi(PUBLIC_BASE_URL, smaller).components.schemas;
    expect(Object.keys(fewer).length).toBeLessThan(Object.keys(schemas).length);
    for (const [name, schema] of Object.entries(fewer)) expect({ name, schema }).toEqual({ name, schema: schemas[name] });
    expect(bundleOpenApi(PUBLIC_BASE_URL, source())).toEqual(doc); // and a rebuild is identical
  });

  it('validates bodies exactly as the schema files do', () => {
    const registry = new SchemaRegistry('https://schemas.pcx.test');
    const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'urn:pcx:bundle', components: doc.components });
    const bundled = (name: string) => ajv.compile({ $ref: `urn:pcx:bundle#/components/schemas/${name}` });
    const at = (h: number) => new Date(Date.UTC(2030, 0, 1, h)).toISOString();
    const offer = {
      availabilityWindow: { start: at(8), end: at(20), timeZone: 'Europe/Berlin' },
      originArea: { kind: 'unlocode', code: 'DEHAM' },
      destinationArea: { kind: 'circle', center: [4.47, 51.92], radiusKm: 50 },
      vehicleProfile: { bodyType: 'curtainsider', vehicleCategory: 'articulated' },
      availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, loadingMetres: { value: 13.6, unitCode: 'MTR' }, palletSpaces: 33 },
      constraints: { dangerousGoods: { adrClasses: ['3'] }, temperature: { minCelsius: 2, maxCelsius: 8 } },
      expiresAt: at(6),
      visibility: { mode: 'open' },
    };
    const schemaFormRequest = {
      originArea: { kind: 'country', code: 'DE' },
      pickupWindowStart: at(8),
      pickupWindowEnd: at(12),
      requiredCapacity: { weightKg: 8000, volumeM3: 30, loadingMetres: 6.8, vehicleBodyTypes: ['refrigerated'] },
    };
    const cases: [string, string, unknown][] = [
      ['capacity-offer#/$defs/CreateRequest', 'CapacityOfferCreateRequest', offer],
      ['capacity-offer#/$defs/CreateRequest', 'CapacityOfferCreateRequest', { ...offer, unknown: 1 }],
      ['capacity-offer#/$defs/CreateRequest', 'CapacityOfferCreateRequest', { ...offer, constraints: { temperature: { minCelsius: 'cold' } } }],
      ['capacity-offer#/$defs/CreateRequest', 'CapacityOfferCreateRequest', { ...offer, availableCapacity: { loadingMetres: { value: 2e9, unitCode: 'MTR' } } }],
      ['load-request#/$defs/CreateRequest', 'LoadRequestCreateRequest', schemaFormRequest],
      ['load-request#/$defs/CreateRequest', 'LoadRequestCreateRequest', { ...schemaFormRequest, requiredCapacity: { loadingMetres: 2e9 } }],
      ['load-request#/$defs/CreateRequest', 'LoadRequestCreateRequest', { ...schemaFormRequest, requiredCapacity: { weightKg: 1e9 + 1 } }],
      ['load-request#/$defs/CreateRequest', 'LoadRequestCreateRequest', { ...schemaFormRequest, pickupWindow: { start: at(8), end: at(9) } }],
      ['partner-relationship#/$defs/CreateRequest', 'PartnerRelationshipCreateRequest', { requestingOrganizationId: 'org-a', acceptingOrganizationId: 'org-b', scopes: ['capacity:read'] }],
      ['common#/$defs/ReasonedCommand', 'CommonReasonedCommand', { reason: 'sold' }],
      ['common#/$defs/ReasonedCommand', 'CommonReasonedCommand', {}],
    ];
    for (const [file, name, body] of cases) {
      const fromFile = registry.validator(file)(body);
      expect({ name, body, bundled: bundled(name)(body) }).toEqual({ name, body, bundled: fromFile });
    }
    // The cases above decide something: some are valid, some are not.
    expect(new Set(cases.map(([file, , body]) => registry.validator(file)(body)))).toEqual(new Set([true, false]));
  });

  it('bounds the schema-form capacity numbers as the resource form bounds its values', () => {
    const form = schemas.LoadRequestSchemaFormCapacity.properties;
    const resource: Record<string, string> = { weightKg: 'LogisticsMass', volumeM3: 'LogisticsVolume', loadingMetres: 'LogisticsLength' };
    for (const [field, component] of Object.entries(resource)) {
      const value = schemas[component].properties.value;
      expect({ field, minimum: form[field].minimum, maximum: form[field].maximum }).toEqual({ field, minimum: value.minimum, maximum: value.maximum });
      expect(value.maximum).toEqual(expect.any(Number));
    }
  });

  it('declares each list filter of status as the array of the resource statuses, repeated or comma-separated', () => {
    for (const resource of RESOURCES) {
      const list = doc.paths[`/${resource.collection}`]?.get;
      if (!list) continue;
      const status = list.parameters.map((p: Json) => (p.$ref ? resolve(doc, p.$ref) : p)).find((p: Json) => p.in === 'query' && p.name === 'status');
      expect({ path: resource.collection, style: status?.style, explode: status?.explode, type: status?.schema.type, enum: status?.schema.items.enum }).toEqual({
        path: resource.collection,
        style: 'form',
        explode: true,
        type: 'array',
        enum: [...resource.statuses],
      });
      expect(status.description).toMatch(/commas/);
    }
  });
});

describe('code generators on the bundled document', () => {
  // A scratch directory under node_modules, so that the generated client resolves openapi-fetch.
  const cache = join(ROOT, 'node_modules', '.cache');
  let dir: string;
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

  beforeAll(() => {
    mkdirSync(cache, { recursive: true });
    dir = mkdtempSync(join(cache, 'pcx-openapi-'));
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(bundleOpenApi(PUBLIC_BASE_URL, source()), null, 2));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes redocly lint (recommended rules, exceptions in redocly.yaml) without errors or warnings', async () => {
    const out = await run(join(BIN, 'redocly'), ['lint', join(dir, 'openapi.json'), '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'], { cwd: dir, env, maxBuffer: 64 << 20 }).catch(
      (err) => err, // exit code 1 on errors; the report is on stdout all the same
    );
    const report = JSON.parse(out.stdout);
    const problems = report.problems.map((p: Json) => `${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer}: ${p.message}`);
    expect({ totals: report.totals, problems }).toEqual({ totals: { errors: 0, warnings: 0, ignored: 0 }, problems: [] });
  }, 120_000);

  it('generates a client with openapi-typescript that types a flow with openapi-fetch under tsc --strict', async () => {
    // Generated as a .ts file, so that --skipLibCheck (the installed packages' declarations) still checks it.
    await run(join(BIN, 'openapi-typescript'), [join(dir, 'openapi.json'), '--output', join(dir, 'schema.ts')], { cwd: dir, env });
    writeFileSync(join(dir, 'flow.ts'), FLOW);
    const tsc = await run(
      join(BIN, 'tsc'),
      ['--strict', '--noEmit', '--skipLibCheck', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', '--lib', 'es2022,dom', '--types', 'node', join(dir, 'flow.ts')],
      { cwd: dir, env },
    ).catch((err) => err);
    expect({ tsc: String(tsc.stdout ?? '').trim(), exit: tsc.code ?? 0 }).toEqual({ tsc: '', exit: 0 });
  }, 120_000);
});

/**
 * A connector's flow with the generated types: create a capacity offer, publish it with If-Match,
 * list offers with a status filter. The @ts-expect-error lines fail the check when the document
 * stops typing what they refuse (a status filter back to a bare string, an open body schema).
 */
const FLOW = `import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

type Schemas = components['schemas'];

export async function flow(baseUrl: string, token: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } });

  const body: Schemas['CapacityOfferCreateRequest'] = {
    originArea: { kind: 'unlocode', code: 'DEHAM' },
    destinationArea: { kind: 'country', code: 'NL' },
    availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33 },
    expiresAt: '2030-01-01T00:00:00Z',
    visibility: { mode: 'open' },
  };
  const created = await client.POST('/capacity-offers', { params: { header: { 'Idempotency-Key': 'create-1' } }, body });
  if (created.error) throw new Error(\`\${created.error.code}: \${created.error.detail}\`);
  const offer = created.data;
  const etag = created.response.headers.get('etag') ?? \`"\${offer.resourceVersion}"\`;
  const id: string = offer.id;

  const published = await client.POST('/capacity-offers/{id}/publish', {
    params: { path: { id }, header: { 'If-Match': etag, 'Idempotency-Key': 'publish-1' } },
  });
  if (published.error) throw new Error(published.error.code);
  const status: Schemas['CapacityOffer']['status'] = published.data.status;

  const page = await client.GET('/capacity-offers', { params: { query: { status: [status, 'partiallyMatched'], limit: 50 } } });
  if (page.error) throw new Error(page.error.code);
  const next: string | null | undefined = page.data.nextCursor;
  if (next) await client.GET('/capacity-offers', { params: { query: { cursor: next } } });

  const requests = await client.GET('/load-requests', { params: { query: { status: ['published', 'proposed'] } } });
  const tenders = await client.GET('/transport-tenders', { params: { query: { status: ['issued'] } } });
  if (requests.error || tenders.error) throw new Error('list failed');

  // @ts-expect-error 'open' is a match proposal status, not a capacity offer status
  await client.GET('/capacity-offers', { params: { query: { status: ['open'] } } });
  // @ts-expect-error 'open' is not a transport tender status either
  await client.GET('/transport-tenders', { params: { query: { status: ['open'] } } });
  // @ts-expect-error a create body has no unknown members
  const closed: Schemas['CapacityOfferCreateRequest'] = { expiresAt: '2030-01-01T00:00:00Z', notAField: 1 };
  // @ts-expect-error a timestamp is a string
  await client.POST('/capacity-offers', { body: { ...closed, expiresAt: 1 } });
  // @ts-expect-error schema-form numbers are numbers
  await client.POST('/load-requests', { body: { requiredCapacity: { loadingMetres: '13.6' } } });
  return page.data.items;
}
`;
