// A user's sign-in at the development OpenID provider without a browser: what oidc-client-ts does
// in the console (Authorization Code with PKCE, S256), request by request, redirects followed by
// hand with the provider's cookies. test/users.test.ts takes user tokens from it.
import { createHash, randomBytes } from 'node:crypto';

export const CONSOLE_SCOPES = 'openid profile capacity:read loads:read matches:read matches:decide tenders:read tenders:publish tenders:decide commitments:read handovers:read outcomes:review connectors:manage';

export interface SignedIn {
  accessToken: string;
  idToken: string;
  scope: string;
  /** The console's silent renewal: a refresh token for the sign-in (rotated at each use). */
  refreshToken?: string;
}

/** Signs in; a refusal at the login form throws with the page's status. */
export async function signIn(base: string, userId: string, password: string, scope = CONSOLE_SCOPES): Promise<SignedIn> {
  const jar = new Map<string, string>();
  const cookies = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
  };
  const go = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(new URL(url, base), { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: cookies() } });
    keep(res);
    return res;
  };
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const redirectUri = `${base}/console/`;
  const authorize = new URL(`${base}/oidc/auth`);
  for (const [k, v] of Object.entries({ client_id: 'pcx-console', response_type: 'code', redirect_uri: redirectUri, scope, state: randomBytes(8).toString('hex'), code_challenge: challenge, code_challenge_method: 'S256' })) {
    authorize.searchParams.set(k, v);
  }
  let res = await go(authorize.href);
  const interaction = res.headers.get('location');
  if (res.status !== 303 || !interaction) throw new Error(`authorization answered ${res.status}: ${await res.text()}`);
  res = await go(interaction);
  if (res.status !== 200) throw new Error(`the sign-in page answered ${res.status}`);
  res = await go(`${interaction}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ username: userId, password }).toString() });
  if (res.status !== 303) throw Object.assign(new Error(`sign-in refused: ${res.status}`), { status: res.status, page: await res.text() });
  // Back to the authorization endpoint (resume), then to the console with the code.
  let location = res.headers.get('location')!;
  for (let hops = 0; !location.startsWith(redirectUri) && hops < 5; hops++) {
    res = await go(location);
    location = res.headers.get('location') ?? '';
    if (!location) throw new Error(`the authorization did not come back: ${res.status} ${await res.text()}`);
  }
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`no code: ${location}`);
  const token = await fetch(`${base}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'pcx-console', code_verifier: verifier }).toString(),
  });
  const body = (await token.json()) as any;
  if (token.status !== 200) throw new Error(`token endpoint answered ${token.status}: ${JSON.stringify(body)}`);
  return { accessToken: body.access_token, idToken: body.id_token, scope: body.scope, refreshToken: body.refresh_token };
}

/** What oidc-client-ts's silent renewal sends: the refresh token grant; the token endpoint's answer as it is. */
export async function refresh(base: string, refreshToken: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'pcx-console' }).toString(),
  });
  return { status: res.status, body: await res.json() };
}
