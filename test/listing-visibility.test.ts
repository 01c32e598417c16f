// Partner visibility and field-level disclosure of offers and requests: the isolation matrix
// (three organizations x each resource x each endpoint x draft / published / after suspension),
// the visibility modes, the read filters, and a test per protected field that it never reaches a
// partner before acceptance, through any read, list or event.
import { activeRelationship, Connector, expectProblem, freshOrgs, type Reply } from './helpers';
import { expectCausalFeed, wholeFeed } from './feed';
import { createListing, ids, iso, OFFERS, operator, pointerGet, publishedListing, REQUESTS, type ListingKind } from './listing-fixtures';

const connectors = (n: number) => Promise.all(freshOrgs(n).map((o) => Connector.of(o)));

type Probe = (c: Connector, kind: ListingKind, id: string, version: number) => Promise<Reply>;

/** Every endpoint that addresses one listing. Partners and outsiders must get 404 on commands. */
const COMMAND_ENDPOINTS: Record<string, Probe> = {
  'PATCH /{id}': (c, k, id, v) => c.patch(`${k.collection}/${id}`, { expiresAt: iso(7200_000) }, { 'if-match': `"${v}"` }),
  'POST /{id}/publish': (c, k, id, v) => c.command(`${k.collection}/${id}/publish`, v),
  'POST /{id}/withdraw': (c, k, id, v) => c.command(`${k.collection}/${id}/withdraw`, v, { reason: 'probe' }),
  'POST /{id}/cancel': (c, k, id, v) => c.command(`${k.collection}/${id}/cancel`, v, { reason: 'probe' }),
};

const seesById = async (c: Connector, kind: ListingKind, id: string) => (await c.get(`${kind.collection}/${id}`)).status === 200;
const seesInList = async (c: Connector, kind: ListingKind, id: string) => ids(await c.get(`${kind.collection}?limit=200`)).includes(id);
const seesInEvents = async (c: Connector, id: string) => (await c.get('/events?limit=200')).body.items.some((e: any) => e.data.id === id);

describe.each([OFFERS, REQUESTS])('$name isolation matrix', (kind) => {
  test('owner, partner and outsider through draft, published and suspension', async () => {
    const [owner, partner, outsider] = await connectors(3);
    const relationship = await activeRelationship(owner, partner);
    const draft = await createListing(kind, owner);
    const live = await publishedListing(kind, owner);

    const expectVisibility = async (who: Connector, id: string, visible: boolean, withEvents = visible) => {
      expect([await seesById(who, kind, id), await seesInList(who, kind, id)]).toEqual([visible, visible]);
      expect(await seesInEvents(who, id)).toBe(withEvents);
    };
    // Draft: the owner only.
    await expectVisibility(owner, draft.id, true, false);
    await expectVisibility(partner, draft.id, false);
    await expectVisibility(outsider, draft.id, false);
    // Published: the owner and the partner; never the outsider.
    await expectVisibility(owner, live.id, true);
    await expectVisibility(partner, live.id, true);
    await expectVisibility(outsider, live.id, false);
    // Commands: nobody but the owner, on any state (404, existence not revealed).
    for (const who of [partner, outsider]) {
      for (const [name, probe] of Object.entries(COMMAND_ENDPOINTS)) {
        for (const [target, version] of [[draft, 1], [live, 2]] as const) {
          const reply = await probe(who, kind, target.id, version);
          if (reply.status !== 404 && !(name.includes('cancel') && reply.status === 403)) {
            throw new Error(`${name} answered ${reply.status} to ${who === partner ? 'the partner' : 'an outsider'}`);
          }
        }
      }
    }
    // Suspension stops sharing at once: reads and lists. The feed keeps what it showed (an
    // event's audience is fixed when it is emitted; a feed's past never changes).
    await owner.command(`/partner-relationships/${relationship.id}/suspend`, 3, { reason: 'audit' });
    await expectVisibility(partner, live.id, false, true);
    await expectVisibility(owner, live.id, true);
    // Reactivation shares again; termination stops it for good.
    await owner.command(`/partner-relationships/${relationship.id}/reactivate`, 4);
    await expectVisibility(partner, live.id, true);
    await partner.command(`/partner-relationships/${relationship.id}/terminate`, 5, { reason: 'end' });
    await expectVisibility(partner, live.id, false, true);
    // Nothing anyone else did changed the listings.
    expect((await owner.get(`${kind.collection}/${draft.id}`)).body.resourceVersion).toBe(1);
    expect((await owner.get(`${kind.collection}/${live.id}`)).body.resourceVersion).toBe(2);
  });

  test('the relationship must grant the read scope, and ended listings disappear for partners', async () => {
    const [owner, partner, narrow] = await connectors(3);
    await activeRelationship(owner, partner);
    const otherScope = kind === OFFERS ? 'loads:read' : 'capacity:read';
    await activeRelationship(owner, narrow, { scopes: [otherScope] });
    const live = await publishedListing(kind, owner);
    expect(await seesById(narrow, kind, live.id)).toBe(false);
    expect(await seesInList(narrow, kind, live.id)).toBe(false);
    expect(await seesInEvents(narrow, live.id)).toBe(false);
    // The caller's token scope is checked too (gate 6): a token without the read scope is 403.
    const tokenWithoutRead = await Connector.of(partner.org, otherScope);
    expectProblem(await tokenWithoutRead.get(`${kind.collection}/${live.id}`), 403, 'INSUFFICIENT_SCOPE');
    await owner.command(`${kind.collection}/${live.id}/withdraw`, 2, { reason: 'done' });
    expectProblem(await partner.get(`${kind.collection}/${live.id}`), 404, 'RESOURCE_NOT_FOUND');
    expect(await seesInList(partner, kind, live.id)).toBe(false);
    // The partner learns of the withdrawal through the feed, with the partner view.
    const events = (await partner.get('/events?limit=200')).body.items.filter((e: any) => e.data.id === live.id);
    expect(events.map((e: any) => e.type)).toEqual([`pcx.${kind.name}.published.v1`, `pcx.${kind.name}.withdrawn.v1`]);
  });

  test('visibility modes: named partners, relationship groups, open', async () => {
    const [owner, north, south] = await connectors(3);
    await activeRelationship(owner, north, { visibilityPolicy: { groups: ['north'] } });
    await activeRelationship(owner, south, { visibilityPolicy: { groups: ['south'] } });
    const named = await publishedListing(kind, owner, { visibility: { mode: 'partners', organizationIds: [north.id] } });
    const grouped = await publishedListing(kind, owner, { visibility: { mode: 'groups', groups: ['south'] } });
    const open = await publishedListing(kind, owner, { visibility: { mode: 'open' } });
    expect(await seesById(north, kind, named.id)).toBe(true);
    expect(await seesById(south, kind, named.id)).toBe(false);
    expect(await seesById(north, kind, grouped.id)).toBe(false);
    expect(await seesById(south, kind, grouped.id)).toBe(true);
    expect(await seesById(north, kind, open.id)).toBe(true);
    expect(await seesById(south, kind, open.id)).toBe(true);
    expect(ids(await north.get(`${kind.collection}?limit=200`)).sort()).toEqual([named.id, open.id].sort());
    expect(ids(await south.get(`${kind.collection}?limit=200`)).sort()).toEqual([grouped.id, open.id].sort());
    expect(await seesInEvents(south, named.id)).toBe(false);
    expect(await seesInEvents(north, grouped.id)).toBe(false);
  });

  test('a protocol operator sees what a cancel decision needs and never restricted details', async () => {
    const [owner] = await connectors(1);
    const draft = await createListing(kind, owner);
    const live = await publishedListing(kind, owner);
    const op = await operator(kind === OFFERS ? 'exchange:admin capacity:read' : 'exchange:admin loads:read');
    const envelope = ['id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'status', 'expiresAt'];
    // A draft is its owner's: the operator learns only that it exists, and its status.
    const seenDraft = await op.get(`${kind.collection}/${draft.id}`);
    expect(seenDraft.status).toBe(200);
    expect(Object.keys(seenDraft.body).sort()).toEqual(envelope.sort());
    // A published listing: the coarse terms a partner sees, nothing protected.
    const seenLive = await op.get(`${kind.collection}/${live.id}`);
    const listed = (await op.get(`${kind.collection}?limit=200&owner=${owner.id}`)).body.items;
    expect(listed.map((x: any) => x.id).sort()).toEqual([draft.id, live.id].sort());
    for (const view of [seenLive.body, listed.find((x: any) => x.id === live.id)]) {
      expect(view.status).toBe(kind.liveStatus);
      expect(view[kind === OFFERS ? 'availableCapacity' : 'requiredCapacity']).toBeDefined();
      for (const pointer of kind.protectedFields) expect(pointerGet(view, pointer)).toBeUndefined();
    }
    expect(Object.keys(listed.find((x: any) => x.id === draft.id)).sort()).toEqual(envelope.sort());
  });
});

describe.each([OFFERS, REQUESTS])('$name field disclosure before acceptance', (kind) => {
  let owner: Connector;
  let partner: Connector;
  let listing: any;
  let partnerViews: Array<[string, any]>;

  beforeAll(async () => {
    [owner, partner] = await connectors(2);
    await activeRelationship(owner, partner);
    listing = await publishedListing(kind, owner);
    const events = (await partner.get('/events?limit=200')).body.items.filter((e: any) => e.data.id === listing.id);
    partnerViews = [
      ['GET by id', (await partner.get(`${kind.collection}/${listing.id}`)).body],
      ['list', (await partner.get(`${kind.collection}?limit=200`)).body.items.find((x: any) => x.id === listing.id)],
      ...events.map((e: any) => [`event ${e.type}`, e.data] as [string, any]),
    ];
  });

  test('the partner sees the listing through every channel', () => {
    expect(partnerViews.length).toBeGreaterThanOrEqual(3);
    for (const [, view] of partnerViews) expect(view).toMatchObject({ id: listing.id, status: 'published' });
  });

  test.each(kind.protectedFields)('%s never reaches the partner', (pointer) => {
    // The owner does have it (so the test can fail).
    if (!['/allocations', '/proposalIds', '/openProposalIds'].includes(pointer)) expect(pointerGet(listing, pointer)).toBeDefined();
    for (const [channel, view] of partnerViews) {
      if (pointerGet(view, pointer) !== undefined) throw new Error(`${pointer} reached the partner through ${channel}`);
    }
  });

  test('protected values appear nowhere in what the partner receives', () => {
    const text = JSON.stringify(partnerViews);
    for (const secret of ['secret note', 'HH-PC 1234', 'ACME Retail', 'Hafenstrasse', '65-inch TVs', '852872', 'T-1001', 'O-555']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('read filters', () => {
  test('status, owner, area overlap and time window, with pagination', async () => {
    const [owner, partner] = await connectors(2);
    await activeRelationship(owner, partner);
    const hamburg = await publishedListing(OFFERS, owner, { originArea: { kind: 'unlocode', code: 'DEHAM' }, destinationArea: { kind: 'unlocode', code: 'DEBER' } });
    const lyon = await publishedListing(OFFERS, owner, {
      originArea: { kind: 'unlocode', code: 'FRLYS' },
      destinationArea: { kind: 'country', code: 'ES' },
      availabilityWindow: { start: iso(10 * 86400_000), end: iso(11 * 86400_000) },
      expiresAt: iso(9 * 86400_000),
    });
    const draft = await createListing(OFFERS, owner);
    const q = async (query: string) => ids(await partner.get(`/capacity-offers?${query}`)).filter((id) => [hamburg.id, lyon.id, draft.id].includes(id)).sort();
    expect(await q('limit=200')).toEqual([hamburg.id, lyon.id].sort());
    expect(await q('area=DE')).toEqual([hamburg.id]);
    expect(await q('area=DE-BE')).toEqual([hamburg.id]);
    expect(await q('area=ES')).toEqual([lyon.id]);
    expect(await q('area=circle:4.83,45.76,30')).toEqual([lyon.id]);
    expect(await q('area=bbox:-10,35,3,44')).toEqual([lyon.id]);
    expect(await q(`from=${iso(9 * 86400_000)}`)).toEqual([lyon.id]);
    expect(await q(`to=${iso(3 * 86400_000)}`)).toEqual([hamburg.id]);
    expect(await q(`owner=${owner.id}&status=published`)).toEqual([hamburg.id, lyon.id].sort());
    expect(ids(await owner.get('/capacity-offers?status=draft'))).toEqual([draft.id]);
    const page1 = await partner.get(`/capacity-offers?owner=${owner.id}&limit=1`);
    const page2 = await partner.get(`/capacity-offers?owner=${owner.id}&limit=1&cursor=${page1.body.nextCursor}`);
    expect([...ids(page1), ...ids(page2)].sort()).toEqual([hamburg.id, lyon.id].sort());
    for (const bad of ['area=DEQ9Q', 'area=bbox:1,2', 'status=open', 'from=yesterday', 'owner=%20x']) {
      expectProblem(await partner.get(`/capacity-offers?${bad}`), 400, 'VALIDATION_FAILED');
    }
  });
});

describe('the event feed honours the token scopes (gate 6)', () => {
  test('each kind needs its read scope, for the owner as for partners', async () => {
    const [owner, partner] = await connectors(2);
    const relationship = await activeRelationship(owner, partner);
    const offer = await publishedListing(OFFERS, owner);
    const request = await publishedListing(REQUESTS, owner);
    const kindsSeen = async (c: Connector) => {
      const items = (await c.get('/events?limit=200')).body.items;
      return [...new Set(items.map((e: any) => e.type.split('.')[1]))].sort();
    };
    expect(await kindsSeen(owner)).toEqual(['capacity-offer', 'load-request', 'partner-relationship']);
    expect(await kindsSeen(await Connector.of(owner.org, 'relationships:manage'))).toEqual(['partner-relationship']);
    expect(await kindsSeen(await Connector.of(owner.org, 'loads:read'))).toEqual(['load-request']);
    expect(await kindsSeen(await Connector.of(partner.org, 'capacity:read'))).toEqual(['capacity-offer']);
    expect(await kindsSeen(await Connector.of(partner.org, 'matches:read'))).toEqual([]);
    expect([offer.id, request.id, relationship.id]).toHaveLength(3);
  });
});

describe('a reader\u2019s feed never changes its past (an event\u2019s audience is fixed at emission)', () => {
  test('replaying the feed from its start returns the same events across a suspension and a termination; nothing new is shared meanwhile', async () => {
    const [owner, partner] = await connectors(2);
    const relationship = await activeRelationship(owner, partner);
    const shared = await publishedListing(OFFERS, owner);
    const replay = async () => (await wholeFeed(partner)).map((e: any) => e.id);
    const before = await replay();
    const sharedEvents = (await wholeFeed(partner)).filter((e: any) => e.data.id === shared.id).map((e: any) => e.type);
    expect(sharedEvents).toEqual(['pcx.capacity-offer.published.v1']);

    await owner.command(`/partner-relationships/${relationship.id}/suspend`, 3, { reason: 'audit' });
    // Published while suspended: not shared, now or later.
    const hidden = await publishedListing(OFFERS, owner);
    const suspended = await replay();
    expect(suspended.slice(0, before.length)).toEqual(before);
    expect((await wholeFeed(partner)).some((e: any) => e.data?.id === hidden.id)).toBe(false);

    await owner.command(`/partner-relationships/${relationship.id}/reactivate`, 4);
    await owner.command(`/partner-relationships/${relationship.id}/terminate`, 5, { reason: 'end' });
    await owner.command(`/capacity-offers/${shared.id}/withdraw`, 2, { reason: 'after the end' });
    const ended = await wholeFeed(partner);
    // The past as it was shown, relationship events appended; the withdrawal after the end not shared.
    expect(ended.map((e: any) => e.id).slice(0, suspended.length)).toEqual(suspended);
    expect(ended.filter((e: any) => e.data.id === shared.id).map((e: any) => e.type)).toEqual(['pcx.capacity-offer.published.v1']);
    expect(ended.some((e: any) => e.data?.id === hidden.id)).toBe(false);
    expect((await wholeFeed(partner)).map((e: any) => e.id)).toEqual(ended.map((e: any) => e.id));
    expectCausalFeed(ended);
  });
});
