// Retention and erasure against the real broker, on both engines (issue 34 part 4): the named
// retention policies; a relationship naming another is refused; the contact persons of a final
// handover erased on request from the handover, its events and Temporal's histories, the package
// digest kept; only its two organizations (and operators) may ask; a removed user's name erased
// on request the same way, its userId kept. The purge over years is
// test/time-skipping/retention.test.ts.
import { activeRelationship, Connector, expectProblem, freshOrgs } from './helpers';
import { OFFERS, operator, publishedListing } from './listing-fixtures';
import { expectValid, waitFor } from './matching-fixtures';
import { commitment, handoverBody } from './execution-handovers.fixtures';
import { handoverIdOf } from '../domain/execution-handover';

const DESTINATION = { system: 'executor-tms', type: 'trip', value: 'T-0815' };

test('the broker names its retention policies; a relationship may name only those', async () => {
  const { issuer } = await commitment();
  const policies = await issuer.get('/retention-policies');
  expect(policies.status).toBe(200);
  expect(policies.body.items[0]).toMatchObject({ ref: 'pcx:standard', default: true, hold: false, periods: { listing: 'P1Y', relationship: 'P10Y', personalData: 'P1Y' } });
  expect(policies.body.items.map((p: any) => p.ref)).toEqual(['pcx:standard', 'pcx:audit-hold', 'pcx:pilot']);
  expect(policies.body.items.find((p: any) => p.ref === 'pcx:audit-hold')).toEqual(expect.objectContaining({ hold: true }));
  expect(policies.body.items.find((p: any) => p.ref === 'pcx:audit-hold').periods).toBeUndefined();
  expect((await issuer.get('/purged-records')).body).toEqual({ items: [], nextCursor: null });
  expectProblem(await issuer.get('/purged-records?kind=NOT%20A%20KIND'), 400, 'VALIDATION_FAILED');
});

test('the contact persons of a final handover are erased on request: from it, its events and its histories; the digest stays; only its organizations may ask', async () => {
  const { issuer, executor, outsider, commitment: c } = await commitment();
  const body = handoverBody(c);
  const created = await issuer.post('/execution-handovers', body);
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  expect(id).toBe(handoverIdOf(c.id));
  const digest = created.body.packageDigest;
  const erase = (who: Connector, reason = 'the dispatcher asked to be forgotten') => who.post(`/execution-handovers/${id}/contact-erasures`, { reason });

  // Not while the executing system may still need them; never for an outsider; a reason is required.
  expectProblem(await erase(issuer), 422, 'INVALID_STATE_TRANSITION');
  expectProblem(await erase(outsider), 404, 'RESOURCE_NOT_FOUND');
  expectProblem(await issuer.post(`/execution-handovers/${id}/contact-erasures`, {}), 400, 'VALIDATION_FAILED');
  const imported = await executor.post(`/execution-handovers/${id}/acknowledgements`, { outcome: 'imported', destinationExternalReference: DESTINATION });
  expect(imported.status).toBe(200);
  expect(JSON.stringify(imported.body)).toContain('Gate desk');

  const erased = await erase(issuer);
  expect(erased.status).toBe(200);
  expectValid('execution-handover', erased.body);
  expect(erased.headers.get('etag')).toBe(`"${imported.body.resourceVersion + 1}"`);
  expect(erased.body).toMatchObject({ status: 'imported', packageDigest: digest, contactsErased: { reason: 'the dispatcher asked to be forgotten', requestedBy: { organizationId: issuer.id } } });
  expect(erased.body.contactsErased.pointers).toEqual(expect.arrayContaining(['/package/contacts', '/package/stops/0/contacts']));
  const text = (v: unknown) => JSON.stringify(v);
  for (const reader of [issuer, executor]) {
    const read = await reader.get(`/execution-handovers/${id}`);
    expect(read.body.resourceVersion).toBe(erased.body.resourceVersion);
    expect(text(read.body)).not.toMatch(/Gate desk|dispatch@issuer\.example|\+4940123456/);
    // The feed: every event of the handover without them, and the erasure's own event.
    // (An event shows in the feed once every transaction older than its own has ended: on a busy
    // database a moment after the answer.)
    const events = await waitFor('the erasure event', async () => {
      const items = (await reader.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `execution-handovers/${id}`);
      return items.length >= 3 ? items : undefined;
    });
    expect(events.map((e: any) => e.type)).toEqual(['pcx.execution-handover.offered.v1', 'pcx.execution-handover.acknowledged.v1', 'pcx.execution-handover.contacts-erased.v1']);
    expect(text(events)).not.toMatch(/Gate desk|dispatch@issuer\.example|\+4940123456/);
  }
  // A second request changes nothing.
  const again = await erase(executor, 'asked again');
  expect(again.status).toBe(200);
  expect(again.body.resourceVersion).toBe(erased.body.resourceVersion);
  expect(again.body.contactsErased.reason).toBe('the dispatcher asked to be forgotten');
  // The same delivery again is still recognised by its digest: the handover as it is, no second one.
  const redelivered = await issuer.post('/execution-handovers', body);
  expect(redelivered.status).toBe(200);
  expect(redelivered.body.id).toBe(id);
  expect(text(redelivered.body)).not.toMatch(/Gate desk/);

  // Temporal kept them in the handover's histories: the broker had the closed run deleted (Temporal
  // removes it in the background: 30 s to minutes after a close this recent on the dev server).
  expect(erased.body.contactsErased.historiesDeleted).toBe(1);
  expect(again.body.contactsErased.historiesDeleted).toBe(1);
}, 60000);

test("a removed user's name is erased on request: from the user, its events and its histories; the userId stays; only its organization and operators may ask", async () => {
  const [a, b] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
  const userId = `erase-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const invited = await a.post('/users', { userId, name: 'Erika Mustermann', roles: ['viewer'] });
  expect(invited.status).toBe(201);
  const id = invited.body.id as string;
  const erase = (who: Connector, reason = 'she asked to be forgotten') => who.post(`/users/${id}/name-erasures`, { reason });

  // Not while the user may still act (removing is the organization's decision, erasing the person's); never for another organization.
  expectProblem(await erase(a), 422, 'INVALID_STATE_TRANSITION');
  expectProblem(await erase(b), 404, 'RESOURCE_NOT_FOUND');
  expectProblem(await a.post(`/users/${id}/name-erasures`, {}), 400, 'VALIDATION_FAILED');
  const removed = await a.command(`/users/${id}/remove`, 1, { reason: 'left the company' });
  expect(removed.status).toBe(200);
  const eventsOf = async (who: Connector) => (await who.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `users/${id}`);
  expect(JSON.stringify(await waitFor('the invitation event', async () => ((await eventsOf(a)).length ? eventsOf(a) : undefined)))).toContain('Erika Mustermann');

  const erased = await erase(a);
  expect(erased.status).toBe(200);
  expectValid('user', erased.body);
  expect(erased.body).toMatchObject({ id, userId, status: 'removed', resourceVersion: 3, nameErased: { reason: 'she asked to be forgotten', pointers: ['/name'], requestedBy: { organizationId: a.id } } });
  expect(erased.body.name).toBeUndefined();
  expect(erased.body.nameErased.historiesDeleted).toBeGreaterThanOrEqual(1);
  expect(erased.headers.get('etag')).toBe('"3"');
  expect((await a.get(`/users/${id}`)).body).toEqual(erased.body);
  // The name is in none of the user's events any more; the erasure is one of them.
  // (The feed shows an event once every transaction older than its own has ended: on a busy database, a moment later.)
  const events = await waitFor('the removal and erasure events', async () => {
    const items = await eventsOf(a);
    return items.length >= 3 ? items : undefined;
  });
  expect(JSON.stringify(events)).not.toContain('Erika Mustermann');
  expect(events.map((e: any) => e.type)).toEqual(['pcx.user.invited.v1', 'pcx.user.removed.v1', 'pcx.user.name-erased.v1']);
  expect(await eventsOf(b)).toEqual([]);
  // A second erasure changes nothing.
  const again = await erase(a, 'asked twice');
  expect(again.status).toBe(200);
  expect(again.body).toEqual(erased.body);
});

test('an operator holds a relationship against the purge, also after it ended; the parties read the hold and may not place or lift it', async () => {
  const [a, b, outsider] = await Promise.all(freshOrgs(3).map((o) => Connector.of(o)));
  const relationship = await activeRelationship(a, b);
  const op = await operator();
  const path = `/partner-relationships/${relationship.id}/retention-hold`;
  expect((await a.command(`/partner-relationships/${relationship.id}/terminate`, relationship.resourceVersion, { reason: 'done' })).status).toBe(200);

  expectProblem(await a.get(path), 404, 'RESOURCE_NOT_FOUND');
  expectProblem(await a.post(path, { reason: 'we dispute an invoice' }), 403, 'ACTOR_NOT_PERMITTED');
  expectProblem(await op.post(path, {}), 400, 'VALIDATION_FAILED');
  const placed = await op.post(path, { reason: 'a dispute over the last invoice' });
  expect(placed.status).toBe(200);
  expectValid('retention-hold', placed.body);
  expect(placed.body).toMatchObject({ relationshipId: relationship.id, reason: 'a dispute over the last invoice', placedBy: { organizationId: 'org-operator' } });
  expect((await a.get(path)).body).toEqual(placed.body);
  expect((await b.get(path)).body).toEqual(placed.body);
  expectProblem(await outsider.get(path), 404, 'RESOURCE_NOT_FOUND');
  // Placed again: a new reason, the first placement's time.
  const again = await op.post(path, { reason: 'and an authority asked' });
  expect(again.body).toEqual({ ...placed.body, reason: 'and an authority asked' });
  expectProblem(await b.delete(path), 403, 'ACTOR_NOT_PERMITTED');
  expect((await op.delete(path)).status).toBe(204);
  expectProblem(await a.get(path), 404, 'RESOURCE_NOT_FOUND');
  expectProblem(await op.delete(path), 404, 'RESOURCE_NOT_FOUND');
});

test('an operator previews what the purge would remove at an instant, and runs it now, on the record; organizations may do neither', async () => {
  const [org] = freshOrgs(1);
  const owner = await Connector.of(org);
  const offer = await publishedListing(OFFERS, owner);
  const withdrawn = await owner.command(`/capacity-offers/${offer.id}/withdraw`, 2, { reason: 'sold elsewhere' });
  expect(withdrawn.status).toBe(200);
  const op = await operator();
  const preview = (at?: string, query = '') => op.get(`/retention-preview?organizationId=${org.id}${at ? `&at=${encodeURIComponent(at)}` : ''}${query}`);

  // Now: not yet due (the standard policy keeps a listing a year after it is final). In two years: due, and why.
  const now = await preview();
  expect(now.status).toBe(200);
  expectValid('retention-run#/$defs/Preview', now.body);
  expect(now.body.items).toEqual([]);
  const later = await preview(new Date(Date.now() + 2 * 365 * 86_400_000).toISOString());
  expect(later.body.items).toEqual([
    expect.objectContaining({ resourceKind: 'capacity-offer', id: offer.id, ownerOrganizationId: org.id, finalStatus: 'withdrawn', retentionPolicyRef: 'pcx:standard', period: 'P1Y' }),
  ]);
  const item = later.body.items[0];
  expect(Date.parse(item.dueAt) - Date.parse(item.finalAt)).toBeGreaterThanOrEqual(365 * 86_400_000);
  expect(later.body.totals).toEqual({ 'pcx:standard': { 'capacity-offer': 1 } });
  // Nothing changed: the offer is still there.
  expect((await owner.get(`/capacity-offers/${offer.id}`)).status).toBe(200);
  expectProblem(await preview('next year'), 400, 'VALIDATION_FAILED');
  expectProblem(await preview(undefined, '&limit=0'), 400, 'VALIDATION_FAILED');

  // Run now: asked for, kept with who and why, listed newest first.
  expectProblem(await op.post('/retention-runs', {}), 400, 'VALIDATION_FAILED');
  const run = await op.post('/retention-runs', { reason: 'the pilot policy changed' });
  expect(run.status).toBe(202);
  expectValid('retention-run', run.body);
  expect(run.body).toMatchObject({ reason: 'the pilot policy changed', requestedBy: { organizationId: 'org-operator', clientId: 'client-operator' } });
  const runs = await op.get('/retention-runs?limit=1');
  expect(runs.body.items[0]).toEqual(run.body);
  // The offer was not due: still there after the round.
  expect((await owner.get(`/capacity-offers/${offer.id}`)).status).toBe(200);

  // An organization, even with every scope it may hold: neither sees the preview nor runs the purge.
  for (const attempt of [owner.get(`/retention-preview?organizationId=${org.id}`), owner.post('/retention-runs', { reason: 'mine' }), owner.get('/retention-runs')]) {
    expect([403]).toContain((await attempt).status);
  }
});
