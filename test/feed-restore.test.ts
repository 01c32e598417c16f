// A broker's read model restored from a backup to an earlier point (issue 34 part 2; the embedded
// PGlite's data folder backed up while the broker was stopped by `npm run backup`, which refuses
// while it runs, and put back by `npm run restore`, docs/deployment.md "Backup and restore"): after
// the restore (which starts a new feed history), a connector's cursor from before the backup reads on as
// before, and one from after it (naming events the restore took away) is answered 410
// FEED_HISTORY_CHANGED with the cursor to resume from, never served as if nothing happened; from
// there the connector reads what happens next. Runs once (jest.config.js, ENGINE_INDEPENDENT): the
// broker processes are the test's own, on a PGlite folder of their own.
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { startBroker, ROOT, type BrokerHandle } from './stack';
import { freshOrgs, sleep, testEnv } from './helpers';
import { offerBody } from './listing-fixtures';

let broker: BrokerHandle | undefined;
afterAll(async () => {
  await broker?.stop();
});

async function call(base: string, bearer: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
}

async function token(base: string, org: { clientId: string; secret: string }) {
  const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: org.clientId, client_secret: org.secret }) });
  return ((await res.json()) as any).access_token as string;
}

/** Publishes an open offer (created with the Idempotency-Key given) and answers its id. */
async function published(base: string, bearer: string, createHeaders: Record<string, string> = {}, body = offerBody()): Promise<string> {
  const created = await call(base, bearer, 'POST', '/capacity-offers', body, createHeaders);
  expect(created.status).toBe(201);
  expect((await call(base, bearer, 'POST', `/capacity-offers/${created.body.id}/publish`, {}, { 'if-match': '"1"' })).status).toBe(200);
  return created.body.id;
}

/** Reads the feed from `cursor` until the offer's published event is in it: the ids read, and the cursor after them. */
async function readUntil(base: string, bearer: string, cursor: string | undefined, offerId: string): Promise<{ ids: string[]; cursor: string }> {
  const ids: string[] = [];
  for (let i = 0; i < 60; i++) {
    const page = await call(base, bearer, 'GET', `/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status).toBe(200);
    ids.push(...page.body.items.map((e: any) => e.data.id));
    cursor = page.body.nextCursor;
    if (ids.includes(offerId)) return { ids, cursor: cursor! };
    await sleep(250);
  }
  throw new Error(`the feed never showed ${offerId}`);
}

test("a read model restored to an earlier point: cursors up to the restore point read on, a cursor past it is told so (410) with where to resume", async () => {
  const env = testEnv();
  const [org] = freshOrgs(1);
  const brokerEnv = { ...env.brokerEnv, DATABASE_URL: '', TEMPORAL_TASK_QUEUE: `${env.taskQueue}-restore-${Date.now()}` };
  const dataDir = join(env.dir, `restore-${Date.now()}`);
  const backup = `${dataDir}-backup.tgz`;
  const script = (name: string, ...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', `${name}.ts`), ...args], { cwd: ROOT, encoding: 'utf8' });

  broker = await startBroker(brokerEnv, dataDir);
  let bearer = await token(broker.baseUrl, org);
  const first = await published(broker.baseUrl, bearer);
  const beforeBackup = (await readUntil(broker.baseUrl, bearer, undefined, first)).cursor;
  // Not while the broker has the folder open: the copy would not be consistent.
  const busy = script('backup', '--data-dir', dataDir, '--into', backup);
  expect({ status: busy.status, stderr: busy.stderr }).toEqual({ status: 1, stderr: expect.stringMatching(/^backup refused: a broker \(pid \d+\) has .* open: stop it first/) });
  expect(existsSync(backup)).toBe(false);
  await broker.stop();
  const taken = script('backup', '--data-dir', dataDir, '--into', backup); // the backup: the stopped data folder
  expect({ status: taken.status, stderr: taken.stderr }).toEqual({ status: 0, stderr: expect.stringMatching(/^backed up .* in \d+\.\d s\n$/) });

  broker = await startBroker(brokerEnv, dataDir);
  bearer = await token(broker.baseUrl, org);
  // A create acknowledged after the backup, with its Idempotency-Key.
  const lostBody = offerBody();
  const lost = await published(broker.baseUrl, bearer, { 'idempotency-key': 'create-after-backup' }, lostBody);
  // A lifecycle command acknowledged after the backup, with its Idempotency-Key.
  const withdrawn = await call(broker.baseUrl, bearer, 'POST', `/capacity-offers/${first}/withdraw`, { reason: 'truck broke down', reasonCode: 'VEHICLE_FAILURE' }, { 'if-match': '"2"', 'idempotency-key': 'after-backup' });
  expect(withdrawn.status).toBe(200);
  const sawAfterBackup = await readUntil(broker.baseUrl, bearer, beforeBackup, lost);
  const afterBackup = sawAfterBackup.cursor;
  await broker.stop();

  // The restore: never over a folder (moved aside first), and a new feed history started before the broker runs.
  expect(script('restore', '--from', backup, '--data-dir', dataDir).stderr).toMatch(/^restore refused: .* is not empty: move it aside first/);
  renameSync(dataDir, `${dataDir}-moved-aside`);
  const restored = script('restore', '--from', backup, '--data-dir', dataDir);
  expect({ status: restored.status, stderr: restored.stderr }).toEqual({ status: 0, stderr: expect.stringMatching(/^restored .* in \d+\.\d s; feed history \S+ started, the restore point is \d+\.\d+; the transparency log goes on as epoch \d+ from its \d+ restored leaves\n$/) });

  broker = await startBroker(brokerEnv, dataDir);
  bearer = await token(broker.baseUrl, org);
  // Past the restore point: told, with the cursor to resume from.
  const refused = await call(broker.baseUrl, bearer, 'GET', `/events?cursor=${afterBackup}`);
  expect(refused.status).toBe(410);
  expect(refused.body).toMatchObject({ code: 'FEED_HISTORY_CHANGED', type: 'urn:exchange:protocol:error:feed-history-changed', resumeCursor: expect.any(String), restoredAt: expect.any(String) });
  // Up to it: as before (nothing after it in the restored feed yet).
  const onward = await call(broker.baseUrl, bearer, 'GET', `/events?cursor=${beforeBackup}`);
  expect(onward.status).toBe(200);
  expect(onward.body.items).toEqual([]);
  // The read model came back without the key; Temporal (not in this folder: the tests' shared
  // server) kept the command. Its retry is sent as the same Update (api/idempotency.ts,
  // keyCommandId) and answered as the original, not applied again nor refused as stale.
  const retried = await call(broker.baseUrl, bearer, 'POST', `/capacity-offers/${first}/withdraw`, { reason: 'truck broke down', reasonCode: 'VEHICLE_FAILURE' }, { 'if-match': '"2"', 'idempotency-key': 'after-backup' });
  expect({ status: retried.status, id: retried.body?.id, version: retried.body?.resourceVersion }).toEqual({ status: 200, id: first, version: withdrawn.body.resourceVersion });
  // What happens next is read from where the broker said to resume; the lost offer is not in it.
  const next = await published(broker.baseUrl, bearer);
  const resumed = await readUntil(broker.baseUrl, bearer, refused.body.resumeCursor, next);
  expect(resumed.ids).not.toContain(lost);
  // The first offer's withdrawal, which Temporal kept, reaches the restored read model again with its retry: once.
  expect(resumed.ids.filter((id) => id === first)).toHaveLength(1);
  // The new cursors belong to the new history: they read on after another look.
  expect((await call(broker.baseUrl, bearer, 'GET', `/events?cursor=${resumed.cursor}`)).status).toBe(200);

  // The create acknowledged after the backup, retried with its key: Temporal kept its workflow, which
  // recorded the key (api/idempotency.ts, keyCreateKey), so the retry is answered with that offer as
  // created (Temporal kept the create's Update outcome), not made a second time, and brings it back
  // into the restored read model as it is now (published), with its events, once each.
  const again = await call(broker.baseUrl, bearer, 'POST', '/capacity-offers', lostBody, { 'idempotency-key': 'create-after-backup' });
  expect({ status: again.status, id: again.body?.id, version: again.body?.resourceVersion }).toEqual({ status: 201, id: lost, version: 1 });
  expect((await call(broker.baseUrl, bearer, 'GET', `/capacity-offers/${lost}`)).body).toMatchObject({ id: lost, status: 'published', resourceVersion: 2 });
  const back = await readUntil(broker.baseUrl, bearer, resumed.cursor, lost);
  expect(back.ids.filter((id) => id === lost)).toHaveLength(sawAfterBackup.ids.filter((id) => id === lost).length);
  const mine = (await call(broker.baseUrl, bearer, 'GET', '/capacity-offers?limit=200')).body.items.filter((o: any) => o.id === lost);
  expect(mine).toHaveLength(1);
}, 180_000);
