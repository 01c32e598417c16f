// Gate 1 with two issuers (core/auth.ts): connectors' tokens from the authorization server, users'
// from the organization's identity provider named in configuration (USER_OIDC_ISSUER, its key set
// at USER_OIDC_JWKS_URL, served here by a local HTTP server as a provider would). The issuer picks
// the key set; a token is never verified with the other issuer's keys.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { createTokenVerifier, loadSigningKey } from '../../core/auth';
import { ConfigError, loadConfig } from '../../core/config';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let server: Server;
let jwksUrl = '';
let idpKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  idpKey = pair.privateKey as CryptoKey;
  const publicJwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'ES256', use: 'sig' };
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const sign = (key: CryptoKey, kid: string, iss: string, claims: Record<string, unknown> = {}) =>
  new SignJWT({ org_id: 'org-a', client_id: 'pcx-console', scope: 'matches:read', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid })
    .setIssuer(iss)
    .setAudience('pcx-broker')
    .setSubject('planner-1')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key);

test("a user's token is verified with the configured provider's key set; a connector's with the authorization server's", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pcx-user-tokens-'));
  const config = loadConfig({ DATA_DIR: dataDir, USER_OIDC_ISSUER: 'https://idp.example/realms/alpine', USER_OIDC_JWKS_URL: jwksUrl, USER_OIDC_CLIENT_ID: 'alpine-console' });
  expect(config.auth.users).toEqual({ issuer: 'https://idp.example/realms/alpine', jwksUrl, clientId: 'alpine-console', devProvider: false });
  const signingKey = await loadSigningKey(dataDir);
  const verify = createTokenVerifier(config, signingKey);
  await expect(verify(await sign(idpKey, 'idp-1', 'https://idp.example/realms/alpine'))).resolves.toMatchObject({ kind: 'user', sub: 'planner-1', org_id: 'org-a' });
  // The provider's issuer with a key that is not the provider's: refused.
  const { privateKey: stranger } = await generateKeyPair('ES256');
  await expect(verify(await sign(stranger as CryptoKey, 'idp-1', 'https://idp.example/realms/alpine'))).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  // The development key under the users' issuer: the provider's key set does not hold it.
  const { importJWK } = await import('jose');
  const dev = (await importJWK(signingKey.privateJwk, 'ES256')) as CryptoKey;
  await expect(verify(await sign(dev, signingKey.privateJwk.kid!, 'https://idp.example/realms/alpine'))).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  // The development key under the connectors' issuer: a connector's token.
  await expect(verify(await sign(dev, signingKey.privateJwk.kid!, config.auth.issuer))).resolves.toMatchObject({ kind: 'connector' });
  // The provider's key under the connectors' issuer: refused (each issuer its own keys).
  await expect(verify(await sign(idpKey, 'idp-1', config.auth.issuer))).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
  // Not a JWT at all.
  await expect(verify('not-a-token')).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
});

test('the users provider is an explicit allow-list: an issuer without its key set is refused at start; off without both and without the development server', () => {
  expect(() => loadConfig({ USER_OIDC_ISSUER: 'https://idp.example/realms/alpine' })).toThrow(ConfigError);
  expect(loadConfig({ DEV_AUTH: 'false', AUTH_JWKS_URL: 'https://issuer.example/jwks.json' }).auth.users).toBeUndefined();
  expect(loadConfig({ PUBLIC_BASE_URL: 'https://pcx.example' }).auth.users).toEqual({ issuer: 'https://pcx.example/oidc', jwksUrl: undefined, clientId: 'pcx-console', devProvider: true });
});
