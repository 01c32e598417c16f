// Issue 34 part 2: Idempotency-Keys across a restore of the read model alone (Temporal kept).
// The answers kept for keys live in the read model (idempotency_keys); a read model restored to a
// point before a command was acknowledged has lost its key. The lifecycle command's id (its
// Temporal Update id) is derived from (organization, operation, key, request) (api/idempotency.ts,
// keyCommandId), so the retry is sent as the same Update and the entity workflow answers it from
// its memory of recent commands instead of applying it again.
// The lost keys are simulated by deleting the organization's rows from idempotency_keys (what a
// read model restored to before those commands lacks). PostgreSQL only: PGlite's read model lives
// inside the broker process.
import { Connector, createRelationship, db, ENGINE, expectProblem, freshOrgs, relationshipsRequestedBy } from './helpers';

const path = (id: string, command?: string) => `/partner-relationships/${id}${command ? `/${command}` : ''}`;
const connectors = (n: number) => Promise.all(freshOrgs(n).map((o) => Connector.of(o)));
const maybe = ENGINE === 'postgres' ? test : test.skip;

maybe('a retried lifecycle command whose key the read model lost is answered as the original, not applied again', async () => {
  const [a, b] = await connectors(2);
  const r = (await createRelationship(a, b)).body;
  const first = await a.command(path(r.id, 'request'), 1, undefined, { 'idempotency-key': 'lost-key' });
  expect(first.status).toBe(200);
  expect(first.body.resourceVersion).toBe(2);

  const removed = await db().query(`delete from idempotency_keys where organization_id = $1 and key = 'lost-key'`, [a.id]);
  expect(removed.rowCount).toBe(1);

  // Same key, same request (If-Match 1, as the connector first sent it): not a stale refusal, not a second transition.
  const retry = await a.command(path(r.id, 'request'), 1, undefined, { 'idempotency-key': 'lost-key' });
  expect(retry.status).toBe(200);
  expect(retry.body.id).toBe(r.id);
  expect(retry.body.resourceVersion).toBe(2);
  expect((await a.get(path(r.id))).body.resourceVersion).toBe(2);
  const events = (await a.get('/events?limit=200')).body.items.filter((e: any) => e.data.id === r.id && e.resourceVersion === 2);
  expect(events.length).toBeLessThanOrEqual(1);

  // Another key for the same request is a new command: refused as stale (the proof the retry above was recognized, not re-run).
  const other = await a.command(path(r.id, 'request'), 1, undefined, { 'idempotency-key': 'another-key' });
  expect(other.status).toBe(409);
});

maybe('a retried create whose key and resource the read model lost is answered with the resource Temporal kept, not made twice', async () => {
  const [a, b] = await connectors(2);
  const key = { 'idempotency-key': 'lost-create' };
  const body = { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'] };
  const first = await a.post('/partner-relationships', body, key);
  expect(first.status).toBe(201);
  const requested = await a.command(path(first.body.id, 'request'), 1);
  expect(requested.status).toBe(200);

  // The read model as restored to a point before the create: no key, no row, no events.
  const eventsOf = async (id: string) => (await db().query(`select id, resource_version from events where resource_id = $1 order by resource_version`, [id])).rows;
  const originalEvents = await eventsOf(first.body.id);
  expect(originalEvents.length).toBeGreaterThan(0);
  expect((await db().query(`delete from idempotency_keys where organization_id = $1 and key = 'lost-create'`, [a.id])).rowCount).toBe(1);
  expect((await db().query(`delete from partner_relationships where id = $1`, [first.body.id])).rowCount).toBe(1);
  await db().query(`delete from events where resource_id = $1`, [first.body.id]);
  expect((await a.get(path(first.body.id))).status).toBe(404);

  // The same create with the same key: the relationship Temporal kept, answered as created (Temporal
  // kept the create's Update outcome), and back in the read model as it is now, with its events.
  const retry = await a.post('/partner-relationships', body, key);
  expect(retry.status).toBe(201);
  expect(retry.body).toEqual(first.body);
  expect(retry.headers.get('location')).toBe(`/partner-relationships/${first.body.id}`);
  expect((await a.get(path(first.body.id))).body).toMatchObject({ status: 'requested', resourceVersion: 2 });
  expect(await eventsOf(first.body.id)).toEqual(originalEvents); // the same event ids, once each
  expect((await relationshipsRequestedBy(a)).map((r) => r.id)).toEqual([first.body.id]);

  // The retry recorded the key again: the same key with another request is a conflict, as before the restore.
  expectProblem(await a.post('/partner-relationships', { ...body, scopes: ['loads:read'] }, key), 409, 'IDEMPOTENCY_CONFLICT');
});
