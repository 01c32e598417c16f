// The broker's token endpoint: OAuth 2.0 client credentials (RFC 6749 section 4.4) at
// POST /oauth2/token, in every mode (unless BROKER_TOKEN_ENDPOINT=false: an external identity
// provider only). Clients authenticate with private_key_jwt (RFC 7523, core/client-assertion.ts),
// or with a client secret (client_secret_basic or client_secret_post): a managed connector's
// generated secret (compared with its slow hash, core/client-secrets.ts) where the operator allows
// them, or a connectors file's development secret, or, on the mutual-TLS listener (MTLS_PORT), with
// a certificate of one of its registered keys (RFC 8705 self_signed_tls_client_auth; the token is
// then bound to that certificate). An optional `scope` narrows the token to a
// subset of the client's scopes; the key set is at /.well-known/jwks.json. Errors are problem
// details that also carry RFC 6749's `error` and `error_description`, so OAuth client libraries
// understand them.
import { timingSafeEqual, type X509Certificate } from 'node:crypto';
import { Hono } from 'hono';
import { signToken } from '../core/auth';
import { Problem, type ProblemCode } from '../domain/problems';
import type { AppEnv } from './context';
import { publicOperation } from './operations';
import type { Ctx } from './http';
import { claimedClient, invalidClient, JWT_BEARER_ASSERTION, verifyClientAssertion } from '../core/client-assertion';
import type { Connector } from '../core/registry';
import { rememberAssertion } from '../read-model/client-assertions';
import { recordCredentialUse } from '../read-model/connectors';
import { secretHashes } from '../read-model/client-secrets';
import { clientSecretMatches } from '../core/client-secrets';
import { certificateThumbprint, registeredKeyOf } from '../core/certificate-binding';
import { clientCertificate } from './client-certificate';

export const oauth = new Hono<AppEnv>();

function oauthError(code: ProblemCode, error: string, description: string, headers: Record<string, string> = {}) {
  return new Problem(code, description, { error, error_description: description }, headers);
}

function sameSecret(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

publicOperation(oauth, {
  method: 'POST', path: '/oauth2/token', answers: [200],
  doc: {
    id: 'requestToken',
    summary: 'Obtain an access token (client credentials)',
    description:
      'OAuth 2.0 client credentials grant (RFC 6749 section 4.4). Authenticate the client with ' +
      'exactly one of: a client assertion signed with one of its registered keys ' +
      '(`private_key_jwt`, RFC 7523: `client_assertion_type` and `client_assertion`; each assertion ' +
      'is accepted once; its `aud` this endpoint’s URL), HTTP Basic (`client_secret_basic`), or `client_id` and ' +
      '`client_secret` in the form (`client_secret_post`), the secret one the broker generated for a managed connector ' +
      '(where the operator allows client secrets) or a development secret, or, at the broker\u2019s mutual-TLS address ' +
      '(where the operator runs one), `client_id` alone and a TLS client certificate whose key is one of the client\u2019s registered keys ' +
      '(RFC 8705 `self_signed_tls_client_auth`; the token is then bound to that certificate by its `cnf` claim and is accepted only with it). `scope` optionally narrows the token to a subset of the ' +
      "client's scopes; without it the token carries all of them. The token names the credential that proved the " +
      'client, so that revoking it refuses the token at once. Errors are problem documents that ' +
      "also carry RFC 6749's `error` and `error_description`. Present unless the broker's token endpoint is turned " +
      'off (an external identity provider only).',
    tag: 'Authorization',
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
        },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/TokenResponse' } } },
      },
      '400': {
        description:
          '`VALIDATION_FAILED` with `error` `invalid_request` (two client authentication methods, an ' +
          'assertion without its type), ' +
          '`unsupported_grant_type` or `invalid_scope` (a scope the client is not allowed).',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/OAuthProblem' } } },
      },
      '401': {
        description:
          '`UNAUTHENTICATED` with `error` `invalid_client` (unknown client or wrong secret; a client ' +
          'assertion that is not valid, says why: its algorithm, signature, audience, lifetime, or a jti ' +
          'used before; sends ' +
          '`WWW-Authenticate: Basic realm="pcx"`), or `CONNECTOR_INACTIVE` with `invalid_client` (the ' +
          'client or its organization is not active).',
        headers: {
          'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' },
        },
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/OAuthProblem' } } },
      },
      '413': true,
      '415': {
        description:
          '`UNSUPPORTED_MEDIA_TYPE` with `error` `invalid_request`: the body is not ' +
          'application/x-www-form-urlencoded.',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/OAuthProblem' } } },
      },
    },
  },
}, async (c) => {
  const services = c.get('services');
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw oauthError('UNSUPPORTED_MEDIA_TYPE', 'invalid_request', 'send the token request as application/x-www-form-urlencoded');
  }
  const form = new URLSearchParams(await c.req.text());
  let clientId = form.get('client_id') ?? undefined;
  let clientSecret = form.get('client_secret') ?? undefined;
  const basic = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(c.req.header('authorization') ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0 || clientSecret !== undefined) throw oauthError('VALIDATION_FAILED', 'invalid_request', 'use exactly one client authentication method');
    try {
      // RFC 6749 section 2.3.1: both parts are form-urlencoded before they are joined.
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch {
      throw oauthError('VALIDATION_FAILED', 'invalid_request', 'the Basic credentials are not form-urlencoded');
    }
  }
  if (form.get('grant_type') !== 'client_credentials') {
    throw oauthError('VALIDATION_FAILED', 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
  }
  // Managed connectors as they are now (a key added or revoked a moment ago counts).
  await services.registry.refresh();
  const assertionType = form.get('client_assertion_type');
  const assertion = form.get('client_assertion');
  const certificate = clientCertificate(c);
  let connector: Connector | undefined;
  let credential: string | undefined;
  let boundTo: string | undefined;
  if (assertionType !== null || assertion !== null) {
    ({ connector, credential } = await assertedConnector(c, { assertionType, assertion, clientId, basic: basic !== null || clientSecret !== undefined }));
  } else if (certificate && clientSecret === undefined) {
    ({ connector, credential, boundTo } = await certificateConnector(c, clientId, certificate));
  } else {
    ({ connector, credential } = await secretConnector(c, clientId, clientSecret));
  }
  // A pending or suspended organization still gets tokens: gate 3 lets it manage itself (api/gates.ts).
  const standing = services.registry.organization(connector.organizationId)?.status;
  if (connector.status !== 'active' || !standing || standing === 'inactive') {
    throw oauthError('CONNECTOR_INACTIVE', 'invalid_client', 'the client or its organization is not active');
  }
  const asked = form.get('scope');
  let scopes = connector.scopes;
  if (asked !== null) {
    const wanted = asked.split(' ').filter(Boolean);
    const extra = wanted.filter((s) => !connector.scopes.includes(s));
    if (extra.length) throw oauthError('VALIDATION_FAILED', 'invalid_scope', `the client is not allowed ${extra.join(', ')}`);
    scopes = [...new Set(wanted)];
  }
  const scope = scopes.join(' ');
  const token = await signToken(services.signingKey!, services.config, { sub: connector.clientId, org_id: connector.organizationId, scope, ...(credential ? { cred: credential } : {}), ...(boundTo ? { certificateThumbprint: boundTo } : {}) });
  // The key's last use, for its admins (a managed connector's).
  if (credential) await recordCredentialUse(services.db, connector.clientId, credential);
  c.header('cache-control', 'no-store');
  return c.json({ access_token: token, token_type: 'Bearer', expires_in: services.config.auth.tokenTtlSeconds, scope });
});

publicOperation(oauth, {
  method: 'GET', path: '/.well-known/jwks.json', answers: [200],
  doc: {
    id: 'getJwks',
    summary: "Key set of the broker's token endpoint",
    description: 'The public keys that verify tokens issued by `POST /oauth2/token`.',
    tag: 'Authorization',
    responses: {
      '200': {
        description: 'A JSON Web Key Set (RFC 7517).',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonWebKeySet' } } },
      },
    },
  },
}, (c) => c.json({ keys: [c.get('services').signingKey!.publicJwk] }));

/**
 * A client secret: a file connector's development secret (compared in constant time), or one of
 * a managed connector's generated secrets that are valid now (their slow hashes; only the secret
 * whose hint matches is hashed, so a wrong secret costs one hash at most).
 */
async function secretConnector(c: Ctx, clientId: string | undefined, clientSecret: string | undefined): Promise<{ connector: Connector; credential?: string }> {
  const { registry, db } = c.get('services');
  const refused = () => oauthError('UNAUTHENTICATED', 'invalid_client', 'unknown client or wrong secret', { 'www-authenticate': 'Basic realm="pcx"' });
  const connector = clientId ? registry.connector(clientId) : undefined;
  if (!connector || !clientSecret) throw refused();
  if (connector.clientSecret !== undefined) {
    if (!sameSecret(clientSecret, connector.clientSecret)) throw refused();
    return { connector };
  }
  // Generated secrets count only while the operator allows client secrets (CLIENT_SECRETS).
  if (!c.get('services').config.auth.clientSecrets) throw refused();
  const candidates = (connector.managed?.secrets ?? []).filter((k) => k.hint === clientSecret.slice(-4));
  for (const { credentialId, secretHash } of await secretHashes(db, connector.clientId, candidates.map((k) => k.credentialId))) {
    if (await clientSecretMatches(clientSecret, secretHash)) return { connector, credential: credentialId };
  }
  throw refused();
}

/**
 * self_signed_tls_client_auth (RFC 8705 section 2.2), on the mutual-TLS listener only: the client
 * names itself (client_id) and the TLS handshake proved it holds the key of the certificate it
 * presented; that key must be one of its registered (and, for a managed connector, valid) keys.
 * The token is bound to the certificate (its `cnf`), so it works only where that certificate is
 * presented again.
 */
async function certificateConnector(c: Ctx, clientId: string | undefined, certificate: X509Certificate): Promise<{ connector: Connector; credential?: string; boundTo: string }> {
  const { registry } = c.get('services');
  if (!clientId) throw invalidClient('name the client (client_id) beside its certificate, or authenticate it another way');
  const connector = registry.connector(clientId);
  if (!connector) throw invalidClient('unknown client');
  if (!connector.jwks) throw invalidClient(connector.managed ? 'the client has no valid key: each was revoked or has expired, or none was registered' : 'the client has no registered public keys');
  const match = await registeredKeyOf(certificate, connector.jwks.keys);
  if (!match.ok) throw invalidClient(match.reason);
  return { connector, ...(connector.managed && match.kid ? { credential: match.kid } : {}), boundTo: certificateThumbprint(certificate) };
}

/**
 * private_key_jwt (RFC 7523): the connector the assertion proves, verified against its registered
 * public keys, its jti remembered across replicas (a replay is refused). One authentication method
 * only: an assertion beside a secret or Basic credentials is refused.
 */
async function assertedConnector(c: Ctx, given: { assertionType: string | null; assertion: string | null; clientId: string | undefined; basic: boolean }): Promise<{ connector: Connector; credential?: string }> {
  const { registry, config, db } = c.get('services');
  if (given.basic) throw oauthError('VALIDATION_FAILED', 'invalid_request', 'use exactly one client authentication method');
  if (given.assertionType !== JWT_BEARER_ASSERTION || !given.assertion) {
    throw oauthError('VALIDATION_FAILED', 'invalid_request', `a client assertion needs client_assertion_type=${JWT_BEARER_ASSERTION} and client_assertion`);
  }
  const clientId = claimedClient(given.assertion);
  if (!clientId || (given.clientId !== undefined && given.clientId !== clientId)) throw invalidClient('the client assertion does not name the client (sub), or names another than client_id');
  const connector = registry.connector(clientId);
  if (!connector) throw invalidClient('unknown client');
  if (!connector.jwks) throw invalidClient(connector.managed ? 'the client has no valid key: each was revoked or has expired, or none was registered' : 'the client has no registered public keys');
  const audiences = [`${config.publicBaseUrl}/oauth2/token`, config.auth.issuer];
  const verified = await verifyClientAssertion(given.assertion, { clientId, keys: connector.jwks.keys, audiences, skewSeconds: config.auth.clockSkewSeconds });
  if (!(await rememberAssertion(db, clientId, verified.jti, verified.exp + config.auth.clockSkewSeconds))) {
    throw invalidClient('the client assertion was used before (its jti): sign a new one for every token request');
  }
  // A managed connector's token names the credential (its kid) that proved it, for gate 2.
  return { connector, ...(connector.managed && verified.kid ? { credential: verified.kid } : {}) };
}
