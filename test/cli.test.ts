// `pcx` (sdk/src/cli/) against the running broker, on both engines, as a script would use it:
// a profile file only its owner reads, JSON on stdout and messages on stderr, exit codes by
// problem category, a help text for every command.
import { spawn } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { selfSignedCertificate } from './tls';
import { dirname, join } from 'node:path';
import { freshOrgs, testEnv } from './helpers';
import { offerBody } from './listing-fixtures';
import { freePort, ROOT } from './stack';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function pcx(args: string[], env: Record<string, string>, input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(ROOT, 'bin', 'pcx'), args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

const [org] = freshOrgs(1);
const config = mkdtempSync(join(testEnv().dir, 'pcx-config-'));
const env = { PCX_CONFIG_DIR: config, NO_COLOR: '1' };

// A broker that cannot be reached: pcx retries the connection with its backoff (seconds) before it
// gives up, so the call starts with the file and runs beside the tests before the one that checks it.
// (A port nothing listens on: fetch refuses port 9 itself, as a 'bad port'.)
let unreachable: Promise<{ closed: string; run: Run }>;
beforeAll(() => {
  unreachable = freePort().then(async (port) => {
    const closed = `http://127.0.0.1:${port}`;
    // Credentials from the environment, and a profile folder of its own: nothing shared with the login below.
    const own = { PCX_CONFIG_DIR: mkdtempSync(join(testEnv().dir, 'pcx-config-')), NO_COLOR: '1', PCX_CLIENT_ID: 'x', PCX_CLIENT_SECRET: 'y' };
    return { closed, run: await pcx(['--base-url', closed, 'offers', 'list'], own) };
  });
  unreachable.catch(() => undefined); // a failure is the exit codes test's, which awaits it
});

beforeAll(async () => {
  const login = await pcx(['--base-url', testEnv().baseUrl, 'login', '--client-id', org.clientId, '--client-secret-stdin'], env, `${org.secret}\n`);
  expect(login).toMatchObject({ code: 0, stdout: '' });
  expect(login.stderr).toContain(`as ${org.clientId}`);
}, 60_000);

test('login keeps the profile in a file of mode 600; profiles never shows the secret', async () => {
  const file = join(config, 'profiles.json');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.clientSecret).toBe(org.secret);
  const listed = await pcx(['--json', 'profiles'], env);
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout)).toEqual([{ name: 'default', default: '*', baseUrl: testEnv().baseUrl, clientId: org.clientId }]);
  expect(listed.stdout).not.toContain(org.secret);
  // Wrong credentials are refused before anything is stored.
  const wrong = await pcx(['--base-url', testEnv().baseUrl, '-p', 'wrong', 'login', '--client-id', org.clientId, '--client-secret-stdin'], env, 'nope\n');
  // Refused credentials are an authentication failure (exit 4), not an unreachable broker (9).
  expect(wrong.code).toBe(4);
  expect(wrong.stderr).toContain('401 UNAUTHENTICATED');
  expect(JSON.parse(readFileSync(file, 'utf8')).profiles.wrong).toBeUndefined();
}, 60_000);

test('create, command and read with --json: data on stdout only; a table otherwise', async () => {
  const created = await pcx(['--json', 'offers', 'create', '--file', '-'], env, JSON.stringify(offerBody()));
  expect(created.code).toBe(0);
  const offer = JSON.parse(created.stdout);
  expect(offer).toMatchObject({ status: 'draft', ownerOrganizationId: org.id });
  const published = await pcx(['--json', 'offers', 'publish', offer.id], env);
  expect(published.code).toBe(0);
  expect(JSON.parse(published.stdout)).toMatchObject({ status: 'published', resourceVersion: 2 });
  // A pinned version that is no longer current: 409, exit 6.
  const stale = await pcx(['offers', 'withdraw', offer.id, '--if-match', '1', '--data', '{"reason":"test"}'], env);
  expect(stale.code).toBe(6);
  expect(stale.stdout).toBe('');
  expect(stale.stderr).toContain('409 STALE_RESOURCE_VERSION');
  expect(stale.stderr).toMatch(/correlation id: \S+/);
  const table = await pcx(['offers', 'list', '--owner', org.id], env);
  expect(table.code).toBe(0);
  expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+OWNERORGANIZATIONID/);
  expect(table.stdout).toContain(offer.id);
  expect(table.stdout).not.toContain('\x1b[');
}, 60_000);

test('a recurring series from the command line: create, its table, a date skipped and a pause, each on the version current then (read again when the broker\'s clock had just moved it)', async () => {
  const { availabilityWindow: _w, expiresAt: _e, ...terms } = offerBody();
  const startDate = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const body = {
    listingKind: 'capacityOffer', terms, horizon: 'P2D',
    recurrence: { rrule: 'FREQ=DAILY', timeZone: 'Europe/Berlin', startDate },
    template: { windows: { availabilityWindow: { time: '08:00', duration: 'PT10H' } }, expiresAt: { before: 'PT2H' } },
  };
  const created = await pcx(['--json', 'series', 'create', '--file', '-'], env, JSON.stringify(body));
  expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
  const series = JSON.parse(created.stdout);
  expect(series).toMatchObject({ status: 'active', listingKind: 'capacityOffer' });
  const table = await pcx(['series', 'list'], env);
  expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+LISTINGKIND\s+RECURRENCE\.RRULE\s+RECURRENCE\.TIMEZONE/);
  expect(table.stdout).toContain(series.id);
  // A date a week ahead, not yet published, left out; then the series paused.
  const later = new Date(Date.now() + 8 * 86_400_000);
  const skipped = await pcx(['--json', 'series', 'skips', series.id, '--data', JSON.stringify({ key: later.toISOString().slice(0, 10), reason: 'depot closed' })], env);
  expect({ code: skipped.code, stderr: skipped.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(skipped.stdout).skipped).toEqual([expect.objectContaining({ reason: 'depot closed' })]);
  const paused = await pcx(['--json', 'series', 'pause', series.id], env);
  expect(paused.code).toBe(0);
  expect(JSON.parse(paused.stdout)).toMatchObject({ status: 'paused' });
}, 60_000);

test('exit codes by problem category', async () => {
  expect((await pcx(['offers', 'get', '01900000-0000-7000-8000-000000000001'], env)).code).toBe(5);
  expect((await pcx(['offers', 'create', '--data', '{"availableCapacity":"lots"}'], env)).code).toBe(3);
  expect((await pcx(['offers', 'create', '--data', 'not json'], env)).code).toBe(2);
  expect((await pcx(['offers', 'frobnicate'], env)).code).toBe(2);
  expect((await pcx(['-p', 'nobody', 'offers', 'list'], env)).code).toBe(2);
  // The unreachable broker: called as the file started (above).
  const { closed, run } = await unreachable;
  expect(run.code).toBe(9);
  // Said as a person needs it: where, and why; no runtime's error class.
  expect(run.stderr).toContain(closed);
  expect(run.stderr).toContain('ECONNREFUSED');
  expect(run.stderr).not.toContain('TypeError');
}, 120_000);

test('events tail prints the feed, one JSON object per line with --json', async () => {
  const tail = await pcx(['--json', 'events', 'tail'], env);
  expect(tail.code).toBe(0);
  const events = tail.stdout.trim().split('\n').map((line) => JSON.parse(line));
  expect(events.map((e) => e.type)).toContain('pcx.capacity-offer.published.v1');
}, 60_000);

test('every command has its --help', async () => {
  const top = await pcx(['--help'], env);
  expect(top.code).toBe(0);
  expect(top.stdout).toContain('Exit codes:');
  for (const command of ['login', 'offers', 'offers publish', 'proposals decide', 'events tail', 'wait proposal', 'request', 'webhooks redeliver', 'gateway settings set']) {
    const help = await pcx([...command.split(' '), '--help'], env);
    expect({ command, code: help.code }).toEqual({ command, code: 0 });
    expect(help.stdout).toContain(`Usage: pcx ${command}`);
  }
}, 120_000);

test('pcx keys generate writes a private key only its owner reads and never overwrites it; login with a private key (private_key_jwt) works like a secret', async () => {
  const dir = mkdtempSync(join(testEnv().dir, 'pcx-keys-'));
  const own = { PCX_CONFIG_DIR: dir, NO_COLOR: '1' };
  const file = join(dir, 'connector.key.json');
  const generated = await pcx(['keys', 'generate', '--out', file], own);
  expect(generated.code).toBe(0);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const printed = JSON.parse(generated.stdout);
  expect(printed).toEqual(expect.objectContaining({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) }));
  expect(printed.d).toBeUndefined();
  expect(JSON.parse((await pcx(['keys', 'public', file], own)).stdout)).toEqual(printed);
  expect((await pcx(['keys', 'generate', '--out', file], own)).code).toBe(2);
  // The test registry's client-keys connector, with its registered key (test/stack.ts).
  const keys = JSON.parse(readFileSync(join(dirname(testEnv().registry.connectorsFile), 'connector-keys.json'), 'utf8'));
  const keyFile = join(dir, 'client-keys.json');
  writeFileSync(keyFile, JSON.stringify(keys.es256), { mode: 0o600 });
  const login = await pcx(['--base-url', testEnv().baseUrl, '-p', 'keys', 'login', '--client-id', 'client-keys', '--private-key', keyFile], own);
  expect(login).toMatchObject({ code: 0 });
  const profiles = readFileSync(join(dir, 'profiles.json'), 'utf8');
  expect(profiles).toContain(keyFile);
  expect(profiles).not.toContain(keys.es256.d); // the key stays in its file
  expect((await pcx(['-p', 'keys', 'relationships', 'list'], own)).code).toBe(0);
  // A key the connector does not have: refused at login, nothing kept.
  const wrong = await pcx(['--base-url', testEnv().baseUrl, '-p', 'wrong', 'login', '--client-id', 'client-keys', '--private-key', file], own);
  expect(wrong.code).not.toBe(0);
  expect(wrong.stderr).toMatch(/no key of client-keys has the kid/);
  expect(readFileSync(join(dir, 'profiles.json'), 'utf8')).not.toContain('"wrong"');
});

test('pcx login --dpop binds every token to a key of the run; --certificate authenticates at the mutual-TLS address', async () => {
  const dir = mkdtempSync(join(testEnv().dir, 'pcx-bound-'));
  const own = { PCX_CONFIG_DIR: dir, NO_COLOR: '1' };
  const keys = JSON.parse(readFileSync(join(dirname(testEnv().registry.connectorsFile), 'connector-keys.json'), 'utf8'));
  const keyFile = join(dir, 'client-keys.json');
  writeFileSync(keyFile, JSON.stringify(keys.es256), { mode: 0o600 });
  const dpop = await pcx(['--base-url', testEnv().baseUrl, '-p', 'dpop', 'login', '--client-id', 'client-keys', '--private-key', keyFile, '--dpop'], own);
  expect(dpop).toMatchObject({ code: 0 });
  expect(JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')).profiles.dpop).toEqual(expect.objectContaining({ dpop: true, privateKeyFile: keyFile }));
  expect((await pcx(['-p', 'dpop', 'relationships', 'list'], own)).code).toBe(0);
  // A certificate of the registered key (self_signed_tls_client_auth), at the mutual-TLS address.
  const keyPem = createPrivateKey({ key: keys.es256, format: 'jwk' }).export({ format: 'pem', type: 'pkcs8' }) as string;
  const certFile = join(dir, 'client.pem');
  const certKeyFile = join(dir, 'client.key');
  writeFileSync(certFile, selfSignedCertificate(keyPem, 'client-keys'));
  writeFileSync(certKeyFile, keyPem, { mode: 0o600 });
  const ca = join(testEnv().webhooks.tlsDir, 'ca.pem');
  const mtls = await pcx(['--base-url', testEnv().mtls.baseUrl, '-p', 'mtls', 'login', '--client-id', 'client-keys', '--certificate', certFile, '--certificate-key', certKeyFile, '--ca', ca], own);
  expect(mtls).toMatchObject({ code: 0 });
  const listed = await pcx(['-p', 'mtls', '--json', 'relationships', 'list'], own);
  expect(listed.code).toBe(0);
  expect(Array.isArray(JSON.parse(listed.stdout))).toBe(true);
});
