// GET /asyncapi.json: the event channels as an AsyncAPI 3.0 document (api/asyncapi-document.ts),
// built once per public base URL (api/documents.ts).
import { Hono } from 'hono';
import type { AppEnv } from './context';
import { publicOperation } from './operations';

export const asyncapi = new Hono<AppEnv>();

publicOperation(asyncapi, {
  method: 'GET', path: '/asyncapi.json', answers: [200],
  doc: {
    id: 'getAsyncApiDocument',
    summary: 'The event channels, as an AsyncAPI 3.0 document',
    description:
      'Every event type the broker emits (a message each, its CloudEvents envelope and the schema ' +
      'of its data, with what emits it), the pull feed (`GET /events`) and the webhook channel (a ' +
      "subscription's HTTPS target), as an AsyncAPI 3.0 document generated from the broker's own " +
      "declarations when it starts. The schemas are this document's, in JSON Schema 2020-12.",
    tag: 'Discovery',
    responses: {
      '200': {
        description: 'The AsyncAPI 3.0 document of the event channels.',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/AsyncApiDocument' } } },
      },
    },
  },
}, (c) => {
  return c.json(c.get('documents').asyncapi(c.get('services').config.publicBaseUrl));
});
