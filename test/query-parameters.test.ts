// Query parameters of every list (api/http.ts queryValues and querySingle): a list-valued
// parameter (status) sent repeated (`status=a&status=b`, openapi-fetch's form of an array) or
// comma-separated filters by all its values; any other parameter sent twice is a 400 problem,
// never silently the first value.
import { activeRelationship, Connector, createRelationship, expectProblem, freshOrgs, type Reply } from './helpers';
import { createListing, OFFERS, publishedListing } from './listing-fixtures';

const connectors = (n: number) => Promise.all(freshOrgs(n).map((o) => Connector.of(o)));
const ids = (reply: Reply) => {
  if (reply.status !== 200) throw new Error(`${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.items.map((x: any) => x.id).sort();
};
const UUID_A = '01900000-0000-7000-8000-000000000001';
const UUID_B = '01900000-0000-7000-8000-000000000002';

/** Every list, a status it knows, and its single-valued parameters with two values valid one by one. */
const LISTS: { path: string; statuses?: [string, string]; single: Record<string, [string, string]> }[] = [
  { path: '/partner-relationships', statuses: ['draft', 'terminated'], single: { counterpart: ['org-a', 'org-b'] } },
  {
    path: '/capacity-offers',
    statuses: ['draft', 'published'],
    single: { owner: ['org-a', 'org-b'], area: ['DE', 'NL'], from: ['2030-01-01T00:00:00Z', '2030-01-02T00:00:00Z'], to: ['2030-02-01T00:00:00Z', '2030-02-02T00:00:00Z'] },
  },
  {
    path: '/load-requests',
    statuses: ['draft', 'published'],
    single: { owner: ['org-a', 'org-b'], area: ['bbox:5,47,15,55', 'circle:9.99,53.55,50'], from: ['2030-01-01T00:00:00Z', '2030-01-02T00:00:00Z'], to: ['2030-02-01T00:00:00Z', '2030-02-02T00:00:00Z'] },
  },
  { path: '/match-proposals', statuses: ['open', 'accepted'], single: { role: ['carrier', 'shipper'], offer: [UUID_A, UUID_B], request: [UUID_A, UUID_B] } },
  { path: '/transport-tenders', statuses: ['issued', 'accepted'], single: { proposal: [UUID_A, UUID_B] } },
  { path: '/transport-commitments', statuses: ['active', 'cancelled'], single: { tender: [UUID_A, UUID_B] } },
  { path: '/execution-handovers', statuses: ['offered', 'imported'], single: { commitment: [UUID_A, UUID_B] } },
  { path: '/execution-references', statuses: ['created', 'linked'], single: { proposal: [UUID_A, UUID_B] } },
  { path: '/events', single: {} },
];

describe('list-valued query parameters', () => {
  test('status repeated, comma-separated or both filters by every value (relationships)', async () => {
    const [a, b, c, d] = await connectors(4);
    const draft = (await createRelationship(a, b)).body;
    const requested = (await createRelationship(a, c)).body;
    expect((await a.command(`/partner-relationships/${requested.id}/request`, 1)).status).toBe(200);
    const active = await activeRelationship(a, d);

    const path = '/partner-relationships';
    expect(ids(await a.get(`${path}?status=draft&status=requested`))).toEqual([draft.id, requested.id].sort());
    expect(ids(await a.get(`${path}?status=draft,requested`))).toEqual([draft.id, requested.id].sort());
    expect(ids(await a.get(`${path}?status=draft&status=requested,active`))).toEqual([draft.id, requested.id, active.id].sort());
    expect(ids(await a.get(`${path}?status=requested&status=requested`))).toEqual([requested.id]);
    expect(ids(await a.get(`${path}?status=active&status=draft&counterpart=${b.id}`))).toEqual([draft.id]);
    // A bad value is refused wherever it stands.
    for (const query of ['status=draft&status=bogus', 'status=bogus&status=draft', 'status=draft&status=', 'status=draft,,requested']) {
      const refused = await a.get(`${path}?${query}`);
      expectProblem(refused, 400, 'VALIDATION_FAILED');
      expect(refused.body.errors).toEqual([{ pointer: '/query/status', message: expect.any(String) }]);
    }
  });

  test('status repeated filters capacity offers by every value', async () => {
    const [owner] = await connectors(1);
    const draft = await createListing(OFFERS, owner);
    const published = await publishedListing(OFFERS, owner);
    const mine = `owner=${owner.id}`;
    expect(ids(await owner.get(`/capacity-offers?${mine}&status=draft&status=published`))).toEqual([draft.id, published.id].sort());
    expect(ids(await owner.get(`/capacity-offers?${mine}&status=published&status=draft`))).toEqual([draft.id, published.id].sort());
    expect(ids(await owner.get(`/capacity-offers?${mine}&status=published,draft`))).toEqual([draft.id, published.id].sort());
    expect(ids(await owner.get(`/capacity-offers?${mine}&status=published`))).toEqual([published.id]);
  });

  test.each(LISTS.filter((l) => l.statuses))('$path takes status repeated and refuses a bad repeated value', async ({ path, statuses }) => {
    const [caller] = await connectors(1);
    const [first, second] = statuses!;
    expect((await caller.get(`${path}?status=${first}&status=${second}`)).status).toBe(200);
    expect((await caller.get(`${path}?status=${first},${second}`)).status).toBe(200);
    const refused = await caller.get(`${path}?status=${first}&status=bogus`);
    expectProblem(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.errors).toEqual([{ pointer: '/query/status', message: expect.any(String) }]);
  });
});

describe('single-valued query parameters', () => {
  test.each(LISTS)('$path refuses limit, cursor and each filter sent twice, naming it', async ({ path, single }) => {
    const [caller] = await connectors(1);
    const page = await caller.get(`${path}?limit=1`);
    expect(page.status).toBe(200);
    const repeated: Record<string, [string, string]> = { limit: ['1', '2'], cursor: ['AAAA', 'AAAB'], ...single };
    for (const [name, [one, other]] of Object.entries(repeated)) {
      const query = `${name}=${encodeURIComponent(one)}&${name}=${encodeURIComponent(other)}`;
      const refused = await caller.get(`${path}?${query}`);
      expect({ query, status: refused.status, code: refused.body?.code, errors: refused.body?.errors }).toEqual({
        query,
        status: 400,
        code: 'VALIDATION_FAILED',
        errors: [{ pointer: `/query/${name}`, message: 'must not be repeated' }],
      });
      expectProblem(refused, 400, 'VALIDATION_FAILED');
      // Each value alone is fine (cursors aside, which this broker never issued): the refusal is for the repetition.
      if (name !== 'cursor') expect({ query: `${name}=${one}`, status: (await caller.get(`${path}?${name}=${encodeURIComponent(one)}`)).status }).toEqual({ query: `${name}=${one}`, status: 200 });
    }
  });

  test('the outcome chain refuses executionReferenceId sent twice', async () => {
    const [caller] = await connectors(1);
    const refused = await caller.get(`/execution-outcomes?executionReferenceId=${UUID_A}&executionReferenceId=${UUID_B}`);
    expectProblem(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.errors).toEqual([{ pointer: '/query/executionReferenceId', message: 'must not be repeated' }]);
  });

  test('a cursor sent twice is refused even when both are the same page', async () => {
    const [a, b, c] = await connectors(3);
    await createRelationship(a, b);
    await createRelationship(a, c);
    const first = await a.get('/partner-relationships?limit=1');
    const cursor = first.body.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    expectProblem(await a.get(`/partner-relationships?limit=1&cursor=${cursor}&cursor=${cursor}`), 400, 'VALIDATION_FAILED');
    expect(ids(await a.get(`/partner-relationships?limit=1&cursor=${cursor}`))).toHaveLength(1);
  });
});
