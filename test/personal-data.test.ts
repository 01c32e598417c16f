// Crypto-shredding on the disk, on both engines (issue 52 part 1; docs/retention.md, "Personal
// data sealed per record"): a handover's contact persons and a user's name never reach the
// database's files in clear (PGlite's data folder; PostgreSQL's data directory, WAL included),
// though the parties read them as sent; after their erasures the records' keys are gone, and the
// sealed copies the files still hold (old row versions, the write-ahead log) open for nobody.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PersonalData, PersonalDataKeys } from '../core/personal-data';
import { Connector, db, ENGINE, freshOrgs, testEnv } from './helpers';
import { commitment, handoverBody } from './execution-handovers.fixtures';

const tag = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;

/** Every file under `dir`, read as bytes. */
function* filesUnder(dir: string): Generator<Buffer> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile() && statSync(path).size < 512 * 1024 * 1024) {
      try {
        yield readFileSync(path);
      } catch {
        // a file removed meanwhile (a WAL segment recycled)
      }
    }
  }
}

/** Which of `needles` occur anywhere in the database's files. */
async function onDisk(needles: string[]): Promise<Set<string>> {
  let dir = testEnv().dataDir;
  if (ENGINE === 'postgres') {
    await db().query('checkpoint').catch(() => undefined); // the heap's pages too, not only the WAL
    dir = (await db().query<{ data_directory: string }>('show data_directory')).rows[0].data_directory;
  }
  const found = new Set<string>();
  const wanted = needles.map((n) => [n, Buffer.from(n, 'utf8')] as const);
  for (const bytes of filesUnder(dir)) for (const [n, b] of wanted) if (!found.has(n) && bytes.includes(b)) found.add(n);
  return found;
}

/** Waits until `check` holds (PGlite's files are written by the broker's process as it commits). */
async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 500));
  }
}

test('contact persons and a user name are on the disk only sealed; erased, their keys are gone and the sealed copies left behind open for nobody', async () => {
  const keysDir = (testEnv().brokerEnv as Record<string, string>).PERSONAL_DATA_KEYS_DIR;
  const mark = tag();
  const names = { gate: `Gate Wiśniewska ${mark}`, dispatch: `Dispatch Kowalczyk ${mark}`, email: `d.${mark}@issuer.example`, phone: `+48 22 ${mark.replace(/\D/g, '').padEnd(7, '5').slice(0, 7)}`, user: `Zofia Nowak-${mark}` };

  // A user and a handover with personal data, as any connector sends them.
  const [admin] = await Promise.all(freshOrgs(1).map((o) => Connector.of(o)));
  const invited = await admin.post('/users', { userId: `pd-${mark}`, name: names.user, roles: ['viewer'] });
  expect(invited.status).toBe(201);
  expect(invited.body.name).toBe(names.user);
  const userId = invited.body.id as string;
  const { issuer, executor, commitment: c } = await commitment();
  const body = handoverBody(c) as any;
  body.package.contacts = [{ role: 'dispatch', name: names.dispatch, email: names.email }];
  body.package.stops[0].contacts = [{ role: body.package.stops[0].role, name: names.gate, phone: names.phone }];
  const created = await issuer.post('/execution-handovers', body);
  expect(created.status).toBe(201);
  const handoverId = created.body.id as string;

  // The parties read them as sent: the record, the feed.
  for (const reader of [issuer, executor]) {
    const read = await reader.get(`/execution-handovers/${handoverId}`);
    expect(read.body.package.contacts).toEqual(body.package.contacts);
    expect(read.body.package.stops[0].contacts).toEqual(body.package.stops[0].contacts);
    const events = (await reader.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `execution-handovers/${handoverId}`);
    expect(JSON.stringify(events)).toContain(names.gate);
    expect(JSON.stringify(events)).not.toContain('pcx-pd:');
  }
  expect((await admin.get(`/users/${userId}`)).body.name).toBe(names.user);
  expect(JSON.stringify((await admin.get('/events?limit=200')).body.items.filter((e: any) => e.subject === `users/${userId}`))).toContain(names.user);
  // A retried create answers the kept answer, opened too.
  expect((await issuer.post('/execution-handovers', body)).body.package.contacts).toEqual(body.package.contacts);

  // The files: the user's sealed name is there (the scan reaches the rows), nothing in clear.
  const keys = new PersonalData(new PersonalDataKeys(keysDir));
  const sealedName = keys.seal(`user.${userId}`, names.user); // deterministic: the value the broker stored
  const clear = [names.gate, names.dispatch, names.email, names.phone, names.user];
  expect(await eventually(async () => (await onDisk([sealedName])).has(sealedName))).toBe(true);
  expect([...(await onDisk(clear))]).toEqual([]);
  if (ENGINE === 'postgres') {
    const { rows } = await db().query<{ doc: string }>('select doc::text as doc from execution_handovers where id = $1', [handoverId]);
    expect(rows[0].doc).toContain(`pcx-pd:v1:execution-handover.${handoverId}:`);
    for (const table of ['execution_handovers', 'events', 'idempotency_keys', 'users']) {
      const hit = await db().query(`select 1 from ${table} t where t::text like any($1) limit 1`, [clear.map((v) => `%${v}%`)]);
      expect({ table, rows: hit.rowCount }).toEqual({ table, rows: 0 });
    }
  }

  // Erased: the handover once final, the user once removed.
  expect((await executor.post(`/execution-handovers/${handoverId}/acknowledgements`, { outcome: 'imported', destinationExternalReference: { system: 'executor-tms', type: 'trip', value: `T-${mark}` } })).status).toBe(200);
  expect((await issuer.post(`/execution-handovers/${handoverId}/contact-erasures`, { reason: 'the contacts asked to be forgotten' })).status).toBe(200);
  expect((await admin.command(`/users/${userId}/remove`, 1, { reason: 'left' })).status).toBe(200);
  expect((await admin.post(`/users/${userId}/name-erasures`, { reason: 'she asked to be forgotten' })).status).toBe(200);
  expect(readdirSync(keysDir).filter((f) => f.includes(handoverId) || f.includes(userId))).toEqual([]);

  // What the files still hold of them is sealed under keys nobody has: not one copy opens.
  const fresh = new PersonalData(new PersonalDataKeys(keysDir));
  expect(fresh.open(sealedName)).toBeUndefined();
  const left = [...(await onDisk([sealedName]))];
  for (const value of left) expect(fresh.open(value)).toBeUndefined();
  expect([...(await onDisk(clear))]).toEqual([]);
  // And the answers carry none of it.
  const read = await executor.get(`/execution-handovers/${handoverId}`);
  expect(JSON.stringify(read.body)).not.toMatch(new RegExp(`${mark}@|Wiśniewska|Kowalczyk|pcx-pd:`));
  expect((await admin.get(`/users/${userId}`)).body.name).toBeUndefined();
}, 120_000);
