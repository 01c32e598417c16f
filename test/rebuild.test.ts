// The read model rebuilt from Temporal alone (issue 34 part 1; read-model/rebuild.ts), on both
// engines: two organizations' world (a relationship, offers and requests, a match accepted by both,
// its execution reference, a tender issued, a draft withdrawn: workflows running and completed) is
// rebuilt into an empty database of the engine under test and compared with the live one: the same
// rows at the same versions, and the same events per subject in the same order with the same ids,
// types and audiences as the organizations read them from their feeds. On PostgreSQL the live
// schema is read too, and every row and every stored CloudEvent must be equal.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import type { Db } from '../core/db';
import { openReadModel } from '../read-model/database';
import { rebuildReadModel } from '../read-model/rebuild';
import { RESOURCES } from '../domain/registry';
import { randomUUID } from 'node:crypto';
import { clientSecretMatches } from '../core/client-secrets';
import { invitationCodeMatches, secretHashes } from '../read-model/client-secrets';
import { Connector, db as liveDb, ENGINE, freshOrgs, sleep, testEnv } from './helpers';
import { createListing, OFFERS } from './listing-fixtures';
import { acceptedMatch, issuedTender } from './tenders.fixtures';
import { waitFor } from './matching-fixtures';
import { adminQuery, schemaUrl } from './pg-admin';
import { ROOT } from './stack';

let target: Db | undefined;
const schemas: string[] = [];
let connection: Connection | undefined;
afterAll(async () => {
  await target?.close();
  await connection?.close();
  for (const schema of schemas) await adminQuery(`drop schema if exists ${schema} cascade`);
});

/** An empty read model of the engine under test. */
async function emptyTarget(): Promise<{ db: Db; url?: string; dir?: string }> {
  if (ENGINE === 'postgres') {
    const schema = `pcx_rebuild_${process.pid}_${Date.now()}`;
    schemas.push(schema);
    await adminQuery(`create schema ${schema}`);
    const url = schemaUrl(schema);
    return { db: await openReadModel({ databaseUrl: url, dataDir: '' }), url };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pcx-rebuild-'));
  return { db: await openReadModel({ dataDir: dir }), dir };
}

/** Whether an event's subject is one of these resources or a record under one (a proposal's decision). */
const within = (subjects: Set<string>, subject: string) => subjects.has(subject) || subjects.has(subject.split('/').slice(0, 2).join('/'));

/** A connector's whole feed: each subject's events in order, as [id, type, version]. */
async function feedBySubject(c: Connector, subjects: Set<string>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (let cursor: string | undefined; ; ) {
    const page = (await c.get(`/events?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;
    for (const e of page.items) if (within(subjects, e.subject)) (out[e.subject] ??= []).push(`${e.id} ${e.type} v${e.resourceversion}`);
    if (!page.nextCursor || page.items.length === 0) break;
    cursor = page.nextCursor;
  }
  return out;
}

test('two organizations rebuilt from Temporal alone into an empty database: the same rows, versions and events, in order per subject, with the same ids', async () => {
  // The world: a match accepted by both (with its execution reference), a tender issued on it, a
  // draft withdrawn (its workflow completed).
  const m = await acceptedMatch();
  await issuedTender(m);
  const draft = await createListing(OFFERS, m.carrier);
  expect((await m.carrier.command(`/capacity-offers/${draft.id}/withdraw`, 1, { reason: 'not needed' })).status).toBe(200);
  await waitFor('the execution reference', async () => (await m.carrier.get(`/execution-references?proposal=${m.proposal.id}`)).body.items?.[0]);
  await sleep(1500); // the flows' last writes

  const live = await feedBySubject(m.carrier, new Set([`capacity-offers/${draft.id}`]));
  const sample = (await m.carrier.get('/events?limit=1')).body.items[0];
  const settings = { eventSource: sample.source, schemaBase: sample.dataschema.replace(/\/v0\/[^/]+$/, '') };

  connection = await Connection.connect({ address: testEnv().temporalAddress });
  const client = new Client({ connection });
  const into = await emptyTarget();
  target = into.db;
  const report = await rebuildReadModel(client, target, settings, { organizationIds: [m.carrier.id, m.shipper.id] });
  expect(report.incomplete).toEqual([]);
  expect(report.resources).toBeGreaterThanOrEqual(7);

  // Every resource rebuilt, at the version its owner reads now, in the same state.
  const rebuilt: Array<{ kind: string; table: string; collection: string; id: string; version: number; doc: any }> = [];
  for (const r of RESOURCES) {
    const { rows } = await target.query<{ id: string; resource_version: number; doc: any }>(`select id::text, resource_version, doc from ${r.table}`);
    for (const row of rows) rebuilt.push({ kind: r.kind, table: r.table, collection: r.collection, id: row.id, version: row.resource_version, doc: row.doc });
  }
  const kinds = new Set(rebuilt.map((r) => r.kind));
  for (const kind of ['partner-relationship', 'capacity-offer', 'load-request', 'match-proposal', 'execution-reference', 'transport-tender']) expect(kinds).toContain(kind);
  const by = (org: string) => (org === m.carrier.id ? m.carrier : m.shipper);
  for (const row of rebuilt) {
    const reader = by(row.doc.ownerOrganizationId === m.shipper.id ? m.shipper.id : m.carrier.id);
    const read = await reader.get(`/${row.collection}/${row.id}`);
    expect({ id: row.id, status: read.status, version: read.body?.resourceVersion, state: read.body?.status, updatedAt: read.body?.updatedAt }).toEqual({ id: row.id, status: 200, version: row.version, state: row.doc.status, updatedAt: row.doc.updatedAt });
  }
  expect(live[`capacity-offers/${draft.id}`]).toEqual([expect.stringContaining('pcx.capacity-offer.withdrawn.v1 v2')]);

  // Each organization's feed, subject by subject: the rebuilt outbox holds the same events for it, in the same order.
  const subjects = new Set(rebuilt.map((r) => `${r.collection}/${r.id}`));
  for (const org of [m.carrier, m.shipper]) {
    const fromFeed = await feedBySubject(org, subjects);
    const { rows } = await target.query<{ subject: string; id: string; type: string; version: string }>(
      `select cloudevent->>'subject' as subject, id::text, type, cloudevent->>'resourceversion' as version from events where $1 = any(audience) order by resource_version, (cloudevent->>'time'), id`,
      [org.id],
    );
    const fromRebuilt: Record<string, string[]> = {};
    for (const e of rows) if (within(subjects, e.subject)) (fromRebuilt[e.subject] ??= []).push(`${e.id} ${e.type} v${e.version}`);
    expect(fromRebuilt).toEqual(fromFeed);
  }

  // On PostgreSQL the live schema itself: every row and every stored CloudEvent equal.
  if (ENGINE === 'postgres') {
    for (const row of rebuilt) {
      const { rows } = await liveDb().query(`select resource_version, doc from ${row.table} where id = $1`, [row.id]);
      expect({ id: row.id, version: rows[0]?.resource_version, doc: rows[0]?.doc }).toEqual({ id: row.id, version: row.version, doc: row.doc });
    }
    const ids = rebuilt.map((r) => r.id);
    const events = async (q: (sql: string, params: unknown[]) => Promise<{ rows: any[] }>) =>
      (await q(`select id::text, resource_id::text, resource_version, type, audience, cloudevent from events where resource_id::text = any($1) order by id`, [ids])).rows;
    expect(await events((sql, p) => target!.query(sql, p))).toEqual(await events((sql, p) => liveDb().query(sql, p)));

    // The operator's command does the same from the command line, and refuses a database that holds anything.
    const again = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'rebuild-read-model.ts'), '--into-database-url', into.url!, '--organization', m.carrier.id], {
      cwd: ROOT,
      env: { ...process.env, ...testEnv().brokerEnv },
      encoding: 'utf8',
    });
    expect({ status: again.status, stderr: again.stderr.trim() }).toEqual({ status: 2, stderr: 'the target database holds resources or events already: a rebuild writes into an empty one' });
  }
}, 120_000);

/** The read model of one organization's records rebuilt from Temporal into an empty database (the earlier target closed). */
async function rebuildOrganization(admin: Connector, organizationId: string) {
  const sample = (await admin.get('/events?limit=1')).body.items[0];
  const settings = { eventSource: sample.source, schemaBase: sample.dataschema.replace(/\/v0\/[^/]+$/, '') };
  connection ??= await Connection.connect({ address: testEnv().temporalAddress });
  await target?.close();
  const rebuilt = (await emptyTarget()).db;
  await rebuildReadModel(new Client({ connection }), rebuilt, settings, { organizationIds: [organizationId] });
  return rebuilt;
}

test("a connector's generated secret survives a rebuild: its hash comes back from the connector's workflow, never in its document or events", async () => {
  const [org] = freshOrgs(1);
  const admin = await Connector.of(org);
  const clientId = `rebuilt-${randomUUID().slice(0, 8)}`;
  const created = await admin.post('/connectors', { clientId, scopes: ['capacity:read'], generateClientSecret: true });
  expect(created.status).toBe(201);
  const rolled = await admin.command(`/connectors/${created.body.id}/roll-credential`, created.body.resourceVersion, { credentialId: created.body.clientSecretCredentialId, generateClientSecret: true, oldExpiresAt: new Date(Date.now() + 3600_000).toISOString() });
  expect(rolled.status).toBe(200);
  const secrets = [
    { credentialId: created.body.clientSecretCredentialId as string, secret: created.body.clientSecret as string },
    { credentialId: rolled.body.clientSecretCredentialId as string, secret: rolled.body.clientSecret as string },
  ];
  target = await rebuildOrganization(admin, org.id);

  // Each secret matches the hash the rebuild wrote where the token endpoint reads it.
  const hashes = await secretHashes(target, clientId, secrets.map((s) => s.credentialId));
  expect(hashes.map((h) => h.credentialId).sort()).toEqual(secrets.map((s) => s.credentialId).sort());
  for (const { credentialId, secret } of secrets) expect(await clientSecretMatches(secret, hashes.find((h) => h.credentialId === credentialId)!.secretHash)).toBe(true);
  // The hash is in neither the rebuilt document nor an event, nor any answer.
  const { rows: docs } = await target.query<{ doc: unknown }>('select doc from connectors where id = $1', [created.body.id]);
  const { rows: events } = await target.query<{ cloudevent: unknown }>('select cloudevent from events where resource_id = $1', [created.body.id]);
  const everything = JSON.stringify([docs, events, created.body, rolled.body, (await admin.get(`/connectors/${created.body.id}`)).body]);
  expect(everything).not.toMatch(/scrypt\$|secretHashes/);
  expect(docs).toHaveLength(1);
}, 60_000);

test("an invited user's code survives a rebuild: the hash of its newest invitation comes back from the user's workflow, never in its document or events", async () => {
  const [org] = freshOrgs(1);
  const admin = await Connector.of(org);
  const userId = `rebuilt-${randomUUID().slice(0, 8)}`;
  const invited = await admin.post('/users', { userId, name: 'Rita Rebuilt', roles: ['viewer'] });
  expect(invited.status).toBe(201);
  const again = await admin.command(`/users/${invited.body.id}/reinvite`, invited.body.resourceVersion, {});
  expect(again.status).toBe(200);
  const [first, newest] = [invited.body.invitationCode as string, again.body.invitationCode as string];
  expect(first).toMatch(/^pcxs_/);
  expect(newest).toMatch(/^pcxs_/);
  target = await rebuildOrganization(admin, org.id);

  // The development identity provider checks the newest code against what the rebuild wrote; the first one no longer works.
  expect(await invitationCodeMatches(target, userId, newest)).toBe(true);
  expect(await invitationCodeMatches(target, userId, first)).toBe(false);
  const { rows: docs } = await target.query<{ doc: unknown }>('select doc from users where id = $1', [invited.body.id]);
  const { rows: events } = await target.query<{ cloudevent: unknown }>('select cloudevent from events where resource_id = $1', [invited.body.id]);
  expect(docs).toHaveLength(1);
  expect(JSON.stringify([docs, events, (await admin.get(`/users/${invited.body.id}`)).body])).not.toMatch(/scrypt\$|invitationHash|pcxs_/);
}, 60_000);

