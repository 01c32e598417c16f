// The AsyncAPI 3.0 document of the event channels (api/asyncapi.ts): valid under the AsyncAPI
// parser, a message per event of the catalogue with its data schema, the feed and the webhook channel.
import { Parser } from '@asyncapi/parser';
import { documents } from '../../api/app';
import { EVENTS } from '../../domain/events';

const doc = documents.asyncapi('http://localhost:8080');

describe('GET /asyncapi.json', () => {
  it('is a valid AsyncAPI 3.0 document: no error from the AsyncAPI parser', async () => {
    expect(doc.asyncapi).toBe('3.0.0');
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    const errors = diagnostics.filter((d) => d.severity === 0).map((d) => `${d.code}: ${d.message} at ${d.path.join('/')}`);
    expect(errors).toEqual([]);
    expect(document).toBeDefined();
    expect(document!.channels().all().map((c) => c.id()).sort()).toEqual(['feed', 'webhook']);
    expect(document!.operations().all().map((o) => o.id()).sort()).toEqual(['pullFeed', 'receiveWebhook']);
  }, 60_000);

  it('has a message per catalogued event, whose payload names its type and data schema', () => {
    const messages = Object.values<any>(doc.components.messages);
    expect(messages.map((m) => m.name).sort()).toEqual(Object.keys(EVENTS).sort());
    for (const message of messages) {
      const { schema } = message.payload;
      expect(schema.properties.type.const).toBe(message.name);
      const data = schema.properties.data.$ref.replace('#/components/schemas/', '');
      expect({ type: message.name, data: typeof doc.components.schemas[data] }).toEqual({ type: message.name, data: 'object' });
    }
    expect(Object.keys(doc.channels.feed.messages)).toHaveLength(messages.length);
    expect(Object.keys(doc.channels.webhook.messages)).toHaveLength(messages.length);
  });
});
