// The private_key_jwt rules (core/client-assertion.ts) at their edges, without a broker: the
// lifetime limit, the clock skew, the audience list, kid and alg matching.
import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
import { MAX_LIFETIME_SECONDS, verifyClientAssertion } from '../../core/client-assertion';
import { generateConnectorKey, publicOf } from '../../sdk/src/keys';

const { privateJwk } = generateConnectorKey();
const publicJwk = publicOf(privateJwk) as JWK;
const AUD = 'https://broker.example/oauth2/token';
const NOW = 1_800_000_000;

const assertion = async (claims: Record<string, unknown>, kid = privateJwk.kid) =>
  new SignJWT({ iss: 'c1', sub: 'c1', aud: AUD, jti: randomUUID(), iat: NOW, exp: NOW + 60, ...claims } as any).setProtectedHeader({ alg: 'ES256', kid }).sign(await importJWK(privateJwk as JWK, 'ES256'));
const verify = async (claims: Record<string, unknown>, options: { now?: number; audiences?: string[]; kid?: string } = {}) =>
  verifyClientAssertion(await assertion(claims, options.kid), { clientId: 'c1', keys: [publicJwk], audiences: options.audiences ?? [AUD], skewSeconds: 5, now: options.now ?? NOW });

test('a lifetime of exactly the limit is accepted, one second more is not', async () => {
  await expect(verify({ exp: NOW + MAX_LIFETIME_SECONDS })).resolves.toEqual(expect.objectContaining({ clientId: 'c1', exp: NOW + MAX_LIFETIME_SECONDS, kid: privateJwk.kid }));
  await expect(verify({ exp: NOW + MAX_LIFETIME_SECONDS + 1 })).rejects.toThrow(/at most 300 s/);
});

test('exp and iat within the clock skew pass, beyond it they do not', async () => {
  await expect(verify({}, { now: NOW + 64 })).resolves.toBeDefined(); // exp = NOW + 60, skew 5
  await expect(verify({}, { now: NOW + 65 })).rejects.toThrow(/expired/);
  await expect(verify({ iat: NOW + 5, exp: NOW + 65 })).resolves.toBeDefined();
  await expect(verify({ iat: NOW + 6, exp: NOW + 66 })).rejects.toThrow(/issued in the future/);
});

test('aud may be a list holding one of ours; a kid no key has is named', async () => {
  await expect(verify({ aud: ['https://other.example', AUD] })).resolves.toBeDefined();
  await expect(verify({ aud: ['https://other.example'] })).rejects.toThrow(/audience/);
  await expect(verify({}, { kid: 'nope' })).rejects.toThrow(/no key of c1 has the kid nope/);
});
