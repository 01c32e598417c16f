// Third-party OAuth clients against `npm start` (issue 48, "proof with what others wrote"): panva's
// oauth4webapi 3 and openid-client 6 (OpenID-certified, Node) and authlib with joserfc (Python),
// each as a connector's developer would use it, discover the broker's token endpoint from its
// RFC 8414 metadata, get tokens with private_key_jwt, client_secret_basic, DPoP and mutual TLS,
// and read with them. What the libraries do by default is what the broker must accept: where it
// does not (authlib's one-hour assertions), the test says so and does what docs/security.md tells
// integrators. npm start runs here with a mutual-TLS address, as an operator adds one
// (test/stack.ts, embeddedOnFreePorts).
import { execFile } from 'node:child_process';
import { createPrivateKey, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { generateConnectorKey } from '../sdk/src/keys';
import { testEnv } from './helpers';
import { npmStartFor, type NpmStartForFile } from './stack';
import { selfSignedCertificate, testCertificates } from './tls';

const ROOT = join(__dirname, '..');
let start: NpmStartForFile;
let admin: string;
let work: string;

beforeAll(async () => {
  start = await npmStartFor(testEnv(), 'oauth-clients');
  work = mkdtempSync(join(tmpdir(), 'pcx-oauth-clients-'));
  // Alpine's demo connector (connectors:manage) registers the connectors the libraries act as.
  const res = await fetch(`${start.base}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('alpine-tms:alpine-demo-secret').toString('base64')}` }, body: 'grant_type=client_credentials' });
  admin = ((await res.json()) as { access_token: string }).access_token;
}, 120_000);
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await start?.stop();
});

/** A connector of Alpine's with a new P-256 key (for private_key_jwt and, as a self-signed certificate, mutual TLS), or a generated secret; its token policy. */
async function register(name: string, options: { secret?: boolean; tokenPolicy?: Record<string, unknown> } = {}) {
  const key = generateConnectorKey();
  const clientId = `${name}-${randomUUID().slice(0, 8)}`;
  const body = { clientId, scopes: ['capacity:read'], ...(options.secret ? { generateClientSecret: true } : { publicJwk: key.publicJwk }), ...(options.tokenPolicy ? { tokenPolicy: options.tokenPolicy } : {}) };
  const res = await fetch(`${start.base}/connectors`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: JSON.stringify(body) });
  const created = (await res.json()) as { clientSecret?: string };
  expect(res.status).toBe(201);
  const keyPem = createPrivateKey({ key: key.privateJwk as any, format: 'jwk' }).export({ format: 'pem', type: 'pkcs8' }) as string;
  return { clientId, key, keyPem, secret: created.clientSecret, cryptoKey: await crypto.subtle.importKey('jwk', key.privateJwk as JsonWebKey, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']) };
}

/** A fetch presenting a client certificate and trusting the test authority (the broker's mutual-TLS address). */
function certificateFetch(cert: string, key: string): any {
  const dispatcher = new Agent({ connect: { cert, key, ca: testCertificates(start.tlsDir).ca } });
  return (input: any, init: any) => undiciFetch(input, { ...init, dispatcher });
}

const offersUrl = () => new URL(`${start.base}/capacity-offers?limit=1`);

describe('oauth4webapi 3', () => {
  const insecure = { [oauth.allowInsecureRequests]: true } as const;
  let as: oauth.AuthorizationServer;
  beforeAll(async () => {
    const issuer = new URL(`${start.base}/oauth2`);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  });

  test('private_key_jwt and client_secret_basic: tokens, and reads with them', async () => {
    const pkjwt = await register('o4w-pkjwt');
    const client: oauth.Client = { client_id: pkjwt.clientId };
    const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.PrivateKeyJwt({ key: pkjwt.cryptoKey, kid: pkjwt.key.publicJwk.kid }), { scope: 'capacity:read' }, insecure);
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    expect(tokens.token_type).toBe('bearer');
    expect((await oauth.protectedResourceRequest(tokens.access_token, 'GET', offersUrl(), undefined, undefined, insecure)).status).toBe(200);

    const secret = await register('o4w-secret', { secret: true });
    const secretClient: oauth.Client = { client_id: secret.clientId };
    const secretTokens = await oauth.processClientCredentialsResponse(as, secretClient, await oauth.clientCredentialsGrantRequest(as, secretClient, oauth.ClientSecretBasic(secret.secret!), {}, insecure));
    expect((await oauth.protectedResourceRequest(secretTokens.access_token, 'GET', offersUrl(), undefined, undefined, insecure)).status).toBe(200);
  });

  test('DPoP: the library answers the broker\u2019s nonce and binds the token to its key', async () => {
    const dpopBound = await register('o4w-dpop', { tokenPolicy: { dpopBoundAccessTokens: true } });
    const client: oauth.Client = { client_id: dpopBound.clientId };
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const auth = oauth.PrivateKeyJwt({ key: dpopBound.cryptoKey, kid: dpopBound.key.publicJwk.kid });
    const grant = () => oauth.clientCredentialsGrantRequest(as, client, auth, {}, { DPoP, ...insecure }).then((res) => oauth.processClientCredentialsResponse(as, client, res));
    // The first request learns the nonce (use_dpop_nonce), as the library's documentation says to handle it.
    const tokens = await grant().catch((err) => (oauth.isDPoPNonceError(err) ? grant() : Promise.reject(err)));
    expect(tokens.token_type).toBe('dpop');
    const read = () => oauth.protectedResourceRequest(tokens.access_token, 'GET', offersUrl(), undefined, undefined, { DPoP, ...insecure });
    const answer = await read().catch((err) => (oauth.isDPoPNonceError(err) ? read() : Promise.reject(err)));
    expect(answer.status).toBe(200);
    // Without the key the token is nothing.
    expect((await fetch(offersUrl(), { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
  });

  test('mutual TLS: self_signed_tls_client_auth at the metadata\u2019s alias; the token works only with the certificate', async () => {
    const mtls = await register('o4w-mtls');
    const cert = selfSignedCertificate(mtls.keyPem, mtls.clientId);
    const client: oauth.Client = { client_id: mtls.clientId, use_mtls_endpoint_aliases: true };
    const withCertificate = certificateFetch(cert, mtls.keyPem);
    const response = await oauth.clientCredentialsGrantRequest(as, client, oauth.TlsClientAuth(), {}, { [oauth.customFetch]: withCertificate, ...insecure });
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    const bound = new URL(`${start.mtlsBaseUrl}/capacity-offers?limit=1`);
    expect((await oauth.protectedResourceRequest(tokens.access_token, 'GET', bound, undefined, undefined, { [oauth.customFetch]: withCertificate })).status).toBe(200);
    expect((await fetch(offersUrl(), { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401);
  });
});

describe('openid-client 6', () => {
  const discover = (clientId: string, auth: openid.ClientAuth, metadata?: Partial<openid.ClientMetadata>) =>
    openid.discovery(new URL(`${start.base}/oauth2`), clientId, metadata, auth, { algorithm: 'oauth2', execute: [openid.allowInsecureRequests] });

  test('private_key_jwt, client_secret_basic and DPoP: tokens, and reads with them', async () => {
    const pkjwt = await register('oc-pkjwt');
    const config = await discover(pkjwt.clientId, openid.PrivateKeyJwt({ key: pkjwt.cryptoKey, kid: pkjwt.key.publicJwk.kid }));
    const tokens = await openid.clientCredentialsGrant(config, { scope: 'capacity:read' });
    expect((await openid.fetchProtectedResource(config, tokens.access_token, offersUrl(), 'GET')).status).toBe(200);

    const secret = await register('oc-secret', { secret: true });
    const secretConfig = await discover(secret.clientId, openid.ClientSecretBasic(secret.secret!));
    expect((await openid.fetchProtectedResource(secretConfig, (await openid.clientCredentialsGrant(secretConfig)).access_token, offersUrl(), 'GET')).status).toBe(200);

    const dpopBound = await register('oc-dpop', { tokenPolicy: { dpopBoundAccessTokens: true } });
    const dpopConfig = await discover(dpopBound.clientId, openid.PrivateKeyJwt({ key: dpopBound.cryptoKey, kid: dpopBound.key.publicJwk.kid }));
    const DPoP = openid.getDPoPHandle(dpopConfig, await openid.randomDPoPKeyPair());
    // openid-client retries a use_dpop_nonce answer itself.
    const dpopTokens = await openid.clientCredentialsGrant(dpopConfig, {}, { DPoP });
    expect(dpopTokens.token_type).toBe('dpop');
    expect((await openid.fetchProtectedResource(dpopConfig, dpopTokens.access_token, offersUrl(), 'GET', undefined, undefined, { DPoP })).status).toBe(200);
  });

  test('mutual TLS with the library\u2019s customFetch', async () => {
    const mtls = await register('oc-mtls');
    const config = await discover(mtls.clientId, openid.TlsClientAuth(), { use_mtls_endpoint_aliases: true });
    config[openid.customFetch] = certificateFetch(selfSignedCertificate(mtls.keyPem, mtls.clientId), mtls.keyPem);
    const tokens = await openid.clientCredentialsGrant(config);
    expect((await openid.fetchProtectedResource(config, tokens.access_token, new URL(`${start.mtlsBaseUrl}/capacity-offers?limit=1`), 'GET')).status).toBe(200);
  });
});

describe('authlib (Python)', () => {
  test('private_key_jwt, client_secret_basic, mutual TLS and DPoP, each giving a token that reads', async () => {
    const [secret, pkjwt, mtls, dpop] = await Promise.all([register('py-secret', { secret: true }), register('py-pkjwt'), register('py-mtls'), register('py-dpop', { tokenPolicy: { dpopBoundAccessTokens: true } })]);
    const file = (name: string, text: string) => (writeFileSync(join(work, name), text, { mode: 0o600 }), join(work, name));
    writeFileSync(join(work, 'ca.pem'), testCertificates(start.tlsDir).ca);
    const input = {
      baseUrl: start.base,
      mtlsBaseUrl: start.mtlsBaseUrl,
      caFile: join(work, 'ca.pem'),
      secret: { clientId: secret.clientId, clientSecret: secret.secret },
      privateKeyJwt: { clientId: pkjwt.clientId, privateKeyPem: pkjwt.keyPem, kid: pkjwt.key.publicJwk.kid },
      mtls: { clientId: mtls.clientId, certFile: file('mtls.pem', selfSignedCertificate(mtls.keyPem, mtls.clientId)), keyFile: file('mtls.key', mtls.keyPem) },
      dpop: { clientId: dpop.clientId, privateKeyPem: dpop.keyPem, kid: dpop.key.publicJwk.kid },
    };
    const python = join(ROOT, '.tools', 'python-clients', 'bin', 'python');
    const output = await new Promise<string>((resolve, reject) => {
      const child = execFile(python, [join(ROOT, 'test', 'oauth-clients', 'authlib_client.py')], { timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
      child.stdin!.end(JSON.stringify(input));
    });
    expect(JSON.parse(output)).toEqual({
      secret: { tokenType: 'Bearer', read: 200 },
      privateKeyJwt: { tokenType: 'Bearer', read: 200 },
      mtls: { tokenType: 'Bearer', read: 200, readWithoutCertificate: 401 },
      dpop: { tokenType: 'DPoP', read: 200, readAsBearer: 401 },
    });
  }, 90_000);

  test('authlib as it comes (assertions valid for an hour) is refused with a reason that says what to change', async () => {
    const pkjwt = await register('py-default');
    const script = `
import json, sys
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from joserfc.jwk import ECKey
c = json.load(sys.stdin)
key = ECKey.import_key(c["pem"], {"kid": c["kid"]})
s = OAuth2Session(c["clientId"], key, token_endpoint_auth_method=PrivateKeyJWT(c["tokenUrl"], headers={"kid": c["kid"]}, alg="ES256"))
try:
    s.fetch_token(c["tokenUrl"], grant_type="client_credentials")
    print("accepted")
except Exception as e:
    print(str(e))
`;
    const python = join(ROOT, '.tools', 'python-clients', 'bin', 'python');
    const output = await new Promise<string>((resolve, reject) => {
      const child = execFile(python, ['-c', script], { timeout: 30_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
      child.stdin!.end(JSON.stringify({ pem: pkjwt.keyPem, kid: pkjwt.key.publicJwk.kid, clientId: pkjwt.clientId, tokenUrl: `${start.base}/oauth2/token` }));
    });
    expect(output).toMatch(/lives 3600 s; at most 60 s are accepted/);
  }, 60_000);
});
