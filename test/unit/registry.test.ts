// Connector registry rules (core/registry.ts): who holds a clientSecret. The development
// authorization server needs one per connector; in production connectors authenticate to the
// external identity provider (private_key_jwt or mutual TLS) and the registry holds no secret.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../core/config';
import { clientSecretPolicy, Registry } from '../../core/registry';

const ROOT = join(__dirname, '..', '..');
const ORGANIZATIONS = join(ROOT, 'config', 'organizations.json');
const DEMO_CLIENTS = join(ROOT, 'config', 'demo-clients.json');
const PRODUCTION_EXAMPLE = join(ROOT, 'config', 'connectors.example.json');

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'pcx-registry-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function connectorsFile(entries: unknown[]): string {
  const file = join(dir, `connectors-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(entries));
  return file;
}

const entry = (extra: Record<string, unknown> = {}) => ({ organizationId: 'org-alpine-freight', clientId: 'alpine-tms', scopes: ['capacity:read'], ...extra });

test('the policy follows the configuration: required with DEV_AUTH, refused in production, ignored otherwise', () => {
  expect(clientSecretPolicy(loadConfig({}))).toBe('required');
  expect(clientSecretPolicy(loadConfig({ PCX_MODE: 'production', DATABASE_URL: 'postgres://x/y', AUTH_JWKS_URL: 'https://idp.example/jwks', SECRETS_KEY_FILE: secretsKeyFile(), PERSONAL_DATA_KEYS_DIR: join(tmpdir(), 'pcx-registry-personal-data-keys') }))).toBe('refused');
  expect(clientSecretPolicy(loadConfig({ DEV_AUTH: 'false', AUTH_JWKS_URL: 'https://idp.example/jwks' }))).toBe('ignored');
});

test('with the development authorization server every connector needs a clientSecret or public keys', () => {
  const demo = Registry.load(ORGANIZATIONS, DEMO_CLIENTS, 'sandbox', 'required');
  expect(demo.connector('alpine-tms')!.clientSecret).toBe('alpine-demo-secret');
  expect(() => Registry.load(ORGANIZATIONS, connectorsFile([entry()]), 'sandbox', 'required')).toThrow(
    /\[0\] needs a clientSecret or public keys \(jwks\) while the development authorization server \(DEV_AUTH\) is on/,
  );
  expect(() => Registry.load(ORGANIZATIONS, connectorsFile([entry({ clientSecret: '' })]), 'sandbox', 'required')).toThrow(/needs a clientSecret or public keys/);
  // Public keys only: loaded; private key material or a symmetric key: refused with the place.
  const publicKey = { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', kid: 'k1' };
  expect(Registry.load(ORGANIZATIONS, connectorsFile([entry({ jwks: { keys: [publicKey] } })]), 'sandbox', 'required').connector('alpine-tms')?.jwks?.keys).toEqual([publicKey]);
  expect(() => Registry.load(ORGANIZATIONS, connectorsFile([entry({ jwks: { keys: [{ ...publicKey, d: 'secret' }] } })]), 'sandbox', 'required')).toThrow(/\[0\]\.jwks\.keys\[0\] holds private members \(d\)/);
  // A weak key in a seed is refused as through the API (core/public-keys.ts): an RSA exponent of 1 lets anyone sign.
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' }) as Record<string, string>;
  expect(() => Registry.load(ORGANIZATIONS, connectorsFile([entry({ jwks: { keys: [{ ...rsa, e: 'AQ', kid: 'weak' }] } })]), 'sandbox', 'required')).toThrow(/\[0\]\.jwks\.keys\[0\] the RSA public exponent must be at least 65537 \(this one is 1\)/);
  expect(() => Registry.load(ORGANIZATIONS, connectorsFile([entry({ jwks: { keys: [{ kty: 'oct', k: 'abc' }] } })]), 'sandbox', 'required')).toThrow(/must be a public EC, RSA or OKP key/);
});

test('in production a connectors file carrying a clientSecret is refused, naming the entry', () => {
  expect(() => Registry.load(ORGANIZATIONS, DEMO_CLIENTS, 'production', 'refused')).toThrow(
    /\[0\] \(clientId alpine-tms\) carries a clientSecret: in production connectors authenticate to the identity provider \(private_key_jwt or mutual TLS\)/,
  );
  const registry = Registry.load(ORGANIZATIONS, connectorsFile([entry()]), 'production', 'refused');
  expect(registry.connector('alpine-tms')).toEqual({
    clientId: 'alpine-tms',
    organizationId: 'org-alpine-freight',
    name: 'alpine-tms',
    scopes: ['capacity:read'],
    environment: 'production',
    status: 'active',
    actorRoles: [],
  });
  expect(registry.warnings).toEqual([]);
});

test('the production example has no secrets and loads in production mode', () => {
  const registry = Registry.load(ORGANIZATIONS, PRODUCTION_EXAMPLE, 'production', 'refused');
  expect(registry.connector('alpine-tms')).toMatchObject({ organizationId: 'org-alpine-freight', environment: 'production', status: 'active' });
  expect(registry.connector('baltic-erp-2024')!.status).toBe('inactive');
  expect(registry.connector('alpine-tms')!.clientSecret).toBeUndefined();
});

test('development against an external issuer drops the secrets with a warning', () => {
  const registry = Registry.load(ORGANIZATIONS, DEMO_CLIENTS, 'sandbox', 'ignored');
  expect(registry.connector('alpine-tms')!.clientSecret).toBeUndefined();
  expect(registry.warnings).toEqual([expect.stringMatching(/ignored the clientSecret of 4 connector\(s\)/)]);
});

test('registration mistakes are refused: a clientId twice, an unknown status, an empty environment', () => {
  const load = (entries: unknown[]) => () => Registry.load(ORGANIZATIONS, connectorsFile(entries), 'production', 'refused');
  expect(load([entry(), entry({ organizationId: 'org-baltic-shippers' })])).toThrow(/\[1\] registers clientId alpine-tms a second time/);
  expect(load([entry({ status: 'revoked' })])).toThrow(/\[0\]\.status must be active or inactive, not "revoked"/);
  expect(load([entry({ environment: '' })])).toThrow(/\[0\]\.environment must be a non-empty string/);
  expect(load([entry({ scopes: 'capacity:read' })])).toThrow(/\[0\]\.scopes must be an array/);
  expect(load([entry({ organizationId: 'org-unknown' })])).toThrow(/names unknown organization org-unknown/);
  // A revoked connector stays registered, inactive, so its tokens are refused (gate 2).
  expect(Registry.load(ORGANIZATIONS, connectorsFile([entry({ status: 'inactive' })]), 'production', 'refused').connector('alpine-tms')!.status).toBe('inactive');
});

test('actor roles are role names; a decision policy may require one', () => {
  const registry = Registry.load(ORGANIZATIONS, connectorsFile([entry({ actorRoles: ['planner', 'night-dispatch'] })]), 'production', 'refused');
  expect(registry.connector('alpine-tms')!.actorRoles).toEqual(['planner', 'night-dispatch']);
  expect(() => Registry.load(ORGANIZATIONS, connectorsFile([entry({ actorRoles: ['Planner!'] })]), 'production', 'refused')).toThrow(/actorRoles must be an array of role names/);
});

/** A key ring file, which production requires (SECRETS_KEY_FILE). */
function secretsKeyFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'pcx-registry-')), 'secrets-key.json');
  writeFileSync(file, JSON.stringify({ keys: [{ id: 'k1', key: Buffer.alloc(32, 7).toString('base64') }] }), { mode: 0o600 });
  return file;
}
