// The twelve authorization gates, in order, each tested, including that passing one never
// bypasses another. Gates 5, 7 and 8 (partner access) are tested with offers and requests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importJWK, SignJWT } from 'jose';
import { activeRelationship, call, Connector, createRelationship, expectProblem, freshOrgs, mintToken, testEnv, tokenFor } from './helpers';

const path = (id: string, command?: string) => `/partner-relationships/${id}${command ? `/${command}` : ''}`;

describe('gate 1: token validity and broker audience', () => {
  test('no token, a malformed token and a forged token are 401', async () => {
    expectProblem(await call('GET', '/partner-relationships', undefined), 401, 'UNAUTHENTICATED');
    expectProblem(await call('GET', '/partner-relationships', 'not-a-jwt'), 401, 'INVALID_TOKEN');
    const [org] = freshOrgs(1);
    const good = await tokenFor(org.clientId, org.secret);
    const [h, p] = good.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), org_id: 'org-forged' })).toString('base64url')}.${good.split('.')[2]}`;
    expectProblem(await call('GET', '/partner-relationships', forged), 401, 'INVALID_TOKEN');
  });

  test('a token for another audience is 401 before anything else, even for an inactive connector without scopes', async () => {
    const token = await mintToken({ sub: 'client-inactive', org_id: 'org-special', scope: '' }, { audience: 'internal-services' });
    const reply = await call('POST', '/partner-relationships', token, { not: 'even valid' });
    expectProblem(reply, 401, 'TOKEN_AUDIENCE_MISMATCH');
  });

  test('expired tokens and tokens of another issuer are 401', async () => {
    const [org] = freshOrgs(1);
    const claims = { sub: org.clientId, org_id: org.id, scope: 'relationships:manage' };
    expectProblem(await call('GET', '/partner-relationships', await mintToken(claims, { expiresIn: '-1m' })), 401, 'INVALID_TOKEN');
    expectProblem(await call('GET', '/partner-relationships', await mintToken(claims, { issuer: 'https://evil.example' })), 401, 'INVALID_TOKEN');
    expect((await call('GET', '/partner-relationships', await mintToken(claims))).status).toBe(200);
  });
});

describe('gate 1: token lifetime (RFC 8725; AUTH_CLOCK_SKEW_SECONDS 60, AUTH_MAX_TOKEN_LIFETIME_SECONDS 86400)', () => {
  const now = () => Math.floor(Date.now() / 1000);
  /** Signed with the development key, with exactly these time claims (mintToken always sets iat and exp). */
  async function signed(times: { iat?: number; nbf?: number; exp?: number }): Promise<string> {
    const [org] = freshOrgs(1);
    const key = JSON.parse(readFileSync(join(testEnv().dataDir, 'dev-auth-key.json'), 'utf8'));
    return new SignJWT({ sub: org.clientId, org_id: org.id, scope: 'relationships:manage', jti: crypto.randomUUID(), ...times })
      .setProtectedHeader({ alg: 'ES256', kid: key.privateJwk.kid })
      .setIssuer(`${testEnv().baseUrl}/oauth2`)
      .setAudience('pcx-broker')
      .sign(await importJWK(key.privateJwk, 'ES256'));
  }
  async function refused(token: Promise<string>, why: RegExp) {
    const reply = await call('GET', '/partner-relationships', await token);
    expectProblem(reply, 401, 'INVALID_TOKEN');
    expect(reply.body.detail).toMatch(why);
  }

  test('a token without exp is refused', async () => {
    await refused(signed({ iat: now() }), /no exp/);
    await refused(signed({}), /no exp/);
  });

  test('iat or nbf further in the future than the clock skew is refused', async () => {
    await refused(signed({ iat: now() + 365 * 86400, exp: now() + 365 * 86400 + 600 }), /iat lies in the future/);
    await refused(signed({ iat: now() + 120, exp: now() + 720 }), /iat lies in the future/);
    await refused(signed({ iat: now(), nbf: now() + 120, exp: now() + 600 }), /not valid yet/);
  });

  test('a lifetime above the cap is refused, with or without iat', async () => {
    await refused(signed({ iat: now(), exp: now() + 50 * 365 * 86400 }), /lifetime/);
    await refused(signed({ iat: now() - 60, exp: now() + 86400 }), /lifetime/);
    await refused(signed({ exp: now() + 2 * 86400 }), /no iat and expires/);
  });

  test('tokens just inside the skew and the cap are accepted', async () => {
    const ok = async (token: Promise<string>) => expect((await call('GET', '/partner-relationships', await token)).status).toBe(200);
    await ok(signed({ iat: now() + 30, nbf: now() + 30, exp: now() + 630 }));
    await ok(signed({ iat: now(), exp: now() + 86400 }));
    await ok(signed({ exp: now() + 600 }));
    // Expired, but less than the skew ago: the issuer's clock may run a little ahead of ours.
    await ok(signed({ iat: now() - 600, exp: now() - 30 }));
    // Tokens of the development server are inside the cap.
    const [org] = freshOrgs(1);
    const issued = await tokenFor(org.clientId, org.secret);
    const { iat, exp } = JSON.parse(Buffer.from(issued.split('.')[1], 'base64url').toString());
    expect(exp - iat).toBeLessThanOrEqual(86400);
  });
});

describe('gate 2: active connector registration', () => {
  test('inactive, unknown and other-environment connectors are refused; org_id must match the binding', async () => {
    const scope = 'relationships:manage';
    expectProblem(await call('GET', '/partner-relationships', await mintToken({ sub: 'client-inactive', org_id: 'org-special', scope })), 401, 'CONNECTOR_INACTIVE');
    expectProblem(await call('GET', '/partner-relationships', await mintToken({ sub: 'client-other-env', org_id: 'org-special', scope })), 401, 'CONNECTOR_INACTIVE');
    expectProblem(await call('GET', '/partner-relationships', await mintToken({ sub: 'client-nobody', org_id: 'org-special', scope })), 401, 'CONNECTOR_INACTIVE');
    const [a, b] = freshOrgs(2);
    expectProblem(await call('GET', '/partner-relationships', await mintToken({ sub: a.clientId, org_id: b.id, scope })), 401, 'INVALID_TOKEN');
  });
});

describe('gate 3: active organization', () => {
  test('a connector of an inactive organization is refused, and cannot get a token', async () => {
    const token = await mintToken({ sub: 'client-inactive-org', org_id: 'org-inactive', scope: 'relationships:manage' });
    expectProblem(await call('GET', '/partner-relationships', token), 403, 'ORGANIZATION_INACTIVE');
    const res = await fetch(`${testEnv().baseUrl}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'client-inactive-org', client_secret: 'secret-x' }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error).toBe('invalid_client');
  });
});

describe('gate 6: granted client scope (exact, before ownership)', () => {
  test('without relationships:manage every relationship endpoint is 403, existing or not', async () => {
    const [a, b] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
    const r = (await createRelationship(a, b)).body;
    const narrow = await Connector.of(a.org, 'capacity:read loads:read');
    expectProblem(await narrow.get('/partner-relationships'), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await narrow.get(path(r.id)), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await narrow.get(path('01a1fd30-05ff-70e9-bbcd-a29491e72bb4')), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await narrow.command(path(r.id, 'request'), 1), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await createRelationship(narrow, b), 403, 'INSUFFICIENT_SCOPE');
    // Ownership does not bypass scope: the owner's version is unchanged.
    expect((await a.get(path(r.id))).body.resourceVersion).toBe(1);
  });

  test('scopes are a flat set: a similar or broader-sounding scope does not match', async () => {
    const [a] = freshOrgs(1);
    const token = await mintToken({ sub: a.clientId, org_id: a.id, scope: 'relationships:manage:all relationships relationships:read connectors:manage' });
    expectProblem(await call('GET', '/partner-relationships', token), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('gate 4: ownership or participation', () => {
  test('a relationship of other organizations answers 404 even with every scope', async () => {
    const [a, b, c] = await Promise.all(freshOrgs(3).map((o) => Connector.of(o)));
    const r = await activeRelationship(a, b);
    expectProblem(await c.get(path(r.id)), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await c.command(path(r.id, 'suspend'), 3, { reason: 'x' }), 404, 'RESOURCE_NOT_FOUND');
    expectProblem(await c.get(path('not-a-uuid')), 404, 'RESOURCE_NOT_FOUND');
    expect((await a.get(path(r.id))).body.resourceVersion).toBe(3);
  });
});

describe('gates 10-12: actor role, lifecycle, version', () => {
  test('each is checked, and passing one never bypasses the next', async () => {
    const [a, b] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
    const r = (await createRelationship(a, b)).body;
    await a.command(path(r.id, 'request'), 1);
    // Gate 10: a participant in the wrong role.
    expectProblem(await a.command(path(r.id, 'accept'), 2), 403, 'ACTOR_NOT_PERMITTED');
    expectProblem(await b.command(path(r.id, 'withdraw'), 2, { reason: 'x' }), 403, 'ACTOR_NOT_PERMITTED');
    // Gate 11: right role, wrong state.
    const invalid = await b.command(path(r.id, 'reactivate'), 2);
    expectProblem(invalid, 422, 'INVALID_STATE_TRANSITION');
    expect(invalid.body.currentState).toBe('requested');
    // Gate 12: right role and state, stale version.
    const stale = await b.command(path(r.id, 'accept'), 1);
    expectProblem(stale, 409, 'STALE_RESOURCE_VERSION');
    expect(stale.body.currentResourceVersion).toBe(2);
    // Nothing changed.
    expect((await a.get(path(r.id))).body).toMatchObject({ status: 'requested', resourceVersion: 2 });
    expect((await b.command(path(r.id, 'accept'), 2)).status).toBe(200);
  });
});

describe('development authorization server', () => {
  test('client_secret_basic and client_secret_post; scope narrows; unknown scope and bad secret refused', async () => {
    const [org] = freshOrgs(1);
    const base = testEnv().baseUrl;
    const basic = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${org.clientId}:${org.secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'capacity:read' }),
    });
    expect(basic.status).toBe(200);
    const issued = (await basic.json()) as any;
    expect(issued).toMatchObject({ token_type: 'Bearer', scope: 'capacity:read' });
    const claims = JSON.parse(Buffer.from(issued.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: org.clientId, org_id: org.id, aud: 'pcx-broker', scope: 'capacity:read' });

    const post = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.secret }),
    });
    expect(((await post.json()) as any).scope.split(' ')).toContain('relationships:manage');

    const badScope = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.secret, scope: 'exchange:admin' }),
    });
    expect(badScope.status).toBe(400);
    expect(((await badScope.json()) as any).error).toBe('invalid_scope');

    const badSecret = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: 'nope' }),
    });
    expect(badSecret.status).toBe(401);
    const jwks = await (await fetch(`${base}/.well-known/jwks.json`)).json() as any;
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(jwks.keys[0].d).toBeUndefined();
  });
});

test('malformed Basic credentials at the token endpoint are a 400, not a 500', async () => {
  const res = await fetch(`${testEnv().baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('a%:b').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  expect(res.status).toBe(400);
  expect(((await res.json()) as any).error).toBe('invalid_request');
});

test('a token grants no scope the connector registry does not (tokens outlive registry edits)', async () => {
  const token = await mintToken({ sub: 'client-operator', org_id: 'org-operator', scope: 'loads:publish loads:read' });
  expectProblem(await call('POST', '/load-requests', token, {}), 403, 'INSUFFICIENT_SCOPE');
  expect((await call('GET', '/load-requests', token)).status).toBe(200);
});
