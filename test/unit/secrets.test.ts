// The key ring that seals secrets at rest (core/secrets.ts): AES-256-GCM under the primary key,
// opened under any key of the ring, refused for an unknown key, a tampered value or another
// record; a key file read again when it changes (rotation without a restart); the development
// key generated into the data folder with mode 600; secrets never logged.
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { FileKeyProvider, KeyRing, keyRingOf, newKeyFile, parseKeyFile, SecretsError, StaticKeyProvider } from '../../core/secrets';
import { openSigningSecrets, type SubscriptionRow } from '../../read-model/webhook-subscriptions';
import { createLogger } from '../../core/log';
import { loadConfig } from '../../core/config';

const key = (id: string) => ({ id, key: randomBytes(32) });

test('seals under the primary key and opens what any key of the ring sealed', () => {
  const a = key('a');
  const b = key('b');
  const old = new KeyRing(new StaticKeyProvider([a]));
  const sealedOld = old.seal('whsec_old', 'ctx');
  expect(sealedOld).toMatch(/^pcx-sealed:v1:a:/);
  expect(sealedOld).not.toContain('whsec_old');
  const ring = new KeyRing(new StaticKeyProvider([a, b]));
  expect(ring.primary).toBe('b');
  const sealedNew = ring.seal('whsec_new', 'ctx');
  expect(KeyRing.keyOf(sealedNew)).toBe('b');
  expect(ring.open(sealedNew, 'ctx')).toBe('whsec_new');
  expect(ring.open(sealedOld, 'ctx')).toBe('whsec_old');
  // The same secret sealed twice differs (a random IV each time).
  expect(ring.seal('x', 'ctx')).not.toBe(ring.seal('x', 'ctx'));
  expect(KeyRing.keyOf('whsec_clear')).toBeUndefined();
});

test('refuses an unknown key id, a tampered value and a value sealed for another record', () => {
  const ring = new KeyRing(new StaticKeyProvider([key('a')]));
  const other = new KeyRing(new StaticKeyProvider([key('z')]));
  expect(() => ring.open(other.seal('s', 'ctx'), 'ctx')).toThrow(/the key z is not in the key ring/);
  // Another key under the same id: the tag does not verify.
  const impostor = new KeyRing(new StaticKeyProvider([key('a')]));
  expect(() => ring.open(impostor.seal('s', 'ctx'), 'ctx')).toThrow(SecretsError);
  const sealed = ring.seal('whsec_abc', 'ctx');
  const parts = sealed.split(':');
  const flip = (b64: string) => {
    const bytes = Buffer.from(b64, 'base64url');
    bytes[0] ^= 1;
    return bytes.toString('base64url');
  };
  for (const i of [3, 4, 5]) {
    const tampered = [...parts];
    tampered[i] = flip(tampered[i]);
    expect(() => ring.open(tampered.join(':'), 'ctx')).toThrow(/does not open/);
  }
  // The key id is bound too: a value relabelled with another id of the ring does not open.
  const two = new KeyRing(new StaticKeyProvider([key('a'), key('b')]));
  const relabelled = two.seal('s', 'ctx').replace(':b:', ':a:');
  expect(() => two.open(relabelled, 'ctx')).toThrow(SecretsError);
  expect(() => ring.open(sealed, 'other record')).toThrow(/does not open/);
  expect(() => ring.open('whsec_abc', 'ctx')).toThrow(/not a sealed value/);
});

test('key files: checked, the last key (or the named primary) seals', () => {
  const k = () => randomBytes(32).toString('base64');
  expect(parseKeyFile(JSON.stringify({ keys: [{ id: 'a', key: k() }, { id: 'b', key: k() }] }), 'f').primary).toBe('b');
  expect(parseKeyFile(JSON.stringify({ primary: 'a', keys: [{ id: 'a', key: k() }, { id: 'b', key: k() }] }), 'f').primary).toBe('a');
  expect(() => parseKeyFile('nope', 'f')).toThrow(/not JSON/);
  expect(() => parseKeyFile('{"keys": []}', 'f')).toThrow(/at least one key/);
  expect(() => parseKeyFile(JSON.stringify({ keys: [{ id: 'a', key: randomBytes(16).toString('base64') }] }), 'f')).toThrow(/32 bytes/);
  expect(() => parseKeyFile(JSON.stringify({ keys: [{ id: 'a:b', key: k() }] }), 'f')).toThrow(/id must be/);
  expect(() => parseKeyFile(JSON.stringify({ keys: [{ id: 'a', key: k() }, { id: 'a', key: k() }] }), 'f')).toThrow(/distinct/);
  expect(() => parseKeyFile(JSON.stringify({ primary: 'c', keys: [{ id: 'a', key: k() }] }), 'f')).toThrow(/primary/);
  // The configuration checks the file at start, without echoing a key.
  const dir = mkdtempSync(join(tmpdir(), 'pcx-secrets-'));
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ keys: [{ id: 'a', key: 'c2hvcnQ=' }] }));
  expect(() => loadConfig({ SECRETS_KEY_FILE: bad })).toThrow(/SECRETS_KEY_FILE: keys\[0\] \(a\) must be 32 bytes/);
  expect(() => loadConfig({ SECRETS_KEY_FILE: join(dir, 'missing.json') })).toThrow(/SECRETS_KEY_FILE=.* does not exist/);
  const good = join(dir, 'good.json');
  writeFileSync(good, newKeyFile('k1'));
  expect(loadConfig({ SECRETS_KEY_FILE: good }).secrets.keyFile).toBe(good);
  expect(loadConfig({}).secrets.keyFile).toBeUndefined();
});

test('a key added to the file seals within the refresh interval, without a restart; the old key still opens', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-secrets-'));
  const file = join(dir, 'keys.json');
  writeFileSync(file, newKeyFile('k1'));
  const ring = new KeyRing(new FileKeyProvider(file), 0);
  const before = ring.seal('whsec_before', 'ctx');
  const json = JSON.parse(readFileSync(file, 'utf8'));
  json.keys.push({ id: 'k2', key: randomBytes(32).toString('base64') });
  writeFileSync(file, JSON.stringify(json));
  utimesSync(file, new Date(), new Date(Date.now() + 5000)); // a changed modification time, however fast the test
  expect(ring.primary).toBe('k2');
  const after = ring.seal('whsec_after', 'ctx');
  expect(KeyRing.keyOf(after)).toBe('k2');
  expect(ring.open(before, 'ctx')).toBe('whsec_before');
  // Another process (the rotation script, another replica) that already has k2: this one reads
  // the file again when it meets a key it does not know.
  const slow = new KeyRing(new StaticKeyProvider([{ id: 'k1', key: Buffer.from(json.keys[0].key, 'base64') }]));
  expect(() => slow.open(after, 'ctx')).toThrow(/k2 is not in the key ring/);
  const lazy = new KeyRing(new FileKeyProvider(file), 60_000);
  expect(lazy.open(after, 'ctx')).toBe('whsec_after');
  // A broken edit keeps the keys loaded before.
  writeFileSync(file, '{');
  utimesSync(file, new Date(), new Date(Date.now() + 10000));
  ring.refresh();
  expect(ring.open(after, 'ctx')).toBe('whsec_after');
});

test('npm start without SECRETS_KEY_FILE: a key file generated in the data folder, mode 600, once', () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'pcx-secrets-')), 'data');
  const first = keyRingOf({ keyFile: undefined, dataDir });
  expect(first.generated).toBe(join(dataDir, 'secrets-key.json'));
  expect(statSync(first.generated!).mode & 0o777).toBe(0o600);
  expect(keyRingOf({ keyFile: undefined, dataDir }).ring).toBe(first.ring);
  expect(keyRingOf({ keyFile: undefined, dataDir }).generated).toBeUndefined();
});

test('signing secrets open per subscription; a clear secret from before sealing is read as it is', () => {
  const ring = new KeyRing(new StaticKeyProvider([key('a')]));
  const id = '0190f0c0-0000-7000-8000-000000000001';
  const now = Date.now();
  const row: Pick<SubscriptionRow, 'id' | 'secrets'> = {
    id,
    secrets: [
      { sealed: ring.seal('whsec_new', `webhook-subscription:${id}`), createdAt: new Date(now).toISOString() },
      { secret: 'whsec_legacy', createdAt: new Date(now - 1000).toISOString(), expiresAt: new Date(now + 60_000).toISOString() },
    ],
  };
  expect(openSigningSecrets(row, now, ring)).toEqual(['whsec_new', 'whsec_legacy']);
  // Copied to another subscription's row, a sealed secret does not open.
  expect(() => openSigningSecrets({ ...row, id: '0190f0c0-0000-7000-8000-000000000002' }, now, ring)).toThrow(SecretsError);
});

test('secrets are never logged, LOG_REDACT or not', () => {
  for (const redact of [true, false]) {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const log = createLogger({ level: 'info', redact }, sink);
    log.info({ secret: 'whsec_a', clientSecret: 'cs_b', body: { signingSecret: 'whsec_c', password: 'pw_d', sealed: 'pcx-sealed:v1:x' }, authorization: 'Bearer e' }, 'm');
    expect(lines.join('')).not.toMatch(/whsec_a|cs_b|whsec_c|pw_d|pcx-sealed|Bearer e/);
  }
});
