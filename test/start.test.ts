// `npm start` end to end: the start script brings up the Temporal dev server (SQLite file), the
// broker on PGlite and the adapter gateway beside it, Ctrl-C stops every child, and a second start
// finds the state again. Then the whole data folder restored from a backup taken between the two
// (`npm run backup`, `npm run restore`; docs/deployment.md, "Backup and restore"): the read model
// and Temporal agree on the earlier point, a command acknowledged after the backup and retried with
// its Idempotency-Key is applied once in the restored world, and a feed cursor from after the
// backup is told so (410). And a data folder from before the first release, or of another format,
// refused at the start with what to do (core/data-folder.ts), its backup not restored. Last, the
// read model rebuilt in place from the folder's Temporal histories (`npm run rebuild-read-model --
// --in-place`): every connector signs in after it, and a cursor from before is told where to resume.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { isSealed } from '../core/payload-codec';
import { PersonalData, PersonalDataKeys } from '../core/personal-data';
import { freePort, interrupt, ROOT, startEmbedded, stopEmbedded } from './stack';
import { sleep, testEnv } from './helpers';

async function portOpen(port: number) {
  return fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
}

/** The files under `dir` whose bytes hold `text`. */
function filesHolding(dir: string, text: string): string[] {
  const needle = Buffer.from(text, 'utf8');
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((path) => readFileSync(path).includes(needle));
}

const PERSON = 'Zofia Startowa-Wyszyńska';

test('start, Ctrl-C, start again: state survives and every child stops', async () => {
  let sealedName = '';
  const env = {
    PORT: String(await freePort()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    DATA_DIR: join(testEnv().dir, 'npm-start'),
    GATEWAY_PORT: String(await freePort()),
    // As a newcomer's start: the bundles are built at start (the suite's other stacks share prebuilt ones).
    WORKFLOW_BUNDLE_FILE: '',
    GATEWAY_WORKFLOW_BUNDLE_FILE: '',
  };
  const gateway = `http://127.0.0.1:${env.GATEWAY_PORT}`;
  const base = `http://127.0.0.1:${env.PORT}`;
  const token = async () => {
    const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'alpine-tms', client_secret: 'alpine-demo-secret' }) });
    return ((await res.json()) as any).access_token as string;
  };
  let child = await startEmbedded(env);
  // A failed expectation still stops the stack (every child, in order): no start outlives the test.
  let id: string;
  try {
    expect(await portOpen(Number(env.TEMPORAL_UI_PORT))).toBe(true);
    // It says where to go next, and the bundler's report stays out of the log.
    expect(child.output()).toContain(`[start]   API reference    http://localhost:${env.PORT}/docs`);
    expect(child.output()).toContain('bash scripts/walkthrough.sh');
    expect(child.output()).not.toMatch(/webpack|modules by path/);
    // No runtime warning: a supported Node, the development provider's storage named.
    expect(child.output()).not.toMatch(/Unsupported runtime|oidc-provider WARNING|DeprecationWarning|ExperimentalWarning|EBADENGINE/);
    const created = await fetch(`${base}/partner-relationships`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ requestingOrganizationId: 'org-alpine-freight', acceptingOrganizationId: 'org-cargo-coop', scopes: ['capacity:read'] }),
    });
    expect(created.status).toBe(201);
    id = ((await created.json()) as any).id;
    // A user with a name: personal data, sealed under the user's key before anything stores it.
    const invited = await fetch(`${base}/users`, { method: 'POST', headers: { authorization: `Bearer ${await token()}`, 'content-type': 'application/json' }, body: JSON.stringify({ userId: `zofia-${Date.now().toString(36)}`, name: PERSON, roles: ['viewer'] }) });
    expect(invited.status).toBe(201);
    const user = (await invited.json()) as any;
    expect(user.name).toBe(PERSON);
    sealedName = new PersonalData(new PersonalDataKeys(`${env.DATA_DIR}.personal-data-keys`)).seal(`user.${user.id}`, PERSON);
    // Temporal holds its payloads sealed (core/payload-codec.ts): the relationship's history, read
    // as anyone with access to Temporal would, shows none of its fields; the codec server opens
    // them for the UI on this machine.
    const connection = await Connection.connect({ address: `127.0.0.1:${env.TEMPORAL_PORT}` });
    try {
      const history = await new Client({ connection }).workflow.getHandle(`partner-relationship/${id}`).fetchHistory();
      const updates = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateCompletedEventAttributes);
      expect(updates.length).toBeGreaterThan(0);
      const raw = JSON.stringify(history.events, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v));
      expect(raw).not.toContain('acceptingOrganizationId');
      const sealed = updates.flatMap((e) => e.workflowExecutionUpdateCompletedEventAttributes?.outcome?.success?.payloads ?? []);
      expect(sealed.length).toBeGreaterThan(0);
      expect(sealed.every(isSealed)).toBe(true);
      const wire = sealed.map((p) => ({ metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v as Uint8Array).toString('base64')])), data: Buffer.from(p.data as Uint8Array).toString('base64') }));
      const decoded = await fetch(`${base}/codec/decode`, { method: 'POST', headers: { 'content-type': 'application/json', origin: `http://localhost:${env.TEMPORAL_UI_PORT}` }, body: JSON.stringify({ payloads: wire }) });
      expect({ status: decoded.status, cors: decoded.headers.get('access-control-allow-origin') }).toEqual({ status: 200, cors: `http://localhost:${env.TEMPORAL_UI_PORT}` });
      const opened = ((await decoded.json()) as any).payloads.map((p: any) => Buffer.from(p.data, 'base64').toString());
      expect(opened.join()).toContain('acceptingOrganizationId');
    } finally {
      await connection.close();
    }
    // The adapter gateway runs beside it: the README's example instruction dropped into the shipper's mailbox is answered.
    expect(child.output()).toContain(`[start]   adapter gateway  ${gateway}/diagnostics`);
    const mailbox = join(env.DATA_DIR, 'mailboxes', 'org-baltic-shippers');
    copyFileSync(join(ROOT, 'examples', 'edifact', 'transport-instruction.edi'), join(mailbox, 'in', 'transport-instruction.edi'));
    const aperak = join(mailbox, 'out', 'transport-instruction.aperak.edi');
    for (let i = 0; i < 200 && !existsSync(aperak); i++) await sleep(100);
    expect(readFileSync(aperak, 'utf8')).toMatch(/BGM\+313\+[^']*\+29'/);
    // The gateway's workflows hold the messages in transit sealed as well: their inputs are ciphertext.
    const gatewayTemporal = await Connection.connect({ address: `127.0.0.1:${env.TEMPORAL_PORT}` });
    try {
      const client = new Client({ connection: gatewayTemporal });
      const runs: string[] = [];
      for await (const w of client.workflow.list({ query: `TaskQueue = 'pcx-gateway'` })) runs.push(w.workflowId);
      expect(runs.length).toBeGreaterThan(0);
      const inputs = (await Promise.all(runs.map(async (w) => (await client.workflow.getHandle(w).fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? []))).flat();
      expect(inputs.length).toBeGreaterThan(0);
      expect(inputs.every(isSealed)).toBe(true);
    } finally {
      await gatewayTemporal.close();
    }
  } catch (err) {
    await interrupt(child);
    throw err;
  }

  expect(await interrupt(child)).toBe(0);
  // The stopped folder holds the name only sealed: not in PGlite's files, not in Temporal's SQLite.
  expect(filesHolding(env.DATA_DIR, PERSON)).toEqual([]);
  expect(filesHolding(env.DATA_DIR, sealedName).some((f) => f.includes('pglite'))).toBe(true);
  expect(await portOpen(Number(env.PORT))).toBe(false);
  expect(await portOpen(Number(env.TEMPORAL_UI_PORT))).toBe(false);
  expect(await portOpen(Number(env.GATEWAY_PORT))).toBe(false);
  // A backup of the stopped folder, as docs/deployment.md says.
  const backup = `${env.DATA_DIR}-backup.tgz`;
  const script = (name: string, ...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', `${name}.ts`), ...args], { cwd: ROOT, encoding: 'utf8' });
  expect(script('backup', '--data-dir', env.DATA_DIR, '--into', backup).status).toBe(0);

  // Started again as one restarts: the bundles the first start built are in the data folder.
  const again = { ...env, WORKFLOW_BUNDLE_FILE: join(env.DATA_DIR, 'workflow-bundle.js'), GATEWAY_WORKFLOW_BUNDLE_FILE: join(env.DATA_DIR, 'gateway-workflow-bundle.js') };
  child = await startEmbedded(again);
  const request = async () => {
    const res = await fetch(`${base}/partner-relationships/${id}/request`, { method: 'POST', headers: { authorization: `Bearer ${await token()}`, 'if-match': '"1"', 'idempotency-key': 'request-after-backup' } });
    return { status: res.status, version: ((await res.json()) as any).resourceVersion, replayed: res.headers.get('idempotent-replayed') };
  };
  let afterBackup: string;
  try {
    // The read model (PGlite) and the workflow (Temporal's SQLite file) both survived.
    expect(await request()).toEqual({ status: 200, version: 2, replayed: null });
    // The gateway's own database survived too.
    const health = (await (await fetch(`${gateway}/health`)).json()) as any;
    expect(health.organizations.find((o: any) => o.organizationId === 'org-baltic-shippers').adapters).toEqual([expect.objectContaining({ format: 'edifact', waiting: 0, lastReceivedAt: expect.any(String) })]);
    afterBackup = await cursorPast(base, await token(), id, 2);
  } finally {
    expect(await interrupt(child)).toBe(0);
  }

  // The whole folder restored to the backup (never over a folder: the newer one moved aside),
  // its format file with it (the folder npm start made carries it: core/data-folder.ts).
  renameSync(env.DATA_DIR, `${env.DATA_DIR}-moved-aside`);
  const restored = script('restore', '--from', backup, '--data-dir', env.DATA_DIR);
  expect({ status: restored.status, stderr: restored.stderr }).toEqual({ status: 0, stderr: expect.stringMatching(/feed history \S+ started/) });
  expect(JSON.parse(readFileSync(join(env.DATA_DIR, 'data-format.json'), 'utf8'))).toMatchObject({ format: 1 });
  child = await startEmbedded(again);
  try {
    const bearer = await token();
    // Both stores are back at the backup's instant: the relationship as it was then.
    const read = await fetch(`${base}/partner-relationships/${id}`, { headers: { authorization: `Bearer ${bearer}` } });
    expect(((await read.json()) as any).resourceVersion).toBe(1);
    // A cursor from after the backup names events that are gone: told so, with where to resume.
    const refused = await fetch(`${base}/events?cursor=${afterBackup}`, { headers: { authorization: `Bearer ${bearer}` } });
    expect({ status: refused.status, code: ((await refused.json()) as any).code }).toEqual({ status: 410, code: 'FEED_HISTORY_CHANGED' });
    // The command never happened in either store: its retry is applied once (Temporal takes the
    // If-Match 1 it was sent with), and the next retry is recognized.
    expect(await request()).toEqual({ status: 200, version: 2, replayed: null });
    expect(await request()).toEqual({ status: 200, version: 2, replayed: 'true' });
  } finally {
    expect(await interrupt(child)).toBe(0);
  }

  // Before the rebuild: a connector of Alpine's with a generated secret, and a feed cursor.
  child = await startEmbedded(again);
  let generated: { clientId: string; secret: string };
  let beforeRebuild: string;
  try {
    const bearer = await token();
    const res = await fetch(`${base}/connectors`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', 'idempotency-key': 'rebuild-connector' }, body: JSON.stringify({ clientId: 'alpine-rebuilt', name: 'Alpine after a rebuild', scopes: ['capacity:read'], generateClientSecret: true }) });
    const body = (await res.json()) as any;
    expect({ status: res.status, secret: typeof body.clientSecret }).toEqual({ status: 201, secret: 'string' });
    // The hash is the workflow's, never the document's.
    expect(JSON.stringify(body)).not.toMatch(/scrypt|secretHashes/);
    generated = { clientId: 'alpine-rebuilt', secret: body.clientSecret };
    beforeRebuild = await cursorPast(base, bearer, id, 2);
  } finally {
    expect(await interrupt(child)).toBe(0);
  }
  // The read model rebuilt in place from the folder's own Temporal histories (docs/deployment.md,
  // "Rebuilding the read model from Temporal"), no hand work: refused while a broker runs, then done.
  const rebuild = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'rebuild-read-model.ts'), '--in-place'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, DATA_DIR: env.DATA_DIR, DATABASE_URL: '', TEMPORAL_ADDRESS: '' } });
  expect({ status: rebuild.status, stderr: rebuild.stderr }).toEqual({ status: 0, stderr: expect.stringContaining('[rebuild] done:') });
  expect(readdirSync(env.DATA_DIR).some((f) => f.startsWith('pglite.before-rebuild-'))).toBe(true);
  child = await startEmbedded(again);
  try {
    // Nobody locked out: the demo connector (its secret from the file) and the generated one (its hash from the workflow).
    const signIn = async (clientId: string, secret: string) => (await fetch(`${base}/oauth2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }) })).status;
    expect({ demo: await signIn('alpine-tms', 'alpine-demo-secret'), generated: await signIn(generated.clientId, generated.secret), wrong: await signIn(generated.clientId, `${generated.secret}x`) }).toEqual({ demo: 200, generated: 200, wrong: 401 });
    const bearer = await token();
    // The relationship as it was, and a cursor from before the rebuild told where to resume (events keep their ids).
    const read = await fetch(`${base}/partner-relationships/${id}`, { headers: { authorization: `Bearer ${bearer}` } });
    expect(((await read.json()) as any).resourceVersion).toBe(2);
    const refused = await fetch(`${base}/events?cursor=${beforeRebuild}`, { headers: { authorization: `Bearer ${bearer}` } });
    const problem = (await refused.json()) as any;
    expect({ status: refused.status, code: problem.code, resume: typeof problem.resumeCursor }).toEqual({ status: 410, code: 'FEED_HISTORY_CHANGED', resume: 'string' });
    const resumed = (await (await fetch(`${base}/events?limit=200&cursor=${problem.resumeCursor}`, { headers: { authorization: `Bearer ${bearer}` } })).json()) as any;
    expect(resumed.items.some((e: any) => e.data?.id === id)).toBe(true);
    // The retried command of before is still recognized (the idempotency store was carried over).
    expect(await request()).toEqual({ status: 200, version: 2, replayed: 'true' });
  } finally {
    expect(await interrupt(child)).toBe(0);
  }
}, 360000);

test('a data folder from before the first release, or of another format, is refused at npm start with what to do; a backup of one is not restored', async () => {
  const old = join(testEnv().dir, 'npm-start-before-format');
  mkdirSync(join(old, 'pglite'), { recursive: true });
  writeFileSync(join(old, 'temporal.sqlite'), '');
  const env = { ...process.env, TEMPORAL_ADDRESS: '', DATABASE_URL: '', GATEWAY: 'off', DATA_DIR: old, PORT: String(await freePort()), TEMPORAL_PORT: String(await freePort()), TEMPORAL_UI_PORT: String(await freePort()) };
  // Refused before anything starts; were it not, Ctrl-C after a minute stops what did.
  const start = () => spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'start.ts')], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGINT' });
  const refused = start();
  expect(refused.status).toBe(2);
  expect(refused.stderr).toContain(`[start] refused: the data folder ${old} holds data from before the first release (it has no data-format.json)`);
  expect(refused.stderr).toContain(`npm run backup -- --data-dir ${old}`);
  expect(refused.stderr).not.toMatch(/nondetermin|Temporal dev server on/i);
  expect(readdirSync(old).sort()).toEqual(['pglite', 'temporal.sqlite']);
  // An older format: refused likewise.
  writeFileSync(join(old, 'data-format.json'), JSON.stringify({ format: 0 }));
  expect(start()).toMatchObject({ status: 2, stderr: expect.stringContaining(`[start] refused: the data folder ${old} holds data of format 0; this version reads format 1`) });
  // Backed up as the message says (the backup takes any stopped folder), then restored under this version: refused, the folder left empty.
  rmSync(join(old, 'data-format.json'));
  const script = (name: string, ...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', `${name}.ts`), ...args], { cwd: ROOT, encoding: 'utf8' });
  expect(script('backup', '--data-dir', old, '--into', `${old}.tgz`).status).toBe(0);
  const into = `${old}-restored`;
  const restored = script('restore', '--from', `${old}.tgz`, '--data-dir', into);
  expect({ status: restored.status, stderr: restored.stderr }).toEqual({ status: 1, stderr: expect.stringContaining(`restore refused: the data folder in ${old}.tgz holds data from before the first release`) });
  expect(readdirSync(into)).toEqual([]);
}, 120000);

/** Reads the organization's feed to its end, until the resource's event at `version` is in it: the cursor after it. */
async function cursorPast(base: string, bearer: string, id: string, version: number): Promise<string> {
  for (let attempt = 0; attempt < 60; attempt++) {
    let cursor: string | undefined;
    let seen = false;
    for (;;) {
      const page = (await (await fetch(`${base}/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: `Bearer ${bearer}` } })).json()) as any;
      seen ||= page.items.some((e: any) => e.data?.id === id && e.data?.resourceVersion === version);
      if (!page.items.length || !page.nextCursor) break;
      cursor = page.nextCursor;
    }
    if (seen && cursor) return cursor;
    await sleep(250);
  }
  throw new Error(`the feed never showed ${id} at version ${version}`);
}

/** The processes below `pid` (from /proc), with their command lines. */
function descendants(pid: number): Array<{ pid: number; cmd: string }> {
  const { readdirSync } = require('node:fs') as typeof import('node:fs');
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      // The fields after the command's closing parenthesis: state, then the parent's pid.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: Array<{ pid: number; cmd: string }> = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parentOf) {
      if (ppid !== parent) continue;
      let cmd = '';
      try {
        cmd = readFileSync(`/proc/${child}/cmdline`, 'utf8').replace(/\0/g, ' ');
      } catch {
        // gone meanwhile
      }
      found.push({ pid: child, cmd });
      walk(child);
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('a hostile mailbox and a killed gateway never stop the exchange; npm start killed leaves nothing running', async () => {
  const env = {
    PORT: String(await freePort()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    DATA_DIR: join(testEnv().dir, 'npm-start-supervision'),
    GATEWAY_PORT: String(await freePort()),
    GATEWAY_MAX_MESSAGE_BYTES: '200000',
  };
  const base = `http://127.0.0.1:${env.PORT}`;
  const gateway = `http://127.0.0.1:${env.GATEWAY_PORT}`;
  const child = await startEmbedded(env, { detached: true });
  const processes = () => descendants(child.pid!);
  try {
    // Poison in the mailbox: NUL bytes, a file over the limit, and a good instruction after them.
    const mailbox = join(env.DATA_DIR, 'mailboxes', 'org-baltic-shippers');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(mailbox, 'in', 'a-binary.edi'), Buffer.concat([Buffer.from("UNA:+.? 'UNB+UNOC:3+5790000000005+PCX+261206:0900+1'"), Buffer.alloc(64), Buffer.from('garbage')]));
    writeFileSync(join(mailbox, 'in', 'b-huge.edi'), Buffer.alloc(300_000, 'A'));
    copyFileSync(join(ROOT, 'examples', 'edifact', 'transport-instruction.edi'), join(mailbox, 'in', 'c-instruction.edi'));
    const out = (name: string) => join(mailbox, 'out', name);
    for (let i = 0; i < 300 && !existsSync(out('c-instruction.aperak.edi')); i++) await sleep(100);
    // Each bad file is held with its reason and answered (CONTRL rejected: 21 invalid characters, 18 too large); the good one is acted on.
    expect(readFileSync(out('a-binary.contrl.edi'), 'utf8')).toMatch(/UCI\+[^']*\+4\+21'/);
    expect(readFileSync(out('b-huge.contrl.edi'), 'utf8')).toMatch(/UCI\+[^']*\+4\+18'/);
    expect(readFileSync(out('c-instruction.aperak.edi'), 'utf8')).toMatch(/BGM\+313\+[^']*\+29'/);
    expect(existsSync(join(mailbox, 'taken', 'a-binary.edi'))).toBe(false);

    // The gateway killed: the broker keeps answering, and the gateway is back on its own.
    const before = processes().find((p) => p.cmd.includes('gateway/main.ts'))!;
    process.kill(before.pid, 'SIGKILL');
    let brokerDown = 0;
    let back = false;
    for (let i = 0; i < 60 && !back; i++) {
      await sleep(500);
      if (!(await fetch(`${base}/health/ready`).then((r) => r.ok, () => false))) brokerDown++;
      back = await fetch(`${gateway}/health/live`).then((r) => r.ok, () => false);
    }
    expect({ back, brokerDown }).toEqual({ back: true, brokerDown: 0 });
    expect(child.output()).toMatch(/the adapter gateway exited \(SIGKILL\); restarting it in \d+ s \(the broker keeps running\)/);
  } catch (err) {
    await stopEmbedded(child);
    throw err;
  }

  // npm start itself killed (no chance to stop its children): the broker, the gateway, the guard
  // and Temporal each notice and stop.
  const running = processes();
  const children = running.filter((p) => /broker\.ts|gateway\/main\.ts|child-guard|start-dev/.test(p.cmd));
  expect(children.length).toBeGreaterThanOrEqual(4);
  // The start is the spawned process itself (`node --import tsx scripts/start.ts`, no wrapper).
  process.kill(child.pid!, 'SIGKILL');
  for (let i = 0; i < 60 && children.some((p) => alive(p.pid)); i++) await sleep(500);
  expect(children.filter((p) => alive(p.pid)).map((p) => p.cmd)).toEqual([]);
  expect(await portOpen(Number(env.PORT))).toBe(false);
  expect(await portOpen(Number(env.GATEWAY_PORT))).toBe(false);
}, 240000);
