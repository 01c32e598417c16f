// Recurring offers and requests (issue 33 part 2) against the real broker, on both engines: a
// series publishes its due occurrences ahead as ordinary listings of its owner, linked back to it;
// a revision changes the dates not yet published only; a skipped date is never published; the end
// withdraws what has not begun; the series is its owner's alone, its occurrences are listings like
// any other for partners. Its clock over months runs with time skipping
// (test/time-skipping/series.test.ts).
import { activeRelationship, Connector, expectProblem, freshOrgs, sleep } from './helpers';
import { offerBody, requestBody } from './listing-fixtures';
import { offer as marketOffer, request as marketRequest } from './market-bodies';

const DAY = 86_400_000;
const connectors = (n: number) => Promise.all(freshOrgs(n).map((o) => Connector.of(o)));

/** A local date `days` from today (UTC), YYYY-MM-DD. */
const dateIn = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

/** The terms of an offer occurrence: the fixture's offer without its times. */
function offerTerms(over: Record<string, unknown> = {}) {
  const { availabilityWindow: _w, expiresAt: _e, ...terms } = offerBody(over);
  return terms;
}
function requestTerms(over: Record<string, unknown> = {}) {
  const { pickupWindow: _p, deliveryWindow: _d, expiresAt: _e, ...terms } = requestBody(over);
  return terms;
}

/** Every day from tomorrow, 08:00 to 18:00 in Berlin, listed three days ahead, expiring two hours before. */
function offerSeries(over: Record<string, unknown> = {}) {
  return {
    listingKind: 'capacityOffer',
    terms: offerTerms(),
    recurrence: { rrule: 'FREQ=DAILY;COUNT=20', timeZone: 'Europe/Berlin', startDate: dateIn(1) },
    template: { windows: { availabilityWindow: { time: '08:00', duration: 'PT10H' } }, expiresAt: { before: 'PT2H' } },
    horizon: 'P3D',
    ...over,
  };
}

/** Waits until `check` answers something, or fails after `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** The series once it has published at least `n` occurrences, and each of their listings published. */
async function withOccurrences(owner: Connector, id: string, n: number, collection = '/capacity-offers') {
  const series = await until(`${n} occurrences of ${id}`, async () => {
    const s = (await owner.get(`/listing-series/${id}`)).body;
    return Object.keys(s.occurrences ?? {}).length >= n ? s : undefined;
  });
  for (const o of Object.values<any>(series.occurrences)) {
    await until(`listing ${o.listingId} published`, async () => {
      const r = await owner.get(`${collection}/${o.listingId}`);
      return r.status === 200 && r.body.status !== 'draft' ? r.body : undefined;
    });
  }
  return series;
}

const berlin = (instant: string) => new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(instant));

test('an offer series publishes its due occurrences ahead, as listings of its owner that partners see as any listing', async () => {
  const [owner, partner, stranger] = await connectors(3);
  await activeRelationship(owner, partner);
  const created = await owner.post('/listing-series', offerSeries());
  expect(created.status).toBe(201);
  expect(created.headers.get('location')).toBe(`/listing-series/${created.body.id}`);
  expect(created.body).toMatchObject({ status: 'active', listingKind: 'capacityOffer', ownerOrganizationId: owner.id, resourceVersion: 1 });
  expect(created.body.terms).not.toHaveProperty('availabilityWindow');
  const id = created.body.id;

  // Three days ahead: tomorrow and the day after at least (the third when now is past 08:00 Berlin).
  const series = await withOccurrences(owner, id, 2);
  const keys = Object.keys(series.occurrences).sort();
  expect(keys.slice(0, 2)).toEqual([dateIn(1), dateIn(2)]);
  expect(keys.length).toBeLessThanOrEqual(4);
  for (const key of keys) {
    const listing = (await owner.get(`/capacity-offers/${series.occurrences[key].listingId}`)).body;
    expect(listing).toMatchObject({ status: 'published', ownerOrganizationId: owner.id, seriesId: id, occurrenceKey: key, originArea: { code: 'DEHAM' }, restrictedDetails: { price: { amount: 950 } } });
    // 08:00 to 18:00 Berlin time on its date, whatever the offset that day; expiring two hours before.
    expect(listing.availabilityWindow.timeZone).toBe('Europe/Berlin');
    expect([berlin(listing.availabilityWindow.start), berlin(listing.availabilityWindow.end)]).toEqual(['08:00', '18:00']);
    expect(Date.parse(listing.availabilityWindow.start) - Date.parse(listing.expiresAt)).toBe(2 * 3600_000);
  }

  // The partner sees an occurrence as any published listing, with which occurrence of which series it is.
  const first = series.occurrences[keys[0]].listingId;
  const seen = await partner.get(`/capacity-offers/${first}`);
  expect(seen.status).toBe(200);
  expect(seen.body).toMatchObject({ seriesId: id, occurrenceKey: keys[0] });
  expect(seen.body).not.toHaveProperty('restrictedDetails');
  // Listed by series: the owner's and the partner's lists of its occurrences; a series that is no UUID is 400.
  const ofSeries = async (c: Connector) => (await c.get(`/capacity-offers?series=${id}&limit=200`)).body.items.map((o: any) => o.occurrenceKey).sort();
  expect(await ofSeries(owner)).toEqual(keys);
  expect(await ofSeries(partner)).toEqual(keys);
  expect(await ofSeries(stranger)).toEqual([]);
  expectProblem(await owner.get('/capacity-offers?series=tuesday'), 400, 'VALIDATION_FAILED');
  // The series itself is its owner's alone.
  expectProblem(await partner.get(`/listing-series/${id}`), 404, 'RESOURCE_NOT_FOUND');
  expectProblem(await stranger.get(`/listing-series/${id}`), 404, 'RESOURCE_NOT_FOUND');
  expect((await partner.get('/listing-series')).body.items).toEqual([]);
  expect((await owner.get('/listing-series')).body.items.map((s: any) => s.id)).toContain(id);

  // Its events go to the owner alone.
  const types = (await owner.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `listing-series/${id}`).map((e: any) => e.type);
  expect(types).toEqual(['pcx.listing-series.created.v1']);
  expect((await partner.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `listing-series/${id}`)).toEqual([]);
});

test('matching proposes an occurrence as any listing, the explanation says which occurrence of which series it is; once matched, the end of the series leaves it alone', async () => {
  const [carrier, shipper] = await connectors(2);
  await activeRelationship(carrier, shipper);
  const { availabilityWindow: _w, expiresAt: _e, ...terms } = marketOffer();
  const created = (await carrier.post('/listing-series', offerSeries({ terms, recurrence: { rrule: 'FREQ=DAILY;COUNT=2', timeZone: 'Europe/Berlin', startDate: dateIn(1) } }))).body;
  const series = await withOccurrences(carrier, created.id, 2);
  const offerId = series.occurrences[dateIn(1)].listingId;
  const start = Date.parse((await carrier.get(`/capacity-offers/${offerId}`)).body.availabilityWindow.start);
  const at = (hours: number) => new Date(start + hours * 3600_000).toISOString();
  // A load from Hamburg to Rotterdam picked up within the truck's day.
  const request = (await shipper.post('/load-requests', marketRequest({ pickupWindow: { start: at(1), end: at(4) }, deliveryWindow: { start: at(6), end: at(10) }, expiresAt: at(-1) }))).body;
  expect((await shipper.command(`/load-requests/${request.id}/publish`, 1)).status).toBe(200);
  const proposal = await until('a proposal of the occurrence', async () => {
    const items = (await shipper.get(`/match-proposals?request=${request.id}`)).body.items;
    return items?.length ? items[0] : undefined;
  });
  expect(proposal.capacityOfferId).toBe(offerId);
  expect(proposal.rationale.occurrences).toEqual([{ listing: 'capacityOffer', seriesId: created.id, occurrenceKey: dateIn(1) }]);
  expect(proposal.rationale.summary).toContain(`the ${dateIn(1)} occurrence of recurring series ${created.id}`);

  // Both accept: 12 t of the truck's 24 are committed. The series ends: that occurrence stays as it
  // is, the next day's (unmatched) is withdrawn.
  for (const side of [shipper, carrier]) {
    const current = (await side.get(`/match-proposals/${proposal.id}`)).body;
    expect((await side.post(`/match-proposals/${proposal.id}/decisions`, { decision: 'accept', observedProposalVersion: current.resourceVersion })).status).toBe(200);
  }
  await until('the allocation committed', async () => {
    const offer = (await carrier.get(`/capacity-offers/${offerId}`)).body;
    return offer.allocations?.some((a: any) => a.state === 'committed') ? offer : undefined;
  });
  const before = (await carrier.get(`/capacity-offers/${offerId}`)).body;
  const seriesNow = (await carrier.get(`/listing-series/${created.id}`)).body;
  expect((await carrier.command(`/listing-series/${created.id}/end`, seriesNow.resourceVersion, { reason: 'lane dropped' })).status).toBe(200);
  const nextDay = series.occurrences[dateIn(2)].listingId;
  await until('the next day withdrawn', async () => ((await carrier.get(`/capacity-offers/${nextDay}`)).body.status === 'withdrawn' ? true : undefined));
  await sleep(1000);
  const after = (await carrier.get(`/capacity-offers/${offerId}`)).body;
  expect({ status: after.status, resourceVersion: after.resourceVersion }).toEqual({ status: before.status, resourceVersion: before.resourceVersion });
});

test('a revision changes the dates not yet published; a skipped date is never published; the end withdraws what has not begun', async () => {
  const [owner] = await connectors(1);
  const created = (await owner.post('/listing-series', offerSeries())).body;
  const id = created.id;
  const before = await withOccurrences(owner, id, 2);
  const published = Object.keys(before.occurrences).sort();

  // Skip a date ahead of the horizon; a published date is the listing's to withdraw.
  let version = before.resourceVersion;
  const skipped = await owner.command(`/listing-series/${id}/skips`, version, { key: dateIn(6), reason: 'public holiday' });
  expect(skipped.status).toBe(200);
  expect(skipped.body.skipped).toEqual([expect.objectContaining({ key: dateIn(6), reason: 'public holiday' })]);
  version = skipped.body.resourceVersion;
  expectProblem(await owner.command(`/listing-series/${id}/skips`, version, { key: published[0] }), 422, 'INVALID_STATE_TRANSITION');
  const notADay = await owner.command(`/listing-series/${id}/skips`, version, { key: '1999-01-01' });
  expectProblem(notADay, 400, 'VALIDATION_FAILED');
  expect(notADay.body.errors[0].pointer).toBe('/key');

  // From the fifth day on: 12 t instead of 24, listed eight days ahead: the seventh day is due at
  // once whatever the hour (a week ahead, it would be due only from 08:00 Berlin time: the test
  // failed between midnight and 07:00 UTC).
  const revised = await owner.command(`/listing-series/${id}/revisions`, version, {
    from: dateIn(5),
    terms: offerTerms({ availableCapacity: { weight: { value: 12, unitCode: 'TNE' } } }),
    horizon: 'P8D',
  });
  expect(revised.status).toBe(200);
  expect(revised.body.revisions.map((r: any) => [r.revision, r.from])).toEqual([[1, dateIn(1)], [2, dateIn(5)]]);
  const after = await withOccurrences(owner, id, 6);
  const keys = Object.keys(after.occurrences).sort();
  expect(keys).not.toContain(dateIn(6));
  expect(keys).toEqual(expect.arrayContaining([dateIn(1), dateIn(2), dateIn(3), dateIn(4), dateIn(5), dateIn(7)]));
  const weightOf = async (key: string) => (await owner.get(`/capacity-offers/${after.occurrences[key].listingId}`)).body.availableCapacity.weight.value;
  expect(await weightOf(dateIn(1))).toBe(24);
  expect(await weightOf(dateIn(5))).toBe(12);
  expect(await weightOf(dateIn(7))).toBe(12);

  // The end withdraws every occurrence not yet begun, with the reason; the series takes no more commands.
  const ended = await owner.command(`/listing-series/${id}/end`, after.resourceVersion, { reason: 'contract lost' });
  expect(ended.body).toMatchObject({ status: 'ended', ending: { reason: 'contract lost' } });
  for (const key of keys) {
    const listing = await until(`occurrence ${key} withdrawn`, async () => {
      const l = (await owner.get(`/capacity-offers/${after.occurrences[key].listingId}`)).body;
      return l.status === 'withdrawn' ? l : undefined;
    });
    expect(listing.withdrawal).toMatchObject({ reasonCode: 'SERIES_ENDED' });
    expect(listing.withdrawal.reason).toContain('contract lost');
  }
  expectProblem(await owner.command(`/listing-series/${id}/pause`, ended.body.resourceVersion), 422, 'INVALID_STATE_TRANSITION');
  const types = (await owner.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `listing-series/${id}`).map((e: any) => e.type);
  expect(types).toEqual(['pcx.listing-series.created.v1', 'pcx.listing-series.revised.v1', 'pcx.listing-series.revised.v1', 'pcx.listing-series.ended.v1']);
});

test('a series ended while its horizon is still being published leaves none of those listings published', async () => {
  // Found by the console test: the end withdrew what the read model had, while the publish flow
  // went on to publish the rest after it.
  const [owner] = await connectors(1);
  const created = (await owner.post('/listing-series', offerSeries({ recurrence: { rrule: 'FREQ=DAILY;COUNT=30', timeZone: 'Europe/Berlin', startDate: dateIn(1) }, horizon: 'P30D' }))).body;
  // Ended the moment its occurrences are recorded, before their listings are all there.
  const recorded = await until('occurrences recorded', async () => {
    const s = (await owner.get(`/listing-series/${created.id}`)).body;
    return Object.keys(s.occurrences ?? {}).length ? s : undefined;
  });
  const listed = async () => (await owner.get(`/capacity-offers?series=${created.id}&limit=100`)).body.items as any[] | undefined;
  expect((await listed())?.length).toBeLessThan(30);
  const ended = await owner.command(`/listing-series/${created.id}/end`, recorded.resourceVersion, { reason: 'lane dropped' });
  expect(ended.status).toBe(200);
  const items = await until('every occurrence listed and withdrawn', async () => {
    await sleep(1000); // a connector's rate: 100 requests a minute
    const all = await listed();
    return all && all.length === Object.keys(recorded.occurrences).length && all.every((l) => l.status === 'withdrawn') ? all : undefined;
  }, 90_000);
  expect(items.map((l) => l.withdrawal?.reasonCode ?? l.withdrawal)).toEqual(items.map(() => expect.stringMatching(/^SERIES_ENDED$/)));
}, 120_000);

test('a paused series publishes nothing until it resumes', async () => {
  const [owner] = await connectors(1);
  // Starts in five days: nothing is due yet under a three-day horizon.
  const created = (await owner.post('/listing-series', offerSeries({ recurrence: { rrule: 'FREQ=WEEKLY', timeZone: 'Europe/Berlin', startDate: dateIn(5) } }))).body;
  const paused = await owner.command(`/listing-series/${created.id}/pause`, 1);
  expect(paused.body).toMatchObject({ status: 'paused' });
  // A week's horizon would make the first date due at once, but the series is paused.
  const widened = await owner.command(`/listing-series/${created.id}/revisions`, 2, { horizon: 'P7D' });
  expect(widened.status).toBe(200);
  await sleep(2000);
  expect((await owner.get(`/listing-series/${created.id}`)).body.occurrences).toEqual({});
  const resumed = await owner.command(`/listing-series/${created.id}/resume`, 3);
  expect(resumed.body).toMatchObject({ status: 'active' });
  const series = await withOccurrences(owner, created.id, 1);
  expect(Object.keys(series.occurrences)).toEqual([dateIn(5)]);
});

test('a load request series publishes requests with both windows from the template', async () => {
  const [owner] = await connectors(1);
  const created = await owner.post('/listing-series', {
    listingKind: 'loadRequest',
    terms: requestTerms(),
    recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU', timeZone: 'Europe/Amsterdam', startDate: dateIn(1), until: dateIn(2) },
    template: {
      windows: { pickupWindow: { time: '06:00', duration: 'PT4H' }, deliveryWindow: { day: 1, time: '08:00', end: { day: 1, time: '12:00' } } },
      expiresAt: { window: 'pickupWindow', edge: 'end', before: 'PT1H' },
    },
    horizon: 4,
  });
  expect(created.status).toBe(201);
  const series = await withOccurrences(owner, created.body.id, 2, '/load-requests');
  expect(Object.keys(series.occurrences).sort()).toEqual([dateIn(1), dateIn(2)]);
  const request = (await owner.get(`/load-requests/${series.occurrences[dateIn(1)].listingId}`)).body;
  expect(request).toMatchObject({ status: 'published', seriesId: created.body.id, occurrenceKey: dateIn(1), pickupArea: { code: 'DE-HH' } });
  expect(Date.parse(request.deliveryWindow.start) - Date.parse(request.pickupWindow.start)).toBeGreaterThanOrEqual(25 * 3600_000);
  expect(Date.parse(request.pickupWindow.end) - Date.parse(request.expiresAt)).toBe(3600_000);
});

test('a series is refused with pointers into its terms, recurrence and template, and needs the scope of its listing kind', async () => {
  const [owner] = await connectors(1);
  const problem = async (body: Record<string, unknown>) => {
    const r = await owner.post('/listing-series', body);
    expectProblem(r, 400, 'VALIDATION_FAILED');
    return r.body.errors.map((e: any) => e.pointer);
  };
  const { vehicleProfile: _v, ...noVehicle } = offerTerms();
  expect(await problem(offerSeries({ terms: noVehicle }))).toContain('/terms/vehicleProfile');
  expect(await problem(offerSeries({ terms: offerTerms({ originArea: { kind: 'unlocode', code: 'ZZZZZ' } }) }))).toContain('/terms/originArea/code');
  expect(await problem(offerSeries({ terms: { ...offerTerms(), availabilityWindow: { start: dateIn(1), end: dateIn(2) } } }))).toContain('/terms/availabilityWindow');
  expect(await problem(offerSeries({ recurrence: { rrule: 'FREQ=HOURLY', timeZone: 'Europe/Berlin', startDate: dateIn(1) } }))).toContain('/recurrence/rrule');
  expect(await problem(offerSeries({ recurrence: { rrule: 'FREQ=DAILY', timeZone: 'Mars/Olympus', startDate: dateIn(1) } }))).toContain('/recurrence/timeZone');
  expect(await problem(offerSeries({ template: { windows: { pickupWindow: { time: '08:00', duration: 'PT1H' } }, expiresAt: {} } }))).toContain('/template/windows/availabilityWindow');
  expect(await problem(offerSeries({ horizon: 'P1Y' }))).toContain('/horizon');
  // A carrier's connector that may publish capacity only cannot start a series of load requests.
  const [org] = freshOrgs(1);
  const carrier = await Connector.of(org, 'capacity:publish capacity:read');
  const loads = { ...offerSeries(), listingKind: 'loadRequest', terms: requestTerms(), template: { windows: { pickupWindow: { time: '06:00', duration: 'PT4H' }, deliveryWindow: { day: 1, time: '08:00', duration: 'PT4H' } }, expiresAt: {} } };
  expectProblem(await carrier.post('/listing-series', loads), 403, 'INSUFFICIENT_SCOPE');
  expect((await carrier.post('/listing-series', offerSeries())).status).toBe(201);
  // Nothing was created by the refusals.
  expect((await owner.get('/listing-series')).body.items).toEqual([]);
});
