// Hostile input found by the security suite (issue 6, section 6): strings PostgreSQL cannot store
// (unpaired UTF-16 surrogates), token claims used as database keys, pair claims left behind by
// relationships that never came into being, and requests Node's HTTP parser refuses before any
// router sees them. Each is refused at the edge, at once, with a problem, and changes nothing.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { importJWK, SignJWT } from 'jose';
import {
  call,
  Connector,
  createRelationship,
  db,
  expectProblem,
  freshOrgs,
  postgresOnly,
  relationshipsRequestedBy,
  testEnv,
  type Reply,
} from './helpers';
import { OFFERS, REQUESTS, createListing } from './listing-fixtures';

const LONE_HIGH = '\ud800';
const LONE_LOW = '\udc00';

async function pair() {
  return Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
}

/**
 * The reply, and that it was not held: a refusal at the edge never waits on a timeout (a
 * workflow's, a lock's, a parser's backtracking), which would take tens of seconds. The bound is
 * far above what a busy machine adds to a request; how fast refusals are is a benchmark's question.
 */
async function quickly(request: Promise<Reply>): Promise<Reply> {
  const started = Date.now();
  const reply = await request;
  expect(Date.now() - started).toBeLessThan(10_000);
  return reply;
}

function expectRefused(reply: Reply, pointer: string) {
  expectProblem(reply, 400, 'VALIDATION_FAILED');
  expect(reply.body.errors).toEqual([{ pointer, message: 'contains an unpaired UTF-16 surrogate' }]);
}

describe('unpaired UTF-16 surrogates are refused at the edge', () => {
  test('in relationship creates (a field, externalReferences, an object key) and a PATCH; a valid invite follows', async () => {
    const [a, b] = await pair();
    expectRefused(await quickly(createRelationship(a, b, { retentionPolicyRef: `policy-${LONE_HIGH}` })), '/retentionPolicyRef');
    expectRefused(
      await quickly(createRelationship(a, b, { externalReferences: [{ system: 'erp', type: 'contract', value: `C-${LONE_LOW}-1` }] })),
      '/externalReferences/0/value',
    );
    // An object key (free-form inside an extension); the pointer shows U+FFFD in its place.
    expectRefused(await quickly(createRelationship(a, b, { extensions: { 'com.acme.erp': { [`k${LONE_HIGH}`]: 1 } } })), '/extensions/com.acme.erp/k\ufffd');
    // A well-formed pair (an emoji) is of course fine; so is the invite the hostile ones wanted.
    expect(await relationshipsRequestedBy(a)).toEqual([]);
    const created = await quickly(createRelationship(a, b, { externalReferences: [{ system: 'erp', type: 'contract', value: 'C-\ud83d\ude9a-1' }] }));
    expect(created.status).toBe(201);
    expect(created.body.externalReferences[0].value).toBe('C-\ud83d\ude9a-1');

    const path = `/partner-relationships/${created.body.id}`;
    expectRefused(await quickly(a.patch(path, { externalReferences: [{ system: 'erp', type: 'contract', value: LONE_LOW }] }, { 'if-match': '"1"' })), '/externalReferences/0/value');
    const after = await a.get(path);
    expect(after.body.resourceVersion).toBe(1);
    expect(after.body.externalReferences).toEqual(created.body.externalReferences);
    // A retention policy the broker has not named is refused (GET /retention-policies); one it has is fine.
    expectProblem(await a.patch(path, { retentionPolicyRef: 'policy-2' }, { 'if-match': '"1"' }), 400, 'VALIDATION_FAILED');
    expect((await a.patch(path, { retentionPolicyRef: 'pcx:pilot' }, { 'if-match': '"1"' })).status).toBe(200);
  });

  test('the failed invite leaves no pair claim behind: the valid invite between the same organizations succeeds', async () => {
    const [a, b] = await pair();
    // With an Idempotency-Key too, so that no idempotency record is left pending either.
    const hostile = await quickly(call('POST', '/partner-relationships', a.token,
      { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'], externalReferences: [{ system: 's', type: 't', value: LONE_HIGH }] },
      { headers: { 'idempotency-key': 'hostile-1' } }));
    expectRefused(hostile, '/externalReferences/0/value');
    const valid = await call('POST', '/partner-relationships', a.token,
      { requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'], externalReferences: [{ system: 's', type: 't', value: 'v' }] },
      { headers: { 'idempotency-key': 'hostile-1' } });
    expect(valid.status).toBe(201);
    // And the pair rule still holds once it is submitted: B's own invite to A cannot be submitted.
    expect((await a.command(`/partner-relationships/${valid.body.id}/request`, 1)).status).toBe(200);
    const reverse = await createRelationship(b, a);
    expect(reverse.status).toBe(201);
    expectProblem(await b.command(`/partner-relationships/${reverse.body.id}/request`, 1), 409, 'DUPLICATE_RELATIONSHIP');
  });

  for (const kind of [OFFERS, REQUESTS]) {
    test(`in ${kind.collection} creates and PATCH`, async () => {
      const owner = await Connector.of(freshOrgs(1)[0]);
      expectRefused(
        await quickly(owner.post(kind.collection, kind.body({ externalReferences: [{ system: 'tms', type: 'trip', value: `T-${LONE_HIGH}` }] }))),
        '/externalReferences/0/value',
      );
      expectRefused(await quickly(owner.post(kind.collection, kind.body({ extensions: { 'com.acme.tms': { [LONE_LOW]: true } } }))), '/extensions/com.acme.tms/\ufffd');
      expect((await owner.get(kind.collection)).body.items).toEqual([]);

      const draft = await createListing(kind, owner);
      const path = `${kind.collection}/${draft.id}`;
      expectRefused(await quickly(owner.patch(path, { extensions: { 'com.acme.tms': { note: `x${LONE_HIGH}y` } } }, { 'if-match': '"1"' })), '/extensions/com.acme.tms/note');
      const after = await owner.get(path);
      expect(after.body.resourceVersion).toBe(1);
      expect(after.body.extensions).toEqual(draft.extensions);
    });
  }

  test('a number too large to be finite is refused rather than stored as null', async () => {
    const owner = await Connector.of(freshOrgs(1)[0]);
    const raw = JSON.stringify(OFFERS.body({ extensions: { 'com.acme.tms': { weight: 0 } } })).replace('"weight":0', '"weight":1e400');
    const reply = await quickly(call('POST', OFFERS.collection, owner.token, undefined, { raw, headers: { 'content-type': 'application/json' } }));
    expectProblem(reply, 400, 'VALIDATION_FAILED');
    expect(reply.body.errors).toEqual([{ pointer: '/extensions/com.acme.tms/weight', message: 'is not a finite number' }]);
  });

  test('query parameters and paths cannot carry one either: percent-encoded surrogates are malformed', async () => {
    const a = await Connector.of(freshOrgs(1)[0]);
    expectProblem(await quickly(a.get('/partner-relationships?counterpart=%ED%A0%80')), 400, 'MALFORMED_REQUEST');
    expectProblem(await quickly(a.get('/capacity-offers?owner=org-%ED%B0%80')), 400, 'MALFORMED_REQUEST');
    expectProblem(await quickly(a.get('/partner-relationships/%ED%A0%80')), 400, 'MALFORMED_REQUEST');
  });
});

/** A development-key token with exactly these claims besides iss, aud, iat and exp (mintToken sets its own jti). */
async function tokenWith(claims: Record<string, unknown>): Promise<string> {
  const key = JSON.parse(readFileSync(join(testEnv().dataDir, 'dev-auth-key.json'), 'utf8'));
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: key.privateJwk.kid })
    .setIssuer(`${testEnv().baseUrl}/oauth2`)
    .setAudience('pcx-broker')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(await importJWK(key.privateJwk, 'ES256'));
}

describe('token claims used as database keys', () => {
  test('a jti that PostgreSQL cannot store, or that is not a bounded string, is refused with 401', async () => {
    const [org] = freshOrgs(1);
    const claims = { sub: org.clientId, org_id: org.id, scope: 'relationships:manage' };
    for (const jti of [`a${LONE_HIGH}`, 'a\u0000b', 'x'.repeat(256), 42]) {
      const reply = await call('GET', '/partner-relationships', await tokenWith({ ...claims, jti }));
      expectProblem(reply, 401, 'INVALID_TOKEN');
      expect(reply.body.detail).toMatch(/jti/);
    }
    expect((await call('GET', '/partner-relationships', await tokenWith({ ...claims, jti: 'x'.repeat(255) }))).status).toBe(200);
  });
});

describe('pair claims of relationships that never came into being', () => {
  /** A relationship workflow that started and closed without ever holding state. */
  async function closedWorkflow(id: string) {
    const env = testEnv();
    const connection = await Connection.connect({ address: env.temporalAddress });
    try {
      const client = new Client({ connection });
      const handle = await client.workflow.start('partnerRelationshipWorkflow', {
        workflowId: `partner-relationship/${id}`,
        taskQueue: env.taskQueue,
        args: [{ kind: 'partner-relationship', settings: { continueAsNewAfterEvents: 10000, continueAsNewAfterCommands: 500 } }],
      });
      await handle.terminate('test: a create that never produced state');
      expect((await handle.describe()).status.name).toBe('TERMINATED');
    } finally {
      await connection.close();
    }
  }

  const plant = (key: string, id: string, org: string, createdAt = 'now()') =>
    db().query(`insert into relationship_pairs (pair_key, relationship_id, requesting_organization_id, created_at) values ($1, $2, $3, ${createdAt})`, [key, id, org]);

  postgresOnly('a claim whose workflow has closed without a read-model row is freed by the next invite for the pair', async () => {
    const [a, b] = await pair();
    const dead = crypto.randomUUID();
    await closedWorkflow(dead);
    await plant(`${a.id}>${b.id}`, dead, a.id);
    const created = await createRelationship(a, b);
    expect(created.status).toBe(201);
    const { rows } = await db().query('select relationship_id from relationship_pairs where pair_key = $1', [`${a.id}>${b.id}`]);
    expect(rows).toEqual([{ relationship_id: created.body.id }]);
  });

  postgresOnly('dead claims do not count against the pending cap; claims that may still be starting do', async () => {
    const [a, b] = await pair();
    // MAX_PENDING_OUTBOUND is 5 on the test broker: five dead claims would fill it.
    const dead = Array.from({ length: 5 }, () => crypto.randomUUID());
    for (const [i, id] of dead.entries()) {
      await closedWorkflow(id);
      await plant(`${a.id}>org-ghost-${i}`, id, a.id);
    }
    const first = await createRelationship(a, b);
    expect(first.status).toBe(201);
    const left = await db().query('select relationship_id from relationship_pairs where relationship_id = any($1::uuid[])', [dead]);
    expect(left.rows).toEqual([]);

    // Claims without any workflow yet may belong to invites that are about to start theirs:
    // they count until they are two minutes old, then they are freed too.
    const [c] = await pair();
    const starting = Array.from({ length: 5 }, () => crypto.randomUUID());
    for (const [i, id] of starting.entries()) await plant(`${c.id}>org-ghost-${i}`, id, c.id);
    expectProblem(await createRelationship(c, b), 409, 'PENDING_RELATIONSHIP_LIMIT');
    await db().query(`update relationship_pairs set created_at = now() - interval '3 minutes' where relationship_id = any($1::uuid[])`, [starting]);
    expect((await createRelationship(c, b)).status).toBe(201);
  });
});

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Sends bytes on a fresh connection and reads the answer until the broker closes it. */
function raw(request: Buffer | string): Promise<RawReply> {
  const { hostname, port } = new URL(testEnv().baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer; got ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`));
    }, 10000);
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => undefined); // a reset after the answer is fine: the answer is what counts
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP response: ${JSON.stringify(text)}`));
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const bodyText = text.slice(split + 4);
      let body: any = bodyText;
      try {
        body = JSON.parse(bodyText);
      } catch {
        /* keep the text */
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.write(request);
  });
}

function expectRawProblem(reply: RawReply, status: number, code: string) {
  expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code });
  expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(reply.headers.connection).toBe('close');
  expect(Number(reply.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(reply.body)));
  expect(reply.body).toMatchObject({ type: expect.stringMatching(/^urn:exchange:protocol:error:[a-z-]+$/), title: expect.any(String), status, code, detail: expect.any(String) });
  expect(reply.body.correlationId).toBe(reply.headers['x-correlation-id']);
}

describe('requests refused by the HTTP parser answer with a problem', () => {
  const host = () => new URL(testEnv().baseUrl).host;

  test('header fields over 16 KiB: 431', async () => {
    const reply = await raw(`GET /health/live HTTP/1.1\r\nHost: ${host()}\r\nX-Filler: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    expectRawProblem(reply, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
  });

  test('Content-Length together with Transfer-Encoding: 400', async () => {
    const reply = await raw(`POST /partner-relationships HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    expectRawProblem(reply, 400, 'MALFORMED_REQUEST');
  });

  test('a non-numeric Content-Length: 400', async () => {
    const reply = await raw(`POST /partner-relationships HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: abc\r\n\r\n{}`);
    expectRawProblem(reply, 400, 'MALFORMED_REQUEST');
  });

  test('raw non-ASCII bytes in the path: 400', async () => {
    const reply = await raw(Buffer.concat([Buffer.from('GET /partner-relationships/'), Buffer.from([0xed, 0xa0, 0x80, 0xc3, 0xa9]), Buffer.from(` HTTP/1.1\r\nHost: ${host()}\r\n\r\n`)]));
    expectRawProblem(reply, 400, 'MALFORMED_REQUEST');
  });

  test('a request line that is not HTTP: 400', async () => {
    expectRawProblem(await raw('HELLO\r\n\r\n'), 400, 'MALFORMED_REQUEST');
  });

  test('raw bytes in Idempotency-Key and X-Correlation-Id reach neither the database nor the response', async () => {
    const [a, b] = await pair();
    const body = JSON.stringify({ requestingOrganizationId: a.id, acceptingOrganizationId: b.id, scopes: ['capacity:read'] });
    const head = (extra: Buffer) =>
      Buffer.concat([
        Buffer.from(`POST /partner-relationships HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${a.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n`),
        extra,
        Buffer.from(`\r\n\r\n${body}`),
      ]);
    const refused = await raw(head(Buffer.concat([Buffer.from('Idempotency-Key: k-'), Buffer.from([0xed, 0xa0, 0x80])])));
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('VALIDATION_FAILED');
    expect(refused.body.errors).toEqual([{ pointer: '/headers/Idempotency-Key', message: 'is not valid' }]);
    expect(await relationshipsRequestedBy(a)).toEqual([]);
    // An unusable correlation id is replaced by one of the broker's own.
    const created = await raw(head(Buffer.concat([Buffer.from('X-Correlation-Id: c-'), Buffer.from([0xed, 0xa0, 0x80])])));
    expect(created.status).toBe(201);
    expect(created.headers['x-correlation-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
  });
});
