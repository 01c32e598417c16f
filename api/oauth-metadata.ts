// Discovery for connectors (RFC 8414): the metadata of the broker's authorization server (issuer
// `<PUBLIC_BASE_URL>/oauth2`) at the address RFC 8414 section 3.1 derives from that issuer,
// `/.well-known/oauth-authorization-server/oauth2`, and at the two forms clients also try (the root,
// and the issuer with the suffix appended, as OpenID discovery does it); and the key set that
// verifies its tokens. What it lists is what the broker does with this configuration: the client
// authentication methods it accepts (client secrets only where the operator allows them), the
// mutual-TLS aliases when the listener runs, DPoP's algorithms. The SDK and `pcx` read it when
// given only a base URL.
import { Hono } from 'hono';
import { SCOPES } from '../domain/scopes';
import { CLIENT_SIGNING_ALGORITHMS } from '../core/signed-jwt';
import type { Config } from '../core/config';
import { CLIENT_AUTH_METHODS } from './client-authentication';
import type { AppEnv } from './context';
import { publicOperation } from './operations';

export const oauthMetadata = new Hono<AppEnv>();

/** The authorization server metadata of this broker (RFC 8414 section 2, RFC 8705 section 5, RFC 9449 section 5.1). */
export function authorizationServerMetadata(config: Config): Record<string, unknown> {
  const base = config.publicBaseUrl;
  const methods = CLIENT_AUTH_METHODS.filter((m) => {
    if (m === 'tls_client_auth' || m === 'self_signed_tls_client_auth') return config.mtls !== undefined;
    // Secrets: generated ones where the operator allows them, or the development files' (DEV_AUTH).
    if (m === 'client_secret_basic' || m === 'client_secret_post') return config.auth.clientSecrets || config.auth.devServer;
    return true;
  });
  const endpoints = (root: string) => ({ token_endpoint: `${root}/oauth2/token`, introspection_endpoint: `${root}/oauth2/introspect`, revocation_endpoint: `${root}/oauth2/revoke` });
  return {
    issuer: config.auth.tokenEndpoint!.issuer,
    ...endpoints(base),
    jwks_uri: `${base}/.well-known/jwks.json`,
    scopes_supported: SCOPES,
    // Client credentials only: no authorization endpoint, no response types.
    response_types_supported: [],
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: methods,
    token_endpoint_auth_signing_alg_values_supported: [...CLIENT_SIGNING_ALGORITHMS],
    introspection_endpoint_auth_methods_supported: methods,
    introspection_endpoint_auth_signing_alg_values_supported: [...CLIENT_SIGNING_ALGORITHMS],
    revocation_endpoint_auth_methods_supported: methods,
    revocation_endpoint_auth_signing_alg_values_supported: [...CLIENT_SIGNING_ALGORITHMS],
    dpop_signing_alg_values_supported: [...CLIENT_SIGNING_ALGORITHMS],
    ...(config.mtls ? { tls_client_certificate_bound_access_tokens: true, mtls_endpoint_aliases: endpoints(config.mtls.baseUrl) } : {}),
    service_documentation: `${base}/docs`,
  };
}

const metadataDoc = (id: string, path: string, summary: string) => ({
  method: 'GET' as const,
  path,
  answers: [200],
  doc: {
    id,
    summary,
    description:
      "The RFC 8414 metadata of the broker's authorization server for connectors (issuer `<base>/oauth2`): its token, " +
      'introspection and revocation endpoints, the client authentication methods and signing algorithms it accepts, its key set, the ' +
      'mutual-TLS aliases where the operator runs the mutual-TLS address, and the DPoP algorithms. The same document at the RFC 8414 address ' +
      '(`/.well-known/oauth-authorization-server/oauth2`), at the root and under the issuer. Present unless the broker\u2019s token endpoint is off.',
    tag: 'Authorization',
    responses: {
      '200': {
        description: 'Authorization server metadata (RFC 8414 section 2).',
        headers: { 'Cache-Control': { description: '`public, max-age=300`', schema: { type: 'string' } } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/AuthorizationServerMetadata' } } },
      },
    },
  },
});

for (const [id, path, summary] of [
  ['getAuthorizationServerMetadata', '/.well-known/oauth-authorization-server/oauth2', 'Authorization server metadata for connectors (RFC 8414)'],
  ['getAuthorizationServerMetadataAtRoot', '/.well-known/oauth-authorization-server', 'Authorization server metadata for connectors, at the root'],
  ['getAuthorizationServerMetadataUnderIssuer', '/oauth2/.well-known/oauth-authorization-server', 'Authorization server metadata for connectors, under the issuer'],
] as const) {
  publicOperation(oauthMetadata, metadataDoc(id, path, summary), (c) => {
    c.header('cache-control', 'public, max-age=300');
    return c.json(authorizationServerMetadata(c.get('services').config));
  });
}

publicOperation(oauthMetadata, {
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
