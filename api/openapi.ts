// Serves schemas/openapi.yaml as JSON at /openapi.json and each schema file at
// /schemas/v0/<name>. References to schema files are rewritten to their immutable ids.
// /openapi.bundled.json is the same document self-contained (api/openapi-bundle.ts): every schema
// under components/schemas with a name derived from its file and definition, every $ref internal.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { parse } from 'yaml';
import { SCHEMA_DIR } from '../core/schemas';
import { Problem } from '../domain/problems';
import type { AppEnv } from './context';
import { bundleOpenApi, withServer } from './openapi-bundle';
import { publicOperation } from './operations';

/** The document with references to the schema ids under `schemaBase`; `servers` names `publicBaseUrl` when given. */
export function loadOpenApi(schemaBase: string, publicBaseUrl?: string): any {
  const text = readFileSync(join(SCHEMA_DIR, 'openapi.yaml'), 'utf8');
  const doc = parse(text);
  const rewrite = (node: any): any => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node && typeof node === 'object') {
      const out: any = {};
      for (const [k, v] of Object.entries(node)) {
        out[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^\.\/([a-z0-9-]+)\.json/, `${schemaBase}/v0/$1`) : rewrite(v);
      }
      return out;
    }
    return node;
  };
  const rewritten = rewrite(doc);
  return publicBaseUrl === undefined ? rewritten : withServer(rewritten, publicBaseUrl);
}

export const openapi = new Hono<AppEnv>();

const documents = new Map<string, any>(); // by schema base and public base URL
publicOperation(openapi, { method: 'GET', path: '/openapi.json', answers: [200] }, (c) => {
  const { schemaBase, publicBaseUrl } = c.get('services').config;
  const key = `${schemaBase} ${publicBaseUrl}`;
  if (!documents.has(key)) documents.set(key, loadOpenApi(schemaBase, publicBaseUrl));
  return c.json(documents.get(key));
});

const bundles = new Map<string, any>(); // by public base URL
/** The bundled document for a public base URL, built once (createApp builds it at start). */
export function bundledOpenApi(publicBaseUrl: string): any {
  if (!bundles.has(publicBaseUrl)) bundles.set(publicBaseUrl, bundleOpenApi(publicBaseUrl));
  return bundles.get(publicBaseUrl);
}
publicOperation(openapi, { method: 'GET', path: '/openapi.bundled.json', answers: [200] }, (c) => c.json(bundledOpenApi(c.get('services').config.publicBaseUrl)));

publicOperation(openapi, { method: 'GET', path: '/schemas/v0/:name', answers: [200] }, (c) => {
  const doc = c.get('services').schemas.documents.get(c.req.param('name') ?? '');
  if (!doc) throw new Problem('RESOURCE_NOT_FOUND', 'no such schema');
  return c.json(doc, 200, { 'content-type': 'application/schema+json', 'cache-control': 'public, max-age=86400, immutable' });
});
