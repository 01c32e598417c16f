// private_key_jwt at the broker's token endpoint (RFC 7523; core/client-assertion.ts): a connector
// registered with public keys only (test/stack.ts: client-keys, an ES256 and an Ed25519 key) gets a
// token with an assertion signed by either, through the SDK as a connector would; every assertion
// is accepted once, across the broker's replicas (the jti in the read model); and each way an
// attacker or a broken client gets an assertion wrong is refused with the reason, and gets no token.
import { createPublicKey, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { importJWK, SignJWT, type JWK } from 'jose';
import { PcxClient } from '../sdk/src';
import { clientAssertion, type PrivateJwk } from '../sdk/src/keys';
import { testEnv } from './helpers';

const env = testEnv();
const keys: Record<'es256' | 'ed25519' | 'other', PrivateJwk> = JSON.parse(readFileSync(join(dirname(env.registry.connectorsFile), 'connector-keys.json'), 'utf8'));
const tokenUrl = `${env.baseUrl}/oauth2/token`;
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A token request with the given form fields; its status and problem body. */
async function token(fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams({ grant_type: 'client_credentials', ...fields }) });
  return { status: res.status, body: (await res.json()) as any };
}
const withAssertion = (assertion: string, extra: Record<string, string> = {}) => token({ client_assertion_type: ASSERTION_TYPE, client_assertion: assertion, ...extra });

/** An assertion as an attacker or a broken client makes it: claims and header chosen freely, signed with `key` (jose). */
async function signed(claims: Record<string, unknown>, options: { key?: PrivateJwk; alg?: string; kid?: string; header?: Record<string, unknown> } = {}): Promise<string> {
  const key = options.key ?? keys.es256;
  const alg = options.alg ?? (key.kty === 'OKP' ? 'EdDSA' : 'ES256');
  const now = Math.floor(Date.now() / 1000);
  const base = { iss: 'client-keys', sub: 'client-keys', aud: tokenUrl, jti: randomUUID(), iat: now, exp: now + 60 };
  return new SignJWT({ ...base, ...claims } as any).setProtectedHeader({ alg, kid: options.kid ?? key.kid, ...options.header } as any).sign(await importJWK(key as JWK, alg));
}

const refused = (answer: { status: number; body: any }, pattern: RegExp) => {
  expect(answer.status).toBe(401);
  expect(answer.body).toEqual(expect.objectContaining({ code: 'UNAUTHENTICATED', error: 'invalid_client', error_description: expect.stringMatching(pattern) }));
  expect(answer.body.access_token).toBeUndefined();
};

test('a connector with keys only gets tokens by private_key_jwt with either of its keys, through the SDK, and works with them', async () => {
  for (const privateKey of [keys.es256, keys.ed25519]) {
    const pcx = new PcxClient({ baseUrl: env.baseUrl, clientId: 'client-keys', privateKey });
    const page = await pcx.request<{ items: unknown[] }>('GET', '/partner-relationships');
    expect(Array.isArray(page.data.items)).toBe(true);
    const claims = JSON.parse(Buffer.from((await pcx.accessToken()).split('.')[1], 'base64url').toString());
    expect(claims).toEqual(expect.objectContaining({ sub: 'client-keys', org_id: 'org-special' }));
  }
  // A scope narrowed as with a secret.
  const narrowed = await withAssertion(clientAssertion({ clientId: 'client-keys', tokenUrl, privateJwk: keys.es256 }), { scope: 'capacity:read' });
  expect(narrowed).toEqual({ status: 200, body: expect.objectContaining({ token_type: 'Bearer', scope: 'capacity:read' }) });
});

test('an assertion is accepted once: the same assertion again is refused, as a replay', async () => {
  const assertion = clientAssertion({ clientId: 'client-keys', tokenUrl, privateJwk: keys.es256 });
  expect((await withAssertion(assertion)).status).toBe(200);
  refused(await withAssertion(assertion), /used before \(its jti\)/);
  // Even at the same time: one of two wins.
  const twice = clientAssertion({ clientId: 'client-keys', tokenUrl, privateJwk: keys.ed25519 });
  const answers = await Promise.all([withAssertion(twice), withAssertion(twice)]);
  expect(answers.map((a) => a.status).sort()).toEqual([200, 401]);
});

test('attacks and mistakes: each refused with its reason, no token', async () => {
  const now = Math.floor(Date.now() / 1000);
  refused(await withAssertion(await signed({ aud: 'https://another.example/oauth2/token' })), /audience must be this token endpoint/);
  refused(await withAssertion(await signed({ iat: now - 120, exp: now - 60 })), /expired/);
  refused(await withAssertion(await signed({ nbf: now + 600, exp: now + 660, iat: now })), /not valid yet/);
  refused(await withAssertion(await signed({ iat: now + 600, exp: now + 660 })), /issued in the future/);
  // Its own iat: the test's `now` may be seconds before signed()'s on a busy machine (it once read 3599 s).
  refused(await withAssertion(await signed({ iat: now, exp: now + 3600 })), /lives 3600 s; at most 60 s are accepted/);
  refused(await withAssertion(await signed({ exp: String(now + 60) })), /exp must be a NumericDate .* not a string/);
  refused(await withAssertion(await signed({}, { header: { typ: 'at+jwt' } })), /typ "at\+jwt" is not a client assertion/);
  refused(await withAssertion(await signed({}, { header: { jku: 'https://attacker.example/keys' } })), /jku header is not accepted/);
  refused(await withAssertion(await signed({ exp: undefined })), /no exp/);
  refused(await withAssertion(await signed({ jti: undefined })), /needs a jti/);
  refused(await withAssertion(await signed({ iss: 'client-keys-other' })), /iss and sub/);
  // alg none: no signature at all.
  const none = [{ alg: 'none', typ: 'JWT' }, { iss: 'client-keys', sub: 'client-keys', aud: tokenUrl, jti: randomUUID(), iat: now, exp: now + 60 }].map((p) => Buffer.from(JSON.stringify(p)).toString('base64url')).join('.') + '.';
  refused(await withAssertion(none), /algorithm "none" is not accepted/);
  // HS256 with the connector's public key as the HMAC secret (the key confusion of RFC 8725 section 2.1).
  const publicPem = createPublicKey({ key: keys.es256 as any, format: 'jwk' }).export({ format: 'pem', type: 'spki' }) as string;
  const confused = await new SignJWT({ iss: 'client-keys', sub: 'client-keys', aud: tokenUrl, jti: randomUUID() }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1m').sign(new TextEncoder().encode(publicPem));
  refused(await withAssertion(confused), /algorithm "HS256" is not accepted/);
  // Signed with another connector's key (its kid, or ours: no key of ours verifies it).
  refused(await withAssertion(await signed({}, { key: keys.other })), /no key of client-keys has the kid/);
  refused(await withAssertion(await signed({}, { key: keys.other, kid: keys.es256.kid })), /signature is not one of client-keys's keys/);
  // A connector without keys cannot use assertions; a client_id that is not the assertion's.
  refused(await withAssertion(await signed({ iss: 'client-001', sub: 'client-001' })), /has no registered public keys/);
  refused(await withAssertion(await signed({}), { client_id: 'client-001' }), /names another than client_id/);
  refused(await withAssertion('not.a.jwt'), /does not name the client|not a JWT/);
  // Two authentication methods, or an assertion without its type: the request is wrong (400).
  const basic = { authorization: `Basic ${Buffer.from('client-001:secret-001').toString('base64')}` };
  for (const answer of [
    await withAssertion(await signed({}), { client_secret: 'secret-001' }),
    await token({ client_assertion_type: ASSERTION_TYPE, client_assertion: await signed({}) }, basic),
    await token({ client_assertion: await signed({}) }),
    await token({ client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer', client_assertion: await signed({}) }),
    await token({ client_assertion_type: ASSERTION_TYPE, client_assertion: '' }),
  ]) {
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(expect.objectContaining({ code: 'VALIDATION_FAILED', error: 'invalid_request' }));
  }
});
