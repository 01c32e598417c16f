// Connectors managed through the API (domain/connector.ts, api/connectors.ts), without a file edit
// or a restart: an organization's admin creates a connector with a key pair of its own; the
// connector gets a token by private_key_jwt and publishes; a key rolled with an overlap works
// beside the new one until its expiry and is refused from then on, its tokens too; a revoked key
// and a disabled connector are refused on the next requests, tokens issued before included; and
// nobody reaches another organization's connectors (404), nor gives a scope above the ceiling.
import { createHash, createPrivateKey, randomUUID, X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PcxClient } from '../sdk/src';
import { clientAssertion, generateConnectorKey, type PrivateJwk } from '../sdk/src/keys';
import { call, Connector, ENGINE, expectProblem, freshOrgs, listAll, testEnv, tokenByKey } from './helpers';
import { startBroker } from './stack';
import { httpsRequest, selfSignedCertificate, testCertificates } from './tls';
import { offerBody } from './listing-fixtures';
import { waitFor } from './matching-fixtures';

const env = testEnv();
const tokenUrl = `${env.baseUrl}/oauth2/token`;
const [orgA, orgB] = freshOrgs(2);
let adminA: Connector;
let adminB: Connector;
beforeAll(async () => {
  [adminA, adminB] = await Promise.all([Connector.of(orgA), Connector.of(orgB)]);
});

const clientIdOf = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;


/** Waits (bounded) until a read with the token is refused with `code`: what every replica does within a second of the change. */
async function refusedSoon(token: string, code: string) {
  await waitFor(`the token to be refused with ${code}`, async () => {
    const reply = await call('GET', '/partner-relationships', token);
    return reply.status === 401 && reply.body.code === code ? true : undefined;
  }, 5000);
}

test('onboarded without a restart: the admin creates a connector with its key; the connector gets a token by private_key_jwt and publishes', async () => {
  const key = generateConnectorKey();
  const clientId = clientIdOf('tms');
  const created = await adminA.post('/connectors', { clientId, name: 'Dispatch TMS', scopes: ['capacity:publish', 'capacity:read'], actorRoles: ['dispatcher'], publicJwk: key.publicJwk });
  expect(created.status).toBe(201);
  expect(created.body).toEqual(expect.objectContaining({ clientId, organizationId: orgA.id, status: 'active', scopes: ['capacity:publish', 'capacity:read'], environment: expect.any(String) }));
  expect(created.body.credentials).toEqual([expect.objectContaining({ credentialId: key.publicJwk.kid, status: 'active', publicJwk: expect.objectContaining({ kid: key.publicJwk.kid }) })]);
  expect(JSON.stringify(created.body)).not.toContain(key.privateJwk.d);
  expect(created.headers.get('location')).toBe(`/connectors/${created.body.id}`);

  // As the connector's system would: the SDK with its private key.
  const pcx = new PcxClient({ baseUrl: env.baseUrl, clientId, privateKey: key.privateJwk });
  const offer = await pcx.request<{ id: string; ownerOrganizationId: string }>('POST', '/capacity-offers', { body: offerBody() as never });
  expect(offer.data.ownerOrganizationId).toBe(orgA.id);
  // Its scopes are what the admin gave: no more.
  const denied = await pcx.request('GET', '/load-requests').catch((err) => err);
  expect(denied.code).toBe('INSUFFICIENT_SCOPE');

  // The key's last use (the token it got) is shown to its admins, in the list and the read alike.
  const read = (await adminA.get(`/connectors/${created.body.id}`)).body;
  expect(Date.parse(read.credentials[0].lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.createdAt));
  expect((await listAll(adminA, '/connectors')).find((c: any) => c.clientId === clientId).credentials[0].lastUsedAt).toBe(read.credentials[0].lastUsedAt);
  // The admin sees it in its list, with its events on the organization's feed.
  expect((await listAll(adminA, '/connectors')).map((c: any) => c.clientId)).toContain(clientId);
  const types = (await adminA.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `connectors/${created.body.id}`).map((e: any) => e.type);
  expect(types).toEqual(['pcx.connector.created.v1']);
  // A client id is taken once: again, or one of the connectors file, is a conflict.
  expectProblem(await adminB.post('/connectors', { clientId, scopes: [] }), 409, 'RESOURCE_EXISTS');
  expectProblem(await adminA.post('/connectors', { clientId: orgA.clientId, scopes: [] }), 409, 'RESOURCE_EXISTS');
});

test('rolled with an overlap: both keys work until the old one expires; then the old key and its tokens are refused at that second', async () => {
  const first = generateConnectorKey();
  const second = generateConnectorKey();
  const clientId = clientIdOf('roll');
  const created = (await adminA.post('/connectors', { clientId, scopes: ['capacity:read'], publicJwk: first.publicJwk })).body;
  const oldToken = (await tokenByKey(clientId, first.privateJwk)).token!;
  const overlapEnds = new Date(Date.now() + 4000).toISOString();
  const rolled = await adminA.command(`/connectors/${created.id}/roll-credential`, created.resourceVersion, { credentialId: first.publicJwk.kid, publicJwk: second.publicJwk, oldExpiresAt: overlapEnds });
  expect(rolled.status).toBe(200);
  expect(rolled.body.credentials).toEqual([
    expect.objectContaining({ credentialId: first.publicJwk.kid, status: 'active', expiresAt: overlapEnds.replace(/\.\d{3}Z$/, (m) => (m === '.000Z' ? 'Z' : m)), replacedBy: second.publicJwk.kid }),
    expect.objectContaining({ credentialId: second.publicJwk.kid, status: 'active' }),
  ]);
  // The overlap: both keys get tokens, both tokens work.
  const newToken = (await tokenByKey(clientId, second.privateJwk)).token!;
  expect((await tokenByKey(clientId, first.privateJwk)).status).toBe(200);
  expect((await call('GET', '/capacity-offers', oldToken)).status).toBe(200);
  // From the expiry on, the old key gets no token and its tokens are refused; the new one works on.
  await refusedSoon(oldToken, 'CREDENTIAL_INVALID');
  expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(overlapEnds));
  const refused = await tokenByKey(clientId, first.privateJwk);
  expect(refused.status).toBe(401);
  expect((await call('GET', '/capacity-offers', newToken)).status).toBe(200);
  // The timer marks it expired, with its event.
  const expired = await waitFor('the credential to be marked expired', async () => {
    const c = (await adminA.get(`/connectors/${created.id}`)).body;
    return c.credentials[0].status === 'expired' ? c : undefined;
  });
  expect(expired.credentials[0].expiredAt).toBeDefined();
});

test('a revoked key and a disabled connector are refused on the next requests, tokens issued before included; enabled, it works again', async () => {
  const key = generateConnectorKey();
  const spare = generateConnectorKey();
  const clientId = clientIdOf('revoke');
  let doc = (await adminA.post('/connectors', { clientId, scopes: ['capacity:read'], publicJwk: key.publicJwk })).body;
  doc = (await adminA.command(`/connectors/${doc.id}/credentials`, doc.resourceVersion, { publicJwk: spare.publicJwk })).body;
  const token = (await tokenByKey(clientId, key.privateJwk)).token!;
  const spareToken = (await tokenByKey(clientId, spare.privateJwk)).token!;
  doc = (await adminA.command(`/connectors/${doc.id}/revoke-credential`, doc.resourceVersion, { credentialId: key.publicJwk.kid, reason: 'laptop stolen' })).body;
  expect(doc.credentials[0]).toEqual(expect.objectContaining({ status: 'revoked', revocation: expect.objectContaining({ reason: 'laptop stolen', organizationId: orgA.id }) }));
  await refusedSoon(token, 'CREDENTIAL_INVALID');
  // The refusal names the key and why it no longer signs.
  expect((await tokenByKey(clientId, key.privateJwk)).body.error_description).toMatch(new RegExp(`the key ${key.publicJwk.kid} of ${clientId} was revoked at \\d{4}-`));
  expect((await call('GET', '/capacity-offers', spareToken)).status).toBe(200);
  // Disabled: every token of it refused; enabled: they work again.
  doc = (await adminA.command(`/connectors/${doc.id}/disable`, doc.resourceVersion, { reason: 'audit' })).body;
  await refusedSoon(spareToken, 'CONNECTOR_INACTIVE');
  expect((await tokenByKey(clientId, spare.privateJwk)).status).toBe(401);
  doc = (await adminA.command(`/connectors/${doc.id}/enable`, doc.resourceVersion, {})).body;
  await waitFor('the token to work again', async () => ((await call('GET', '/capacity-offers', spareToken)).status === 200 ? true : undefined));
  // Retired: for good.
  doc = (await adminA.command(`/connectors/${doc.id}/retire`, doc.resourceVersion, { reason: 'replaced' })).body;
  expect(doc).toEqual(expect.objectContaining({ status: 'retired', credentials: [expect.objectContaining({ status: 'revoked' }), expect.objectContaining({ status: 'revoked' })] }));
  await refusedSoon(spareToken, 'CONNECTOR_INACTIVE');
});

test('isolation and the ceiling: another organization reaches none of it (404); a scope above the ceiling, a private key or a weak key are refused; the operator reads without keys', async () => {
  const key = generateConnectorKey();
  const doc = (await adminA.post('/connectors', { clientId: clientIdOf('iso'), scopes: ['capacity:read'], publicJwk: key.publicJwk })).body;
  expectProblem(await adminB.get(`/connectors/${doc.id}`), 404, 'RESOURCE_NOT_FOUND');
  for (const [path, body] of [
    ['disable', { reason: 'x' }],
    ['credentials', { publicJwk: generateConnectorKey().publicJwk }],
    ['revoke-credential', { credentialId: key.publicJwk.kid, reason: 'x' }],
  ] as const) {
    expectProblem(await adminB.command(`/connectors/${doc.id}/${path}`, doc.resourceVersion, body), 404, 'RESOURCE_NOT_FOUND');
  }
  expectProblem(await call('PATCH', `/connectors/${doc.id}`, adminB.token, { scopes: [] }, { headers: { 'if-match': `"${doc.resourceVersion}"` } }), 404, 'RESOURCE_NOT_FOUND');
  expect((await listAll(adminB, '/connectors')).map((c: any) => c.id)).not.toContain(doc.id);
  // Unchanged by all that.
  expect((await adminA.get(`/connectors/${doc.id}`)).body.resourceVersion).toBe(doc.resourceVersion);

  expectProblem(await adminA.post('/connectors', { clientId: clientIdOf('admin'), scopes: ['exchange:admin'] }), 422, 'SCOPE_ABOVE_CEILING');
  expectProblem(await call('PATCH', `/connectors/${doc.id}`, adminA.token, { scopes: ['capacity:read', 'exchange:admin'] }, { headers: { 'if-match': `"${doc.resourceVersion}"` } }), 422, 'SCOPE_ABOVE_CEILING');
  expectProblem(await adminA.post('/connectors', { clientId: clientIdOf('priv'), scopes: [], publicJwk: { ...key.privateJwk } }), 400, 'VALIDATION_FAILED');
  // An EC key without its point: refused by the schema, at the key.
  const incomplete = await adminA.post('/connectors', { clientId: clientIdOf('half'), scopes: [], publicJwk: { kty: 'EC', kid: 'half' } });
  expectProblem(incomplete, 400, 'VALIDATION_FAILED');
  expect(incomplete.body.errors.map((e: any) => e.pointer)).toEqual(expect.arrayContaining([expect.stringMatching(/^\/publicJwk/)]));
  const { publicKey } = await import('node:crypto').then((c) => c.generateKeyPairSync('rsa', { modulusLength: 1024 }));
  expectProblem(await adminA.post('/connectors', { clientId: clientIdOf('weak'), scopes: [], publicJwk: { ...publicKey.export({ format: 'jwk' }), kid: 'weak' } }), 400, 'VALIDATION_FAILED');
  // Without connectors:manage: no reach at all.
  const reader = await Connector.of(orgA, 'capacity:read');
  expectProblem(await reader.get('/connectors'), 403, 'INSUFFICIENT_SCOPE');

  // The protocol operator reads any connector: what it may do, not its keys.
  const operator = await Connector.of({ id: 'org-operator', clientId: 'client-operator', secret: 'secret-o' } as any);
  const seen = await operator.get(`/connectors/${doc.id}`);
  expect(seen.status).toBe(200);
  expect(seen.body).toEqual(expect.objectContaining({ clientId: doc.clientId, organizationId: orgA.id, scopes: ['capacity:read'] }));
  expect(seen.body.credentials).toBeUndefined();
  // And lists every organization's, the same way.
  const listed = (await listAll(operator, '/connectors')).find((c: any) => c.id === doc.id);
  expect(listed).toEqual(expect.objectContaining({ clientId: doc.clientId, organizationId: orgA.id }));
  expect(listed.credentials).toBeUndefined();
});

// Two api replicas behind one public address, as docs/deployment.md runs them (PostgreSQL: PGlite
// is one process's): the second shares the first's database, Temporal, signing key and base URL.
const onPostgres = ENGINE === 'postgres' ? test : test.skip;
onPostgres('two replicas: a token from either works on both; an assertion is accepted by one of them once; a revocation and a disable are refused by both', async () => {
  const replica = await startBroker({ ...env.brokerEnv, PCX_ROLE: 'api', PUBLIC_BASE_URL: env.baseUrl }, join(env.dir, 'data'));
  try {
    const at = (base: string, path: string, token: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const tokenAt = async (base: string, assertion: string) => {
      const res = await fetch(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion }) });
      return { status: res.status, body: await res.json() };
    };
    const key = generateConnectorKey();
    const clientId = clientIdOf('replicas');
    let doc = (await adminA.post('/connectors', { clientId, scopes: ['capacity:read'], publicJwk: key.publicJwk })).body;
    // Created through the first, a token from the second at once (its token endpoint reads the read model before it decides).
    const assertion = clientAssertion({ clientId, tokenUrl, privateJwk: key.privateJwk });
    const fromSecond = await tokenAt(replica.baseUrl, assertion);
    expect(fromSecond.status).toBe(200);
    // The same assertion at the first: a replay, refused.
    expect((await tokenAt(env.baseUrl, assertion)).body.error_description).toMatch(/used before/);
    const fromFirst = (await tokenByKey(clientId, key.privateJwk)).token!;
    for (const base of [env.baseUrl, replica.baseUrl]) for (const token of [fromFirst, fromSecond.body.access_token]) expect((await at(base, '/capacity-offers', token)).status).toBe(200);

    // Revoked through the first: both replicas refuse both tokens within the refresh (bounded wait).
    doc = (await adminA.command(`/connectors/${doc.id}/revoke-credential`, doc.resourceVersion, { credentialId: key.publicJwk.kid, reason: 'replicas' })).body;
    await waitFor('both replicas to refuse both tokens', async () => {
      const answers = await Promise.all([env.baseUrl, replica.baseUrl].flatMap((base) => [fromFirst, fromSecond.body.access_token].map((token) => at(base, '/capacity-offers', token))));
      return answers.every((a) => a.status === 401 && a.body.code === 'CREDENTIAL_INVALID') ? true : undefined;
    }, 5000);

    // A new key, then the connector disabled through the second replica: both refuse.
    const spare = generateConnectorKey();
    doc = (await call('POST', `/connectors/${doc.id}/credentials`, adminA.token, { publicJwk: spare.publicJwk }, { headers: { 'if-match': `"${doc.resourceVersion}"` } })).body;
    const spareToken = (await tokenAt(replica.baseUrl, clientAssertion({ clientId, tokenUrl, privateJwk: spare.privateJwk }))).body.access_token;
    const disabled = await fetch(`${replica.baseUrl}/connectors/${doc.id}/disable`, { method: 'POST', headers: { authorization: `Bearer ${adminA.token}`, 'content-type': 'application/json', 'if-match': `"${doc.resourceVersion}"` }, body: JSON.stringify({ reason: 'replicas' }) });
    expect(disabled.status).toBe(200);
    await waitFor('both replicas to refuse the disabled connector', async () => {
      const answers = await Promise.all([env.baseUrl, replica.baseUrl].map((base) => at(base, '/capacity-offers', spareToken)));
      return answers.every((a) => a.status === 401 && a.body.code === 'CONNECTOR_INACTIVE') ? true : undefined;
    }, 5000);
  } finally {
    await replica.stop();
  }
}, 90_000);

test('a generated client secret: shown once (not in reads, replays or events), kept as a slow hash; it gets tokens; rolled with an overlap; revoked at once', async () => {
  const clientId = clientIdOf('secret');
  const key = `secret-${randomUUID()}`;
  const created = await adminA.post('/connectors', { clientId, scopes: ['capacity:read'], generateClientSecret: true }, { 'idempotency-key': key });
  expect(created.status).toBe(201);
  const secret: string = created.body.clientSecret;
  expect(secret).toMatch(/^pcxs_[A-Za-z0-9_-]{43}$/);
  expect(created.body.credentials).toEqual([expect.objectContaining({ credentialId: created.body.clientSecretCredentialId, kind: 'clientSecret', secretHint: secret.slice(-4), status: 'active' })]);
  // Shown this once: a read, a replay of the request and the feed never carry it.
  const read = await adminA.get(`/connectors/${created.body.id}`);
  const replay = await adminA.post('/connectors', { clientId, scopes: ['capacity:read'], generateClientSecret: true }, { 'idempotency-key': key });
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  const feed = (await adminA.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `connectors/${created.body.id}`);
  for (const shown of [read.body, replay.body, feed]) {
    expect(JSON.stringify(shown)).not.toContain(secret);
    expect(JSON.stringify(shown)).not.toContain(secret.slice(5, 20));
    expect(JSON.stringify(shown)).not.toContain('scrypt');
  }
  expect(replay.body.clientSecret).toBeUndefined();

  // It gets tokens (client_secret_basic and client_secret_post), a wrong one does not.
  const basic = await fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` }, body: 'grant_type=client_credentials' });
  expect(basic.status).toBe(200);
  const first = (await basic.json()).access_token;
  expect((await call('GET', '/capacity-offers', first)).status).toBe(200);
  const post = async (s: string) => fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: s }) });
  expect((await post(secret)).status).toBe(200);
  expect((await post(`${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`)).status).toBe(401);
  expect((await post(`pcxs_${'A'.repeat(39)}${secret.slice(-4)}`)).status).toBe(401);
  // Its last use is shown.
  expect((await adminA.get(`/connectors/${created.body.id}`)).body.credentials[0].lastUsedAt).toEqual(expect.any(String));

  // Rolled to a new secret: both work during the overlap.
  const rolled = await adminA.command(`/connectors/${created.body.id}/roll-credential`, read.body.resourceVersion, { credentialId: created.body.clientSecretCredentialId, generateClientSecret: true, oldExpiresAt: new Date(Date.now() + 3600_000).toISOString() });
  expect(rolled.status).toBe(200);
  const second: string = rolled.body.clientSecret;
  expect(second).toMatch(/^pcxs_/);
  expect(second).not.toBe(secret);
  expect((await post(secret)).status).toBe(200);
  expect((await post(second)).status).toBe(200);
  // Revoked: the old secret and the token it got are refused at once.
  const revoked = await adminA.command(`/connectors/${created.body.id}/revoke-credential`, rolled.body.resourceVersion, { credentialId: created.body.clientSecretCredentialId, reason: 'leaked' });
  expect(revoked.status).toBe(200);
  await refusedSoon(first, 'CREDENTIAL_INVALID');
  expect((await post(secret)).status).toBe(401);
  expect((await post(second)).status).toBe(200);
  // A key and a secret at once, or neither, is not a credential.
  expectProblem(await adminA.command(`/connectors/${created.body.id}/credentials`, revoked.body.resourceVersion, { generateClientSecret: true, publicJwk: generateConnectorKey().publicJwk }), 400, 'VALIDATION_FAILED');
  expectProblem(await adminA.command(`/connectors/${created.body.id}/credentials`, revoked.body.resourceVersion, {}), 400, 'VALIDATION_FAILED');
});

// A pilot in production mode (PostgreSQL): no development server, no connectors file secrets; the
// broker's own token endpoint (its signing key the operator's file, shared with the first replica
// so that both verify each other's tokens) serves managed connectors by private_key_jwt, and
// generated client secrets are refused unless the operator allows them.
onPostgres('production mode: the broker\u2019s own token endpoint issues a managed connector\u2019s tokens by private_key_jwt; client secrets refused; no development routes', async () => {
  const dir = join(env.dir, `production-${randomUUID().slice(0, 8)}`);
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, 'token-signing-key.json');
  writeFileSync(keyFile, JSON.stringify(JSON.parse(readFileSync(join(env.dataDir, 'dev-auth-key.json'), 'utf8')).privateJwk), { mode: 0o600 });
  const empty = join(dir, 'empty.json');
  writeFileSync(empty, '[]');
  // Production refuses the tests' webhook allowances (private addresses, short DNS lifetimes): without them here.
  const { WEBHOOK_ALLOWED_CIDRS: _cidrs, WEBHOOK_DNS_MIN_TTL_SECONDS: _ttl, ...brokerEnv } = env.brokerEnv;
  const production = await startBroker({ ...brokerEnv, PCX_MODE: 'production', PCX_ROLE: 'api', PUBLIC_BASE_URL: env.baseUrl, TOKEN_SIGNING_KEY_FILE: keyFile, CONNECTORS_FILE: empty, USERS_FILE: empty }, join(dir, 'data'));
  try {
    const key = generateConnectorKey();
    const clientId = clientIdOf('pilot');
    const created = await adminA.post('/connectors', { clientId, scopes: ['capacity:publish', 'capacity:read', 'connectors:manage'], publicJwk: key.publicJwk });
    expect(created.status).toBe(201);
    // The production process's token endpoint, the assertion's audience the public token URL (one address for both replicas).
    const res = await fetch(`${production.baseUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: clientAssertion({ clientId, tokenUrl, privateJwk: key.privateJwk }) }) });
    expect(res.status).toBe(200);
    const pcx = new PcxClient({ baseUrl: production.baseUrl, accessToken: (await res.json()).access_token });
    const offer = await pcx.request<{ ownerOrganizationId: string }>('POST', '/capacity-offers', { body: offerBody() as never });
    expect(offer.data.ownerOrganizationId).toBe(orgA.id);
    // Client secrets are not issued here (CLIENT_SECRETS is off in production by default).
    const refused = await pcx.request('POST', '/connectors/{id}/credentials', { path: { id: created.body.id }, body: { generateClientSecret: true } as never, ifMatch: `"${created.body.resourceVersion}"` }).catch((err) => err);
    expect({ status: refused.status, code: refused.code, message: refused.message }).toEqual(expect.objectContaining({ code: 'CREDENTIAL_KIND_NOT_ALLOWED' }));
    // The connectors file's development secrets mean nothing here; the development routes are absent.
    const secretToken = await fetch(`${production.baseUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: orgA.clientId, client_secret: orgA.secret }) });
    expect(secretToken.status).toBe(401);
    expect((await fetch(`${production.baseUrl}/sandbox/connector-requests`, { headers: { authorization: `Bearer ${adminA.token}` } })).status).toBe(404);
  } finally {
    await production.stop();
  }
}, 90_000);

test('a key with its certificate chain: accepted when the chain certifies it and holds together (the credential ends with the certificate); refused when it does not', async () => {
  const certs = testCertificates();
  const der = (pem: string) => new X509Certificate(pem).raw.toString('base64');
  const privateJwk: Record<string, string> = { ...(createPrivateKey(certs.key).export({ format: 'jwk' }) as Record<string, string>), kid: `cert-${randomUUID().slice(0, 8)}`, alg: 'ES256' };
  const { d: _d, ...publicJwk } = privateJwk;
  const clientId = clientIdOf('chain');
  const created = await adminA.post('/connectors', { clientId, scopes: ['capacity:read'], publicJwk: { ...publicJwk, x5c: [der(certs.cert), der(certs.ca)] } });
  expect(created.status).toBe(201);
  expect(created.body.credentials[0].publicJwk.x5c).toHaveLength(2);
  expect(created.body.credentials[0].expiresAt).toBe(new Date(Date.parse(new X509Certificate(certs.cert).validTo)).toISOString().replace(/\.000Z$/, 'Z'));
  // The key signs assertions as any other.
  expect((await tokenByKey(clientId, privateJwk as unknown as PrivateJwk)).status).toBe(200);

  // A chain that does not certify the key, a leaf not signed by the next, garbage: refused, nothing registered.
  const other = generateConnectorKey();
  for (const [x5c, why] of [
    [[der(certs.cert)], 'another key'],
    [[der(certs.ca), der(certs.cert)], 'the order reversed'],
    [['bm90IGEgY2VydGlmaWNhdGU='], 'not a certificate'],
  ] as const) {
    const key = why === 'another key' ? { ...other.publicJwk, x5c } : { ...publicJwk, kid: `${publicJwk.kid}-x`, x5c };
    const refused = await adminA.post('/connectors', { clientId: clientIdOf('chain-bad'), scopes: [], publicJwk: key });
    expectProblem(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.errors[0].pointer).toBe('/publicJwk/x5c');
  }
});

// Mutual TLS (RFC 8705) on the broker's mutual-TLS listener: a connector that registered a key
// authenticates with a self-signed certificate of it (self_signed_tls_client_auth); its token is
// bound to that certificate (cnf x5t#S256) and is refused without it, with another certificate, or
// on the plain listener; a certificate of a key the connector did not register, or of a revoked
// key, gets no token.
test('mutual TLS: a certificate of a registered key gets a certificate-bound token, accepted only with that certificate; other keys and revoked keys get none', async () => {
  const { ca } = testCertificates(env.webhooks.tlsDir);
  const pem = (jwk: PrivateJwk) => createPrivateKey({ key: jwk as never, format: 'jwk' }).export({ type: 'pkcs8', format: 'pem' }).toString();
  const key = generateConnectorKey();
  const stranger = generateConnectorKey();
  const clientId = clientIdOf('mtls');
  const created = (await adminA.post('/connectors', { clientId, scopes: ['capacity:publish', 'capacity:read'], publicJwk: key.publicJwk })).body;
  const mine = { cert: selfSignedCertificate(pem(key.privateJwk), clientId), key: pem(key.privateJwk) };
  const theirs = { cert: selfSignedCertificate(pem(stranger.privateJwk), clientId), key: pem(stranger.privateJwk) };
  const form = (extra: Record<string, string> = {}) => new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, ...extra }).toString();
  const tokenRequest = (client: { cert: string; key: string } | undefined, body = form(), base = env.mtls.baseUrl) =>
    base.startsWith('https:')
      ? httpsRequest(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, ca, ...client })
      : fetch(`${base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }).then(async (r) => ({ status: r.status, body: await r.json() }));

  const issued = await tokenRequest(mine);
  expect(issued.status).toBe(200);
  const token: string = issued.body.access_token;
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  expect(claims.cnf).toEqual({ 'x5t#S256': createHash('sha256').update(new X509Certificate(mine.cert).raw).digest('base64url') });
  expect(claims.cred).toBe(key.publicJwk.kid);
  // With its certificate, on the mutual-TLS listener: it works (a read and a publication).
  const read = (client?: { cert: string; key: string }) => httpsRequest(`${env.mtls.baseUrl}/capacity-offers?limit=1`, { headers: { authorization: `Bearer ${token}` }, ca, ...client });
  expect((await read(mine)).status).toBe(200);
  const published = await httpsRequest(`${env.mtls.baseUrl}/capacity-offers`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: JSON.stringify(offerBody()), ca, ...mine });
  expect(published.status).toBe(201);
  expect(published.body.ownerOrganizationId).toBe(orgA.id);
  // Without a certificate, with another, or on the plain listener: the token is refused.
  for (const reply of [await read(), await read(theirs), await call('GET', '/capacity-offers?limit=1', token)]) {
    expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 401, code: 'INVALID_TOKEN' });
  }
  // A certificate of a key the connector did not register; no certificate at all; the plain listener: no token.
  for (const refused of [await tokenRequest(theirs), await tokenRequest(undefined), await tokenRequest(mine, form(), env.baseUrl)]) {
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 401, error: 'invalid_client' });
  }
  expect((await tokenRequest(theirs)).body.detail).toMatch(/none of the client's registered keys/);
  // A certificate beside a client secret is one method too many: the secret decides (and is wrong here).
  expect((await tokenRequest(mine, form({ client_secret: 'not-it' }))).status).toBe(401);
  // Private_key_jwt still works on the mutual-TLS listener, and its token is not bound.
  const asserted = await tokenRequest(mine, new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: clientAssertion({ clientId, tokenUrl, privateJwk: key.privateJwk }) }).toString());
  expect(asserted.status).toBe(200);
  expect(JSON.parse(Buffer.from(asserted.body.access_token.split('.')[1], 'base64url').toString()).cnf).toBeUndefined();

  // The key revoked: its bound token is refused at once, and its certificate gets no new one.
  const revoked = await adminA.command(`/connectors/${created.id}/revoke-credential`, created.resourceVersion, { credentialId: key.publicJwk.kid, reason: 'certificate retired' });
  expect(revoked.status).toBe(200);
  await waitFor('the bound token to be refused', async () => ((await read(mine)).body.code === 'CREDENTIAL_INVALID' ? true : undefined), 5000);
  expect((await tokenRequest(mine)).status).toBe(401);
});
