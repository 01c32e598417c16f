// Configuration is validated at start, naming each bad variable.
import { ConfigError, loadConfig } from '../../core/config';
import { createLogger, redact } from '../../core/log';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A key ring file, which production requires (SECRETS_KEY_FILE). */
const SECRETS_KEY_FILE = join(fs.mkdtempSync(join(tmpdir(), 'pcx-config-')), 'secrets-key.json');
fs.writeFileSync(SECRETS_KEY_FILE, JSON.stringify({ keys: [{ id: 'k1', key: Buffer.alloc(32, 7).toString('base64') }] }), { mode: 0o600 });
/** And the folder of personal data keys (PERSONAL_DATA_KEYS_DIR). */
const KEYS = { SECRETS_KEY_FILE, PERSONAL_DATA_KEYS_DIR: join(tmpdir(), 'pcx-config-personal-data-keys') };

test('defaults describe the embedded set-up', () => {
  const config = loadConfig({});
  expect(config).toMatchObject({
    mode: 'development',
    port: 8080,
    databaseUrl: undefined,
    temporal: { address: '127.0.0.1:7233', namespace: 'default', taskQueue: 'pcx' },
    auth: { audience: 'pcx-broker', devServer: true },
    idempotencyTtlSeconds: 86400,
    limits: { maxBodyBytes: 262144, maxRelationshipBodyBytes: 65536, invitesPerMinute: 10, invitesPerHour: 50, maxPendingOutbound: 100 },
  });
  expect(config.schemaBase).toBe('http://localhost:8080/schemas');
});

test('every bad value is named in one error', () => {
  let error: ConfigError | undefined;
  try {
    loadConfig({ PORT: '99999', PCX_MODE: 'prod', INVITES_PER_MINUTE: '5', DATABASE_URL: 'mysql://x', DEV_AUTH: 'maybe', TEMPORAL_ADDRESS: 'nohost' });
  } catch (err) {
    error = err as ConfigError;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const text = error!.problems.join('\n');
  for (const name of ['PORT', 'PCX_MODE', 'INVITES_PER_MINUTE', 'DATABASE_URL', 'DEV_AUTH', 'TEMPORAL_ADDRESS']) expect(text).toContain(name);
});

test('production mode refuses the development authorization server, needs PostgreSQL, and runs the broker\'s own token endpoint unless an external issuer replaces it', () => {
  expect(() => loadConfig({ PCX_MODE: 'production', ...KEYS })).toThrow(/DATABASE_URL/);
  // The key that seals secrets at rest comes from configuration, the same in every replica.
  expect(() => loadConfig({ PCX_MODE: 'production', DATABASE_URL: 'postgres://x/y' })).toThrow(/SECRETS_KEY_FILE is required with PCX_MODE=production/);
  expect(() => loadConfig({ PCX_MODE: 'production', SECRETS_KEY_FILE, DATABASE_URL: 'postgres://x/y' })).toThrow(/PERSONAL_DATA_KEYS_DIR is required with PCX_MODE=production/);
  // Elsewhere the keys' folder is the data folder's neighbour, outside it (a backup of the folder holds no key).
  expect(loadConfig({ DATA_DIR: '/srv/pcx/data' }).secrets.personalDataKeysDir).toBe('/srv/pcx/data.personal-data-keys');
  expect(() => loadConfig({ PCX_MODE: 'production', ...KEYS, DEV_AUTH: 'true', AUTH_JWKS_URL: 'https://idp.example/jwks', DATABASE_URL: 'postgres://x/y' })).toThrow(/DEV_AUTH/);
  // The broker's token endpoint in production: no external key set needed; client secrets refused by default.
  const own = loadConfig({ PCX_MODE: 'production', ...KEYS, DATABASE_URL: 'postgres://x/y', PUBLIC_BASE_URL: 'https://pcx.example' });
  expect(own.auth).toMatchObject({ devServer: false, tokenEndpoint: { issuer: 'https://pcx.example/oauth2' }, clientSecrets: false, jwksUrl: undefined });
  expect(loadConfig({ PCX_MODE: 'production', ...KEYS, DATABASE_URL: 'postgres://x/y', CLIENT_SECRETS: 'true' }).auth.clientSecrets).toBe(true);
  expect(loadConfig({}).auth.clientSecrets).toBe(true);
  // An external identity provider under the broker's issuer name (the older set-up): the token endpoint is off.
  const external = loadConfig({ PCX_MODE: 'production', ...KEYS, AUTH_JWKS_URL: 'https://idp.example/jwks', DATABASE_URL: 'postgres://x/y' });
  expect(external.auth).toMatchObject({ devServer: false, tokenEndpoint: undefined });
  // Both, each under its own issuer.
  const both = loadConfig({ PCX_MODE: 'production', ...KEYS, AUTH_ISSUER: 'https://idp.example', AUTH_JWKS_URL: 'https://idp.example/jwks', DATABASE_URL: 'postgres://x/y', PUBLIC_BASE_URL: 'https://pcx.example' });
  expect(both.auth).toMatchObject({ issuer: 'https://idp.example', tokenEndpoint: { issuer: 'https://pcx.example/oauth2' } });
  expect(() => loadConfig({ AUTH_JWKS_URL: 'https://idp.example/jwks', BROKER_TOKEN_ENDPOINT: 'true' })).toThrow(/AUTH_ISSUER/);
  expect(() => loadConfig({ DEV_AUTH: 'false', BROKER_TOKEN_ENDPOINT: 'false' })).toThrow(/AUTH_JWKS_URL/);
});

test('token lifetime settings: the skew and the cap are bounded, and development tokens fit under the cap', () => {
  const defaults = loadConfig({});
  expect(defaults.auth).toMatchObject({ clockSkewSeconds: 60, maxTokenLifetimeSeconds: 86400, tokenTtlSeconds: 3600 });
  expect(loadConfig({ AUTH_CLOCK_SKEW_SECONDS: '0', AUTH_MAX_TOKEN_LIFETIME_SECONDS: '600', TOKEN_TTL_SECONDS: '600' }).auth).toMatchObject({
    clockSkewSeconds: 0,
    maxTokenLifetimeSeconds: 600,
    tokenTtlSeconds: 600,
  });
  for (const [env, name] of [
    [{ AUTH_CLOCK_SKEW_SECONDS: '-1' }, 'AUTH_CLOCK_SKEW_SECONDS'],
    [{ AUTH_CLOCK_SKEW_SECONDS: '3600' }, 'AUTH_CLOCK_SKEW_SECONDS'],
    [{ AUTH_MAX_TOKEN_LIFETIME_SECONDS: '10' }, 'AUTH_MAX_TOKEN_LIFETIME_SECONDS'],
    [{ AUTH_MAX_TOKEN_LIFETIME_SECONDS: String(50 * 365 * 86400) }, 'AUTH_MAX_TOKEN_LIFETIME_SECONDS'],
    [{ AUTH_MAX_TOKEN_LIFETIME_SECONDS: '600' }, 'TOKEN_TTL_SECONDS'],
    [{ AUTH_MAX_TOKEN_LIFETIME_SECONDS: '3600', TOKEN_TTL_SECONDS: '7200' }, 'TOKEN_TTL_SECONDS'],
  ] as const) {
    expect(() => loadConfig(env)).toThrow(new RegExp(name));
  }
  // Without the development server there are no development tokens to fit under the cap.
  expect(loadConfig({ DEV_AUTH: 'false', AUTH_JWKS_URL: 'https://idp.example/jwks', AUTH_MAX_TOKEN_LIFETIME_SECONDS: '600' }).auth.maxTokenLifetimeSeconds).toBe(600);
});

test('logs redact exact locations, customer identity and goods details at any depth', () => {
  const lines: string[] = [];
  const log = createLogger({ level: 'info', redact: true }, { write: (l: string) => lines.push(l) });
  log.info({ body: { pickupArea: { address: 'Hafenstr. 1', coordinates: [9.9, 53.5] }, customerName: 'ACME', goodsDescription: 'TVs', status: 'ok' } }, 'x');
  const entry = JSON.parse(lines[0]);
  expect(entry).toMatchObject({ level: 'info', msg: 'x', pid: process.pid });
  expect(Number.isNaN(Date.parse(entry.time))).toBe(false);
  expect(entry.body).toEqual({ pickupArea: { address: '[redacted]', coordinates: '[redacted]' }, customerName: '[redacted]', goodsDescription: '[redacted]', status: 'ok' });
  expect(redact([{ price: 1 }])).toEqual([{ price: '[redacted]' }]);
  // Execution records: external references, positions and the handover package (reference rule 7).
  expect(redact({ externalTripRef: { value: 'T-1' }, sourceExternalReferences: [], position: {}, package: {}, milestone: 'pickedUp' })).toEqual({
    externalTripRef: '[redacted]', sourceExternalReferences: '[redacted]', position: '[redacted]', package: '[redacted]', milestone: 'pickedUp',
  });
  log.debug('hidden');
  expect(lines).toHaveLength(1);
  // Without redaction (LOG_REDACT=false, for local debugging) the fields pass as given.
  const plain: string[] = [];
  createLogger({ level: 'debug', redact: false }, { write: (l: string) => plain.push(l) }).debug({ customerName: 'ACME' }, 'y');
  expect(JSON.parse(plain[0])).toMatchObject({ level: 'debug', msg: 'y', customerName: 'ACME' });
});

describe('Temporal TLS and API key (TEMPORAL_TLS*, TEMPORAL_API_KEY*)', () => {
  // Real PEM files, made with openssl: a CA, a client certificate it signs, and a stray key.
  let dir: string;
  const f = (name: string) => join(dir, name);
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(join(tmpdir(), 'pcx-config-tls-'));
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    ssl('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '1', '-subj', '/CN=test-ca');
    ssl('req', ...ec, '-keyout', f('client.key'), '-out', f('client.csr'), '-subj', '/CN=pcx-broker');
    ssl('x509', '-req', '-in', f('client.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-set_serial', '7', '-days', '1', '-out', f('client.crt'));
    ssl('genpkey', '-algorithm', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', f('other.key'));
    fs.writeFileSync(f('api-key'), 'tmprl-key.abc123\n');
    fs.writeFileSync(f('empty'), '\n');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('off by default: a plain connection, as to the dev server', () => {
    const config = loadConfig({});
    expect(config.temporal.tls).toBeUndefined();
    expect(config.temporal.apiKey).toBeUndefined();
    expect(config.workerHealthPort).toBe(8081);
  });

  test('mutual TLS: certificate, key, CA and server name; TLS implied by any of them', () => {
    const config = loadConfig({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_TLS_CERT_FILE: f('client.crt'),
      TEMPORAL_TLS_KEY_FILE: f('client.key'),
      TEMPORAL_TLS_CA_FILE: f('ca.crt'),
      TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal.internal',
    });
    expect(config.temporal.tls).toEqual({ certFile: f('client.crt'), keyFile: f('client.key'), caFile: f('ca.crt'), serverName: 'frontend.temporal.internal' });
    expect(loadConfig({ TEMPORAL_TLS_CA_FILE: f('ca.crt') }).temporal.tls).toEqual({ caFile: f('ca.crt') });
    // TLS against the system's trusted roots (a public certificate, as Temporal Cloud has).
    expect(loadConfig({ TEMPORAL_TLS: 'true' }).temporal.tls).toEqual({});
    expect(loadConfig({ TEMPORAL_TLS: 'false' }).temporal.tls).toBeUndefined();
  });

  test('files must exist, be readable files and hold what their variable names', () => {
    expect(problemsOf({ TEMPORAL_TLS_CA_FILE: f('missing.crt') })).toEqual([`TEMPORAL_TLS_CA_FILE=${JSON.stringify(f('missing.crt'))} does not exist`]);
    expect(problemsOf({ TEMPORAL_TLS_CA_FILE: dir })).toEqual([`TEMPORAL_TLS_CA_FILE=${JSON.stringify(dir)} is a directory`]);
    expect(problemsOf({ TEMPORAL_TLS_CA_FILE: f('ca.key') })).toEqual([`TEMPORAL_TLS_CA_FILE=${JSON.stringify(f('ca.key'))} is not a PEM certificate`]);
    expect(problemsOf({ TEMPORAL_TLS_CERT_FILE: f('client.key'), TEMPORAL_TLS_KEY_FILE: f('client.key') })).toEqual([
      `TEMPORAL_TLS_CERT_FILE=${JSON.stringify(f('client.key'))} is not a PEM certificate`,
    ]);
    expect(problemsOf({ TEMPORAL_TLS_CERT_FILE: f('client.crt'), TEMPORAL_TLS_KEY_FILE: f('client.crt') })).toEqual([
      `TEMPORAL_TLS_KEY_FILE=${JSON.stringify(f('client.crt'))} is not an unencrypted PEM private key`,
    ]);
    expect(problemsOf({ TEMPORAL_TLS_CERT_FILE: f('client.crt'), TEMPORAL_TLS_KEY_FILE: f('other.key') })).toEqual([
      'TEMPORAL_TLS_KEY_FILE is not the private key of the certificate in TEMPORAL_TLS_CERT_FILE',
    ]);
    if (process.getuid?.() !== 0) {
      // root reads every file, so this case only shows for other users.
      fs.copyFileSync(f('ca.crt'), f('locked.crt'));
      fs.chmodSync(f('locked.crt'), 0o000);
      expect(problemsOf({ TEMPORAL_TLS_CA_FILE: f('locked.crt') })).toEqual([`TEMPORAL_TLS_CA_FILE=${JSON.stringify(f('locked.crt'))} is not readable`]);
    }
  });

  test('a client certificate needs its key and the other way round', () => {
    expect(problemsOf({ TEMPORAL_TLS_CERT_FILE: f('client.crt') })).toEqual([
      'TEMPORAL_TLS_CERT_FILE needs TEMPORAL_TLS_KEY_FILE (a client certificate and its key go together)',
    ]);
    expect(problemsOf({ TEMPORAL_TLS_KEY_FILE: f('client.key') })).toEqual([
      'TEMPORAL_TLS_KEY_FILE needs TEMPORAL_TLS_CERT_FILE (a client certificate and its key go together)',
    ]);
  });

  test('TEMPORAL_TLS=false cannot be combined with TLS settings; other values are refused', () => {
    expect(problemsOf({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_CA_FILE: f('ca.crt'), TEMPORAL_TLS_SERVER_NAME: 'x.example' })).toEqual([
      'TEMPORAL_TLS=false contradicts TEMPORAL_TLS_CA_FILE, TEMPORAL_TLS_SERVER_NAME',
    ]);
    expect(problemsOf({ TEMPORAL_TLS: 'yes' })).toEqual(['TEMPORAL_TLS="yes" must be true or false']);
    expect(problemsOf({ TEMPORAL_TLS_SERVER_NAME: 'bad name' })).toEqual(['TEMPORAL_TLS_SERVER_NAME="bad name" must be a host name']);
  });

  test('API key from the variable or a file, TLS implied; never both, never empty, never in clear text in production', () => {
    const fromVar = loadConfig({ TEMPORAL_API_KEY: 'tmprl-key.abc123' });
    expect(fromVar.temporal).toMatchObject({ apiKey: 'tmprl-key.abc123', tls: {} });
    expect(loadConfig({ TEMPORAL_API_KEY_FILE: f('api-key') }).temporal.apiKey).toBe('tmprl-key.abc123');
    expect(problemsOf({ TEMPORAL_API_KEY: 'a', TEMPORAL_API_KEY_FILE: f('api-key') })).toEqual(['set TEMPORAL_API_KEY or TEMPORAL_API_KEY_FILE, not both']);
    expect(problemsOf({ TEMPORAL_API_KEY_FILE: f('empty') })).toEqual([`TEMPORAL_API_KEY_FILE=${JSON.stringify(f('empty'))} is empty`]);
    expect(problemsOf({ TEMPORAL_API_KEY_FILE: f('nope') })).toEqual([`TEMPORAL_API_KEY_FILE=${JSON.stringify(f('nope'))} does not exist`]);
    // The key's value never appears in a message.
    const spaced = problemsOf({ TEMPORAL_API_KEY: 'secret value' });
    expect(spaced).toEqual(['TEMPORAL_API_KEY must hold one token of visible ASCII characters']);
    // Development may talk to a plain local server with a key; production may not.
    expect(loadConfig({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }).temporal).toMatchObject({ apiKey: 'k', tls: undefined });
    const production = { PCX_MODE: 'production', ...KEYS, DATABASE_URL: 'postgres://x/y', AUTH_JWKS_URL: 'https://idp.example/jwks' };
    expect(problemsOf({ ...production, TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' })).toEqual([
      'TEMPORAL_TLS=false would send the Temporal API key in clear text; not allowed with PCX_MODE=production',
    ]);
    expect(loadConfig({ ...production, TEMPORAL_API_KEY: 'k' }).temporal.tls).toEqual({});
  });

  test('the mutual-TLS listener (MTLS_*): off unless MTLS_PORT; its certificate and key read and checked at start', () => {
    expect(loadConfig({}).mtls).toBeUndefined();
    expect(loadConfig({ MTLS_PORT: '8443', MTLS_CERT_FILE: f('client.crt'), MTLS_KEY_FILE: f('client.key') }).mtls).toEqual({
      port: 8443, baseUrl: 'https://localhost:8443', certFile: f('client.crt'), keyFile: f('client.key'),
    });
    expect(loadConfig({ MTLS_PORT: '8443', MTLS_CERT_FILE: f('client.crt'), MTLS_KEY_FILE: f('client.key'), MTLS_BASE_URL: 'https://mtls.pcx.example/' }).mtls!.baseUrl).toBe('https://mtls.pcx.example');
    expect(problemsOf({ MTLS_CERT_FILE: f('client.crt') })).toEqual(['MTLS_CERT_FILE needs MTLS_PORT (the mutual-TLS listener)']);
    expect(problemsOf({ MTLS_PORT: '8443' })).toEqual([expect.stringContaining('MTLS_PORT needs MTLS_CERT_FILE and MTLS_KEY_FILE')]);
    expect(problemsOf({ MTLS_PORT: '8443', MTLS_CERT_FILE: f('client.crt'), MTLS_KEY_FILE: f('other.key') })).toEqual(['MTLS_KEY_FILE is not the private key of the certificate in MTLS_CERT_FILE']);
    expect(problemsOf({ MTLS_PORT: '8443', MTLS_CERT_FILE: f('client.key'), MTLS_KEY_FILE: f('client.key') })).toEqual([expect.stringContaining('MTLS_CERT_FILE=')]);
    expect(problemsOf({ MTLS_PORT: '8443', MTLS_CERT_FILE: f('missing.crt'), MTLS_KEY_FILE: f('client.key') })).toEqual([expect.stringContaining('does not exist')]);
  });

  test('every problem is collected into one ConfigError naming each variable', () => {
    const problems = problemsOf({
      TEMPORAL_TLS_CERT_FILE: f('client.crt'),
      TEMPORAL_TLS_CA_FILE: f('missing.crt'),
      TEMPORAL_API_KEY_FILE: f('empty'),
      WORKER_HEALTH_PORT: '70000',
      PORT: '0',
    });
    const text = problems.join('\n');
    for (const name of ['TEMPORAL_TLS_CERT_FILE needs TEMPORAL_TLS_KEY_FILE', 'TEMPORAL_TLS_CA_FILE', 'TEMPORAL_API_KEY_FILE', 'WORKER_HEALTH_PORT', 'PORT']) expect(text).toContain(name);
    expect(problems).toHaveLength(5);
  });
});

test("the transparency log's origin names a note key, its witnesses are Ed25519 note verifier keys", () => {
  expect(loadConfig({ PORT: '3000' }).transparencyLog).toMatchObject({ origin: 'localhost:3000/transparency-log', keyFile: undefined, checkpointSeconds: 60, witnessKeys: [] });
  expect(() => loadConfig({ TRANSPARENCY_LOG_ORIGIN: 'exchange example' })).toThrow(/TRANSPARENCY_LOG_ORIGIN="exchange example" must be 1 to 200 characters without spaces or '\+'/);
  const witness = 'test-witness.example+3e89e620+AXuKz5PuXKBJHM41kqg/DSccDH2bmuVAXme83ru00RWb';
  expect(loadConfig({ TRANSPARENCY_LOG_WITNESS_KEYS: `${witness}, ${witness.replace('test-', 'other-')}` }).transparencyLog.witnessKeys).toHaveLength(2);
  expect(() => loadConfig({ TRANSPARENCY_LOG_WITNESS_KEYS: `${witness} PRIVATE+KEY+x+00000000+AAAA` })).toThrow(/"PRIVATE\+KEY\+x\+00000000\+AAAA" is not an Ed25519 note verifier key/);
  expect(() => loadConfig({ TRANSPARENCY_LOG_KEY_FILE: '/nonexistent/key.txt' })).toThrow(/TRANSPARENCY_LOG_KEY_FILE="\/nonexistent\/key.txt" does not exist/);
});
