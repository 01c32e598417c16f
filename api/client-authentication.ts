// Client authentication at the broker's OAuth endpoints (token, introspection, revocation): exactly
// one method per request, each a registered credential of the connector (docs/security.md):
//   client_secret_basic / client_secret_post  a managed connector's generated secret (slow hash,
//                                             where the operator allows secrets) or a connectors
//                                             file's development secret
//   private_key_jwt (RFC 7523)                an assertion signed by a registered key, or by a
//                                             key of the connector's jwks_uri (core/client-assertion.ts)
//   self_signed_tls_client_auth (RFC 8705)    at the mutual-TLS address: a certificate of a
//                                             registered key
//   tls_client_auth (RFC 8705)                at the mutual-TLS address: a certificate under the
//                                             operator's trust anchors with a registered subject
// Failed authentications are counted and throttled per client id and per address
// (api/token-throttle.ts). Every refusal is RFC 6749's invalid_client (401) and says which rule.
import { timingSafeEqual, type X509Certificate } from 'node:crypto';
import { decodeProtectedHeader, type JWK } from 'jose';
import { Problem } from '../domain/problems';
import { claimedClient, invalidClient, JWT_BEARER_ASSERTION, verifyClientAssertion } from '../core/client-assertion';
import { canonicalDn, certificateSubjectDn, certificateThumbprint, registeredKeyOf } from '../core/certificate-binding';
import { clientSecretMatches } from '../core/client-secrets';
import { KeySetUnavailable } from '../core/client-key-sets';
import type { Connector } from '../core/registry';
import { rememberAssertion } from '../read-model/client-assertions';
import { secretHashes } from '../read-model/client-secrets';
import { clientAddress, clientCertificate, clientCertificateTrusted } from './client-certificate';
import { countFailure, refuseWhileThrottled } from './token-throttle';
import type { Ctx } from './http';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'self_signed_tls_client_auth' | 'tls_client_auth';

export const CLIENT_AUTH_METHODS: readonly ClientAuthMethod[] = ['private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth', 'client_secret_basic', 'client_secret_post'];

export interface AuthenticatedClient {
  connector: Connector;
  method: ClientAuthMethod;
  /** The managed credential that proved it (a key's kid, a secret's or a subject's id): its tokens name it. */
  credential?: string;
  /** The client certificate's thumbprint, when the client authenticated with it (its tokens are bound to it). */
  boundTo?: string;
}

export type OAuthEndpoint = 'token' | 'introspect' | 'revoke';

/** How the OAuth endpoints' errors are documented: the problem with RFC 6749's members, as application/json (RFC 6749 section 5.2). */
export const OAUTH_PROBLEM = { 'application/json': { schema: { $ref: '#/components/schemas/OAuthProblem' } } } as const;
/** Their 413: a body over the relationship payload limit, refused before it is read. */
export const OAUTH_TOO_LARGE = { description: '`PAYLOAD_TOO_LARGE`: the body is larger than MAX_RELATIONSHIP_BODY_BYTES (64 KiB by default).', content: OAUTH_PROBLEM };

/** An RFC 6749 error that is the request's fault (400 invalid_request), not a failed authentication. */
export function invalidRequest(description: string, error = 'invalid_request'): Problem {
  return new Problem('VALIDATION_FAILED', description, { error, error_description: description });
}

/** The form of an OAuth endpoint's request (application/x-www-form-urlencoded, else 415). */
export async function oauthForm(c: Ctx): Promise<URLSearchParams> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    const description = 'send the request as application/x-www-form-urlencoded';
    throw new Problem('UNSUPPORTED_MEDIA_TYPE', description, { error: 'invalid_request', error_description: description });
  }
  const form = new URLSearchParams(await c.req.text());
  // RFC 6749 section 3.2: parameters sent without a value are treated as omitted; each at most once.
  for (const name of ['client_id', 'client_secret', 'client_assertion', 'client_assertion_type', 'grant_type', 'scope', 'token', 'token_type_hint']) {
    if (form.getAll(name).length > 1) throw invalidRequest(`${name} is given more than once`);
  }
  return form;
}

/** The client the request authenticates, by exactly one method; throttled, counted, refused with the reason. */
export async function authenticateClient(c: Ctx, form: URLSearchParams, endpoint: OAuthEndpoint): Promise<AuthenticatedClient> {
  const services = c.get('services');
  const given = credentialsOf(c, form);
  const attempt = { clientId: given.clientId ?? (given.assertion ? claimedClient(given.assertion) : undefined), address: clientAddress(c) };
  const throttle = services.config.auth.throttle;
  await refuseWhileThrottled(services.db, attempt, throttle, endpoint);
  // Managed connectors as they are now (a key added or revoked a moment ago counts).
  await services.registry.refresh();
  let client: AuthenticatedClient;
  try {
    if (given.assertionType !== null || given.assertion !== null) client = await assertedClient(c, given);
    else if (given.certificate && given.clientSecret === undefined) client = await certificateClient(c, given.clientId, given.certificate);
    else client = await secretClient(c, given);
  } catch (err) {
    if (err instanceof Problem && err.code === 'UNAUTHENTICATED') await countFailure(services.db, services.log, attempt, throttle, endpoint, reasonOf(given));
    throw err;
  }
  // A pending or suspended organization still gets tokens: gate 3 lets it manage itself (api/gates.ts).
  const standing = services.registry.organization(client.connector.organizationId)?.status;
  if (client.connector.status !== 'active' || !standing || standing === 'inactive' || client.connector.environment !== services.config.registry.environment) {
    throw new Problem('CONNECTOR_INACTIVE', 'the client or its organization is not active', { error: 'invalid_client', error_description: 'the client or its organization is not active' });
  }
  return client;
}

interface GivenCredentials {
  clientId?: string;
  clientSecret?: string;
  basic: boolean;
  assertionType: string | null;
  assertion: string | null;
  certificate?: X509Certificate;
}

function credentialsOf(c: Ctx, form: URLSearchParams): GivenCredentials {
  let clientId = form.get('client_id') || undefined;
  let clientSecret = form.get('client_secret') ?? undefined;
  const basic = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(c.req.header('authorization') ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0 || clientSecret !== undefined) throw invalidRequest('use exactly one client authentication method');
    try {
      // RFC 6749 section 2.3.1: both parts are form-urlencoded before they are joined.
      const basicId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      if (clientId !== undefined && clientId !== basicId) throw invalidRequest('client_id names another client than the Basic credentials');
      clientId = basicId;
      clientSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch (err) {
      if (err instanceof Problem) throw err;
      throw invalidRequest('the Basic credentials are not form-urlencoded');
    }
  }
  return { clientId, clientSecret, basic: basic !== null, assertionType: form.get('client_assertion_type'), assertion: form.get('client_assertion'), certificate: clientCertificate(c) };
}

const reasonOf = (given: GivenCredentials) =>
  given.assertion !== null ? 'assertion' : given.certificate && given.clientSecret === undefined ? 'certificate' : given.clientSecret !== undefined ? 'secret' : 'unknown_client';

function sameSecret(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A client secret: a file connector's development secret (compared in constant time), or one of
 * a managed connector's generated secrets that are valid now (their slow hashes; only the secret
 * whose hint matches is hashed, so a wrong secret costs one hash at most).
 */
async function secretClient(c: Ctx, given: GivenCredentials): Promise<AuthenticatedClient> {
  const { registry, db, config } = c.get('services');
  const method: ClientAuthMethod = given.basic ? 'client_secret_basic' : 'client_secret_post';
  const refused = (why = 'unknown client or wrong secret') => new Problem('UNAUTHENTICATED', why, { error: 'invalid_client', error_description: why }, { 'www-authenticate': 'Basic realm="pcx"' });
  if (!given.clientId) throw refused('authenticate the client: Basic credentials, a client assertion, or its certificate at the mutual-TLS address');
  const connector = registry.connector(given.clientId);
  if (!connector || !given.clientSecret) throw refused();
  if (connector.clientSecret !== undefined) {
    if (!sameSecret(given.clientSecret, connector.clientSecret)) throw refused();
    return { connector, method };
  }
  // Generated secrets count only while the operator allows client secrets (CLIENT_SECRETS).
  if (!config.auth.clientSecrets) throw refused();
  const candidates = (connector.managed?.secrets ?? []).filter((k) => k.hint === given.clientSecret!.slice(-4));
  for (const { credentialId, secretHash } of await secretHashes(db, connector.clientId, candidates.map((k) => k.credentialId))) {
    if (await clientSecretMatches(given.clientSecret, secretHash)) return { connector, method, credential: credentialId };
  }
  throw refused();
}

/**
 * At the mutual-TLS listener only: the client names itself (client_id) and the TLS handshake proved
 * it holds the key of the certificate it presented. self_signed_tls_client_auth (RFC 8705 section
 * 2.2): that key is one of its registered, valid keys. tls_client_auth (section 2.1): the
 * certificate chains to one of the operator's trust anchors and its subject is one the connector
 * registered. Either way the token is bound to the certificate (its `cnf`).
 */
async function certificateClient(c: Ctx, clientId: string | undefined, certificate: X509Certificate): Promise<AuthenticatedClient> {
  const { registry } = c.get('services');
  if (!clientId) throw invalidClient('name the client (client_id) beside its certificate, or authenticate it another way');
  const connector = registry.connector(clientId);
  if (!connector) throw invalidClient('unknown client');
  const boundTo = certificateThumbprint(certificate);
  const reasons: string[] = [];
  if (connector.jwks) {
    const match = await registeredKeyOf(certificate, connector.jwks.keys);
    if (match.ok) return { connector, method: 'self_signed_tls_client_auth', boundTo, ...(connector.managed && match.kid ? { credential: match.kid } : {}) };
    reasons.push(match.reason);
  }
  const subjects = connector.managed?.certificateSubjects ?? [];
  if (subjects.length) {
    if (!clientCertificateTrusted(c)) reasons.push("the client certificate does not chain to one of the broker's trust anchors (tls_client_auth)");
    else {
      const subject = certificateSubjectDn(certificate);
      const registered = subjects.find((s) => canonicalDn(s.subjectDn) === subject);
      if (registered) return { connector, method: 'tls_client_auth', boundTo, credential: registered.credentialId };
      reasons.push("the client certificate's subject is none of the client's registered subjects (tls_client_auth)");
    }
  }
  if (!reasons.length) throw invalidClient(connector.managed ? 'the client has no valid key or certificate subject: each was revoked or has expired, or none was registered' : 'the client has no registered public keys');
  throw invalidClient(reasons.join('; '));
}

/**
 * private_key_jwt (RFC 7523): the connector the assertion proves, verified against its registered
 * public keys and the keys of its jwks_uri, its jti remembered across replicas (a replay is
 * refused). One authentication method only: an assertion beside a secret or Basic credentials is refused.
 */
async function assertedClient(c: Ctx, given: GivenCredentials): Promise<AuthenticatedClient> {
  const services = c.get('services');
  const { registry, config, db } = services;
  if (given.basic || given.clientSecret !== undefined) throw invalidRequest('use exactly one client authentication method');
  if (given.assertionType !== JWT_BEARER_ASSERTION || !given.assertion) {
    throw invalidRequest(`a client assertion needs client_assertion_type=${JWT_BEARER_ASSERTION} and client_assertion`);
  }
  const clientId = claimedClient(given.assertion);
  if (!clientId || (given.clientId !== undefined && given.clientId !== clientId)) throw invalidClient('the client assertion does not name the client (sub), or names another than client_id');
  const connector = registry.connector(clientId);
  if (!connector) throw invalidClient('unknown client');
  const { keys, credentialOf } = await assertionKeys(c, connector, given.assertion);
  if (!keys.length && !connector.managed?.unusableKey) throw invalidClient('the client has no registered public keys');
  if (!keys.length && !kidOf(given.assertion)) throw invalidClient('the client has no valid key: each was revoked or has expired, or none was registered');
  const verified = await verifyClientAssertion(given.assertion, {
    clientId,
    keys,
    ...(connector.managed ? { unusable: connector.managed.unusableKey, registeredChains: connector.managed.registeredChains } : {}),
    trustAnchors: services.oauth.trustAnchors,
    audiences: endpointAudiences(config),
    skewSeconds: config.auth.clockSkewSeconds,
    maxLifetimeSeconds: connector.tokenPolicy?.assertionLifetimeSeconds ?? config.auth.assertionLifetimeSeconds,
  });
  if (!(await rememberAssertion(db, clientId, verified.jti, verified.exp + config.auth.clockSkewSeconds))) {
    throw invalidClient('the client assertion was used before (its jti): sign a new one for every token request');
  }
  // A managed connector's token names the credential that proved it (its kid, or its jwks_uri's id), for gate 2.
  const credential = connector.managed ? credentialOf.get(verified.key) : undefined;
  return { connector, method: 'private_key_jwt', ...(credential ? { credential } : {}) };
}

const kidOf = (jwt: string): string | undefined => {
  try {
    const { kid } = decodeProtectedHeader(jwt);
    return typeof kid === 'string' ? kid : undefined;
  } catch {
    return undefined;
  }
};

/** The keys an assertion may be verified with: the registered ones, then those of each jwks_uri (fetched again when the kid is new). */
async function assertionKeys(c: Ctx, connector: Connector, assertion: string): Promise<{ keys: JWK[]; credentialOf: Map<JWK, string> }> {
  const credentialOf = new Map<JWK, string>();
  const keys: JWK[] = [...(connector.jwks?.keys ?? [])];
  for (const key of keys) if (key.kid) credentialOf.set(key, key.kid);
  const kid = kidOf(assertion);
  const registeredKid = kid !== undefined && keys.some((k) => k.kid === kid);
  for (const { credentialId, uri } of connector.managed?.keySetUris ?? []) {
    if (registeredKid) break;
    try {
      const set = await c.get('services').oauth.keySets.keys(uri, kid);
      for (const key of set.keys) {
        keys.push(key);
        credentialOf.set(key, credentialId);
      }
    } catch (err) {
      if (err instanceof KeySetUnavailable) {
        c.get('services').log.warn({ clientId: connector.clientId, credentialId, error: err.message }, 'a connector\u2019s jwks_uri could not be fetched');
        if (!keys.length) throw invalidClient(err.message);
        continue;
      }
      throw err;
    }
  }
  return { keys, credentialOf };
}

/** What an assertion's aud may say: the token endpoint's URL (at either address), the issuer. */
export function endpointAudiences(config: { publicBaseUrl: string; mtls?: { baseUrl: string } | undefined; auth: { issuer: string; tokenEndpoint?: { issuer: string } | undefined } }): string[] {
  return [
    `${config.publicBaseUrl}/oauth2/token`,
    config.auth.tokenEndpoint?.issuer ?? config.auth.issuer,
    ...(config.mtls ? [`${config.mtls.baseUrl}/oauth2/token`] : []),
    `${config.publicBaseUrl}/oauth2/introspect`,
    `${config.publicBaseUrl}/oauth2/revoke`,
  ];
}
