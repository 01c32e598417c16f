// The event channels as an AsyncAPI 3.0 document (the specification's "Event channel description,
// AsyncAPI, optional"), served at GET /asyncapi.json beside the OpenAPI document. Generated, never
// written by hand: one message per event of the catalogue (domain/events.ts) with its data schema,
// the pull feed (GET /events, declared in api/events.ts) and the webhook channel (a subscription's
// HTTPS target, api/webhook-subscriptions.ts). The schemas are the bundled OpenAPI document's
// components (JSON Schema 2020-12, the schema format named on every payload).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMA_DIR } from '../core/schemas';
import { EVENTS } from '../domain/events';
import { componentName } from './openapi-bundle';

const SCHEMA_FORMAT = 'application/schema+json;version=2020-12';

/** `capacity-offer` or `execution-reference#/$defs/ExecutionOutcome` as the bundle's component name. */
function dataComponent(data: string): string {
  const [file, pointer = ''] = data.split('#');
  return componentName(file, pointer);
}

/** A schema of a file's $defs that no operation references (the bundle holds only what the document uses). */
function definitionOf(data: string): unknown {
  const [file, pointer = ''] = data.split('#');
  const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, `${file}.json`), 'utf8'));
  return pointer.split('/').slice(1).reduce((node, key) => node?.[key], schema);
}

const messageName = (type: string) => type.replace(/^pcx\./, '').replace(/\.v\d+$/, '').replace(/[.-]([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The AsyncAPI document of the events, its schemas taken from `openapi` (the bundled OpenAPI document). */
export function buildAsyncApi(openapi: any, publicBaseUrl: string): any {
  const schemas: Record<string, unknown> = { ...openapi.components.schemas };
  const messages: Record<string, unknown> = {};
  for (const [type, entry] of Object.entries(EVENTS)) {
    const data = dataComponent(entry.data);
    schemas[data] ??= definitionOf(entry.data);
    messages[messageName(type)] = {
      name: type,
      title: type,
      summary: `Emitted by ${entry.emittedBy}.`,
      contentType: 'application/json',
      payload: {
        schemaFormat: SCHEMA_FORMAT,
        schema: {
          allOf: [{ $ref: '#/components/schemas/Event' }],
          properties: { type: { const: type }, subject: { type: 'string', pattern: `^${entry.kind}s?/` }, data: { $ref: `#/components/schemas/${data}` } },
        },
      },
    };
  }
  const all = Object.keys(messages).map((name) => ({ $ref: `#/components/messages/${name}` }));
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Partner Capacity Exchange broker events',
      version: openapi.info.version,
      description:
        'Every event an organization may receive, as CloudEvents 1.0 in structured JSON mode: pulled from the feed (GET /events, cursor-paged, each event once per audience) or pushed to a webhook subscription\'s HTTPS target (Standard Webhooks signatures). Consumers deduplicate by id and ignore a resourceversion at or below the one they applied (docs/webhooks.md). The HTTP operations are in /openapi.json.',
    },
    servers: {
      broker: { host: new URL(publicBaseUrl).host, protocol: new URL(publicBaseUrl).protocol.replace(':', ''), pathname: new URL(publicBaseUrl).pathname.replace(/\/$/, '') || undefined, description: 'The broker: its event feed.' },
    },
    channels: {
      feed: {
        address: '/events',
        title: 'The event feed',
        description: 'GET /events with an OAuth 2.0 token: the events of the caller\'s organization, oldest first, page by page after a cursor (operation listEvents of the OpenAPI document).',
        servers: [{ $ref: '#/servers/broker' }],
        messages: Object.fromEntries(Object.keys(messages).map((name) => [name, { $ref: `#/components/messages/${name}` }])),
      },
      webhook: {
        address: null,
        title: 'A webhook subscription\'s target',
        description: 'POSTed to the HTTPS URL of a webhook subscription (POST /webhook-subscriptions), signed by the Standard Webhooks scheme (webhook-id, webhook-timestamp, webhook-signature); 2xx within 15 s is success, anything else is retried on the schedule of docs/webhooks.md.',
        messages: Object.fromEntries(Object.keys(messages).map((name) => [name, { $ref: `#/components/messages/${name}` }])),
      },
    },
    operations: {
      pullFeed: { action: 'receive', channel: { $ref: '#/channels/feed' }, title: 'Read the feed', messages: all.map((m) => ({ $ref: m.$ref.replace('#/components/messages/', '#/channels/feed/messages/') })) },
      receiveWebhook: { action: 'receive', channel: { $ref: '#/channels/webhook' }, title: 'Receive a webhook delivery', messages: all.map((m) => ({ $ref: m.$ref.replace('#/components/messages/', '#/channels/webhook/messages/') })) },
    },
    components: { messages, schemas },
  };
}
