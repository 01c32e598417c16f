// Interactive users (docs/console.md): a user of the test registry (test/stack.ts) signs in at the
// development OpenID provider with Authorization Code and PKCE, as the console does, and calls the
// API with the token. Every gate holds for it as for a connector: the broker's audience, org_id,
// the scopes its roles allow, its status; a decision it makes records the user as decidedBy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt, importJWK, SignJWT } from 'jose';
import { activeRelationship, call, Connector, expectProblem, freshOrgs, testEnv } from './helpers';
import { offer, request } from './market-bodies';
import { OFFERS, publishedListing, REQUESTS } from './listing-fixtures';
import { waitFor, waitProposals } from './matching-fixtures';
import { refresh, signIn } from './oidc-sign-in';
import { generateConnectorKey } from '../sdk/src/keys';
import { USER_ORGANIZATIONS } from './stack';

const [A, B] = USER_ORGANIZATIONS;
const connectorOf = (org: string) => Connector.of({ id: org, clientId: org.replace('org-', 'client-'), secret: org.replace('org-', 'secret-') });
const asUser = (token: string) => ({
  get: (path: string) => call('GET', path, token),
  post: (path: string, body?: unknown, headers: Record<string, string> = {}) => call('POST', path, token, body, { headers }),
});

/** A token as the users' provider would sign it (the development key in the broker's data folder). */
async function forged(claims: Record<string, unknown>): Promise<string> {
  const key = JSON.parse(readFileSync(join(testEnv().dataDir, 'dev-auth-key.json'), 'utf8'));
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: key.privateJwk.kid, typ: 'at+jwt' })
    .setIssuer(`${testEnv().baseUrl}/oidc`)
    .setAudience('pcx-broker')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(await importJWK(key.privateJwk, 'ES256'));
}

test("a planner's token: the broker's audience, org_id, the console as client, the scopes a planner's role allows", async () => {
  const { accessToken, idToken, scope } = await signIn(testEnv().baseUrl, 'planner-a', 'pw-planner');
  const claims = decodeJwt(accessToken);
  expect(claims).toMatchObject({ iss: `${testEnv().baseUrl}/oidc`, aud: 'pcx-broker', sub: 'planner-a', org_id: A, client_id: 'pcx-console' });
  expect(scope.split(' ')).toEqual(expect.arrayContaining(['matches:decide', 'tenders:decide', 'capacity:read']));
  // Nothing a planner's role does not allow, though the console asks the same for everyone.
  expect(scope.split(' ')).not.toContain('relationships:manage');
  expect(decodeJwt(idToken)).toMatchObject({ sub: 'planner-a', name: 'planner-a', org_id: A, roles: ['planner'] });
  expect((await asUser(accessToken).get('/capacity-offers?limit=1')).status).toBe(200);
});

test('the console renews a token silently: a refresh gives a token the gates take, with the same claims; a refresh token serves once', async () => {
  const signedIn = await signIn(testEnv().baseUrl, 'planner-a', 'pw-planner');
  expect(signedIn.refreshToken).toEqual(expect.any(String));
  const renewed = await refresh(testEnv().baseUrl, signedIn.refreshToken!);
  expect(renewed.status).toBe(200);
  expect(renewed.body.access_token).not.toBe(signedIn.accessToken);
  const claims = decodeJwt(renewed.body.access_token);
  expect(claims).toMatchObject({ aud: 'pcx-broker', sub: 'planner-a', org_id: A, client_id: 'pcx-console' });
  expect(String(claims.scope).split(' ').sort()).toEqual(signedIn.scope.split(' ').filter((s) => !['openid', 'profile'].includes(s)).sort());
  expect((await asUser(renewed.body.access_token).get('/capacity-offers?limit=1')).status).toBe(200);
  // Rotated: the next renewal uses the new refresh token; the old one is refused (and a replay of it is treated as theft).
  expect(renewed.body.refresh_token).toEqual(expect.any(String));
  expect((await refresh(testEnv().baseUrl, signedIn.refreshToken!)).body.error).toBe('invalid_grant');
});

test('a viewer reads but may not decide; a disabled user cannot sign in, nor use a token; a wrong password is refused', async () => {
  const viewer = await signIn(testEnv().baseUrl, 'viewer-a', 'pw-viewer');
  expect(viewer.scope.split(' ')).not.toContain('matches:decide');
  expect((await asUser(viewer.accessToken).get('/match-proposals?limit=1')).status).toBe(200);
  expectProblem(await asUser(viewer.accessToken).post('/match-proposals/01a21c5a-0000-7000-8000-000000000000/decisions', { decision: 'accept' }), 403, 'INSUFFICIENT_SCOPE');
  await expect(signIn(testEnv().baseUrl, 'disabled-a', 'pw-disabled')).rejects.toMatchObject({ status: 403 });
  await expect(signIn(testEnv().baseUrl, 'planner-a', 'wrong')).rejects.toMatchObject({ status: 401 });
  // Gate 2 at once: a valid token of a user who is disabled now.
  const disabled = await forged({ sub: 'disabled-a', org_id: A, client_id: 'pcx-console', scope: 'capacity:read' });
  expectProblem(await asUser(disabled).get('/capacity-offers?limit=1'), 401, 'USER_INACTIVE');
  // Bound: another organization's org_id, another client, another audience.
  expectProblem(await asUser(await forged({ sub: 'planner-a', org_id: B, client_id: 'pcx-console', scope: 'capacity:read' })).get('/capacity-offers?limit=1'), 401, 'INVALID_TOKEN');
  expectProblem(await asUser(await forged({ sub: 'planner-a', org_id: A, client_id: 'other-app', scope: 'capacity:read' })).get('/capacity-offers?limit=1'), 401, 'INVALID_TOKEN');
  // A scope the role does not allow is not honoured, whatever the token says.
  const inflated = await forged({ sub: 'viewer-a', org_id: A, client_id: 'pcx-console', scope: 'capacity:read matches:decide' });
  expectProblem(await asUser(inflated).post('/match-proposals/01a21c5a-0000-7000-8000-000000000000/decisions', { decision: 'accept' }), 403, 'INSUFFICIENT_SCOPE');
});

test("planners decide a proposal of their organizations' connectors; each decision records the user as decidedBy", async () => {
  const [c, s] = await Promise.all([connectorOf(A), connectorOf(B)]);
  await activeRelationship(c, s);
  const o = await publishedListing({ ...OFFERS, body: () => offer() }, c);
  const r = await publishedListing({ ...REQUESTS, body: () => request() }, s);
  const [proposal] = await waitProposals(c, `offer=${o.id}&request=${r.id}&status=open`);
  const alice = asUser((await signIn(testEnv().baseUrl, 'planner-a', 'pw-planner')).accessToken);
  const bob = asUser((await signIn(testEnv().baseUrl, 'planner-b', 'pw-planner')).accessToken);
  const first = await alice.post(`/match-proposals/${proposal.id}/decisions`, { decision: 'accept', comment: 'from the console' }, { 'if-match': `"${proposal.resourceVersion}"` });
  expect(first.status).toBe(200);
  const second = await bob.post(`/match-proposals/${proposal.id}/decisions`, { decision: 'accept' }, { 'if-match': `"${first.body.resourceVersion}"` });
  expect(second.status).toBe(200);
  expect(second.body.status).toBe('accepted');
  const decidedBy = Object.fromEntries(second.body.decisions.map((d: any) => [d.organizationId, d.decidedBy]));
  expect(decidedBy).toEqual({
    [A]: { organizationId: A, clientId: 'pcx-console', userId: 'planner-a', actorRoles: ['planner'] },
    [B]: { organizationId: B, clientId: 'pcx-console', userId: 'planner-b', actorRoles: ['planner'] },
  });
  // The connectors see the same record.
  expect((await c.get(`/match-proposals/${proposal.id}`)).body.decisions.map((d: any) => d.decidedBy.userId).sort()).toEqual(['planner-a', 'planner-b']);
  // A tender between the planners: issued by the shipper's, accepted by both; decidedBy names each.
  const expiresAt = new Date(Date.now() + 20 * 3_600_000).toISOString();
  const draft = await bob.post('/transport-tenders', { executingOrganizationId: A, originatingProposalId: proposal.id, movementScope: 'fullTransport', expiresAt });
  expect(draft.status).toBe(201);
  const issued = await bob.post(`/transport-tenders/${draft.body.id}/issue`, undefined, { 'if-match': `"${draft.body.resourceVersion}"` });
  expect(issued.status).toBe(200);
  const byCarrier = await alice.post(`/transport-tenders/${draft.body.id}/decisions`, { decision: 'accept', revision: issued.body.currentRevision }, { 'if-match': `"${issued.body.resourceVersion}"` });
  expect(byCarrier.status).toBe(200);
  const byShipper = await bob.post(`/transport-tenders/${draft.body.id}/decisions`, { decision: 'accept', revision: issued.body.currentRevision }, { 'if-match': `"${byCarrier.body.resourceVersion}"` });
  expect(byShipper.status).toBe(200);
  expect(byShipper.body.decisions.map((d: any) => [d.organizationId, d.decidedBy]).sort()).toEqual(
    [
      [A, { organizationId: A, clientId: 'pcx-console', userId: 'planner-a' }],
      [B, { organizationId: B, clientId: 'pcx-console', userId: 'planner-b' }],
    ].sort(),
  );
});

test("an admin user manages the organization's connectors with its own token; a planner may not", async () => {
  const admin = await signIn(testEnv().baseUrl, 'admin-a', 'pw-admin');
  expect(admin.scope.split(' ')).toContain('connectors:manage');
  expect(admin.scope.split(' ')).not.toContain('matches:decide');
  const key = generateConnectorKey();
  const created = await asUser(admin.accessToken).post('/connectors', { clientId: `user-made-${Date.now().toString(36)}`, scopes: ['capacity:read'], publicJwk: key.publicJwk });
  expect(created.status).toBe(201);
  expect(created.body).toEqual(expect.objectContaining({ organizationId: A, credentials: [expect.objectContaining({ createdBy: expect.objectContaining({ organizationId: A, userId: 'admin-a' }) })] }));
  const planner = await signIn(testEnv().baseUrl, 'planner-a', 'pw-planner');
  expectProblem(await asUser(planner.accessToken).get('/connectors'), 403, 'INSUFFICIENT_SCOPE');
});

test('a user invited by its organization\u2019s admin: signs in with the invitation code, its first request accepts it; a role taken away and a disable count at once; nobody else reaches it', async () => {
  const admin = await signIn(testEnv().baseUrl, 'admin-a', 'pw-admin');
  const asAdmin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => call(method, path, admin.accessToken, body, { headers });
  const userId = `invitee-${Date.now().toString(36)}@example.com`;
  const invited = await asAdmin('POST', '/users', { userId, name: 'Ina Invitee', roles: ['planner'] });
  expect(invited.status).toBe(201);
  expect(invited.body).toEqual(expect.objectContaining({ userId, organizationId: A, status: 'invited', roles: ['planner'], invitedBy: expect.objectContaining({ userId: 'admin-a' }) }));
  const code: string = invited.body.invitationCode;
  expect(code).toMatch(/^pcxs_/);
  const read = await asAdmin('GET', `/users/${invited.body.id}`);
  expect(JSON.stringify(read.body)).not.toContain(code);
  // The operator role belongs to the operator's organization only; a user id is taken once.
  expectProblem(await asAdmin('POST', '/users', { userId: `op-${Date.now().toString(36)}`, roles: ['operator'] }), 422, 'SCOPE_ABOVE_CEILING');
  expectProblem(await asAdmin('POST', '/users', { userId, roles: ['viewer'] }), 409, 'RESOURCE_EXISTS');
  expectProblem(await asAdmin('POST', '/users', { userId: 'planner-a', roles: ['viewer'] }), 409, 'RESOURCE_EXISTS');

  // Signed in at the development provider with the code: the first request accepts the invitation.
  const ina = await signIn(testEnv().baseUrl, userId, code);
  const first = await call('GET', '/capacity-offers', ina.accessToken);
  expect({ status: first.status, code: first.body?.code, detail: first.body?.detail }).toEqual(expect.objectContaining({ status: 200 }));
  const accepted = (await asAdmin('GET', `/users/${invited.body.id}`)).body;
  expect(accepted).toEqual(expect.objectContaining({ status: 'active', acceptedAt: expect.any(String) }));
  // A planner reaches the tender endpoint (and is told what is wrong with the body)...
  expectProblem(await call('POST', '/transport-tenders', ina.accessToken, {}), 400, 'VALIDATION_FAILED');
  // ...a viewer no longer does, with the same token, from its next request on.
  const demoted = await asAdmin('PATCH', `/users/${invited.body.id}`, { roles: ['viewer'] }, { 'if-match': `"${accepted.resourceVersion}"` });
  expect(demoted.status).toBe(200);
  await waitFor('the role to count', async () => ((await call('POST', '/transport-tenders', ina.accessToken, {})).status === 403 ? true : undefined), 3000);
  // Nobody of another organization reads or changes it.
  const stranger = await Connector.of(freshOrgs(1)[0]);
  expectProblem(await stranger.get(`/users/${invited.body.id}`), 404, 'RESOURCE_NOT_FOUND');
  expectProblem(await stranger.patch(`/users/${invited.body.id}`, { roles: ['admin'] }, { 'if-match': `"${demoted.body.resourceVersion}"` }), 404, 'RESOURCE_NOT_FOUND');
  expectProblem(await stranger.command(`/users/${invited.body.id}/disable`, demoted.body.resourceVersion, { reason: 'mine' }), 404, 'RESOURCE_NOT_FOUND');
  expect((await stranger.get('/users?limit=200')).body.items).toEqual([]);
  expect((await stranger.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `users/${invited.body.id}`)).toEqual([]);
  // Its organization's feed has it all.
  const types = (await asAdmin('GET', '/events?limit=200')).body.items.filter((e: any) => e.subject === `users/${invited.body.id}`).map((e: any) => e.type);
  expect(types).toEqual(['pcx.user.invited.v1', 'pcx.user.accepted.v1', 'pcx.user.updated.v1']);
  // Disabled: refused from the next request on, the token it holds included; the old code signs in no more once removed.
  await asAdmin('POST', `/users/${invited.body.id}/disable`, { reason: 'left the company' }, { 'if-match': `"${demoted.body.resourceVersion}"` });
  await waitFor('the disable to count', async () => {
    const reply = await call('GET', '/capacity-offers', ina.accessToken);
    return reply.status === 401 && reply.body.code === 'USER_INACTIVE' ? true : undefined;
  }, 3000);
  // Nor does the console's silent renewal get it a new token.
  const renewal = await refresh(testEnv().baseUrl, ina.refreshToken!);
  expect(renewal.body.error).toBe('invalid_grant');
});
