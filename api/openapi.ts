// Serves schemas/openapi.yaml as JSON at /openapi.json and each schema file at
// /schemas/v0/<name>. References to schema files are rewritten to their immutable ids.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { parse } from 'yaml';
import { SCHEMA_DIR } from '../core/schemas';
import { Problem } from '../core/problems';
import type { AppEnv } from './context';

export function loadOpenApi(schemaBase: string): any {
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
  return rewrite(doc);
}

export const openapi = new Hono<AppEnv>();

const documents = new Map<string, any>(); // by schema base
openapi.get('/openapi.json', (c) => {
  const base = c.get('services').config.schemaBase;
  if (!documents.has(base)) documents.set(base, loadOpenApi(base));
  return c.json(documents.get(base));
});

openapi.get('/schemas/v0/:name', (c) => {
  const doc = c.get('services').schemas.documents.get(c.req.param('name'));
  if (!doc) throw new Problem('RESOURCE_NOT_FOUND', 'no such schema');
  return c.json(doc, 200, { 'content-type': 'application/schema+json', 'cache-control': 'public, max-age=86400, immutable' });
});
