// The development authorization server: OAuth 2.0 client credentials (RFC 6749 section 4.4) at
// POST /oauth2/token, client_secret_basic or client_secret_post, an optional `scope` narrowing the
// token to a subset of the client's scopes, and the key set at /.well-known/jwks.json. On by
// default in the embedded set-up, refused in production mode. Errors are problem details that
// also carry RFC 6749's `error` and `error_description`, so OAuth client libraries understand them.
import { timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import { signDevToken } from '../core/auth';
import { Problem, type ProblemCode } from '../domain/problems';
import type { AppEnv } from '../api/context';
import { publicOperation } from '../api/operations';

export const oauth = new Hono<AppEnv>();

function oauthError(code: ProblemCode, error: string, description: string, headers: Record<string, string> = {}) {
  return new Problem(code, description, { error, error_description: description }, headers);
}

function sameSecret(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

publicOperation(oauth, { method: 'POST', path: '/oauth2/token', answers: [200] }, async (c) => {
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
  const connector = clientId ? services.registry.connector(clientId) : undefined;
  // The registry demands a clientSecret of every connector while this server is on (core/registry.ts).
  if (!connector || !clientSecret || !connector.clientSecret || !sameSecret(clientSecret, connector.clientSecret)) {
    throw oauthError('UNAUTHENTICATED', 'invalid_client', 'unknown client or wrong secret', { 'www-authenticate': 'Basic realm="pcx"' });
  }
  if (connector.status !== 'active' || services.registry.organization(connector.organizationId)?.status !== 'active') {
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
  const token = await signDevToken(services.devKey!, services.config, { sub: connector.clientId, org_id: connector.organizationId, scope });
  c.header('cache-control', 'no-store');
  return c.json({ access_token: token, token_type: 'Bearer', expires_in: services.config.auth.tokenTtlSeconds, scope });
});

publicOperation(oauth, { method: 'GET', path: '/.well-known/jwks.json', answers: [200] }, (c) => c.json({ keys: [c.get('services').devKey!.publicJwk] }));
