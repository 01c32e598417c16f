// The broker's token endpoint: OAuth 2.0 client credentials (RFC 6749 section 4.4) at
// POST /oauth2/token, in every mode (unless BROKER_TOKEN_ENDPOINT=false: an external identity
// provider only). The client authenticates by exactly one of its registered credentials
// (api/client-authentication.ts: a secret, private_key_jwt, or a certificate at the mutual-TLS
// address), throttled after repeated failures (api/token-throttle.ts). The token is a JWT the
// broker signs, living the connector's access-token lifetime, naming the credential that proved
// the client (revoking it refuses the token at once), and bound when the client chose so: to its
// certificate (RFC 8705, `cnf.x5t#S256`) and to the key of a DPoP proof (RFC 9449, `cnf.jkt`,
// token_type DPoP; required for a connector whose policy says dpopBoundAccessTokens). Errors are
// problem details that also carry RFC 6749's `error` and `error_description`, so OAuth client
// libraries understand them. Discovery, introspection and revocation: api/oauth-metadata.ts and
// api/token-lifecycle.ts.
import { Hono } from 'hono';
import { signToken } from '../core/auth';
import { ProofRefused, tokenEndpointRefusal, verifyDpopProof } from '../core/dpop';
import { tokensIssued } from '../core/metrics';
import { rememberAssertion } from '../read-model/client-assertions';
import { recordCredentialUse } from '../read-model/connectors';
import { authenticateClient, invalidRequest, OAUTH_PROBLEM, OAUTH_TOO_LARGE, oauthForm } from './client-authentication';
import type { AppEnv } from './context';
import type { Ctx } from './http';
import { publicOperation } from './operations';

export const oauth = new Hono<AppEnv>();


publicOperation(oauth, {
  method: 'POST', path: '/oauth2/token', answers: [200],
  doc: {
    id: 'requestToken',
    summary: 'Obtain an access token (client credentials)',
    description:
      'OAuth 2.0 client credentials grant (RFC 6749 section 4.4). Authenticate the client with ' +
      'exactly one of: a client assertion signed with one of its registered keys or a key of its `jwks_uri` ' +
      '(`private_key_jwt`, RFC 7523: `client_assertion_type` and `client_assertion`; each assertion ' +
      'is accepted once; its `aud` this endpoint\u2019s URL; it lives at most the connector\u2019s assertion lifetime, 60 s by default), HTTP Basic (`client_secret_basic`), or `client_id` and ' +
      '`client_secret` in the form (`client_secret_post`), the secret one the broker generated for a managed connector ' +
      '(where the operator allows client secrets) or a development secret, or, at the broker\u2019s mutual-TLS address ' +
      '(where the operator runs one), `client_id` alone and a TLS client certificate: of one of the client\u2019s registered keys ' +
      '(RFC 8705 `self_signed_tls_client_auth`) or issued under the operator\u2019s trust anchors with a subject the client registered (`tls_client_auth`); ' +
      'the token is then bound to that certificate by its `cnf` claim and is accepted only with it. With a `DPoP` proof header (RFC 9449) the token is ' +
      'bound to the proof\u2019s key (`token_type` `DPoP`): every API call then carries `Authorization: DPoP <token>` and a new proof. `scope` optionally narrows the token to a subset of the ' +
      "client's scopes; without it the token carries all of them. The token names the credential that proved the " +
      'client, so that revoking it refuses the token at once. After repeated failed authentications a client id or an address is ' +
      'answered 429 for a while (Retry-After). Errors are problem documents that ' +
      "also carry RFC 6749's `error` and `error_description`. Present unless the broker's token endpoint is turned " +
      'off (an external identity provider only). Discovery: `GET /.well-known/oauth-authorization-server/oauth2`.',
    tag: 'Authorization',
    parameters: [{ name: 'DPoP', in: 'header', required: false, description: 'A DPoP proof (RFC 9449): htm POST, htu this endpoint\u2019s URL, and the nonce of the last `DPoP-Nonce` header where the broker asks for one.', schema: { type: 'string' } }],
    requestBody: {
      required: true,
      description:
        'The token request. For `client_secret_basic`, send `Authorization: Basic ' +
        'base64(client_id:client_secret)` and leave client_id and client_secret out of the form.',
      content: {
        'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/TokenRequest' } },
      },
    },
    responses: {
      '200': {
        description: 'The access token.',
        headers: {
          'Cache-Control': { description: '`no-store`', schema: { type: 'string' } },
          'DPoP-Nonce': { description: 'The nonce the next DPoP proof carries, where the broker asks for nonces.', schema: { type: 'string' } },
        },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/TokenResponse' } } },
      },
      '400': {
        description:
          '`VALIDATION_FAILED` with `error` `invalid_request` (two client authentication methods, an ' +
          'assertion without its type, a DPoP-bound client without a proof), ' +
          '`unsupported_grant_type` or `invalid_scope` (a scope the client is not allowed); `DPOP_PROOF_INVALID` with `error` ' +
          '`invalid_dpop_proof` (says why) or `use_dpop_nonce` (with a `DPoP-Nonce` header: send the proof again with that nonce).',
        content: OAUTH_PROBLEM,
      },
      '401': {
        description:
          '`UNAUTHENTICATED` with `error` `invalid_client`: unknown client or wrong secret (sends ' +
          '`WWW-Authenticate: Basic realm="pcx"`); a client assertion that is not valid, saying why (its algorithm, ' +
          'signature, a critical header, `typ`, `x5c`, audience, lifetime, a claim of the wrong type, a key revoked or expired, a jti used before); ' +
          'a certificate that is no registered key and no registered subject under the trust anchors; or `CONNECTOR_INACTIVE` with `invalid_client` (the ' +
          'client or its organization is not active).',
        headers: {
          'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' },
        },
        content: OAUTH_PROBLEM,
      },
      '413': OAUTH_TOO_LARGE,
      '415': {
        description:
          '`UNSUPPORTED_MEDIA_TYPE` with `error` `invalid_request`: the body is not ' +
          'application/x-www-form-urlencoded.',
        content: OAUTH_PROBLEM,
      },
      '429': {
        description: '`RATE_LIMITED` with `error` `slow_down`: too many failed client authentications for this client id or from this address; Retry-After says when to try again.',
        headers: { 'Retry-After': { description: 'Seconds until the client id or address is no longer throttled.', schema: { type: 'integer' } } },
        content: OAUTH_PROBLEM,
      },
    },
  },
}, async (c) => {
  const services = c.get('services');
  const form = await oauthForm(c);
  if (form.get('grant_type') !== 'client_credentials') throw invalidRequest('only grant_type=client_credentials is supported', 'unsupported_grant_type');
  // The proof first: a request refused for a missing nonce (its retry follows at once) neither
  // spends the client's assertion nor counts as a failed authentication.
  const jkt = await dpopKeyOf(c);
  const client = await authenticateClient(c, form, 'token');
  const { connector } = client;
  if (!jkt && connector.tokenPolicy?.dpopBoundAccessTokens) throw invalidRequest("this client's tokens are bound to a DPoP key (its token policy): send a DPoP proof header (RFC 9449)");
  const asked = form.get('scope');
  let scopes = connector.scopes;
  if (asked !== null) {
    const wanted = asked.split(' ').filter(Boolean);
    const extra = wanted.filter((s) => !connector.scopes.includes(s));
    if (extra.length) throw invalidRequest(`the client is not allowed ${extra.join(', ')}`, 'invalid_scope');
    scopes = [...new Set(wanted)];
  }
  const scope = scopes.join(' ');
  const lifetime = connector.tokenPolicy?.accessTokenLifetimeSeconds ?? services.config.auth.tokenTtlSeconds;
  const token = await signToken(services.signingKey!, services.config, {
    sub: connector.clientId,
    org_id: connector.organizationId,
    scope,
    lifetimeSeconds: Math.min(lifetime, services.config.auth.maxTokenLifetimeSeconds),
    ...(client.credential ? { cred: client.credential } : {}),
    ...(client.boundTo ? { certificateThumbprint: client.boundTo } : {}),
    ...(jkt ? { jkt } : {}),
  });
  // The key's last use (a token issued for it), for its admins (a managed connector's).
  if (client.credential) await recordCredentialUse(services.db, connector.clientId, client.credential);
  const tokenType = jkt ? 'DPoP' : 'Bearer';
  tokensIssued.inc({ method: client.method, token_type: tokenType });
  c.header('cache-control', 'no-store');
  if (jkt && services.config.auth.dpop.nonce) c.header('dpop-nonce', services.oauth.nonces.current());
  return c.json({ access_token: token, token_type: tokenType, expires_in: Math.min(lifetime, services.config.auth.maxTokenLifetimeSeconds), scope });
});

/**
 * The key a DPoP proof at the token endpoint binds the token to (RFC 9449 section 5), or undefined
 * without a proof. The proof's jti is accepted once.
 */
async function dpopKeyOf(c: Ctx): Promise<string | undefined> {
  const services = c.get('services');
  const { config, oauth: state, db } = services;
  const proof = c.req.header('dpop');
  const nonce = config.auth.dpop.nonce ? state.nonces.current() : undefined;
  if (proof === undefined) return undefined;
  try {
    // One proof, one header: several are joined with commas, which a compact JWS never holds.
    if (proof.includes(',')) throw new ProofRefused('invalid_dpop_proof', 'send exactly one DPoP header');
    const verified = await verifyDpopProof(proof, {
      method: 'POST',
      urls: [`${config.publicBaseUrl}/oauth2/token`, ...(config.mtls ? [`${config.mtls.baseUrl}/oauth2/token`] : [])],
      ...(config.auth.dpop.nonce ? { nonce: (value: unknown) => state.nonces.valid(value) } : {}),
      skewSeconds: config.auth.clockSkewSeconds,
    });
    if (!(await rememberAssertion(db, `dpop:${verified.jkt}`, verified.jti, verified.rememberUntil))) throw new ProofRefused('invalid_dpop_proof', 'the DPoP proof was used before (its jti): make a new proof for every request');
    return verified.jkt;
  } catch (err) {
    if (err instanceof ProofRefused) throw tokenEndpointRefusal(err, nonce);
    throw err;
  }
}
