// Organizations as records (domain/organization.ts, api/organizations.ts): a new organization
// onboarded end to end without a restart (the operator registers it, creates its first connector
// with the public key its admin sent, verifies it; its admin's connector gets a token by
// private_key_jwt, creates a connector of its own and publishes); what gate 3 lets a pending, a
// suspended and an ended organization do, on the next request; the adherence period's end at its
// second and by its timer; legal identifiers checked by their check digits; nobody but the
// operator and the organization's own admins reads or changes it; the seed imported once.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { PcxClient } from '../sdk/src';
import { generateConnectorKey } from '../sdk/src/keys';
import { Entities } from '../core/entities';
import { createLogger } from '../core/log';
import { Registry } from '../core/registry';
import { importSeed } from '../seed';
import { managedRegistry } from '../read-model/managed-registry';
import { signIn } from './oidc-sign-in';
import { activeRelationship, call, Connector, ENGINE, expectProblem, freshOrgs, listAll, testEnv, testTransitionStore, tokenByKey } from './helpers';
import { openDb } from '../core/db';
import { findMatches } from '../read-model/matching';
import { offer as marketOffer, request as marketRequest } from './market-bodies';
import { OFFERS, offerBody, publishedListing, REQUESTS } from './listing-fixtures';
import { waitFor, waitProposals } from './matching-fixtures';

const env = testEnv();
const onPostgres = ENGINE === 'postgres' ? test : test.skip;
let operator: Connector;
let stranger: Connector;
beforeAll(async () => {
  operator = await Connector.of({ id: 'org-operator', clientId: 'client-operator', secret: 'secret-o' } as any);
  stranger = await Connector.of(freshOrgs(1)[0]);
});

const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;


/** The operator registers an organization and creates its admin's connector with the admin's public key. */
async function onboard(extra: Record<string, unknown> = {}, scopes = ['connectors:manage', 'capacity:publish', 'capacity:read']) {
  const organizationId = unique('org-new');
  const registered = await operator.post('/organizations', { organizationId, name: 'Nordic Haulage AS', legalIdentifier: { scheme: 'LEI', value: '5493 001K JTII GC8Y 1R12' }, ...extra });
  expect(registered.status).toBe(201);
  const adminKey = generateConnectorKey();
  const adminClientId = unique('nordic-admin');
  const connector = await operator.post('/connectors', { organizationId, clientId: adminClientId, name: 'Nordic admin', scopes, publicJwk: adminKey.publicJwk });
  expect(connector.status).toBe(201);
  expect(connector.body.organizationId).toBe(organizationId);
  const token = await tokenByKey(adminClientId, adminKey.privateJwk);
  expect(token.status).toBe(200);
  return { organizationId, record: registered.body, adminClientId, adminKey, admin: token.token! };
}

const publish = (token: string) => call('POST', '/capacity-offers', token, offerBody());

test('onboarded end to end without a restart: registered, its admin prepares while pending, verified, then publishes', async () => {
  const { organizationId, record, admin, adminClientId, adminKey } = await onboard();
  // The legal identifier as registered: compact, its check digits checked.
  expect(record).toEqual(expect.objectContaining({ organizationId, status: 'pending', role: 'participant', legalIdentifier: { scheme: 'LEI', value: '5493001KJTIIGC8Y1R12' }, verification: { status: 'pending' } }));
  expect(record.scopeCeiling).not.toContain('exchange:admin');

  // Pending: it reads its record and manages its connectors; it publishes nothing.
  expect((await call('GET', `/organizations/${record.id}`, admin)).body.status).toBe('pending');
  expectProblem(await publish(admin), 403, 'ORGANIZATION_UNVERIFIED');
  expectProblem(await call('GET', '/capacity-offers', admin), 403, 'ORGANIZATION_UNVERIFIED');
  const tmsKey = generateConnectorKey();
  const tmsClientId = unique('nordic-tms');
  const tms = await call('POST', '/connectors', admin, { clientId: tmsClientId, scopes: ['capacity:publish', 'capacity:read'], publicJwk: tmsKey.publicJwk });
  expect(tms.status).toBe(201);
  // Its admin cannot give what its ceiling does not hold.
  expectProblem(await call('POST', '/connectors', admin, { clientId: unique('nordic-root'), scopes: ['exchange:admin'] }), 422, 'SCOPE_ABOVE_CEILING');

  // Verified on evidence: it publishes from the next request on, with the token it already holds.
  const verified = await operator.command(`/organizations/${record.id}/verify`, record.resourceVersion, { evidenceReference: 'GLEIF record checked 2026-11-28, case 4711' });
  expect(verified.status).toBe(200);
  expect(verified.body.status).toBe('active');
  expect(verified.body.verification).toEqual(expect.objectContaining({ status: 'verified', evidenceReference: 'GLEIF record checked 2026-11-28, case 4711', decidedBy: expect.objectContaining({ organizationId: 'org-operator', clientId: 'client-operator' }) }));
  expect(verified.body.adherence.from).toBe(verified.body.verification.decidedAt);
  const offer = await waitFor('the verified organization to publish', async () => {
    const reply = await publish(admin);
    return reply.status === 201 ? reply : undefined;
  }, 5000);
  expect(offer.body.ownerOrganizationId).toBe(organizationId);
  // Its own connector, through the SDK with its private key.
  const pcx = new PcxClient({ baseUrl: env.baseUrl, clientId: tmsClientId, privateKey: tmsKey.privateJwk });
  expect((await pcx.request<{ ownerOrganizationId: string }>('POST', '/capacity-offers', { body: offerBody() as never })).data.ownerOrganizationId).toBe(organizationId);

  // Every change is on the organization's feed and on the operator's.
  const own = (await call('GET', '/events?limit=200', admin)).body.items.filter((e: any) => e.subject === `organizations/${record.id}`).map((e: any) => e.type);
  expect(own).toEqual(['pcx.organization.registered.v1', 'pcx.organization.verified.v1']);
  const operatorFeed = await readWholeFeed(operator);
  expect(operatorFeed.filter((e: any) => e.subject === `organizations/${record.id}`).map((e: any) => e.type)).toEqual(['pcx.organization.registered.v1', 'pcx.organization.verified.v1']);
  expect(operatorFeed.some((e: any) => e.type === 'pcx.connector.created.v1' && e.data?.clientId === adminClientId)).toBe(true);
  void adminKey;
});

/** Every event of a feed, page by page (bounded). */
async function readWholeFeed(c: Connector): Promise<any[]> {
  const items: any[] = [];
  let cursor = '';
  for (let i = 0; i < 200; i++) {
    const page = await c.get(`/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status).toBe(200);
    items.push(...page.body.items);
    if (page.body.items.length < 200) return items;
    cursor = page.body.nextCursor;
  }
  return items;
}

test('suspended: it reads and manages itself (a key can still be revoked) but issues no command; reinstated, it acts again; ended, it is refused and gets no token', async () => {
  const { record, admin, adminClientId, adminKey } = await onboard();
  const active = await operator.command(`/organizations/${record.id}/verify`, record.resourceVersion, { evidenceReference: 'case 1' });
  await waitFor('publishing', async () => ((await publish(admin)).status === 201 ? true : undefined), 5000);

  const suspended = await operator.command(`/organizations/${record.id}/suspend`, active.body.resourceVersion, { reason: 'unpaid adherence fee' });
  expect(suspended.body).toEqual(expect.objectContaining({ status: 'suspended', statusReason: expect.objectContaining({ reason: 'unpaid adherence fee' }) }));
  await waitFor('the suspension to count', async () => ((await publish(admin)).status === 403 ? true : undefined), 2000);
  expectProblem(await publish(admin), 403, 'ORGANIZATION_SUSPENDED');
  expect((await call('GET', '/capacity-offers', admin)).status).toBe(200);
  // Self-management stays possible: a key added and revoked.
  const connectorId = (await call('GET', '/connectors', admin)).body.items.find((c: any) => c.clientId === adminClientId).id;
  const spare = generateConnectorKey();
  const read = await call('GET', `/connectors/${connectorId}`, admin);
  const added = await call('POST', `/connectors/${connectorId}/credentials`, admin, { publicJwk: spare.publicJwk }, { headers: { 'if-match': read.headers.get('etag')! } });
  expect(added.status).toBe(200);
  const revoked = await call('POST', `/connectors/${connectorId}/revoke-credential`, admin, { credentialId: spare.publicJwk.kid, reason: 'not needed' }, { headers: { 'if-match': `"${added.body.resourceVersion}"` } });
  expect(revoked.status).toBe(200);

  const reinstated = await operator.command(`/organizations/${record.id}/reinstate`, suspended.body.resourceVersion, { reason: 'fee paid' });
  expect(reinstated.body.status).toBe('active');
  const draft = await waitFor('publishing again', async () => {
    const created = await publish(admin);
    return created.status === 201 ? created.body : undefined;
  }, 2000);
  const listed = await call('POST', `/capacity-offers/${draft.id}/publish`, admin, undefined, { headers: { 'if-match': '"1"' } });
  expect(listed.body.status).toBe('published');
  expect((await call('GET', `/capacity-offers/${draft.id}`, operator.token)).body.status).toBe('published');

  const ended = await operator.command(`/organizations/${record.id}/end`, reinstated.body.resourceVersion, { reason: 'left the exchange' });
  expect(ended.body.status).toBe('ended');
  await waitFor('the end to count', async () => ((await call('GET', '/capacity-offers', admin)).status === 403 ? true : undefined), 2000);
  expectProblem(await call('GET', `/organizations/${record.id}`, admin), 403, 'ORGANIZATION_INACTIVE');
  expect((await tokenByKey(adminClientId, adminKey.privateJwk)).status).toBe(401);
  // Its open listing leaves the exchange with it: cancelled by the broker, the reason said.
  const cancelled = await waitFor('the offer to be cancelled', async () => {
    const doc = (await call('GET', `/capacity-offers/${draft.id}`, operator.token)).body;
    return doc.status === 'cancelled' ? doc : undefined;
  }, 10000);
  expect(cancelled.cancellation).toEqual(expect.objectContaining({ reasonCode: 'ORGANIZATION_ENDED', reason: 'the organization ended: left the exchange' }));
  // Ended is for good; the operator's record stays.
  expectProblem(await operator.command(`/organizations/${record.id}/reinstate`, ended.body.resourceVersion, { reason: 'again' }), 422, 'INVALID_STATE_TRANSITION');
  expect((await operator.get(`/organizations/${record.id}`)).body.status).toBe('ended');
});

test('the adherence period ends at its second (before the timer) and by the timer (the record says ended)', async () => {
  const until = new Date(Date.now() + 4000).toISOString();
  const { record, admin } = await onboard({ adherence: { until } });
  expect(record.adherence).toEqual({ until: until.replace(/\.\d{3}Z$/, (m) => (m === '.000Z' ? 'Z' : m)) });
  await operator.command(`/organizations/${record.id}/verify`, record.resourceVersion, { evidenceReference: 'case 2' });
  await waitFor('publishing', async () => ((await publish(admin)).status === 201 ? true : undefined), 3000);
  const ended = await waitFor('the period to end', async () => {
    const doc = (await operator.get(`/organizations/${record.id}`)).body;
    return doc.status === 'ended' ? doc : undefined;
  }, 15000);
  expect(ended.statusReason.reason).toBe('the adherence period ended');
  expect(Date.parse(ended.endedAt)).toBeGreaterThanOrEqual(Date.parse(until));
  expectProblem(await publish(admin), 403, 'ORGANIZATION_INACTIVE');
});

test('legal identifiers: published LEIs and VAT numbers accepted in compact form; wrong check digits and unknown forms refused; nothing registered', async () => {
  // LEIs of GLEIF's register (Apple Inc., Deutsche Bank AG) and VAT numbers of the EU's VIES examples.
  for (const [scheme, value, compact] of [['LEI', 'hwupkr0mpou8fgxbt394', 'HWUPKR0MPOU8FGXBT394'], ['VAT', 'DE 136 695 976', 'DE136695976'], ['VAT', 'NL004495445B01', 'NL004495445B01'], ['EORI', 'de1234567', 'DE1234567']]) {
    const created = await operator.post('/organizations', { organizationId: unique('org-id'), name: 'Checked', legalIdentifier: { scheme, value } });
    expect(created.status).toBe(201);
    expect(created.body.legalIdentifier).toEqual({ scheme, value: compact });
  }
  for (const [scheme, value] of [['LEI', 'HWUPKR0MPOU8FGXBT395'], ['LEI', 'HWUPKR0MPOU8FGXBT3'], ['VAT', 'DE136695977'], ['VAT', 'XX123456789'], ['EORI', '123456']]) {
    const organizationId = unique('org-bad');
    const refused = await operator.post('/organizations', { organizationId, name: 'Refused', legalIdentifier: { scheme, value } });
    expectProblem(refused, 400, 'VALIDATION_FAILED');
    expect(refused.body.errors[0].pointer).toBe('/legalIdentifier/value');
    expect((await listAll(operator, '/organizations')).some((o: any) => o.organizationId === organizationId)).toBe(false);
  }
  // No verification without an identifier to verify.
  const bare = await operator.post('/organizations', { organizationId: unique('org-bare'), name: 'No identifier' });
  expectProblem(await operator.command(`/organizations/${bare.body.id}/verify`, 1, { evidenceReference: 'x' }), 422, 'INVALID_STATE_TRANSITION');
  // An organization id is taken once; one of the files too.
  const taken = await operator.post('/organizations', { organizationId: bare.body.organizationId, name: 'Again' });
  expectProblem(taken, 409, 'RESOURCE_EXISTS');
  expectProblem(await operator.post('/organizations', { organizationId: stranger.id, name: 'A file organization' }), 409, 'RESOURCE_EXISTS');
});

test('isolation: only the operator and the organization itself read it; only the operator registers, verifies, suspends; its admin changes its name and policy only', async () => {
  const { record, admin } = await onboard();
  expectProblem(await stranger.get(`/organizations/${record.id}`), 404, 'RESOURCE_NOT_FOUND');
  expectProblem(await stranger.patch(`/organizations/${record.id}`, { name: 'Taken over' }, { 'if-match': '"1"' }), 404, 'RESOURCE_NOT_FOUND');
  expect((await listAll(stranger, '/organizations')).map((o: any) => o.organizationId)).not.toContain(record.organizationId);
  // A participant cannot register, nor verify itself.
  expectProblem(await stranger.post('/organizations', { organizationId: unique('org-self'), name: 'Self-registered' }), 403, 'INSUFFICIENT_SCOPE');
  expectProblem(await call('POST', `/organizations/${record.id}/verify`, admin, { evidenceReference: 'my word' }, { headers: { 'if-match': '"1"' } }), 403, 'INSUFFICIENT_SCOPE');
  // Its admin lists only its own record, and changes its name and partnering policy, not its identifier or ceiling.
  expect((await call('GET', '/organizations', admin)).body.items.map((o: any) => o.organizationId)).toEqual([record.organizationId]);
  const renamed = await call('PATCH', `/organizations/${record.id}`, admin, { name: 'Nordic Haulage', partneringPolicy: { grantedScopes: ['capacity:read'] } }, { headers: { 'if-match': '"1"' } });
  expect(renamed.status).toBe(200);
  expect(renamed.body).toEqual(expect.objectContaining({ name: 'Nordic Haulage', partneringPolicy: { grantedScopes: ['capacity:read'] } }));
  expectProblem(await call('PATCH', `/organizations/${record.id}`, admin, { scopeCeiling: ['exchange:admin'] }, { headers: { 'if-match': `"${renamed.body.resourceVersion}"` } }), 403, 'ACTOR_NOT_PERMITTED');
  // The operator's new identifier sends it back to verification.
  const verified = await operator.command(`/organizations/${record.id}/verify`, renamed.body.resourceVersion, { evidenceReference: 'case 3' });
  const changed = await operator.patch(`/organizations/${record.id}`, { legalIdentifier: { scheme: 'VAT', value: 'SE556703748501' } }, { 'if-match': `"${verified.body.resourceVersion}"` });
  expect(changed.body).toEqual(expect.objectContaining({ status: 'pending', verification: { status: 'pending' } }));
  // Only the operator creates a connector of another organization.
  expectProblem(await stranger.post('/connectors', { organizationId: record.organizationId, clientId: unique('intruder'), scopes: [] }), 403, 'ORGANIZATION_BINDING_VIOLATION');
});

// PostgreSQL: the test process writes what its commands answer into the read model, which on
// PGlite only the broker's process may open (npm start imports the demo seed in the walkthrough).
onPostgres('the seed: the organizations of a file imported as active, verified records once, however often it runs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-seed-'));
  const ids = [unique('org-seed'), unique('org-seed-gone')];
  const organizationsFile = join(dir, 'organizations.json');
  writeFileSync(organizationsFile, JSON.stringify([
    { organizationId: ids[0], name: 'Seeded Freight', partneringPolicy: { grantedScopes: ['capacity:read'] } },
    { organizationId: ids[1], name: 'Seeded and inactive', status: 'inactive' },
  ]));
  const connectorsFile = join(dir, 'connectors.json');
  writeFileSync(connectorsFile, '[]');
  const registry = Registry.load(organizationsFile, connectorsFile, 'sandbox', 'ignored');
  const connection = await Connection.connect({ address: env.temporalAddress });
  const db = await openDb({ databaseUrl: env.databaseUrl, dataDir: env.dataDir, poolSize: 2 });
  try {
    const entities = new Entities(new Client({ connection }), { taskQueue: env.taskQueue, settings: { continueAsNewAfterEvents: 2000, continueAsNewAfterCommands: 500 } }, testTransitionStore(db));
    const log = createLogger({ level: 'error', redact: true });
    await importSeed({ registry, entities, organizationsFile, log });
    await importSeed({ registry, entities, organizationsFile, log });
  } finally {
    await connection.close();
    await db.close();
  }
  const seeded = await waitFor('the seeded records', async () => {
    const all = (await listAll(operator, '/organizations')).filter((o: any) => ids.includes(o.organizationId));
    return all.length === 2 && all.every((o: any) => o.status !== 'pending') ? all : undefined;
  }, 5000);
  const [first, gone] = ids.map((id) => seeded.find((o: any) => o.organizationId === id));
  expect(first).toEqual(expect.objectContaining({ status: 'active', resourceVersion: 1, name: 'Seeded Freight', verification: expect.objectContaining({ status: 'verified', evidenceReference: 'organizations.json' }), partneringPolicy: { grantedScopes: ['capacity:read'] } }));
  expect(gone).toEqual(expect.objectContaining({ status: 'ended', resourceVersion: 2 }));
});

// The connectors and users files are the seed too: each entry becomes a record with its keys, its
// development secret and password kept as slow hashes (the store is the read model: PostgreSQL
// here, the broker's own PGlite in test/walkthrough.test.ts's npm start, where the demo users and
// connectors arrive as records). The broker's files do not hold these entries, so every token and
// sign-in below is the records' doing.
onPostgres('the seed: connectors and users of the files imported as records with their keys, secrets and passwords, once; inactive ones disabled', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-seed-'));
  const organizationId = unique('org-seed-people');
  const [tms, old, planner, leaver] = [unique('seed-tms'), unique('seed-old'), unique('seed-planner'), unique('seed-leaver')];
  const key = generateConnectorKey();
  const files = {
    organizations: join(dir, 'organizations.json'),
    connectors: join(dir, 'connectors.json'),
    users: join(dir, 'users.json'),
  };
  writeFileSync(files.organizations, JSON.stringify([{ organizationId, name: 'Seeded People GmbH' }]));
  writeFileSync(files.connectors, JSON.stringify([
    { clientId: tms, organizationId, name: 'Seeded TMS', scopes: ['capacity:read', 'connectors:manage'], clientSecret: 'seed-secret-of-the-tms', jwks: { keys: [key.publicJwk] } },
    { clientId: old, organizationId, scopes: ['capacity:read'], clientSecret: 'seed-secret-of-the-old-one', status: 'inactive' },
  ]));
  writeFileSync(files.users, JSON.stringify([
    { userId: planner, organizationId, name: 'Petra Planner', roles: ['planner', 'admin'], password: 'petra-demo' },
    { userId: leaver, organizationId, roles: ['viewer'], password: 'leaver-demo', status: 'inactive' },
  ]));
  const registry = Registry.load(files.organizations, files.connectors, 'sandbox', 'required');
  registry.loadUsers(files.users, 'required');
  const connection = await Connection.connect({ address: env.temporalAddress });
  const db = await openDb({ databaseUrl: env.databaseUrl, dataDir: env.dataDir, poolSize: 2 });
  try {
    const entities = new Entities(new Client({ connection }), { taskQueue: env.taskQueue, settings: { continueAsNewAfterEvents: 2000, continueAsNewAfterCommands: 500 } }, testTransitionStore(db));
    const log = createLogger({ level: 'error', redact: true });
    const seed = { registry, entities, db, organizationsFile: files.organizations, connectorsFile: files.connectors, usersFile: files.users, log };
    expect(await importSeed(seed)).toEqual({ created: 5, existing: 0 });
    // Again, as the next start does (its registry sees the records): nothing new.
    const managed = await managedRegistry(db);
    registry.useManaged(managed);
    try {
      expect(await importSeed(seed)).toEqual({ created: 0, existing: 5 });
    } finally {
      managed.stop();
    }
  } finally {
    await connection.close();
    await db.close();
  }

  // The connector: its development secret and its key both get tokens; what it reads shows no secret.
  const bySecret = await fetch(`${env.baseUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: tms, client_secret: 'seed-secret-of-the-tms' }) });
  expect(bySecret.status).toBe(200);
  const token = (await bySecret.json()).access_token;
  expect((await tokenByKey(tms, key.privateJwk)).status).toBe(200);
  const own = await call('GET', '/connectors', token);
  const records = own.body.items.filter((c: any) => [tms, old].includes(c.clientId));
  expect(records.map((c: any) => [c.clientId, c.status, c.scopes])).toEqual(expect.arrayContaining([[tms, 'active', ['capacity:read', 'connectors:manage']], [old, 'disabled', ['capacity:read']]]));
  const mine = records.find((c: any) => c.clientId === tms);
  expect(mine.credentials.map((k: any) => k.kind).sort()).toEqual(['clientSecret', 'privateKeyJwt']);
  expect(mine.credentials.find((k: any) => k.kind === 'clientSecret').secretHint).toBe('-tms');
  expect(JSON.stringify(own.body)).not.toContain('seed-secret');
  // The inactive entry is a disabled record: no token; a wrong secret neither.
  for (const [clientId, secret] of [[old, 'seed-secret-of-the-old-one'], [tms, 'not-the-secret']]) {
    const refused = await fetch(`${env.baseUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }) });
    expect(refused.status).toBe(401);
  }

  // The users: active at once (nobody accepts an invitation), signed in with the file's password; the inactive one disabled.
  const users = (await call('GET', '/users', token)).body.items;
  expect(users.map((u: any) => [u.userId, u.status, u.roles])).toEqual(expect.arrayContaining([[planner, 'active', ['planner', 'admin']], [leaver, 'disabled', ['viewer']]]));
  const signedIn = await signIn(env.baseUrl, planner, 'petra-demo');
  expect((await call('GET', '/capacity-offers?limit=1', signedIn.accessToken)).status).toBe(200);
  await expect(signIn(env.baseUrl, leaver, 'leaver-demo')).rejects.toThrow();
  await expect(signIn(env.baseUrl, planner, 'wrong')).rejects.toThrow();
});

// Matching leaves a suspended organization out, on either side (read-model/matching.ts): read from
// the database the broker matches from (PostgreSQL: PGlite is the broker process's own).
onPostgres("matching pairs no listing of a suspended organization: its offer is no candidate for a partner's request, and its own listings get none", async () => {
  const { organizationId, record, admin } = await onboard({}, ['connectors:manage', 'relationships:manage', 'capacity:publish', 'capacity:read', 'matches:read']);
  await operator.command(`/organizations/${record.id}/verify`, record.resourceVersion, { evidenceReference: 'case 5' });
  const suspended = { id: organizationId, post: (path: string, body?: unknown) => call('POST', path, admin, body), command: (path: string, version: number, body?: unknown) => call('POST', path, admin, body, { headers: { 'if-match': `"${version}"` } }) } as unknown as Connector;
  const [shipper, carrier] = await Promise.all(freshOrgs(2).map((o) => Connector.of(o)));
  await waitFor('the verification to count', async () => ((await call('GET', '/capacity-offers', admin)).status === 200 ? true : undefined), 3000);
  await activeRelationship(suspended, shipper);
  await activeRelationship(carrier, shipper);
  const theirs = await publishedListing({ ...OFFERS, body: () => marketOffer() }, suspended);
  const active = await publishedListing({ ...OFFERS, body: () => marketOffer() }, carrier);
  const current = (await operator.get(`/organizations/${record.id}`)).body;
  expect((await operator.command(`/organizations/${record.id}/suspend`, current.resourceVersion, { reason: 'audit' })).status).toBe(200);
  const request = await publishedListing({ ...REQUESTS, body: () => marketRequest() }, shipper);
  // The broker proposes the active carrier's offer; the suspended organization's is no candidate,
  // neither proposed nor left to propose, and its own offer finds nothing to be proposed to.
  const [proposal] = await waitProposals(shipper, `request=${request.id}`, 1);
  expect(proposal.capacityOfferId).toBe(active.id);
  const db = await openDb({ databaseUrl: env.databaseUrl, dataDir: env.dataDir, poolSize: 2 });
  try {
    expect((await findMatches(db, { kind: 'load-request', id: request.id })).map((m) => m.offer.id)).not.toContain(theirs.id);
    expect((await listAll(shipper, '/match-proposals', `request=${request.id}`)).map((p: any) => p.capacityOfferId)).not.toContain(theirs.id);
    expect(await findMatches(db, { kind: 'capacity-offer', id: theirs.id })).toEqual([]);
  } finally {
    await db.close();
  }
});

test("the directory: the operator lists an organization; another's admin finds it by name (case and accents ignored) with the operator's words and the relationship; its own admin cannot list it; an unlisted, pending or suspended one is never named", async () => {
  const listing = { listed: true, description: 'Kühlverkehr Skandinavien–Süd', country: 'NO' };
  const { record, organizationId, admin } = await onboard({ name: 'Nordic Haulage AS', directoryListing: listing });
  expect(record.directoryListing).toEqual(listing);
  const found = async (q: string, who: Connector = stranger) => {
    const reply = await who.get(`/directory?q=${encodeURIComponent(q)}`);
    expect(reply.status).toBe(200);
    return reply.body.items.filter((i: any) => i.organizationId === organizationId);
  };
  // Pending (not verified yet): not in the directory.
  expect(await found(organizationId)).toEqual([]);
  const verified = await operator.command(`/organizations/${record.id}/verify`, 1, { evidenceReference: 'case 7' });
  expect(verified.status).toBe(200);
  expect(await found('NORDIC')).toEqual([{ organizationId, name: 'Nordic Haulage AS', description: listing.description, country: 'NO', relationship: 'none' }]);
  expect(await found('kuhlverkehr')).toHaveLength(1);
  // Its own admin changes its name, not its listing: the directory is the operator's.
  expectProblem(await call('PATCH', `/organizations/${record.id}`, admin, { directoryListing: { listed: true, description: 'The best' } }, { headers: { 'if-match': `"${verified.body.resourceVersion}"` } }), 403, 'ACTOR_NOT_PERMITTED');
  expectProblem(await stranger.get('/directory?q='), 400, 'VALIDATION_FAILED');
  // Invited: the inviter sees the relationship beside the name.
  const invited = await stranger.post('/partner-relationships', { requestingOrganizationId: stranger.id, acceptingOrganizationId: organizationId, scopes: ['capacity:read'] });
  expect(invited.status).toBe(201);
  expect((await found('nordic'))[0].relationship).toBe('draft');
  // Suspended, then taken out of the directory by the operator: named nowhere.
  const suspended = await operator.command(`/organizations/${record.id}/suspend`, verified.body.resourceVersion, { reason: 'audit' });
  expect(await found('nordic')).toEqual([]);
  const reinstated = await operator.command(`/organizations/${record.id}/reinstate`, suspended.body.resourceVersion, { reason: 'audit done' });
  expect(await found('nordic')).toHaveLength(1);
  const unlisted = await operator.patch(`/organizations/${record.id}`, { directoryListing: { listed: false } }, { 'if-match': `"${reinstated.body.resourceVersion}"` });
  expect(unlisted.status).toBe(200);
  expect(await found('nordic')).toEqual([]);
  expect(await found(organizationId)).toEqual([]);
  // An organization never listed is not found even by its exact id.
  const quiet = await onboard();
  await operator.command(`/organizations/${quiet.record.id}/verify`, 1, { evidenceReference: 'case 8' });
  expect(((await stranger.get(`/directory?q=${quiet.organizationId}`)).body.items as any[]).map((i) => i.organizationId)).not.toContain(quiet.organizationId);
  // A token without relationships:manage (this admin's connector manages connectors only) is refused.
  expectProblem(await call('GET', '/directory', admin), 403, 'INSUFFICIENT_SCOPE');
});
