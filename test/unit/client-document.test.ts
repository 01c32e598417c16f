// The document the Python and Java clients are generated from (clients/openapi.json,
// scripts/client-document.ts): committed as the routes make it now, so that a change to the
// document reaches the clients only through `npm run clients` (and then their build, type check and
// conformance runs in test/clients.test.ts); and rewritten only in the ways the generators need.
import { readFileSync } from 'node:fs';
import { CLIENT_DOCUMENT_FILE, clientDocument } from '../../scripts/client-document';
import { documents } from '../../api/app';

const document = clientDocument();

/** Every schema node of the document, with where it stands. */
function* schemaNodes(node: any, path = ''): Generator<[string, any]> {
  if (Array.isArray(node)) for (const [i, n] of node.entries()) yield* schemaNodes(n, `${path}/${i}`);
  else if (node && typeof node === 'object') {
    yield [path, node];
    for (const [k, v] of Object.entries(node)) yield* schemaNodes(v, `${path}/${k}`);
  }
}

test('the committed client document is the document of the routes now (else: npm run clients)', () => {
  expect(readFileSync(CLIENT_DOCUMENT_FILE, 'utf8')).toBe(`${JSON.stringify(document, null, 2)}\n`);
});

test("it keeps every connector operation of the served document, and leaves out the console's, the sandbox's and introspection", () => {
  const served = documents.bundled('http://localhost:8080') as any;
  const operations = (doc: any) => Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m)).map((m) => `${m.toUpperCase()} ${path}`));
  const kept = new Set(operations(document));
  const left = operations(served).filter((op) => !kept.has(op));
  expect(left.every((op) => /^[A-Z]+ \/(console|docs|sandbox)(\/|$)|^POST \/oauth2\/introspect$/.test(op))).toBe(true);
  for (const op of ['POST /capacity-offers', 'POST /match-proposals/{id}/decisions', 'GET /events', 'POST /execution-outcomes/{id}/corrections', 'POST /oauth2/token', 'GET /transparency-log/inclusion-proofs']) expect(kept).toContain(op);
  expect(document.info.version).toBe(served.info.version);
});

test('what the generators cannot read is rewritten: no boolean property schemas or constants, no inline objects in properties, no tuples beside items; every reference resolves', () => {
  const problems: string[] = [];
  for (const [path, node] of schemaNodes(document.components.schemas)) {
    for (const [name, sub] of Object.entries<any>(node.properties && typeof node.properties === 'object' && !path.endsWith('/properties') ? node.properties : {})) {
      if (typeof sub === 'boolean') problems.push(`${path}/properties/${name} is a boolean schema`);
      else if (sub && !sub.$ref && sub.properties && Object.keys(sub.properties).length > 0) problems.push(`${path}/properties/${name} is an inline object`);
    }
    if (typeof node.const === 'boolean') problems.push(`${path} is a boolean constant`);
    if (node.prefixItems && node.items) problems.push(`${path} has prefixItems beside items`);
  }
  expect(problems).toEqual([]);
  // Every $ref resolves.
  for (const [, node] of schemaNodes(document)) {
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/components/schemas/')) expect(document.components.schemas).toHaveProperty([node.$ref.slice('#/components/schemas/'.length)]);
  }
});
