// Where a broker's token endpoint is (RFC 8414): given only the broker's base URL, its
// authorization server metadata at `/.well-known/oauth-authorization-server` names the token
// endpoint, its mutual-TLS alias, introspection and revocation. A broker that answers none (an
// older one) has its token endpoint at `/oauth2/token`.

export interface AuthorizationServerMetadata {
  issuer: string;
  token_endpoint: string;
  introspection_endpoint?: string;
  revocation_endpoint?: string;
  jwks_uri?: string;
  token_endpoint_auth_methods_supported?: string[];
  dpop_signing_alg_values_supported?: string[];
  mtls_endpoint_aliases?: { token_endpoint?: string; introspection_endpoint?: string; revocation_endpoint?: string };
}

/**
 * The metadata of the broker at `baseUrl`, or undefined when it publishes none (404) or cannot
 * answer now (then the conventional address is used: a broker busy for a moment does not stop its
 * connectors; the next token request asks again).
 */
export async function discover(baseUrl: string, fetchImpl: typeof fetch = globalThis.fetch): Promise<AuthorizationServerMetadata | undefined> {
  let res: Response;
  try {
    res = await fetchImpl(`${baseUrl.replace(/\/+$/, '')}/.well-known/oauth-authorization-server`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(5_000) });
  } catch {
    return undefined;
  }
  if (!res.ok) {
    await res.body?.cancel();
    return undefined;
  }
  const metadata = (await res.json().catch(() => undefined)) as AuthorizationServerMetadata | undefined;
  if (typeof metadata?.token_endpoint !== 'string') throw new Error("the broker's authorization server metadata names no token_endpoint");
  return metadata;
}

/** The token endpoint to use: the mutual-TLS alias for a client with a certificate, else the token endpoint. */
export function tokenEndpointOf(metadata: AuthorizationServerMetadata | undefined, baseUrl: string, withCertificate: boolean): string {
  if (!metadata) return `${baseUrl.replace(/\/+$/, '')}/oauth2/token`;
  return (withCertificate ? metadata.mtls_endpoint_aliases?.token_endpoint : undefined) ?? metadata.token_endpoint;
}
