// GET /events/stream: the organization's feed pushed as Server-Sent Events (the console's live
// view). What a client relies on: the same events as GET /events, in the same order and
// projection, each with the cursor after it as its id; an event written after the stream opened
// arrives within seconds; a reconnect with Last-Event-ID (or cursor) misses nothing and repeats
// nothing; another organization's events never arrive; a bad cursor is refused as in GET /events.
import { Connector, createRelationship, expectProblem, freshOrgs, testEnv } from './helpers';
import { readStream, wholeFeed } from './feed';

test('the stream serves the feed from a cursor, then pushes what happens next within seconds, each event with its cursor as id', async () => {
  const [a, b] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
  const first = (await createRelationship(a, b)).body;
  await a.command(`/partner-relationships/${first.id}/request`, 1);
  const feed = await wholeFeed(a);
  expect(feed.map((e) => e.type)).toEqual(['pcx.partner-relationship.requested.v1']);

  // From the start: the feed as GET /events has it, the same events in the same order.
  const all = await readStream(testEnv().baseUrl, a.token, { enough: (m) => m.length >= feed.length });
  expect(all.status).toBe(200);
  expect(all.contentType).toMatch(/^text\/event-stream/);
  expect(all.messages.map((m) => m.data)).toEqual(feed);
  // Each id is a cursor GET /events takes, and reads on after that event.
  const afterFirst = await a.get(`/events?limit=200&cursor=${all.messages[0].id}`);
  expect(afterFirst.body.items).toEqual(feed.slice(1));

  // Open at the end, then act: the new event arrives, nothing before it.
  const end = all.messages[all.messages.length - 1].id!;
  const live = readStream(testEnv().baseUrl, a.token, { lastEventId: end, enough: (m) => m.length >= 1, ms: 15_000 });
  await new Promise((r) => setTimeout(r, 300));
  await b.command(`/partner-relationships/${first.id}/accept`, 2);
  const pushed = await live;
  expect(pushed.messages.map((m) => m.data.type)).toEqual(['pcx.partner-relationship.activated.v1']);
  // Reconnecting with the query cursor instead of the header: the same.
  const again = await readStream(testEnv().baseUrl, a.token, { query: `?cursor=${end}`, enough: (m) => m.length >= 1 });
  expect(again.messages.map((m) => m.data.id)).toEqual(pushed.messages.map((m) => m.data.id));
});

test("another organization's stream never carries the events; a bad cursor is refused as in GET /events; no token, no stream", async () => {
  const [a, b, outsider] = await Promise.all(freshOrgs(3).map((o) => Connector.of(o)));
  // The outsider's stream, open while a and b act, then the outsider acts itself: its own event
  // arrives, theirs never.
  const theirs = readStream(testEnv().baseUrl, outsider.token, { enough: (m) => m.some((x) => String(x.data.subject).startsWith('partner-relationships/')), ms: 15_000 });
  const created = (await createRelationship(a, b)).body;
  await a.command(`/partner-relationships/${created.id}/request`, 1);
  await b.command(`/partner-relationships/${created.id}/accept`, 2);
  const own = (await createRelationship(outsider, a)).body;
  await outsider.command(`/partner-relationships/${own.id}/request`, 1);
  const got = await theirs;
  const subjects = got.messages.map((m) => m.data.subject);
  expect(subjects).toContain(`partner-relationships/${own.id}`);
  expect(JSON.stringify(got.messages)).not.toContain(created.id);

  const bad = await readStream(testEnv().baseUrl, outsider.token, { query: '?cursor=bm90LW91cnM' });
  expect(bad.status).toBe(400);
  expect(bad.problem.code).toBe('VALIDATION_FAILED');
  const badHeader = await readStream(testEnv().baseUrl, outsider.token, { lastEventId: 'x' });
  expect(badHeader.status).toBe(400);
  expect(badHeader.problem.errors[0].pointer).toBe('/header/Last-Event-ID');
  const anonymous = await fetch(`${testEnv().baseUrl}/events/stream`);
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expectProblem({ status: anonymous.status, headers: anonymous.headers, body: await anonymous.json() }, 401, 'UNAUTHENTICATED');
});
