// Isolation across three organizations: for every endpoint and every state, an organization sees
// and touches only what the specification lets it. Add each new endpoint to the matrix below.
import { Connector, createRelationship, freshOrgs, type Reply } from './helpers';

type Probe = (c: Connector, id: string, version: number) => Promise<Reply>;

/** Every relationship endpoint that addresses one relationship. */
const RELATIONSHIP_ENDPOINTS: Record<string, Probe> = {
  'GET /partner-relationships/{id}': (c, id) => c.get(`/partner-relationships/${id}`),
  'PATCH /partner-relationships/{id}': (c, id, v) => c.patch(`/partner-relationships/${id}`, { retentionPolicyRef: 'x' }, { 'if-match': `"${v}"` }),
  ...Object.fromEntries(
    ['request', 'accept', 'reject', 'withdraw', 'suspend', 'terminate', 'reactivate'].map((name) => [
      `POST /partner-relationships/{id}/${name}`,
      ((c, id, v) => c.command(`/partner-relationships/${id}/${name}`, v, { reason: 'probe' })) as Probe,
    ]),
  ),
};

/** Endpoints that list; the relationship must be absent from what they return. */
const LIST_ENDPOINTS: Record<string, (c: Connector) => Promise<string[]>> = {
  'GET /partner-relationships': async (c) => (await c.get('/partner-relationships?limit=200')).body.items.map((r: any) => r.id),
  'GET /events': async (c) => (await c.get('/events?limit=200')).body.items.map((e: any) => e.data.id),
};

async function relationshipIn(state: string, a: Connector, b: Connector): Promise<{ id: string; version: number }> {
  const id = (await createRelationship(a, b)).body.id;
  if (state === 'draft') return { id, version: 1 };
  await a.command(`/partner-relationships/${id}/request`, 1);
  if (state === 'requested') return { id, version: 2 };
  await b.command(`/partner-relationships/${id}/accept`, 2);
  if (state === 'active') return { id, version: 3 };
  await b.command(`/partner-relationships/${id}/suspend`, 3, { reason: 'x' });
  if (state === 'suspended') return { id, version: 4 };
  await a.command(`/partner-relationships/${id}/terminate`, 4, { reason: 'x' });
  return { id, version: 5 };
}

describe.each(['draft', 'requested', 'active', 'suspended', 'terminated'])('a relationship in %s', (state) => {
  test('is invisible and untouchable for a third organization on every endpoint', async () => {
    const [a, b, outsider] = await Promise.all(freshOrgs(3).map((o) => Connector.of(o)));
    const { id, version } = await relationshipIn(state, a, b);
    for (const [name, probe] of Object.entries(RELATIONSHIP_ENDPOINTS)) {
      const reply = await probe(outsider, id, version);
      if (reply.status !== 404) throw new Error(`${name} answered ${reply.status} to an outsider`);
    }
    for (const [name, list] of Object.entries(LIST_ENDPOINTS)) {
      if ((await list(outsider)).includes(id)) throw new Error(`${name} showed it to an outsider`);
    }
    // And nothing the outsider did changed it.
    expect((await a.get(`/partner-relationships/${id}`)).body.resourceVersion).toBe(version);
  });

  test(state === 'draft' ? 'is invisible to the accepting organization' : 'is visible to both parties', async () => {
    const [a, b] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
    const { id } = await relationshipIn(state, a, b);
    expect((await a.get(`/partner-relationships/${id}`)).status).toBe(200);
    expect((await LIST_ENDPOINTS['GET /partner-relationships'](a)).includes(id)).toBe(true);
    const seenByB = (await b.get(`/partner-relationships/${id}`)).status;
    expect(seenByB).toBe(state === 'draft' ? 404 : 200);
    expect((await LIST_ENDPOINTS['GET /partner-relationships'](b)).includes(id)).toBe(state !== 'draft');
  });
});
