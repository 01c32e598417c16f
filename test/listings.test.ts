// CapacityOffer and LoadRequest lifecycles: every transition and every refused transition, for
// both resources (they share the listing lifecycle), against the real broker.
import { Client, Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { activeRelationship, Connector, expectProblem, freshOrgs, listAll, sleep, testEnv } from './helpers';
import { createListing, iso, operator, OFFERS, publishedListing, REQUESTS, type ListingKind } from './listing-fixtures';

const connectors = (n: number) => Promise.all(freshOrgs(n).map((o) => Connector.of(o)));

describe.each([OFFERS, REQUESTS])('$name lifecycle', (kind: ListingKind) => {
  const path = (id: string, command?: string) => `${kind.collection}/${id}${command ? `/${command}` : ''}`;

  test('create -> patch -> publish -> withdraw, with timestamps, reasons and events', async () => {
    const [owner, partner] = await connectors(2);
    await activeRelationship(owner, partner);
    const created = await owner.post(kind.collection, kind.body({ expiresAt: undefined }));
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(path(created.body.id));
    expect(created.body).toMatchObject({ status: 'draft', resourceVersion: 1, ownerOrganizationId: owner.id });
    const id = created.body.id;

    const patched = await owner.patch(path(id), { expiresAt: iso(3600_000), extensions: null }, { 'if-match': '"1"' });
    expect(patched.status).toBe(200);
    expect(patched.body.resourceVersion).toBe(2);
    expect(patched.body.extensions).toBeUndefined();

    const published = await owner.command(path(id, 'publish'), 2);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ status: 'published', resourceVersion: 3 });
    expect(published.body.publishedAt).toBeDefined();

    // Draft data is frozen once published, expiresAt included (rule 7 / rule 6).
    expectProblem(await owner.patch(path(id), { expiresAt: iso(7200_000) }, { 'if-match': '"3"' }), 422, 'INVALID_STATE_TRANSITION');
    expectProblem(await owner.command(path(id, 'withdraw'), 3, {}), 400, 'VALIDATION_FAILED');
    const withdrawn = await owner.command(path(id, 'withdraw'), 3, { reason: 'truck broke down', reasonCode: 'VEHICLE_FAILURE' });
    expect(withdrawn.body).toMatchObject({ status: 'withdrawn', resourceVersion: 4, withdrawal: { reason: 'truck broke down', reasonCode: 'VEHICLE_FAILURE' } });
    expect(withdrawn.body.withdrawnAt).toBeDefined();

    // Terminal: never re-published, no further commands.
    expectProblem(await owner.command(path(id, 'publish'), 4), 422, 'INVALID_STATE_TRANSITION');
    expectProblem(await owner.command(path(id, 'withdraw'), 4, { reason: 'again' }), 422, 'INVALID_STATE_TRANSITION');
    expectProblem(await (await operator()).command(path(id, 'cancel'), 4, { reason: 'x' }), 422, 'INVALID_STATE_TRANSITION');

    const types = (await owner.get('/events?limit=200')).body.items.filter((e: any) => e.data.id === id).map((e: any) => e.type);
    expect(types).toEqual([`pcx.${kind.name}.published.v1`, `pcx.${kind.name}.withdrawn.v1`]);
    const partnerTypes = (await partner.get('/events?limit=200')).body.items.filter((e: any) => e.data.id === id).map((e: any) => e.type);
    expect(partnerTypes).toEqual(types);
  });

  test('publish needs every required field, a future expiresAt and a partner unless visibility is open', async () => {
    const [owner, partner] = await connectors(2);
    const empty = (await owner.post(kind.collection, {})).body;
    const refused = await owner.command(path(empty.id, 'publish'), 1);
    expectProblem(refused, 422, 'RESOURCE_NOT_PUBLISHABLE');
    const required = kind === OFFERS
      ? ['availabilityWindow', 'originArea', 'destinationArea', 'vehicleProfile', 'availableCapacity', 'expiresAt', 'visibility']
      : ['pickupArea', 'pickupWindow', 'deliveryArea', 'deliveryWindow', 'requiredCapacity', 'vehicleRequirements', 'goodsProfile', 'expiresAt', 'visibility'];
    expect(refused.body.errors.map((e: any) => e.pointer).sort()).toEqual(required.map((f) => `/${f}`).sort());

    const capacityField = kind === OFFERS ? 'availableCapacity' : 'requiredCapacity';
    const noDimension = await createListing(kind, owner, { [capacityField]: {} });
    expect((await owner.command(path(noDimension.id, 'publish'), 1)).body.errors).toEqual([{ pointer: `/${capacityField}`, message: 'needs at least one dimension to publish' }]);

    const soon = await createListing(kind, owner, { expiresAt: iso(800) });
    await sleep(1000);
    expect((await owner.command(path(soon.id, 'publish'), 1)).body.errors).toEqual([{ pointer: '/expiresAt', message: 'must be in the future' }]);

    // No relationship yet: visibility to named partners is refused, open is allowed.
    const named = await createListing(kind, owner, { visibility: { mode: 'partners', organizationIds: [partner.id] } });
    expectProblem(await owner.command(path(named.id, 'publish'), 1), 403, 'RELATIONSHIP_INACTIVE');
    expect((await owner.command(path((await createListing(kind, owner)).id, 'publish'), 1)).status).toBe(200);
    await activeRelationship(owner, partner);
    expect((await owner.command(path(named.id, 'publish'), 1)).status).toBe(200);
    // Nothing a refusal touched changed.
    expect((await owner.get(path(empty.id))).body.resourceVersion).toBe(1);
  });

  test('publishing twice: 409 when the Idempotency-Key is reused for it, 422 otherwise', async () => {
    const [owner] = await connectors(1);
    const draft = await createListing(kind, owner);
    const first = await owner.command(path(draft.id, 'publish'), 1, undefined, { 'idempotency-key': 'pub-1' });
    expect(first.status).toBe(200);
    // The very same request again is a replay of the original answer.
    const replay = await owner.command(path(draft.id, 'publish'), 1, undefined, { 'idempotency-key': 'pub-1' });
    expect(replay.body).toEqual(first.body);
    expectProblem(await owner.command(path(draft.id, 'publish'), 2, undefined, { 'idempotency-key': 'pub-1' }), 409, 'IDEMPOTENCY_CONFLICT');
    expectProblem(await owner.command(path(draft.id, 'publish'), 2, undefined, { 'idempotency-key': 'pub-2' }), 422, 'INVALID_STATE_TRANSITION');
    expectProblem(await owner.command(path(draft.id, 'publish'), 1), 409, 'STALE_RESOURCE_VERSION');
  });

  test('concurrent publish and withdraw: the first writer wins, the second gets 409', async () => {
    const [owner] = await connectors(1);
    for (let round = 0; round < 3; round++) {
      const draft = await createListing(kind, owner);
      const [publish, withdraw] = await Promise.all([
        owner.command(path(draft.id, 'publish'), 1),
        owner.command(path(draft.id, 'withdraw'), 1, { reason: 'race' }),
      ]);
      expect([publish.status, withdraw.status].sort()).toEqual([200, 409]);
      expectProblem(publish.status === 409 ? publish : withdraw, 409, 'STALE_RESOURCE_VERSION');
      const final = (await owner.get(path(draft.id))).body;
      expect(final).toMatchObject({ status: publish.status === 200 ? 'published' : 'withdrawn', resourceVersion: 2 });
    }
  });

  test('a draft withdrawn by its owner ends without ever reaching a partner', async () => {
    const [owner, partner] = await connectors(2);
    await activeRelationship(owner, partner);
    const draft = await createListing(kind, owner);
    const withdrawn = await owner.command(path(draft.id, 'withdraw'), 1, { reason: 'not needed' });
    expect(withdrawn.body).toMatchObject({ status: 'withdrawn', resourceVersion: 2 });
    expectProblem(await owner.command(path(draft.id, 'publish'), 2), 422, 'INVALID_STATE_TRANSITION');
    expect((await partner.get('/events?limit=200')).body.items.some((e: any) => e.data.id === draft.id)).toBe(false);
    expect((await owner.get('/events?limit=200')).body.items.filter((e: any) => e.data.id === draft.id).map((e: any) => e.type)).toEqual([`pcx.${kind.name}.withdrawn.v1`]);
  });

  test('concurrent withdraw and cancel of a published listing: one wins, the other gets 409', async () => {
    const [owner] = await connectors(1);
    const op = await operator();
    const live = await publishedListing(kind, owner);
    const [withdraw, cancel] = await Promise.all([
      owner.command(path(live.id, 'withdraw'), 2, { reason: 'race' }),
      op.command(path(live.id, 'cancel'), 2, { reason: 'race' }),
    ]);
    expect([withdraw.status, cancel.status].sort()).toEqual([200, 409]);
    expectProblem(withdraw.status === 409 ? withdraw : cancel, 409, 'STALE_RESOURCE_VERSION');
  });

  test('expiresAt: a timer expires the published listing; withdraw afterwards is refused', async () => {
    const [owner, partner] = await connectors(2);
    await activeRelationship(owner, partner);
    const live = await publishedListing(kind, owner, { expiresAt: iso(2500) });
    let current: any;
    for (let i = 0; i < 60; i++) {
      current = (await owner.get(path(live.id))).body;
      if (current.status === 'expired') break;
      await sleep(200);
    }
    expect(current).toMatchObject({ status: 'expired', resourceVersion: 3 });
    expect(Date.parse(current.expiredAt)).toBeGreaterThanOrEqual(Date.parse(live.expiresAt));
    expectProblem(await owner.command(path(live.id, 'withdraw'), 3, { reason: 'late' }), 422, 'INVALID_STATE_TRANSITION');
    const partnerEvents = (await partner.get('/events?limit=200')).body.items.filter((e: any) => e.data.id === live.id);
    expect(partnerEvents.map((e: any) => e.type)).toEqual([`pcx.${kind.name}.published.v1`, `pcx.${kind.name}.expired.v1`]);
  });

  // The window a match must still meet: the offer's availability, the request's pickup (it ends first).
  const windowOf = (start: number, end: number) =>
    kind === OFFERS
      ? { availabilityWindow: { start: iso(start), end: iso(end) } }
      : { pickupWindow: { start: iso(start), end: iso(end) }, deliveryWindow: { start: iso(start), end: iso(end + 4 * 3600_000) } };
  const windowField = kind === OFFERS ? 'availabilityWindow' : 'pickupWindow';

  test('a window that ended, or ends within the hour a match needs, is not published: 422 WINDOW_PASSED naming it, nothing changed', async () => {
    const [owner] = await connectors(1);
    for (const [start, end] of [[-2 * 86400_000, -86400_000], [-3600_000, 30 * 60_000]]) {
      const stale = await createListing(kind, owner, { ...windowOf(start, end), expiresAt: iso(20 * 3600_000) });
      const refused = await owner.command(path(stale.id, 'publish'), 1);
      expectProblem(refused, 422, 'WINDOW_PASSED');
      expect(refused.body.errors).toEqual([{ pointer: `/${windowField}/end`, message: 'ends less than 60 minutes from now' }]);
      expect(refused.body.detail).toMatch(/too late to publish: the (availability|pickup) window ends at .*, less than 60 minutes from now/);
      expect((await owner.get(path(stale.id))).body).toMatchObject({ status: 'draft', resourceVersion: 1 });
    }
  });

  test('a published listing lapses when its window can no longer be met, before expiresAt: expired, the window named, its own event', async () => {
    const [owner, partner] = await connectors(2);
    await activeRelationship(owner, partner);
    // The window ends an hour and 2.5 seconds from now: a match could still be executed for 2.5 s.
    const live = await publishedListing(kind, owner, { ...windowOf(-3600_000, 3600_000 + 2500), expiresAt: iso(20 * 3600_000) });
    let current: any;
    for (let i = 0; i < 60; i++) {
      current = (await owner.get(path(live.id))).body;
      if (current.status === 'expired') break;
      await sleep(200);
    }
    expect(current).toMatchObject({ status: 'expired', resourceVersion: 3, expiry: { reasonCode: 'WINDOW_PASSED', window: windowField } });
    expect(Date.parse(current.expiredAt)).toBeLessThan(Date.parse(live.expiresAt));
    const partnerEvents = (await partner.get('/events?limit=200')).body.items.filter((e: any) => e.data.id === live.id);
    expect(partnerEvents.map((e: any) => e.type)).toEqual([`pcx.${kind.name}.published.v1`, `pcx.${kind.name}.lapsed.v1`]);
  });

  test('expire racing withdraw: either outcome, recorded as it happened', async () => {
    const [owner] = await connectors(1);
    const live = await publishedListing(kind, owner, { expiresAt: iso(1500) });
    await sleep(Math.max(0, Date.parse(live.expiresAt) - Date.now()));
    const withdraw = await owner.command(path(live.id, 'withdraw'), 2, { reason: 'race' });
    await sleep(300);
    const final = (await owner.get(path(live.id))).body;
    if (withdraw.status === 200) expect(final.status).toBe('withdrawn');
    else {
      expect([409, 422]).toContain(withdraw.status);
      expect(final.status).toBe('expired');
    }
    expect(final.resourceVersion).toBe(3);
  });

  test('admin cancel: only a protocol operator with the admin scope, reason and actor recorded', async () => {
    const [owner] = await connectors(1);
    const op = await operator();
    const draft = await createListing(kind, owner);
    const live = await publishedListing(kind, owner);
    // The owner is no operator; nor is a participant that holds the admin scope.
    expectProblem(await owner.command(path(live.id, 'cancel'), 2, { reason: 'x' }), 403, 'INSUFFICIENT_SCOPE');
    const pretender = await Connector.of({ id: 'org-special', clientId: 'client-pretender', secret: 'secret-p' });
    expectProblem(await pretender.command(path(live.id, 'cancel'), 2, { reason: 'x' }), 404, 'RESOURCE_NOT_FOUND');
    if (kind === OFFERS) {
      // Offers: "admin scope plus scope capacity:publish".
      const narrow = await operator('exchange:admin capacity:read');
      expectProblem(await narrow.command(path(live.id, 'cancel'), 2, { reason: 'x' }), 403, 'INSUFFICIENT_SCOPE');
    }
    expectProblem(await op.command(path(live.id, 'cancel'), 2, {}), 400, 'VALIDATION_FAILED');
    for (const [target, version] of [[draft, 1], [live, 2]] as const) {
      const cancelled = await op.command(path(target.id, 'cancel'), version, { reason: 'fraud suspected', reasonCode: 'POLICY' });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({
        status: 'cancelled',
        cancellation: { reason: 'fraud suspected', reasonCode: 'POLICY' },
        cancelledBy: { kind: 'operator', organizationId: 'org-operator', clientId: 'client-operator' },
      });
    }
    const ownerEvents = (await owner.get('/events?limit=200')).body.items.filter((e: any) => e.type === `pcx.${kind.name}.cancelled.v1`);
    expect(ownerEvents.map((e: any) => e.data.id).sort()).toEqual([draft.id, live.id].sort());
  });

  test('broker-only transitions exist in the workflow but refuse every connector and have no route', async () => {
    const [owner] = await connectors(1);
    const live = await publishedListing(kind, owner);
    const systemCommand = kind === OFFERS ? 'partialMatch' : 'propose';
    const route = await owner.post(path(live.id, systemCommand), { proposalId: '01a1fd30-05ff-70e9-bbcd-a29491e72bb4' }, { 'if-match': '"2"' });
    expectProblem(route, 404, 'ROUTE_NOT_FOUND');
    const connection = await Connection.connect({ address: testEnv().temporalAddress });
    try {
      const handle = new Client({ connection }).workflow.getHandle(`${kind.name}/${live.id}`);
      const command = (actor: any) => ({
        name: systemCommand,
        commandId: crypto.randomUUID(),
        actor,
        expectedVersion: 2,
        payload: { proposalId: '01a1fd30-05ff-70e9-bbcd-a29491e72bb4', requestId: '01a1fd30-05ff-70e9-bbcd-a29491e72bb5', organizationId: 'org-x', capacity: { palletSpaces: 1 }, offerId: live.id },
        correlationId: 'test',
      });
      const refused: any = await handle.executeUpdate(systemCommand, { args: [command({ kind: 'connector', organizationId: owner.id })] }).catch((e) => e);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(refused.cause.details[0].code).toBe('ACTOR_NOT_PERMITTED');
      // The broker itself may (the matching flows do), through the Update named after the command.
      // The answer carries the transition for its sender to write (core/entities.ts does; this test does not).
      const applied: any = await handle.executeUpdate(systemCommand, { args: [command({ kind: 'broker' })] });
      expect(applied.snapshot.status).toBe(kind === OFFERS ? 'partiallyMatched' : 'proposed');
      expect(applied.transition.snapshot).toEqual(applied.snapshot);
    } finally {
      await connection.close();
    }
  });
});

describe('validation of areas, units, vocabularies and windows', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['unknown UN/LOCODE', { originArea: { kind: 'unlocode', code: 'DEQ9Q' } }, '/originArea/code'],
    ['open GeoJSON ring', { originArea: { kind: 'geometry', geometry: { type: 'Polygon', coordinates: [[[9, 53], [10, 53], [10, 54], [9, 54]]] } } }, '/originArea/geometry/coordinates/0'],
    ['longitude out of range', { destinationArea: { kind: 'circle', center: [181, 50], radiusKm: 5 } }, '/destinationArea'],
    ['circle below 1 km (an exact location)', { destinationArea: { kind: 'circle', center: [9, 50], radiusKm: 0.1 } }, '/destinationArea'],
    ['unknown country', { originArea: { kind: 'country', code: 'XX' } }, '/originArea/code'],
    ['nested list', { originArea: { kind: 'list', areas: [{ kind: 'list', areas: [] }] } }, '/originArea'],
    ['unknown unit code', { availableCapacity: { weight: { value: 5, unitCode: 'XYZ' } } }, '/availableCapacity/weight/unitCode'],
    ['volume unit for weight', { availableCapacity: { weight: { value: 5, unitCode: 'MTQ' } } }, '/availableCapacity/weight/unitCode'],
    ['negative capacity', { availableCapacity: { palletSpaces: -1 } }, '/availableCapacity/palletSpaces'],
    ['unknown body type', { vehicleProfile: { bodyType: 'spaceship' } }, '/vehicleProfile/bodyType'],
    ['other without description', { vehicleProfile: { bodyType: 'other' } }, '/vehicleProfile/bodyTypeDescription'],
    ['window end before start', { availabilityWindow: { start: iso(7200_000), end: iso(3600_000) } }, '/availabilityWindow/end'],
    ['unknown time zone', { availabilityWindow: { start: iso(3600_000), end: iso(7200_000), timeZone: 'Mars/Olympus' } }, '/availabilityWindow/timeZone'],
    ['local time without zone', { expiresAt: '2030-01-01T10:00:00' }, '/expiresAt'],
    ['unknown ADR class', { constraints: { dangerousGoods: { adrClasses: ['10'] } } }, '/constraints/dangerousGoods/adrClasses/0'],
    ['temperature range inverted', { constraints: { temperature: { minCelsius: 8, maxCelsius: 2 } } }, '/constraints/temperature/maxCelsius'],
    ['unknown direction', { direction: 'sideways' }, '/direction'],
    ['unknown visibility partner', { visibility: { mode: 'partners', organizationIds: ['org-nobody'] } }, '/visibility/organizationIds/0'],
    ['server fields', { status: 'published' }, '/status'],
  ];
  test.each(cases)('%s is a 400 naming the field', async (_name, overrides, pointer) => {
    const [owner] = await connectors(1);
    const reply = await owner.post('/capacity-offers', OFFERS.body(overrides));
    expectProblem(reply, 400, 'VALIDATION_FAILED');
    const pointers = reply.body.errors.map((e: any) => e.pointer);
    if (!pointers.some((p: string) => p === pointer || p.startsWith(`${pointer}/`) || pointer.startsWith(p) && p.length > 1)) {
      throw new Error(`expected an error at ${pointer}, got ${JSON.stringify(reply.body.errors)}`);
    }
    expect(await listAll(owner, '/capacity-offers')).toEqual([]);
  });

  test('valid areas of every kind are accepted and kept as given', async () => {
    const [owner] = await connectors(1);
    const polygon = { kind: 'geometry', geometry: { type: 'Polygon', coordinates: [[[9, 53], [10, 53], [10, 54], [9, 54], [9, 53]]] } };
    const multi = { kind: 'geometry', geometry: { type: 'MultiPolygon', coordinates: [[[[1, 1], [2, 1], [2, 2], [1, 1]]], [[[3, 3], [4, 3], [4, 4], [3, 3]]]] } };
    const list = { kind: 'list', areas: [{ kind: 'country', code: 'DE' }, { kind: 'subdivision', code: 'NL-ZH' }, { kind: 'unlocode', code: 'BEANR' }, polygon] };
    for (const area of [polygon, multi, list, { kind: 'country', code: 'PL' }]) {
      const reply = await owner.post('/capacity-offers', OFFERS.body({ originArea: area }));
      expect(reply.status).toBe(201);
      expect(reply.body.originArea).toEqual(area);
    }
  });
});

describe('LoadRequest forms', () => {
  test('the schema form is accepted and answered in the resource form', async () => {
    const [owner] = await connectors(1);
    const times = Object.fromEntries([24, 28, 48, 52].map((h) => [h, iso(h * 3600_000)]));
    const t = (h: number) => times[h];
    const reply = await owner.post('/load-requests', {
      originArea: { kind: 'unlocode', code: 'DEHAM' },
      destinationArea: { kind: 'country', code: 'NL' },
      requiredCapacity: { weightKg: 8000, volumeM3: 30, loadingMetres: 6.8, vehicleBodyTypes: ['refrigerated'] },
      pickupWindowStart: t(24),
      pickupWindowEnd: t(28),
      deliveryWindowStart: t(48),
      deliveryWindowEnd: t(52),
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      pickupArea: { kind: 'unlocode', code: 'DEHAM' },
      deliveryArea: { kind: 'country', code: 'NL' },
      pickupWindow: { start: t(24), end: t(28) },
      deliveryWindow: { start: t(48), end: t(52) },
      requiredCapacity: { weight: { value: 8000, unitCode: 'KGM' }, volume: { value: 30, unitCode: 'MTQ' }, loadingMetres: { value: 6.8, unitCode: 'MTR' } },
      vehicleRequirements: { bodyTypes: ['refrigerated'] },
    });
    for (const field of ['originArea', 'destinationArea', 'pickupWindowStart', 'pickupWindowEnd', 'deliveryWindowStart', 'deliveryWindowEnd']) {
      expect(reply.body[field]).toBeUndefined();
    }
    // Patches take the schema form too.
    const patched = await owner.patch(`/load-requests/${reply.body.id}`, { destinationArea: { kind: 'country', code: 'BE' } }, { 'if-match': '"1"' });
    expect(patched.body.deliveryArea).toEqual({ kind: 'country', code: 'BE' });
  });

  test('one concept in both forms, or half a window pair, is refused', async () => {
    const [owner] = await connectors(1);
    const both = await owner.post('/load-requests', { originArea: { kind: 'country', code: 'DE' }, pickupArea: { kind: 'country', code: 'DE' } });
    expectProblem(both, 400, 'VALIDATION_FAILED');
    expect(both.body.errors[0].pointer).toBe('/originArea');
    const half = await owner.post('/load-requests', { pickupWindowStart: iso(3600_000) });
    expectProblem(half, 400, 'VALIDATION_FAILED');
    expect(half.body.errors[0].pointer).toBe('/pickupWindowEnd');
    const mixed = await owner.post('/load-requests', { requiredCapacity: { weightKg: 5, weight: { value: 5, unitCode: 'KGM' } } });
    expectProblem(mixed, 400, 'VALIDATION_FAILED');
    const draft = (await owner.post('/load-requests', {})).body;
    const halfNull = await owner.patch(`/load-requests/${draft.id}`, { pickupWindowStart: null, pickupWindowEnd: iso(3600_000) }, { 'if-match': '"1"' });
    expectProblem(halfNull, 400, 'VALIDATION_FAILED');
    const bodyTypesTwice = await owner.patch(`/load-requests/${draft.id}`, { requiredCapacity: { vehicleBodyTypes: ['box'] }, vehicleRequirements: null }, { 'if-match': '"1"' });
    expectProblem(bodyTypesTwice, 400, 'VALIDATION_FAILED');
  });

  test('a refusal of a schema-form body names the fields as sent: bounds of the capacity numbers, window order', async () => {
    const [owner] = await connectors(1);
    for (const field of ['weightKg', 'volumeM3', 'loadingMetres']) {
      // The resource form's values go up to 1e9; the schema-form numbers have the same bounds.
      expect((await owner.post('/load-requests', { requiredCapacity: { [field]: 1e9 } })).status).toBe(201);
      const refused = await owner.post('/load-requests', { requiredCapacity: { [field]: 2e9 } });
      expectProblem(refused, 400, 'VALIDATION_FAILED');
      const pointers: string[] = refused.body.errors.map((e: any) => e.pointer);
      expect(pointers).toContain(`/requiredCapacity/${field}`);
      expect(pointers.every((p) => p === '/requiredCapacity' || p === `/requiredCapacity/${field}`)).toBe(true);
    }
    const backwards = await owner.post('/load-requests', { pickupWindowStart: iso(8 * 3600_000), pickupWindowEnd: iso(4 * 3600_000) });
    expectProblem(backwards, 400, 'VALIDATION_FAILED');
    expect(backwards.body.errors).toEqual([{ pointer: '/pickupWindowEnd', message: 'must be after start' }]);
    const unknownCode = await owner.post('/load-requests', { originArea: { kind: 'unlocode', code: 'DEQ9Q' } });
    expectProblem(unknownCode, 400, 'VALIDATION_FAILED');
    expect(unknownCode.body.errors.map((e: any) => e.pointer.split('/')[1])).toEqual(['originArea']);
  });
});
