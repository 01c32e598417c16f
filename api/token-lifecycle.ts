// The lifecycle of the broker's access tokens after they are issued: introspection (RFC 7662) for
// resource servers such as the adapter gateway, and revocation (RFC 7009) by the connector that got
// the token. Both authenticate the calling client as the token endpoint does
// (api/client-authentication.ts, throttled alike).
//
// Introspection answers `active: true` with the token's claims only for a token gates 1 to 3 would
// accept now (signature, audience, lifetime, not revoked; its connector, credential and
// organization active, or its user registered and its organization active): one of the broker's
// token endpoint or of the users' identity provider; and only to a client of the token's
// organization or to the protocol operator (whose resource servers, such as the adapter gateway,
// serve every organization); anyone else learns `active: false`, as does everyone for a token
// that is not (RFC 7662 section 4: no token scanning across organizations).
// Revocation takes effect on every replica within a second (read-model/revoked-tokens.ts); a
// token already invalid is answered 200, as RFC 7009 section 2.2 says, and a token issued to
// another client is refused.
import { Hono } from 'hono';
import type { TokenClaims } from '../core/auth';
import { authenticateClient, invalidRequest, OAUTH_PROBLEM, OAUTH_TOO_LARGE, oauthForm, type AuthenticatedClient } from './client-authentication';
import type { AppEnv, Services } from './context';
import { connectorPrincipal, organizationActive, registeredUser } from './gates';
import { publicOperation } from './operations';

export const tokenLifecycle = new Hono<AppEnv>();

const AUTHENTICATION =
  'The calling client authenticates as at the token endpoint (private_key_jwt, client_secret_basic or _post where allowed, or its ' +
  'certificate at the mutual-TLS address), and is throttled alike after repeated failures.';
const REFUSALS = {
  '400': { description: '`VALIDATION_FAILED` with `error` `invalid_request` (no `token`, two authentication methods).', content: OAUTH_PROBLEM },
  '401': { description: '`UNAUTHENTICATED` or `CONNECTOR_INACTIVE` with `error` `invalid_client`.', content: OAUTH_PROBLEM },
  '413': OAUTH_TOO_LARGE,
  '415': { description: '`UNSUPPORTED_MEDIA_TYPE`: the body is not application/x-www-form-urlencoded.', content: OAUTH_PROBLEM },
  '429': { description: '`RATE_LIMITED` with `error` `slow_down`: too many failed client authentications; Retry-After.', headers: { 'Retry-After': { description: 'Seconds until the client id or address is no longer throttled.', schema: { type: 'integer' } } }, content: OAUTH_PROBLEM },
} as const;

publicOperation(tokenLifecycle, {
  method: 'POST', path: '/oauth2/introspect', answers: [200],
  doc: {
    id: 'introspectToken',
    summary: 'Introspect an access token (RFC 7662)',
    description:
      'Whether an access token of this broker is active now, and its claims: for resource servers (the adapter gateway, an ' +
      "organization's own services) that receive the organization's tokens. `active` is true only for a token the broker's token " +
      'endpoint issued that the API would accept now (not expired, not revoked, its connector, credential and organization active), and ' +
      "only when the caller is a client of the token's organization or the protocol operator; otherwise `{\"active\": false}`. " +
      'A bound token names its binding (`cnf`): the resource server must check the certificate or the DPoP proof. ' + AUTHENTICATION,
    tag: 'Authorization',
    requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/IntrospectionRequest' } } } },
    responses: {
      '200': { description: 'The token\u2019s state (RFC 7662 section 2.2).', headers: { 'Cache-Control': { description: '`no-store`', schema: { type: 'string' } } }, content: { 'application/json': { schema: { $ref: '#/components/schemas/IntrospectionResponse' } } } },
      ...REFUSALS,
    },
  },
}, async (c) => {
  const services = c.get('services');
  const form = await oauthForm(c);
  const client = await authenticateClient(c, form, 'introspect');
  const token = form.get('token');
  if (!token) throw invalidRequest('name the token to introspect (token)');
  c.header('cache-control', 'no-store');
  const claims = await activeClaims(services, token);
  if (!claims || !mayIntrospect(services, client, claims)) return c.json({ active: false });
  return c.json({
    active: true,
    scope: claims.scope ?? '',
    client_id: claims.kind === 'user' ? claims.client_id : claims.sub,
    sub: claims.sub,
    org_id: claims.org_id,
    token_type: claims.cnf?.jkt ? 'DPoP' : 'Bearer',
    exp: claims.exp,
    ...(claims.iat !== undefined ? { iat: claims.iat } : {}),
    ...(claims.nbf !== undefined ? { nbf: claims.nbf } : {}),
    aud: claims.aud,
    iss: claims.iss,
    jti: claims.jti,
    ...(claims.cnf ? { cnf: claims.cnf } : {}),
  });
});

publicOperation(tokenLifecycle, {
  method: 'POST', path: '/oauth2/revoke', answers: [200],
  doc: {
    id: 'revokeToken',
    summary: 'Revoke an access token (RFC 7009)',
    description:
      'The connector ends one of its own access tokens before it expires (a token it no longer needs, one that may have leaked): ' +
      'from the next request on, on every replica, the API refuses it (401 `INVALID_TOKEN`) and introspection calls it inactive. ' +
      'A token that is already invalid or expired is answered 200 all the same; a token issued to another client is refused. ' +
      '`token_type_hint` is accepted and not needed (the broker issues access tokens only). To end every token of a key, revoke the key ' +
      '(`POST /connectors/{id}/revoke-credential`). ' + AUTHENTICATION,
    tag: 'Authorization',
    requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/RevocationRequest' } } } },
    responses: {
      '200': { description: 'Revoked (or not a valid token of this broker: nothing to revoke). No body.' },
      ...REFUSALS,
      '400': { description: '`VALIDATION_FAILED` with `error` `invalid_request` (no `token`, two authentication methods) or `unauthorized_client` (the token was issued to another client).', content: OAUTH_PROBLEM },
    },
  },
}, async (c) => {
  const services = c.get('services');
  const form = await oauthForm(c);
  const client = await authenticateClient(c, form, 'revoke');
  const token = form.get('token');
  if (!token) throw invalidRequest('name the token to revoke (token)');
  let claims: TokenClaims;
  try {
    claims = await services.verifyToken(token);
  } catch {
    // Expired, forged, not ours: nothing to revoke (RFC 7009 section 2.2).
    return c.body(null, 200);
  }
  if (claims.kind !== 'connector' || claims.iss !== services.config.auth.tokenEndpoint?.issuer || typeof claims.jti !== 'string') return c.body(null, 200);
  if (claims.sub !== client.connector.clientId) throw invalidRequest('the token was not issued to this client', 'unauthorized_client');
  await services.oauth.revocations.revoke({ jti: claims.jti, clientId: claims.sub, expiresAt: claims.exp! });
  services.log.info({ clientId: claims.sub, jti: claims.jti }, 'access token revoked by its client');
  return c.body(null, 200);
});

/** The claims of a token the broker issued that the API would accept now (gates 1 to 3), or undefined. */
async function activeClaims(services: Services, token: string): Promise<TokenClaims | undefined> {
  let claims: TokenClaims;
  try {
    claims = await services.verifyToken(token);
  } catch {
    return undefined;
  }
  if (typeof claims.jti === 'string' && services.oauth.revocations.has(claims.jti)) return undefined;
  try {
    if (claims.kind === 'user') {
      const user = registeredUser(services, claims);
      if (!organizationActive(services, user.organizationId)) return undefined;
    } else {
      if (claims.iss !== services.config.auth.tokenEndpoint?.issuer) return undefined;
      connectorPrincipal(services, claims);
    }
  } catch {
    return undefined;
  }
  return claims;
}

/** A client of the token's organization, or the protocol operator (an operator organization's client with exchange:admin). */
function mayIntrospect(services: Services, client: AuthenticatedClient, claims: TokenClaims): boolean {
  if (claims.org_id === client.connector.organizationId) return true;
  return services.registry.organization(client.connector.organizationId)?.role === 'operator' && client.connector.scopes.includes('exchange:admin');
}
