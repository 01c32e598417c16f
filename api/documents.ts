// The broker's documents, built from one source: schemas/openapi.yaml (the document's frame: info,
// tags, components) with the `paths` generated from the operation declarations
// (api/openapi-paths.ts). Each form is built once per base URL and kept:
// - `openapi`: GET /openapi.json, file references rewritten to the schema files' immutable ids;
// - `bundled`: GET /openapi.bundled.json, self-contained (api/openapi-bundle.ts);
// - `asyncapi`: GET /asyncapi.json, the event channels (api/asyncapi.ts).
// The app holds one (api/app.ts `documents`); the routes read it from the request's context, so
// that the routers the document describes need not import the app.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { SCHEMA_DIR } from '../core/schemas';
import { buildAsyncApi } from './asyncapi-document';
import { bundleOpenApi, withServer } from './openapi-bundle';
import { pathsOf } from './openapi-paths';
import { withSchemaIds } from './schema-ids';
import type { ServedDocuments } from './context';
import type { Declared } from './operations';

type Json = any;

/** schemas/openapi.yaml with the paths of `operations`: the document in its source form (`./<file>.json` references). */
export function sourceDocument(operations: ReadonlyArray<Declared & { documentPath: string }>): Json {
  const frame = parse(readFileSync(join(SCHEMA_DIR, 'openapi.yaml'), 'utf8'));
  const { components, tags = [], ...head } = frame;
  const paths = pathsOf(operations);
  // A tag the frame does not describe (a new collection's) is listed with the paths it covers,
  // until someone says in the frame what the resource is.
  const described = new Set(tags.map((t: { name: string }) => t.name));
  const added = new Map<string, string>();
  for (const op of operations) if (op.doc.tag && !described.has(op.doc.tag) && !added.has(op.doc.tag)) added.set(op.doc.tag, op.documentPath.split('/{')[0]);
  const listed = [...tags, ...[...added].map(([name, path]) => ({ name, description: `The operations on ${path}.` }))];
  return { ...head, tags: listed, paths, components };
}

export class Documents implements ServedDocuments {
  private readonly built = new Map<string, Json>();
  private sourceDocument?: Json;

  /** `operations`: the declarations, read on first use (after every router has declared its own). */
  constructor(private readonly operations: () => ReadonlyArray<Declared & { documentPath: string }>) {}

  get source(): Json {
    return (this.sourceDocument ??= sourceDocument(this.operations()));
  }

  /** GET /openapi.json: schema references under `schemaBase`; `servers` names `publicBaseUrl` when given. */
  openapi(schemaBase: string, publicBaseUrl?: string): Json {
    return this.once(`openapi ${schemaBase} ${publicBaseUrl}`, () => {
      const document = withSchemaIds(this.source, schemaBase);
      return publicBaseUrl === undefined ? document : withServer(document, publicBaseUrl);
    });
  }

  /** GET /openapi.bundled.json. */
  bundled(publicBaseUrl: string): Json {
    return this.once(`bundled ${publicBaseUrl}`, () => bundleOpenApi(publicBaseUrl, this.source));
  }

  /** GET /asyncapi.json. */
  asyncapi(publicBaseUrl: string): Json {
    return this.once(`asyncapi ${publicBaseUrl}`, () => buildAsyncApi(this.bundled(publicBaseUrl), publicBaseUrl));
  }

  private once(key: string, build: () => Json): Json {
    if (!this.built.has(key)) this.built.set(key, build());
    return this.built.get(key);
  }
}
