// Serves the OpenAPI document (api/documents.ts: schemas/openapi.yaml's frame with the paths generated
// from the operation declarations) as JSON at /openapi.json, and each schema file at
// /schemas/v0/<name>. References to schema files are rewritten to their immutable ids.
// /openapi.bundled.json is the same document self-contained (api/openapi-bundle.ts): every schema
// under components/schemas with a name derived from its file and definition, every $ref internal.
import { Hono } from 'hono';
import { Problem } from '../domain/problems';
import type { AppEnv } from './context';
import { publicOperation } from './operations';

export const openapi = new Hono<AppEnv>();

publicOperation(openapi, {
  method: 'GET', path: '/openapi.json', answers: [200],
  doc: {
    id: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description:
      'This document as JSON. References to schema files are rewritten to the immutable schema ids ' +
      '(`{schema_base}/v0/<name>`), which `GET /schemas/v0/{name}` serves.',
    tag: 'Discovery',
    responses: {
      '200': {
        description: 'The OpenAPI 3.1 document.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/OpenApiDocument' } } },
      },
    },
  },
}, (c) => {
  const { schemaBase, publicBaseUrl } = c.get('services').config;
  return c.json(c.get('documents').openapi(schemaBase, publicBaseUrl));
});

publicOperation(openapi, {
  method: 'GET', path: '/openapi.bundled.json', answers: [200],
  doc: {
    id: 'getBundledOpenApiDocument',
    summary: 'This OpenAPI document, self-contained',
    description:
      'This document with every JSON Schema it references copied into `components/schemas`, for ' +
      'code generators: each schema under a stable name made of its file and definition names ' +
      '(`capacity-offer.json#/$defs/CreateRequest` is `CapacityOfferCreateRequest`, ' +
      '`partner-relationship.json#/$defs/Page` is `PartnerRelationshipPage`, the root schema of ' +
      '`capacity-offer.json` is `CapacityOffer`; a schema referenced inside a definition adds the ' +
      'names along its pointer, `logistics.json#/$defs/Handling/properties/temperature` is ' +
      '`LogisticsHandlingTemperature`), and every `$ref` internal. Built from the schema files when ' +
      'the broker starts, so it never differs from them.',
    tag: 'Discovery',
    responses: {
      '200': {
        description: 'The self-contained OpenAPI 3.1 document.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/OpenApiDocument' } } },
      },
    },
  },
}, (c) => c.json(c.get('documents').bundled(c.get('services').config.publicBaseUrl)));

publicOperation(openapi, {
  method: 'GET', path: '/schemas/v0/:name', answers: [200],
  doc: {
    id: 'getSchema',
    summary: 'A JSON Schema by name',
    description:
      'One JSON Schema 2020-12 document, for example `partner-relationship`, `capacity-offer`, ' +
      '`load-request`, `logistics`, `common`, `problem`, `event` or `event-page`. Its `$id` and its ' +
      'references use the configured schema base. A version of a schema never changes, so responses ' +
      'may be cached.',
    tag: 'Discovery',
    parameters: [
      {
        name: 'name',
        in: 'path',
        required: true,
        description: 'Schema name, without extension.',
        schema: { type: 'string', pattern: '^[a-z0-9-]+$' },
        example: 'partner-relationship',
      },
    ],
    responses: {
      '200': {
        description: 'The schema document.',
        headers: {
          'Cache-Control': { description: '`public, max-age=86400, immutable`', schema: { type: 'string' } },
        },
        content: {
          'application/schema+json': {
            schema: {
              type: 'object',
              required: ['$schema', '$id'],
              properties: {
                $schema: { const: 'https://json-schema.org/draft/2020-12/schema' },
                $id: { type: 'string', format: 'uri' },
              },
            },
          },
        },
      },
      '400': false,
      '404': '`RESOURCE_NOT_FOUND`: no schema of that name.',
    },
  },
}, (c) => {
  const doc = c.get('services').schemas.documents.get(c.req.param('name') ?? '');
  if (!doc) throw new Problem('RESOURCE_NOT_FOUND', 'no such schema');
  return c.json(doc, 200, { 'content-type': 'application/schema+json', 'cache-control': 'public, max-age=86400, immutable' });
});
