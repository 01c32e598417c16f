// The connectors' authorization server as a security review and a TMS team's onboarding find it
// (issue 48; docs/security.md): keys that cannot be abused, discovery, throttling of failed
// authentications, introspection and revocation, token policies per connector, DPoP-bound tokens,
// tls_client_auth with the operator's trust anchors, jwks_uri, and the If-Match contract of the
// credential commands. Each attack is tried and refused with its reason; each legitimate path works
// through the SDK as a connector would use it.
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { DpopKey, PcxClient } from '../sdk/src';
import { clientAssertion, generateConnectorKey, signJws, type PrivateJwk } from '../sdk/src/keys';
import { offerBody } from './listing-fixtures';
import { call, Connector, expectProblem, freshOrgs, sleep, testEnv, tokenByKey } from './helpers';
import { httpsRequest, issuedClientCertificate, selfSignedCertificate, testCertificates } from './tls';
import { startReceiver, type Receiver } from './webhook-receiver';
import { setDnsAnswer } from './dns-server';
import { parsePrometheusTextFormat } from './metrics-text';
import { REFETCH_FLOOR_SECONDS } from '../core/client-key-sets';

/** The value of one sample of a metric (0 when absent). */
const metricValue = (text: string, name: string, labels: Record<string, string>) =>
  parsePrometheusTextFormat(text).get(name)?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0;

const env = testEnv();
const tokenUrl = `${env.baseUrl}/oauth2/token`;
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const [orgA, orgB] = freshOrgs(2);
let adminA: Connector;
let adminB: Connector;
beforeAll(async () => {
  [adminA, adminB] = await Promise.all([Connector.of(orgA), Connector.of(orgB)]);
});

const clientIdOf = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;
const tlsDir = env.webhooks.tlsDir;
const ca = testCertificates(tlsDir).ca;

/** A managed connector of organization A with a fresh key (and whatever else the body says). */
async function connectorWithKey(name: string, extra: Record<string, unknown> = {}, scopes = ['capacity:read']) {
  const key = generateConnectorKey();
  const clientId = clientIdOf(name);
  const created = await adminA.post('/connectors', { clientId, scopes, publicJwk: key.publicJwk, ...extra });
  expect(created.status).toBe(201);
  return { clientId, key, doc: created.body };
}

/** A token request with form fields and headers; status, headers and the problem or token. */
async function tokenRequest(fields: Record<string, string>, headers: Record<string, string> = {}, options: { url?: string; localAddress?: string } = {}) {
  const init = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams({ grant_type: 'client_credentials', ...fields }).toString() };
  const res = options.localAddress
    ? await undiciFetch(options.url ?? tokenUrl, { ...init, dispatcher: new Agent({ localAddress: options.localAddress }) })
    : await fetch(options.url ?? tokenUrl, init);
  return { status: res.status, headers: res.headers, body: (await res.json().catch(() => undefined)) as any };
}

const assertionOf = (clientId: string, privateJwk: PrivateJwk) => ({ client_assertion_type: ASSERTION_TYPE, client_assertion: clientAssertion({ clientId, tokenUrl, privateJwk }) });

describe('keys that cannot be abused', () => {
  test('weak keys are refused at registration, each with its reason, and nothing is created', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' }) as Record<string, string>;
    const roca = createPublicKey(readFileSync(join(__dirname, 'fixtures', 'keys', 'roca', 'pubkey03.pem'))).export({ format: 'jwk' }) as Record<string, string>;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      // The issue's attack: with e = 1 the "signature" is the padded hash, made without any private key.
      [{ ...rsa, e: 'AQ' }, /exponent must be at least 65537 \(this one is 1\)/],
      [{ ...rsa, e: 'Aw' }, /at least 65537 \(this one is 3\)/],
      [{ ...rsa, e: 'AQAC' }, /exponent must be odd/],
      [roca, /ROCA \(CVE-2017-15361\)/],
      [{ kty: 'OKP', crv: 'Ed25519', x: Buffer.from('0100000000000000000000000000000000000000000000000000000000000000', 'hex').toString('base64url') }, /small order/],
    ];
    for (const [jwk, reason] of cases) {
      const clientId = clientIdOf('weak');
      const reply = await adminA.post('/connectors', { clientId, scopes: ['capacity:read'], publicJwk: { ...jwk, kid: 'weak-key' } });
      expectProblem(reply, 400, 'VALIDATION_FAILED');
      expect(reply.body.errors[0]).toEqual({ pointer: '/publicJwk', message: expect.stringMatching(reason) });
      // Nothing was created: the client id is free, and no token is issued for it.
      expect((await adminA.get(`/connectors?limit=200`)).body.items.map((c: any) => c.clientId)).not.toContain(clientId);
    }
    // A short RSA modulus is refused by the schema already (n of 256 characters at least).
    const short = await adminA.post('/connectors', { clientId: clientIdOf('short'), scopes: [], publicJwk: { ...(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }) as object), kid: 'short' } });
    expect(short.body.errors[0].pointer).toBe('/publicJwk/n');
    // The same checks when a key is added to an existing connector.
    const { doc } = await connectorWithKey('add-weak');
    const added = await adminA.command(`/connectors/${doc.id}/credentials`, doc.resourceVersion, { publicJwk: { ...rsa, e: 'AQ', kid: 'e1' } });
    expectProblem(added, 400, 'VALIDATION_FAILED');
  });

  test('an assertion carrying another key\u2019s certificate chain (x5c) is refused, though signed with the registered key', async () => {
    const { clientId, key } = await connectorWithKey('x5c');
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const otherCert = selfSignedCertificate(other.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, 'someone-else');
    const der = Buffer.from(otherCert.replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64');
    const now = Math.floor(Date.now() / 1000);
    const assertion = signJws({ alg: 'ES256', kid: key.publicJwk.kid, x5c: [der] }, { iss: clientId, sub: clientId, aud: tokenUrl, jti: randomUUID(), iat: now, exp: now + 30 }, key.privateJwk);
    const answer = await tokenRequest({ client_assertion_type: ASSERTION_TYPE, client_assertion: assertion });
    expect(answer.status).toBe(401);
    expect(answer.body.error_description).toMatch(/x5c is refused: the certificate's public key is not the key given/);
  });
});

describe('discovery (RFC 8414)', () => {
  test('the metadata at every well-known form names this token endpoint, its methods, keys, introspection, revocation, mTLS aliases and DPoP', async () => {
    const forms = ['/.well-known/oauth-authorization-server/oauth2', '/.well-known/oauth-authorization-server', '/oauth2/.well-known/oauth-authorization-server'];
    const documents = await Promise.all(forms.map(async (path) => (await call('GET', path, undefined)).body));
    for (const metadata of documents) expect(metadata).toEqual(documents[0]);
    const metadata = documents[0];
    expect(metadata).toEqual(expect.objectContaining({
      issuer: `${env.baseUrl}/oauth2`,
      token_endpoint: tokenUrl,
      introspection_endpoint: `${env.baseUrl}/oauth2/introspect`,
      revocation_endpoint: `${env.baseUrl}/oauth2/revoke`,
      jwks_uri: `${env.baseUrl}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: expect.arrayContaining(['private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth', 'client_secret_basic']),
      token_endpoint_auth_signing_alg_values_supported: expect.arrayContaining(['ES256', 'EdDSA', 'PS256']),
      dpop_signing_alg_values_supported: expect.arrayContaining(['ES256']),
      tls_client_certificate_bound_access_tokens: true,
      mtls_endpoint_aliases: { token_endpoint: `${env.mtls.baseUrl}/oauth2/token`, introspection_endpoint: `${env.mtls.baseUrl}/oauth2/introspect`, revocation_endpoint: `${env.mtls.baseUrl}/oauth2/revoke` },
    }));
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).not.toContain('none');
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).not.toContain('HS256');
    // The users' provider no longer offers machine clients a token endpoint of its own.
    const users = (await (await fetch(`${env.baseUrl}/oidc/.well-known/openid-configuration`)).json()) as any;
    expect(users.token_endpoint_auth_methods_supported).toEqual(['none']);
  });

  test('the SDK given only the base URL finds the token endpoint by discovery', async () => {
    const { clientId, key } = await connectorWithKey('discover');
    const fetched: string[] = [];
    const pcx = new PcxClient({ baseUrl: env.baseUrl, clientId, privateKey: key.privateJwk, fetch: (input, init) => (fetched.push(String(input instanceof Request ? input.url : input)), fetch(input, init)) });
    expect((await pcx.request<{ items: unknown[] }>('GET', '/capacity-offers')).data.items).toBeDefined();
    expect(fetched.slice(0, 2)).toEqual([`${env.baseUrl}/.well-known/oauth-authorization-server`, tokenUrl]);
  });
});

describe('abuse resistance at the token endpoint', () => {
  const throttle = { window: Number(env.brokerEnv.TOKEN_THROTTLE_WINDOW_SECONDS), perClient: Number(env.brokerEnv.TOKEN_THROTTLE_CLIENT_FAILURES), perAddress: Number(env.brokerEnv.TOKEN_THROTTLE_ADDRESS_FAILURES) };
  // The broker counts in fixed windows aligned to the epoch and estimates the sliding one from this
  // window's count and the previous one's (read-model/rate-counters.ts): exactly `limit` failures
  // counted near a window's end and checked just after it estimate below the limit. Starting each
  // burst at a window's start keeps the burst and its check in one window however slow the machine.
  const atWindowStart = async () => {
    const windowMs = throttle.window * 1000;
    const into = Date.now() % windowMs;
    if (into > 500) await sleep(windowMs - into + 50);
  };

  test('a client id failing too often is answered 429 with Retry-After, a valid assertion too; counted in /metrics; after Retry-After it works again', async () => {
    const { clientId, key } = await connectorWithKey('throttled');
    const metricsBefore = await (await fetch(`${env.baseUrl}/metrics`)).text();
    await atWindowStart();
    const failures = await Promise.all(Array.from({ length: throttle.perClient }, () => tokenRequest({ client_assertion_type: ASSERTION_TYPE, client_assertion: clientAssertion({ clientId, tokenUrl, privateJwk: generateConnectorKey().privateJwk }) })));
    expect(failures.map((f) => f.status)).toEqual(Array(throttle.perClient).fill(401));
    // The valid one right after: throttled, not accepted.
    const throttled = await tokenRequest(assertionOf(clientId, key.privateJwk));
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual(expect.objectContaining({ code: 'RATE_LIMITED', error: 'slow_down', error_description: expect.stringMatching(/for this client id/) }));
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2 * throttle.window);
    // Other clients from the same address are not locked out.
    expect((await tokenByKey((await connectorWithKey('bystander')).clientId, (await connectorWithKey('bystander2')).key.privateJwk)).status).toBe(401);
    const metricsAfter = await (await fetch(`${env.baseUrl}/metrics`)).text();
    expect(metricValue(metricsAfter, 'pcx_token_auth_failures_total', { endpoint: 'token', reason: 'assertion' }) - metricValue(metricsBefore, 'pcx_token_auth_failures_total', { endpoint: 'token', reason: 'assertion' })).toBeGreaterThanOrEqual(throttle.perClient);
    expect(metricValue(metricsAfter, 'pcx_token_auth_throttled_total', { endpoint: 'token', by: 'client' })).toBeGreaterThanOrEqual(1);
    // The operator's signal: a warn line naming the client id and the address when the lock began.
    const lines = readFileSync(join(env.dir, 'broker.log'), 'utf8').split('\n').filter((l) => l.includes(clientId) && l.includes('reached the limit'));
    expect(lines.map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ level: 'warn', clientId, sourceIp: expect.any(String), by: 'client' })]);
    // Never for good: once the window has slid past the failures, the legitimate client gets its token.
    await sleep(retryAfter * 1000 + 200);
    expect((await tokenRequest(assertionOf(clientId, key.privateJwk))).status).toBe(200);
  }, 90_000);

  test('an address failing too often with any client ids is throttled; other addresses are not', async () => {
    const address = `127.0.${Math.floor(Math.random() * 200) + 20}.${Math.floor(Math.random() * 200) + 20}`;
    const { clientId, key } = await connectorWithKey('from-address');
    await atWindowStart();
    // The address goes on failing until it is throttled: at the limit on a quiet machine; on a busy
    // one the first failures may slide out of the window before the last are sent, so the lock
    // comes a few batches later. It must come before four windows' worth of failures.
    let throttled: Awaited<ReturnType<typeof tokenRequest>> | undefined;
    for (let sent = 0; sent < 4 * throttle.perAddress; ) {
      const batch = Math.min(50, throttle.perAddress - sent > 0 ? throttle.perAddress - sent : 50);
      await Promise.all(Array.from({ length: batch }, () => tokenRequest({}, { authorization: `Basic ${Buffer.from(`${clientIdOf('nobody')}:wrong`).toString('base64')}` }, { localAddress: address })));
      sent += batch;
      if (sent < throttle.perAddress) continue;
      throttled = await tokenRequest(assertionOf(clientId, key.privateJwk), {}, { localAddress: address });
      if (throttled.status === 429) break;
    }
    expect(throttled?.status).toBe(429);
    expect(throttled!.body.error_description).toMatch(/from this address/);
    expect((await tokenRequest(assertionOf(clientId, key.privateJwk))).status).toBe(200);
  }, 90_000);
});

describe('token lifecycle: introspection, revocation, per-connector lifetimes', () => {
  const introspect = (token: string, as: { clientId: string; privateJwk: PrivateJwk }) =>
    tokenRequest({ token, client_assertion_type: ASSERTION_TYPE, client_assertion: clientAssertion({ clientId: as.clientId, tokenUrl, privateJwk: as.privateJwk }) }, {}, { url: `${env.baseUrl}/oauth2/introspect` });
  const revoke = (token: string, as: { clientId: string; privateJwk: PrivateJwk }) =>
    fetch(`${env.baseUrl}/oauth2/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, token_type_hint: 'access_token', ...assertionOf(as.clientId, as.privateJwk) }) });

  test('introspection: active with the claims for the own organization, inactive for another\u2019s client and once revoked; revocation refuses the token on the next request', async () => {
    const holder = await connectorWithKey('holder');
    const resourceServer = await connectorWithKey('resource-server');
    const token = (await tokenByKey(holder.clientId, holder.key.privateJwk)).token!;
    const active = await introspect(token, { clientId: resourceServer.clientId, privateJwk: resourceServer.key.privateJwk });
    expect(active.status).toBe(200);
    expect(active.headers.get('cache-control')).toBe('no-store');
    expect(active.body).toEqual(expect.objectContaining({ active: true, client_id: holder.clientId, sub: holder.clientId, org_id: orgA.id, scope: 'capacity:read', token_type: 'Bearer', iss: `${env.baseUrl}/oauth2`, exp: expect.any(Number), jti: expect.any(String) }));
    // Another organization's client learns nothing of it.
    const keyB = generateConnectorKey();
    const clientB = clientIdOf('other-org');
    expect((await adminB.post('/connectors', { clientId: clientB, scopes: ['capacity:read'], publicJwk: keyB.publicJwk })).status).toBe(201);
    expect((await introspect(token, { clientId: clientB, privateJwk: keyB.privateJwk })).body).toEqual({ active: false });
    expect((await introspect('not-a-token', { clientId: resourceServer.clientId, privateJwk: resourceServer.key.privateJwk })).body).toEqual({ active: false });
    // Revocation: only by the client it was issued to; then refused everywhere at once.
    const byOther = await revoke(token, { clientId: resourceServer.clientId, privateJwk: resourceServer.key.privateJwk });
    expect(byOther.status).toBe(400);
    expect(await byOther.json()).toEqual(expect.objectContaining({ error: 'unauthorized_client' }));
    expect((await call('GET', '/capacity-offers', token)).status).toBe(200);
    expect((await revoke(token, { clientId: holder.clientId, privateJwk: holder.key.privateJwk })).status).toBe(200);
    const refused = await call('GET', '/capacity-offers', token);
    expectProblem(refused, 401, 'INVALID_TOKEN');
    expect(refused.body.detail).toMatch(/revoked/);
    expect((await introspect(token, { clientId: resourceServer.clientId, privateJwk: resourceServer.key.privateJwk })).body).toEqual({ active: false });
    // Revoking again, or a token that is no token, is 200 (RFC 7009 section 2.2).
    expect((await revoke(token, { clientId: holder.clientId, privateJwk: holder.key.privateJwk })).status).toBe(200);
    expect((await revoke('garbage', { clientId: holder.clientId, privateJwk: holder.key.privateJwk })).status).toBe(200);
    // Unauthenticated callers get neither.
    expect((await fetch(`${env.baseUrl}/oauth2/introspect`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }) })).status).toBe(401);
  });

  test('a token policy: access tokens and assertions live what the admin chose, within the operator\u2019s limits', async () => {
    const { clientId, key, doc } = await connectorWithKey('policy', { tokenPolicy: { accessTokenLifetimeSeconds: 120, assertionLifetimeSeconds: 20 } });
    expect(doc.tokenPolicy).toEqual({ accessTokenLifetimeSeconds: 120, assertionLifetimeSeconds: 20 });
    const answer = await tokenRequest({ client_assertion_type: ASSERTION_TYPE, client_assertion: clientAssertion({ clientId, tokenUrl, privateJwk: key.privateJwk, lifetimeSeconds: 20 }) });
    expect(answer.body.expires_in).toBe(120);
    const claims = JSON.parse(Buffer.from(answer.body.access_token.split('.')[1], 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(120);
    const tooLong = await tokenRequest({ client_assertion_type: ASSERTION_TYPE, client_assertion: clientAssertion({ clientId, tokenUrl, privateJwk: key.privateJwk, lifetimeSeconds: 30 }) });
    expect(tooLong.body.error_description).toMatch(/lives 30 s; at most 20 s are accepted/);
    // Beyond the operator's limits: refused; null restores the default.
    const max = Number(env.brokerEnv.AUTH_MAX_TOKEN_LIFETIME_SECONDS ?? 86400);
    expectProblem(await adminA.patch(`/connectors/${doc.id}`, { tokenPolicy: { accessTokenLifetimeSeconds: max + 1 } }, { 'if-match': `"${doc.resourceVersion}"` }), 400, 'VALIDATION_FAILED');
    const reset = await adminA.patch(`/connectors/${doc.id}`, { tokenPolicy: { accessTokenLifetimeSeconds: null } }, { 'if-match': `"${doc.resourceVersion}"` });
    expect(reset.status).toBe(200);
    expect(reset.body.tokenPolicy).toEqual({ assertionLifetimeSeconds: 20 });
  });
});

describe('DPoP (RFC 9449)', () => {
  test('a DPoP-bound connector: no token without a proof; the nonce dance; the token works only with fresh proofs of its key', async () => {
    const { clientId, key } = await connectorWithKey('dpop', { tokenPolicy: { dpopBoundAccessTokens: true } });
    const dpop = new DpopKey();
    // Without a proof: refused.
    const bare = await tokenRequest(assertionOf(clientId, key.privateJwk));
    expect(bare.status).toBe(400);
    expect(bare.body.error_description).toMatch(/bound to a DPoP key/);
    // A proof without the nonce: use_dpop_nonce with the nonce to use.
    const first = await tokenRequest(assertionOf(clientId, key.privateJwk), { dpop: dpop.proof({ method: 'POST', url: tokenUrl }) });
    expect(first.status).toBe(400);
    expect(first.body).toEqual(expect.objectContaining({ code: 'DPOP_PROOF_INVALID', error: 'use_dpop_nonce' }));
    const nonce = first.headers.get('dpop-nonce');
    expect(nonce).toBeTruthy();
    dpop.learn(new Response(null, { status: 400, headers: { 'dpop-nonce': nonce! } }), tokenUrl);
    const issued = await tokenRequest(assertionOf(clientId, key.privateJwk), { dpop: dpop.proof({ method: 'POST', url: tokenUrl }) });
    expect(issued.status).toBe(200);
    expect(issued.body.token_type).toBe('DPoP');
    const token = issued.body.access_token as string;
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims.cnf.jkt).toEqual(expect.any(String));

    const url = `${env.baseUrl}/capacity-offers`;
    const get = (headers: Record<string, string>, target = url) => fetch(target, { headers });
    dpop.learn(new Response(null, { headers: { 'dpop-nonce': nonce! } }), url);
    // As a bearer token: refused; as DPoP without a proof: refused.
    const asBearer = await get({ authorization: `Bearer ${token}` });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
    expect((await get({ authorization: `DPoP ${token}` })).status).toBe(401);
    // With a proof of its key: accepted; the same proof again (a replay): refused.
    const proof = dpop.proof({ method: 'GET', url, accessToken: token });
    expect((await get({ authorization: `DPoP ${token}`, dpop: proof })).status).toBe(200);
    const replay = await get({ authorization: `DPoP ${token}`, dpop: proof });
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as any).detail).toMatch(/used before/);
    // A proof for another URL, for another token, or of another key: refused, each named.
    const reasons = async (headers: Record<string, string>) => ((await (await get(headers)).json()) as any).detail;
    expect(await reasons({ authorization: `DPoP ${token}`, dpop: dpop.proof({ method: 'GET', url: `${env.baseUrl}/load-requests`, accessToken: token }) })).toMatch(/htu/);
    expect(await reasons({ authorization: `DPoP ${token}`, dpop: dpop.proof({ method: 'POST', url, accessToken: token }) })).toMatch(/htm/);
    expect(await reasons({ authorization: `DPoP ${token}`, dpop: dpop.proof({ method: 'GET', url, accessToken: 'another-token' }) })).toMatch(/ath/);
    const thief = new DpopKey();
    thief.learn(new Response(null, { headers: { 'dpop-nonce': nonce! } }), url);
    expect(await reasons({ authorization: `DPoP ${token}`, dpop: thief.proof({ method: 'GET', url, accessToken: token }) })).toMatch(/another key than the one the token is bound to/);
    // Introspection names the binding for a resource server.
    const resourceServer = await connectorWithKey('rs-dpop');
    const introspected = await tokenRequest({ token, ...assertionOf(resourceServer.clientId, resourceServer.key.privateJwk) }, {}, { url: `${env.baseUrl}/oauth2/introspect` });
    expect(introspected.body).toEqual(expect.objectContaining({ active: true, token_type: 'DPoP', cnf: { jkt: claims.cnf.jkt } }));
  });

  test('the SDK with dpop: true gets DPoP tokens, follows the nonces, and commands work', async () => {
    const { clientId, key } = await connectorWithKey('dpop-sdk', { tokenPolicy: { dpopBoundAccessTokens: true } }, ['capacity:read', 'capacity:publish']);
    const pcx = new PcxClient({ baseUrl: env.baseUrl, clientId, privateKey: key.privateJwk, dpop: true });
    const offer = await pcx.request<{ id: string; ownerOrganizationId: string }>('POST', '/capacity-offers', { body: offerBody() as never });
    expect(offer.data.ownerOrganizationId).toBe(orgA.id);
    expect((await pcx.request<{ items: unknown[] }>('GET', '/capacity-offers')).data.items.length).toBeGreaterThan(0);
    // A connector without the policy may still ask for a DPoP token (RFC 9449: the client's choice).
    const optional = await connectorWithKey('dpop-optional');
    const client = new PcxClient({ baseUrl: env.baseUrl, clientId: optional.clientId, privateKey: optional.key.privateJwk, dpop: true });
    expect((await client.request('GET', '/capacity-offers')).response.status).toBe(200);
    expect(JSON.parse(Buffer.from((await client.accessToken()).split('.')[1], 'base64url').toString()).cnf.jkt).toEqual(expect.any(String));
  });
});

describe('tls_client_auth (RFC 8705 section 2.1) under the operator\u2019s trust anchors', () => {
  test('a CA-issued certificate with the registered subject authenticates; the same subject self-signed does not; the token is bound to it', async () => {
    const { doc } = await connectorWithKey('tls-ca');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const keyPem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const subject = `/C=AT/O=Alpine Freight, GmbH/CN=tms-${doc.clientId}.alpine.example`;
    const cert = issuedClientCertificate(tlsDir, keyPem, subject);
    // Registered in RFC 4514's order (most specific first), with the comma escaped.
    const added = await adminA.command(`/connectors/${doc.id}/credentials`, doc.resourceVersion, { tlsClientAuthSubjectDn: `CN=tms-${doc.clientId}.alpine.example,O=Alpine Freight\\, GmbH,C=AT` });
    expect(added.status).toBe(200);
    const credential = added.body.credentials.find((k: any) => k.kind === 'tlsClientAuth');
    expect(credential).toEqual(expect.objectContaining({ status: 'active', tlsClientAuthSubjectDn: expect.stringContaining('CN=tms-') }));
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: doc.clientId }).toString();
    const request = (client: { cert: string; key: string }) => httpsRequest(`${env.mtls.baseUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form, ca, ...client });
    const issued = await request({ cert, key: keyPem });
    expect(issued.status).toBe(200);
    const claims = JSON.parse(Buffer.from(issued.body.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toEqual(expect.objectContaining({ cred: credential.credentialId, cnf: { 'x5t#S256': expect.any(String) } }));
    const read = (client?: { cert: string; key: string }) => httpsRequest(`${env.mtls.baseUrl}/capacity-offers?limit=1`, { headers: { authorization: `Bearer ${issued.body.access_token}` }, ca, ...client });
    expect((await read({ cert, key: keyPem })).status).toBe(200);
    expect((await read()).status).toBe(401);
    // An attacker's self-signed certificate with the very same subject: not under a trust anchor.
    const forged = issuedSelfSigned(keyPem, subject);
    const refused = await request({ cert: forged, key: keyPem });
    expect(refused.status).toBe(401);
    expect(refused.body.error_description).toMatch(/does not chain to one of the broker's trust anchors/);
    // Another subject under the anchors: not registered.
    const stranger = issuedClientCertificate(tlsDir, keyPem, '/C=AT/O=Someone Else/CN=other');
    expect((await request({ cert: stranger, key: keyPem })).body.error_description).toMatch(/subject is none of the client's registered subjects/);
    // A subject that is no distinguished name is refused at registration.
    const current = (await adminA.get(`/connectors/${doc.id}`)).body;
    expectProblem(await adminA.command(`/connectors/${doc.id}/credentials`, current.resourceVersion, { tlsClientAuthSubjectDn: 'just words' }), 400, 'VALIDATION_FAILED');
  });
});

describe('the SDK with a certificate (self_signed_tls_client_auth)', () => {
  test('given the mutual-TLS address, it finds the alias by discovery, gets a certificate-bound token and reads there', async () => {
    const { clientId, key } = await connectorWithKey('sdk-mtls');
    const keyPem = createPrivateKey({ key: key.privateJwk as any, format: 'jwk' }).export({ format: 'pem', type: 'pkcs8' }) as string;
    const pcx = new PcxClient({ baseUrl: env.mtls.baseUrl, clientId, certificate: { cert: selfSignedCertificate(keyPem, clientId), key: keyPem, ca } });
    expect((await pcx.request('GET', '/capacity-offers')).response.status).toBe(200);
    const claims = JSON.parse(Buffer.from((await pcx.accessToken()).split('.')[1], 'base64url').toString());
    expect(claims.cnf['x5t#S256']).toEqual(expect.any(String));
    // Without the certificate, on the plain address, the same token is refused.
    expect((await call('GET', '/capacity-offers', await pcx.accessToken())).status).toBe(401);
  });
});

/** A self-signed certificate for a key with a full subject (OpenSSL's -subj form). */
function issuedSelfSigned(keyPem: string, subject: string): string {
  const { execFileSync } = require('node:child_process') as typeof import('node:child_process');
  const { mkdtempSync, writeFileSync, rmSync } = require('node:fs') as typeof import('node:fs');
  const { tmpdir } = require('node:os') as typeof import('node:os');
  const where = mkdtempSync(join(tmpdir(), 'pcx-forged-'));
  try {
    writeFileSync(join(where, 'k.pem'), keyPem, { mode: 0o600 });
    execFileSync('openssl', ['req', '-x509', '-new', '-key', 'k.pem', '-out', 'c.pem', '-days', '1', '-subj', subject], { cwd: where, stdio: 'ignore' });
    return readFileSync(join(where, 'c.pem'), 'utf8');
  } finally {
    rmSync(where, { recursive: true, force: true });
  }
}

describe('jwks_uri (RFC 7591): keys the client rotates itself', () => {
  let receiver: Receiver;
  let published: { keys: Record<string, unknown>[] } = { keys: [] };
  beforeAll(async () => {
    const certs = testCertificates(tlsDir);
    receiver = await startReceiver({ key: certs.key, cert: certs.cert });
    receiver.respond(() => ({ status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'max-age=3600' }, body: JSON.stringify(published) }));
  });
  afterAll(() => receiver.close());

  test('registered once; a key the client adds later is fetched when an assertion names it; revoking the credential ends it', async () => {
    const first = generateConnectorKey();
    published = { keys: [first.publicJwk] };
    const host = `keys-${randomUUID().slice(0, 8)}.pcx.test`;
    setDnsAnswer(env.webhooks.dnsFile, host, ['127.0.0.1']);
    const jwksUri = receiver.url(`/jwks-${randomUUID().slice(0, 6)}.json`, host);
    const clientId = clientIdOf('jwks-uri');
    const created = await adminA.post('/connectors', { clientId, scopes: ['capacity:read'], jwksUri });
    expect(created.status).toBe(201);
    const credential = created.body.credentials[0];
    expect(credential).toEqual(expect.objectContaining({ kind: 'jwksUri', jwksUri, status: 'active' }));
    const token = await tokenByKey(clientId, first.privateJwk);
    expect(token.status).toBe(200);
    expect(JSON.parse(Buffer.from(token.token!.split('.')[1], 'base64url').toString()).cred).toBe(credential.credentialId);
    // The client rotates: a new key in its set, used at once (its kid is new: fetched again).
    const second = generateConnectorKey();
    published = { keys: [first.publicJwk, second.publicJwk] };
    const fetchesBefore = receiver.requests.length;
    // A new kid is looked for again once the set is a few seconds old (REFETCH_FLOOR_SECONDS).
    await sleep(REFETCH_FLOOR_SECONDS * 1000 + 200);
    expect((await tokenByKey(clientId, second.privateJwk)).status).toBe(200);
    expect(receiver.requests.length).toBe(fetchesBefore + 1);
    // Revoked: no token by any key of the set.
    const current = (await adminA.get(`/connectors/${created.body.id}`)).body;
    expect((await adminA.command(`/connectors/${current.id}/revoke-credential`, current.resourceVersion, { credentialId: credential.credentialId, reason: 'moved to another host' })).status).toBe(200);
    expect((await tokenByKey(clientId, second.privateJwk)).status).toBe(401);
  });

  test('a jwks_uri on a private or metadata address, or without usable keys, is refused at registration', async () => {
    for (const [uri, reason] of [
      ['https://169.254.169.254/latest/jwks.json', /169\.254\.169\.254 is a/],
      ['https://10.1.2.3/jwks.json', /10\.1\.2\.3 is a private/],
    ] as const) {
      const reply = await adminA.post('/connectors', { clientId: clientIdOf('ssrf'), scopes: ['capacity:read'], jwksUri: uri });
      expectProblem(reply, 400, 'VALIDATION_FAILED');
      expect(reply.body.detail).toMatch(reason);
    }
    published = { keys: [] };
    const host = `empty-${randomUUID().slice(0, 8)}.pcx.test`;
    setDnsAnswer(env.webhooks.dnsFile, host, ['127.0.0.1']);
    const empty = await adminA.post('/connectors', { clientId: clientIdOf('empty-set'), scopes: ['capacity:read'], jwksUri: receiver.url('/empty.json', host) });
    expectProblem(empty, 400, 'VALIDATION_FAILED');
    expect(empty.body.detail).toMatch(/holds no usable signing key/);
  });
});

describe('the contract of the credential commands', () => {
  test('If-Match is required where the document says so, and the 428 says what to send', async () => {
    const { doc } = await connectorWithKey('if-match');
    const key = generateConnectorKey();
    for (const [path, body] of [
      ['credentials', { publicJwk: key.publicJwk }],
      ['roll-credential', { credentialId: doc.credentials[0].credentialId, publicJwk: key.publicJwk, oldExpiresAt: new Date(Date.now() + 86_400_000).toISOString() }],
      ['revoke-credential', { credentialId: doc.credentials[0].credentialId, reason: 'test' }],
    ] as const) {
      const reply = await adminA.post(`/connectors/${doc.id}/${path}`, body);
      expectProblem(reply, 428, 'PRECONDITION_REQUIRED');
      expect(reply.body.detail).toBe('send If-Match with the ETag you observed (this command takes no version in its body)');
    }
    // A command whose body may carry the version says so.
    const disabled = await adminA.post(`/connectors/${doc.id}/disable`, { reason: 'x' });
    expect(disabled.body.detail).toBe('send If-Match with the ETag you observed, or observedResourceVersion in the body');
    // The document agrees: If-Match required on the credential commands, optional on disable.
    const document = (await call('GET', '/openapi.json', undefined)).body;
    const ifMatch = (path: string) => document.paths[path].post.parameters.find((p: any) => /IfMatch/.test(p.$ref ?? ''))?.$ref;
    expect(ifMatch('/connectors/{id}/credentials')).toBe('#/components/parameters/IfMatchHeaderRequired');
    expect(ifMatch('/connectors/{id}/revoke-credential')).toBe('#/components/parameters/IfMatchHeaderRequired');
    expect(ifMatch('/connectors/{id}/disable')).toBe('#/components/parameters/IfMatchHeader');
    expect(document.components.parameters.IfMatchHeaderRequired.required).toBe(true);
  });

  test('a private JWK given as a public key is refused, and the DPoP key of a proof must be public too', async () => {
    const { privateJwk } = generateConnectorKey();
    const reply = await adminA.post('/connectors', { clientId: clientIdOf('private'), scopes: [], publicJwk: privateJwk });
    expect(reply.status).toBe(400);
    // A proof whose header key carries d: refused before anything is verified.
    const proof = signJws({ typ: 'dpop+jwt', alg: 'ES256', jwk: createPrivateKey({ key: privateJwk as any, format: 'jwk' }).export({ format: 'jwk' }) as any }, { htm: 'POST', htu: tokenUrl, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) }, privateJwk);
    const { clientId, key } = await connectorWithKey('dpop-private');
    const answer = await tokenRequest(assertionOf(clientId, key.privateJwk), { dpop: proof });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_dpop_proof');
    expect(answer.body.error_description).toMatch(/private members/);
  });
});
