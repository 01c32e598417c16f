// Protocol mechanics shared by every resource, exercised on PartnerRelationship: idempotency,
// ETag/If-Match, limits, the event feed, problem responses and correlation ids.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  activeRelationship,
  call,
  Connector,
  createRelationship,
  db,
  ENGINE,
  relationshipsRequestedBy,
  expectProblem,
  freshOrgs,
  sleep,
  testEnv,
} from './helpers';

const path = (id: string, command?: string) => `/partner-relationships/${id}${command ? `/${command}` : ''}`;
const connectors = (n: number) => Promise.all(freshOrgs(n).map((o) => Connector.of(o)));

describe('Idempotency-Key', () => {
  test('same key and payload returns the original response; another payload is 409', async () => {
    const [a, b] = await connectors(2);
    const body = { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'] };
    const first = await a.post('/partner-relationships', body, { 'idempotency-key': 'create-1' });
    const again = await a.post('/partner-relationships', body, { 'idempotency-key': 'create-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await a.post('/partner-relationships', { ...body, scopes: ['loads:read'] }, { 'idempotency-key': 'create-1' }), 409, 'IDEMPOTENCY_CONFLICT');
    expect(await relationshipsRequestedBy(a)).toHaveLength(1);

    // Commands too; the key is scoped to the operation (path) and the organization.
    const id = first.body.id;
    const req1 = await a.command(path(id, 'request'), 1, undefined, { 'idempotency-key': 'k' });
    const req2 = await a.command(path(id, 'request'), 1, undefined, { 'idempotency-key': 'k' });
    expect(req2.status).toBe(200);
    expect(req2.body).toEqual(req1.body);
    const accepted = await b.command(path(id, 'accept'), 2, undefined, { 'idempotency-key': 'k' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.resourceVersion).toBe(3);
  });

  test('concurrent duplicates produce exactly one effect', async () => {
    const [a, b] = await connectors(2);
    const body = { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'] };
    const replies = await Promise.all(Array.from({ length: 8 }, () => a.post('/partner-relationships', body, { 'idempotency-key': 'dup' })));
    const created = replies.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of replies) if (r.status !== 201) expectProblem(r, 409, 'IDEMPOTENCY_IN_PROGRESS');
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect(await relationshipsRequestedBy(a)).toHaveLength(1);
    // After the first finished, a retry replays it.
    expect((await a.post('/partner-relationships', body, { 'idempotency-key': 'dup' })).body.id).toBe(created[0].body.id);

    const id = created[0].body.id;
    const commands = await Promise.all(Array.from({ length: 6 }, () => a.command(path(id, 'request'), 1, undefined, { 'idempotency-key': 'req' })));
    for (const r of commands) if (r.status !== 200) expectProblem(r, 409, 'IDEMPOTENCY_IN_PROGRESS');
    expect((await a.get(path(id))).body.resourceVersion).toBe(2);
    const events = (await a.get('/events?limit=200')).body.items.filter((e: any) => e.data.id === id);
    expect(events).toHaveLength(1);
  });

  test('a refused request leaves the key free; keys are stored with a 24 h expiry', async () => {
    const [a, b] = await connectors(2);
    const r = (await createRelationship(a, b)).body;
    expectProblem(await a.command(path(r.id, 'request'), 7, undefined, { 'idempotency-key': 'once' }), 409, 'STALE_RESOURCE_VERSION');
    // Same key, corrected request: runs (the refusal was not remembered as an outcome).
    expect((await a.command(path(r.id, 'request'), 1, undefined, { 'idempotency-key': 'once' })).status).toBe(200);
    if (ENGINE === 'postgres') {
      // The stored record itself; PGlite's lives inside the broker process.
      const { rows } = await db().query(
        `select extract(epoch from expires_at - created_at)::int as ttl, state from idempotency_keys where organization_id = $1 and key = 'once'`,
        [a.id],
      );
      expect(rows).toEqual([{ ttl: 86400, state: 'completed' }]);
    }
    expectProblem(await a.post('/partner-relationships', {}, { 'idempotency-key': ' bad key ' }), 400, 'VALIDATION_FAILED');
  });
});

describe('ETag and If-Match', () => {
  test('missing is 428, stale is 409, malformed is 400; observedResourceVersion works instead', async () => {
    const [a, b] = await connectors(2);
    const r = (await createRelationship(a, b)).body;
    expectProblem(await a.post(path(r.id, 'request')), 428, 'PRECONDITION_REQUIRED');
    expectProblem(await a.command(path(r.id, 'request'), 2), 409, 'STALE_RESOURCE_VERSION');
    expectProblem(await a.post(path(r.id, 'request'), undefined, { 'if-match': 'v1' }), 400, 'VALIDATION_FAILED');
    expectProblem(await a.post(path(r.id, 'request'), { observedResourceVersion: 2 }, { 'if-match': '"1"' }), 400, 'VALIDATION_FAILED');
    expectProblem(await a.patch(path(r.id), { retentionPolicyRef: 'x' }), 428, 'PRECONDITION_REQUIRED');
    expect((await a.get(path(r.id))).body.resourceVersion).toBe(1);
    const ok = await a.post(path(r.id, 'request'), { observedResourceVersion: 1 });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('etag')).toBe('"2"');
  });
});

describe('limits', () => {
  test('a body over 64 KiB on relationship endpoints is 413 before parsing, chunked too', async () => {
    const [a, b] = await connectors(2);
    const big = JSON.stringify({ requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'], pad: 'x'.repeat(70 * 1024) });
    expectProblem(await call('POST', '/partner-relationships', a.token, undefined, { raw: big, headers: { 'content-type': 'application/json' } }), 413, 'PAYLOAD_TOO_LARGE');
    const chunks = new TextEncoder().encode(big);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < chunks.length; i += 8192) controller.enqueue(chunks.subarray(i, i + 8192));
        controller.close();
      },
    });
    expectProblem(await call('POST', '/partner-relationships', a.token, undefined, { raw: stream, headers: { 'content-type': 'application/json' } }), 413, 'PAYLOAD_TOO_LARGE');
    // Not-JSON garbage of any size under the limit is a 400, never a 500.
    expectProblem(await call('POST', '/partner-relationships', a.token, undefined, { raw: '{"a":', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_REQUEST');
  });

  test('relationship invites: at most 10 a minute per organization (429 with Retry-After)', async () => {
    const [a, ...targets] = await connectors(12);
    const replies = [];
    for (const t of targets) replies.push(await createRelationship(a, t));
    expect(replies.slice(0, 5).every((r) => r.status === 201)).toBe(true);
    // The pending cap of the test broker (5) answers first; withdraw to keep inviting.
    expectProblem(replies[5], 409, 'PENDING_RELATIONSHIP_LIMIT');
    const limited = replies.filter((r) => r.status === 429);
    expect(limited.length).toBe(1);
    expectProblem(limited[0], 429, 'RATE_LIMITED');
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThan(0);
  });

  test('at most MAX_PENDING_OUTBOUND pending outbound relationships', async () => {
    const [a, ...targets] = await connectors(7);
    const created = [];
    for (const t of targets.slice(0, 5)) created.push((await createRelationship(a, t)).body);
    expectProblem(await createRelationship(a, targets[5]), 409, 'PENDING_RELATIONSHIP_LIMIT');
    await a.command(path(created[0].id, 'withdraw'), 1, { reason: 'make room' });
    expect((await createRelationship(a, targets[5])).status).toBe(201);
  });

  test('per-token and per-organization rate limits answer 429 with Retry-After', async () => {
    const [org] = freshOrgs(1);
    const one = await Connector.of(org);
    const replies = [];
    for (let i = 0; i < 101; i++) replies.push(await one.get('/partner-relationships'));
    expect(replies.slice(0, 100).every((r) => r.status === 200)).toBe(true);
    expectProblem(replies[100], 429, 'RATE_LIMITED');
    expect(Number(replies[100].headers.get('retry-after'))).toBeGreaterThan(0);
    // Other tokens of the same organization share its budget of 300 a minute.
    const others = await Promise.all([Connector.of(org), Connector.of(org), Connector.of(org)]);
    let limited: any;
    for (let i = 0; i < 100 && !limited; i++) {
      for (const c of others) {
        const r = await c.get('/partner-relationships');
        if (r.status === 429) limited = r;
      }
    }
    expect(limited).toBeDefined();
    expect(limited.body.detail).toMatch(/org/);
  });
});

describe('events', () => {
  test('CloudEvents with every required attribute, only for the organizations that may see them, in causal order', async () => {
    const [a, b, outsider] = await connectors(3);
    const r = await activeRelationship(a, b);
    await b.command(path(r.id, 'suspend'), 3, { reason: 'x' });
    await b.command(path(r.id, 'reactivate'), 4);
    await a.command(path(r.id, 'terminate'), 5, { reason: 'y' });
    for (const viewer of [a, b]) {
      const items = (await viewer.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `partner-relationships/${r.id}`);
      expect(items.map((e: any) => e.type)).toEqual([
        'pcx.partner-relationship.requested.v1',
        'pcx.partner-relationship.activated.v1',
        'pcx.partner-relationship.suspended.v1',
        'pcx.partner-relationship.reactivated.v1',
        'pcx.partner-relationship.terminated.v1',
      ]);
      expect(items.map((e: any) => e.resourceversion)).toEqual([2, 3, 4, 5, 6]);
      for (const e of items) {
        expect(e).toMatchObject({
          specversion: '1.0',
          source: `${testEnv().baseUrl}/events`,
          organizationid: a.id,
          datacontenttype: 'application/json',
        });
        expect(e.dataschema).toBe(`${testEnv().baseUrl}/schemas/v0/partner-relationship`);
        expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(Date.parse(e.time)).not.toBeNaN();
        expect(typeof e.correlationid).toBe('string');
        expect(typeof e.causationid).toBe('string');
        expect(e.data.resourceVersion).toBe(e.resourceversion);
      }
    }
    expect((await outsider.get('/events?limit=200')).body.items).toEqual([]);
  });

  test('the cursor pages through the feed without gaps or repeats', async () => {
    const [a, b] = await connectors(2);
    await activeRelationship(a, b);
    const r2 = await activeRelationship(a, (await connectors(1))[0]);
    await a.command(path(r2.id, 'suspend'), 3, { reason: 'x' });
    const all = (await a.get('/events?limit=200')).body.items.map((e: any) => e.id);
    expect(all).toHaveLength(5);
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 10; i++) {
      const page = await a.get(`/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.body.items.map((e: any) => e.id));
      cursor = page.body.nextCursor;
      if (page.body.items.length === 0) break;
    }
    expect(seen).toEqual(all);
    // An idle cursor stays valid and returns nothing new.
    expect((await a.get(`/events?cursor=${cursor}`)).body).toEqual({ items: [], nextCursor: cursor });
    expectProblem(await a.get('/events?cursor=bm9wZQ'), 400, 'VALIDATION_FAILED');
  });
});

describe('problems and hostile input', () => {
  test('every failure is problem+json with a stable code; nothing is a 500; nothing changes', async () => {
    const [a, b] = await connectors(2);
    const r = (await createRelationship(a, b)).body;
    const hostile: Array<[string, string, unknown, Record<string, string>?]> = [
      ['POST', '/partner-relationships', []],
      ['POST', '/partner-relationships', 'string'],
      ['POST', '/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: { $ne: 1 }, scopes: ['capacity:read'] }],
      ['POST', '/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['root:all'] }],
      ['POST', '/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: [] }],
      ['POST', '/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'], effectiveFrom: 'yesterday' }],
      ['POST', '/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'], effectiveFrom: '2030-01-01T00:00:00+02:00' }],
      ['POST', '/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'], externalReferences: Array.from({ length: 21 }, () => ({ system: 's', type: 't', value: 'v' })) }],
      ['POST', '/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'], externalReferences: [{ system: 's', type: 't', value: 'v'.repeat(513) }] }],
      ['POST', '/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'], extensions: { notnamespaced: 1 } }],
      ['POST', '/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'], status: 'active' }],
      ['POST', `/partner-relationships/${r.id}/request`, { observedResourceVersion: 1e308 }],
      ['POST', `/partner-relationships/${r.id}/request`, { observedResourceVersion: -1 }],
      ['POST', `/partner-relationships/${r.id}/withdraw`, { reason: 'nul \u0000 inside', observedResourceVersion: 1 }],
      ['POST', '/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'], extensions: { 'com.acme.x\u0000': 1 } }],
      ['GET', '/partner-relationships/%E0%A4%A', undefined],
      ['POST', `/partner-relationships/${r.id}/launch`, {}],
      ['DELETE', `/partner-relationships/${r.id}`, undefined],
      ['GET', `/partner-relationships/${'9'.repeat(5000)}`, undefined],
      ['GET', '/partner-relationships?limit=99999999999999999999', undefined],
      ['GET', '/partner-relationships?counterpart=%00', undefined],
      ['GET', `/partner-relationships?cursor=${Buffer.from('-'.repeat(36)).toString('base64url')}`, undefined],
      ['GET', `/events?cursor=${Buffer.from('99999999999999999999.1').toString('base64url')}`, undefined],
      ['GET', '/capacity-offers?from=2024-02-30T00:00:00Z', undefined],
      ['GET', '/capacity-offers?to=0000-01-01T00:00:00Z', undefined],
      ['POST', '/partner-relationships', { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'], effectiveUntil: '2030-06-30T23:59:60Z' }],
      ['POST', '/capacity-offers', { expiresAt: '2030-06-30T23:59:60.5Z' }],
      ['POST', '/capacity-offers', { extensions: { 'com.acme.deep': JSON.parse('['.repeat(3000) + ']'.repeat(3000)) } }],
    ];
    for (const [method, url, body] of hostile) {
      const reply = await call(method, url, a.token, body);
      expect(reply.status).toBeGreaterThanOrEqual(400);
      expect(reply.status).toBeLessThan(500);
      expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(reply.body.code).toMatch(/^[A-Z_]+$/);
    }
    const polluted = await call('POST', `/partner-relationships/${r.id}/request`, a.token, undefined, {
      raw: '{"__proto__":{"admin":true},"observedResourceVersion":1}',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(polluted, 400, 'VALIDATION_FAILED');
    const invalid = await a.post('/partner-relationships', { requestingOrganizationId: 7, scopes: ['nope'] });
    expectProblem(invalid, 400, 'VALIDATION_FAILED');
    const pointers = invalid.body.errors.map((e: any) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/requestingOrganizationId', '/acceptingOrganizationId', '/scopes/0']));
    expectProblem(await call('POST', '/partner-relationships', a.token, undefined, { raw: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectProblem(await call('GET', '/nowhere', a.token), 404, 'ROUTE_NOT_FOUND');
    expect((await a.get(path(r.id))).body.resourceVersion).toBe(1);
    expect(await relationshipsRequestedBy(a)).toHaveLength(1);
  });

  test('the correlation id is taken from the request, echoed, and written to the logs', async () => {
    const [a] = await connectors(1);
    const reply = await call('GET', '/partner-relationships/01a1fd30-05ff-70e9-bbcd-a29491e72bb4', a.token, undefined, { headers: { 'x-correlation-id': 'trace-abc.123' } });
    expect(reply.headers.get('x-correlation-id')).toBe('trace-abc.123');
    expect(reply.body.correlationId).toBe('trace-abc.123');
    const generated = await call('GET', '/partner-relationships', a.token, undefined, { headers: { 'x-correlation-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
    await sleep(100);
    const log = readFileSync(join(testEnv().dir, 'broker.log'), 'utf8');
    expect(log).toContain('"correlationId":"trace-abc.123"');
  });
});

test('a method the path does not have is 405 with Allow; an unknown path is 404', async () => {
  const [a] = await connectors(1);
  const reply = await call('DELETE', '/partner-relationships', a.token);
  expectProblem(reply, 405, 'METHOD_NOT_ALLOWED');
  expect(reply.headers.get('allow')).toBe('GET, HEAD, POST');
  const trace = await call('PUT', '/health/live', undefined);
  expectProblem(trace, 405, 'METHOD_NOT_ALLOWED');
  expect(trace.headers.get('allow')).toBe('GET, HEAD');
  expectProblem(await call('PUT', '/partner-relationships/01a1fd30-05ff-70e9-bbcd-a29491e72bb4/accept', a.token), 405, 'METHOD_NOT_ALLOWED');
  expectProblem(await call('GET', '/nowhere/at/all', a.token), 404, 'ROUTE_NOT_FOUND');
});
