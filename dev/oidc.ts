// The development identity provider for interactive users (development mode only; docs/console.md):
// `oidc-provider` (OpenID Certified) at `<PUBLIC_BASE_URL>/oidc`, Authorization Code with PKCE for
// the planner console (a public client, `pcx-console`), demo users from the users file signing in
// with their password. Its access tokens are JWTs for the broker's audience (RFC 9068, resource
// indicators), carrying org_id and the scopes the user's roles allow, signed with the development
// key the broker already trusts; the broker checks them at its gates as it checks a connector's.
// In production the organization's own identity provider takes its place (USER_OIDC_ISSUER).
//
// It is not a Hono route: oidc-provider is a Koa application answering Node's request and response
// itself, so the broker's server hands it every request under /oidc (broker.ts).
import { generateKeyPairSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { SigningKey } from '../core/auth';
import type { Config } from '../core/config';
import { ROLE_SCOPES, userScopes, type Registry } from '../core/registry';
import { memoryAdapter } from './oidc-memory-adapter';
import type { Db } from '../core/db';
import { invitationCodeMatches } from '../read-model/client-secrets';

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** The path the provider is mounted at; its issuer is PUBLIC_BASE_URL followed by it. */
export const OIDC_PATH = '/oidc';

/** How long a user's access token lives: short; the console renews it silently with its refresh token. */
const ACCESS_TOKEN_SECONDS = 900;
/** A working day: how long a sign-in lasts (the session, and the refresh tokens that renew it). */
const SESSION_SECONDS = 8 * 3600;

/** The provider's own keys besides the development key: an RSA key for ID tokens (RS256, OIDC's default), kept across restarts. */
function providerRsaKey(dataDir: string): Record<string, unknown> {
  const file = join(dataDir, 'dev-oidc-key.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: `rsa-${randomBytes(6).toString('hex')}`, alg: 'RS256', use: 'sig' };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(jwk), { mode: 0o600 });
  return jwk;
}

function samePassword(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The sign-in page: labelled fields, the error as text, no script, this origin's stylesheet only. */
function loginPage(uid: string, error?: string, userId = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to the Partner Capacity Exchange</title>
<link rel="stylesheet" href="/console/app/console.css"></head>
<body class="signin">
<main>
<h1>Sign in to the Partner Capacity Exchange</h1>
<p>The development identity provider: sign in as a demo user (docs/console.md).</p>
${error ? `<p role="alert" class="error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${OIDC_PATH}/interaction/${escapeHtml(uid)}/login">
<label for="username">User</label>
<input id="username" name="username" autocomplete="username" required value="${escapeHtml(userId)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
</main>
</body></html>`;
}

const PAGE_CSP = "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      body += chunk;
      if (body.length > 8192) req.destroy(new Error('form too large'));
    });
    req.on('end', () => resolve(new URLSearchParams(body)));
    req.on('error', reject);
  });
}

/** The provider's configuration: the console as its one client, the registry's users, tokens for the broker. */
function providerConfiguration(options: { config: Config; registry: Registry; signingKey: SigningKey }): Configuration {
  const { config, registry, signingKey } = options;
  const users = config.auth.users!;
  const audience = config.auth.audience;
  // RFC 8707 names a resource by an absolute URI: the broker's public address; the tokens for it
  // carry the broker's audience (AUTH_AUDIENCE), which need not be a URI.
  const resource = config.publicBaseUrl;
  const consoleUrl = `${config.publicBaseUrl}/console/`;
  const configuration: Configuration = {
    adapter: memoryAdapter,
    clients: [
      {
        client_id: users.clientId,
        client_name: 'PCX planner console',
        token_endpoint_auth_method: 'none',
        // Refresh tokens: the console renews its access token without a redirect (docs/console.md).
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [consoleUrl],
        post_logout_redirect_uris: [consoleUrl],
      },
    ],
    pkce: { required: () => true },
    // Only the console, a public client: the provider's discovery then names no client authentication
    // a connector might mistake for the connectors' token endpoint's (that is /oauth2, RFC 8414 metadata
    // at /.well-known/oauth-authorization-server/oauth2).
    clientAuthMethods: ['none'],
    // The console (a public client) gets a refresh token at every sign-in without asking for
    // offline_access: it lives as long as the sign-in (rotated at each use, as oidc-provider does
    // for public clients), and a user disabled meanwhile is refused at the next refresh
    // (findAccount below answers nothing for an inactive user).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    jwks: { keys: [providerRsaKey(config.dataDir) as any, signingKey.privateJwk as any] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], profile: ['name', 'org_id', 'roles'] },
    // The console reads who signed in from the ID token: its access token is for the broker
    // (another audience), which the userinfo endpoint does not take.
    conformIdTokenClaims: false,
    async findAccount(_ctx, id) {
      const user = registry.user(id);
      if (!user || user.status === 'inactive') return undefined;
      return { accountId: id, claims: async () => ({ sub: id, name: user.name, org_id: user.organizationId, roles: user.roles }) };
    },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, resourceIndicator) {
          if (resourceIndicator !== resource) throw new errors.InvalidTarget();
          return { scope: registryScopes(), audience, accessTokenTTL: ACCESS_TOKEN_SECONDS, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    // The broker's gates want org_id in every token, as in a connector's.
    async extraTokenClaims(_ctx, token) {
      const user = 'accountId' in token && token.accountId ? registry.user(String(token.accountId)) : undefined;
      return user ? { org_id: user.organizationId } : undefined;
    },
    // The console is the broker's own client: no consent screen; the grant is what the user's
    // roles allow, decided anew at every sign-in.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const accountId = ctx.oidc.session!.accountId!;
      const user = registry.user(accountId);
      if (!user) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId });
      grant.addOIDCScope('openid profile');
      const allowed = userScopes(user);
      grant.addResourceScope(resource, allowed.join(' '));
      // What the console asks and the roles do not allow is refused, not put to a consent screen.
      const refused = registryScopes().split(' ').filter((s) => !allowed.includes(s));
      if (refused.length) grant.rejectResourceScope(resource, refused.join(' '));
      await grant.save();
      return grant;
    },
    interactions: { url: (_ctx, interaction) => `${OIDC_PATH}/interaction/${interaction.uid}` },
    ttl: { AccessToken: ACCESS_TOKEN_SECONDS, AuthorizationCode: 60, IdToken: ACCESS_TOKEN_SECONDS, Interaction: 600, Session: SESSION_SECONDS, Grant: SESSION_SECONDS, RefreshToken: SESSION_SECONDS },
    renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error</title></head><body><main><h1>Sign-in error</h1><p>${escapeHtml(String(out.error))}: ${escapeHtml(String(out.error_description ?? ''))}</p><p><a href="/console/">Back to the console</a></p></main></body></html>`;
    },
  };
  return configuration;
}

/** The provider and the handler of every request under /oidc. */
export function createDevIdentityProvider(options: { config: Config; registry: Registry; signingKey: SigningKey; db: Db }): NodeHandler {
  const { config, registry } = options;
  const configuration = providerConfiguration(options);
  const provider = new Provider(`${config.publicBaseUrl}${OIDC_PATH}`, configuration);
  // Behind a proxy that terminates TLS, the public address is https although the request is not.
  provider.proxy = true;
  const callback = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new errors.SessionNotFound('interaction mismatch');
    const page = (status: number, html: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP, 'cache-control': 'no-store' });
      res.end(html);
    };
    if (req.method === 'GET' && action === undefined) return page(200, loginPage(uid));
    if (req.method === 'POST' && action === 'login') {
      const form = await readForm(req);
      const userId = form.get('username') ?? '';
      // A user invited a moment ago is known once the registry has read it.
      if (!registry.user(userId)) await registry.refresh();
      const user = registry.user(userId);
      const password = form.get('password') ?? '';
      // A file user's development password; a managed user's invitation code (its hash: api/users.ts).
      const known = user && (user.managed ? await invitationCodeMatches(options.db, user.userId, password) : !!user.password && samePassword(password, user.password));
      if (!user || !known) return page(401, loginPage(uid, 'Unknown user or wrong password.', userId));
      if (user.status === 'inactive') return page(403, loginPage(uid, 'This user is disabled.', userId));
      return provider.interactionFinished(req, res, { login: { accountId: user.userId } }, { mergeWithLastSubmission: false });
    }
    res.writeHead(405, { allow: 'GET, POST' }).end();
  }

  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://broker');
    const m = /^\/oidc\/interaction\/([A-Za-z0-9_-]{1,64})(?:\/(login))?$/.exec(url.pathname);
    if (m) {
      interaction(req, res, m[1], m[2]).catch((err) => {
        if (!res.headersSent) res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`The sign-in could not go on (${(err as Error).message}); start again from the console.`);
      });
      return;
    }
    // The provider answers under its issuer's path: it routes the path below /oidc and, as when
    // mounted in Express, learns the mount path from originalUrl for the addresses it writes.
    (req as IncomingMessage & { originalUrl?: string }).originalUrl = req.url;
    req.url = (req.url ?? '/').slice(OIDC_PATH.length) || '/';
    callback(req, res);
  };
}

/** Every scope a user may hold (what the resource server offers; the grant narrows it per user). */
function registryScopes(): string {
  return [...new Set(Object.values(ROLE_SCOPES).flat())].join(' ');
}
