// Configuration is validated at start, naming each bad variable.
import { ConfigError, loadConfig } from '../core/config';
import { createLogger, redact } from '../core/log';

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

test('production mode refuses the development authorization server and needs a key set and PostgreSQL', () => {
  expect(() => loadConfig({ PCX_MODE: 'production' })).toThrow(/AUTH_JWKS_URL[\s\S]*DATABASE_URL|DATABASE_URL[\s\S]*AUTH_JWKS_URL/);
  expect(() => loadConfig({ PCX_MODE: 'production', DEV_AUTH: 'true', AUTH_JWKS_URL: 'https://idp.example/jwks', DATABASE_URL: 'postgres://x/y' })).toThrow(/DEV_AUTH/);
  const ok = loadConfig({ PCX_MODE: 'production', AUTH_JWKS_URL: 'https://idp.example/jwks', DATABASE_URL: 'postgres://x/y' });
  expect(ok.auth.devServer).toBe(false);
});

test('logs redact exact locations, customer identity and goods details at any depth', () => {
  const lines: string[] = [];
  const log = createLogger({ level: 'info', redact: true }, (l) => lines.push(l));
  log.info('x', { body: { pickupArea: { address: 'Hafenstr. 1', coordinates: [9.9, 53.5] }, customerName: 'ACME', goodsDescription: 'TVs', status: 'ok' } });
  const entry = JSON.parse(lines[0]);
  expect(entry.body).toEqual({ pickupArea: { address: '[redacted]', coordinates: '[redacted]' }, customerName: '[redacted]', goodsDescription: '[redacted]', status: 'ok' });
  expect(redact([{ price: 1 }])).toEqual([{ price: '[redacted]' }]);
  log.debug('hidden');
  expect(lines).toHaveLength(1);
});
