// Test helpers: the running stack (test/setup/stack-setup.ts), HTTP calls as a connector, tokens, and
// fresh organizations per test so that limits and pair rules of one test never touch another.
import { closeSync, openSync, readFileSync, readSync, writeSync, ftruncateSync } from 'node:fs';
import { clientAssertion, type PrivateJwk } from '../sdk/src/keys';
import { join } from 'node:path';
import { importJWK, SignJWT } from 'jose';
import { Pool } from 'pg';
import type { Db } from '../core/db';
import type { TransitionStore } from '../core/entities';
import { createTransitionStore } from '../read-model/transition-store';
import { ResponseContract, type ObservedResponse } from './contract';
import { RESERVED_ORGANIZATIONS, TEST_ORGANIZATION_COUNT, type SharedStartValues } from './stack';

export type Engine = 'postgres' | 'pglite';

/** The read-model engine of the jest project running this file (jest.config.js). */
export const ENGINE: Engine = ((globalThis as any).PCX_ENGINE ?? 'postgres') as Engine;

export interface TestEnv {
  engine: Engine;
  /** Shared by both engines' stacks (the organization counter lives here). */
  root: string;
  dir: string;
  schema?: string;
  /** Empty on PGlite: the broker owns its embedded database. */
  databaseUrl: string;
  baseUrl: string;
  dataDir: string;
  temporalAddress: string;
  taskQueue: string;
  brokerEnv: Record<string, string>;
  /** The stack's broker's mutual-TLS listener (RFC 8705): its address and the variables that start it. */
  mtls: { baseUrl: string; env: Record<string, string> };
  registry: { organizationsFile: string; connectorsFile: string; usersFile: string };
  /** The file the tests' DNS server answers from (test/dns-server.ts, setDnsAnswer). */
  webhooks: { dnsFile: string; tlsDir: string };
  /**
   * The run's shared `npm start` (test/setup/stack-setup.ts), in the project that runs the files
   * using it, when this run runs one of them: its broker, its adapter gateway, its data folder and
   * the file that says when it is ready. Read through npmStartFor (test/stack.ts).
   */
  npmStart?: SharedStartValues;
}

let cached: TestEnv | undefined;
export function testEnv(): TestEnv {
  cached ??= JSON.parse(readFileSync(process.env[`PCX_TEST_ENV_${ENGINE.toUpperCase()}`]!, 'utf8'));
  return cached!;
}

let pool: Pool | undefined;
/**
 * Direct SQL on the broker's read model: PostgreSQL only, because the PGlite broker owns its
 * embedded database in-process. Tests that need it are declared with `postgresOnly`.
 */
export function db(): Pool {
  if (ENGINE !== 'postgres') throw new Error('db() is PostgreSQL only; declare the test with postgresOnly');
  pool ??= new Pool({ connectionString: testEnv().databaseUrl, max: 3 });
  return pool;
}

/**
 * A test that reaches into the read-model database (planting rows a crash would leave behind).
 * It runs on PostgreSQL and is reported as skipped on PGlite, whose database lives inside the
 * broker process; everything a user can do through the API is tested on both engines.
 */
export const postgresOnly: jest.It = ENGINE === 'postgres' ? test : test.skip;
afterAll(async () => {
  await pool?.end();
  pool = undefined;
});

/**
 * Waits (up to 10 s) until every event the stack's broker has committed is within the feed's reach.
 * The feed serves only rows of transactions older than every transaction running anywhere on the
 * PostgreSQL server (read-model/events.ts, readFeed: a cursor never skips a row that commits
 * late), and npm test runs several stacks on one server: an event committed before its command
 * was answered can be held back for a moment by another process's transaction. A connector reads
 * the feed again; a test that asserts one read of it reads once the moment has passed. PGlite has
 * no writer but its broker.
 */
async function feedSettled(): Promise<void> {
  if (ENGINE !== 'postgres' || !testEnv().databaseUrl) return;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(20)) {
    const { rows } = await db().query<{ settled: boolean }>('select coalesce((select max(tx_id) from events) < pg_snapshot_xmin(pg_current_snapshot()), true) as settled');
    if (rows[0].settled) return;
  }
}

export interface Org {
  id: string;
  clientId: string;
  secret: string;
}

/** n organizations no other test has used in this run. */
export function freshOrgs(n: number): Org[] {
  const file = join(testEnv().root, 'org-counter');
  const fd = openSync(file, 'a+');
  try {
    const buf = Buffer.alloc(16);
    const read = readSync(fd, buf, 0, 16, 0);
    const next = read ? Number(buf.subarray(0, read).toString()) : 1;
    if (next + n - 1 > TEST_ORGANIZATION_COUNT - RESERVED_ORGANIZATIONS) throw new Error('test registry has too few organizations; raise TEST_ORGANIZATION_COUNT');
    ftruncateSync(fd, 0);
    writeSync(fd, String(next + n), 0);
    return Array.from({ length: n }, (_, i) => {
      const num = String(next + i).padStart(3, '0');
      return { id: `org-${num}`, clientId: `client-${num}`, secret: `secret-${num}` };
    });
  } finally {
    closeSync(fd);
  }
}

/**
 * fetch, sent once more when the request could not be written because the broker had just closed
 * the idle keep-alive connection it reused (EPIPE): the request never reached the broker, so
 * sending it again is safe. Seen in CI under load, at the first request of a test file, after the
 * test process's event loop had stalled (a workflow bundle being built) past the keep-alive.
 */
async function sent(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    // A pooled keep-alive socket the other side had closed: EPIPE while writing, or closed before
    // the answer (UND_ERR_SOCKET). Sent again on a new socket when that cannot do a thing twice:
    // the request never left (EPIPE), or it is a read or a token request.
    const code = (err as { cause?: { code?: string } })?.cause?.code;
    const safe = code === 'EPIPE' || (code === 'UND_ERR_SOCKET' && ((init.method ?? 'GET') === 'GET' || url.endsWith('/oauth2/token')));
    if (!safe || init.body instanceof ReadableStream) throw err;
    return fetch(url, init);
  }
}

export async function tokenFor(clientId: string, secret: string, scope?: string): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret });
  if (scope !== undefined) body.set('scope', scope);
  const res = await sent(`${testEnv().baseUrl}/oauth2/token`, { method: 'POST', body });
  const reply = await received('POST', '/oauth2/token', res);
  if (res.status !== 200) throw new Error(`token for ${clientId}: ${res.status} ${JSON.stringify(reply.body)}`);
  return reply.body.access_token;
}

/** Signs a token with the development key directly, to test tokens the server would never issue. */
export async function mintToken(claims: Record<string, unknown>, options: { audience?: string; issuer?: string; expiresIn?: string } = {}): Promise<string> {
  const key = JSON.parse(readFileSync(join(testEnv().dataDir, 'dev-auth-key.json'), 'utf8'));
  const env = testEnv();
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: key.privateJwk.kid })
    .setIssuer(options.issuer ?? `${env.baseUrl}/oauth2`)
    .setAudience(options.audience ?? 'pcx-broker')
    .setIssuedAt()
    .setJti(crypto.randomUUID())
    .setExpirationTime(options.expiresIn ?? '10m')
    .sign(await importJWK(key.privateJwk, 'ES256'));
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export interface CallOptions {
  headers?: Record<string, string>;
  /** Raw body (string) instead of JSON. */
  raw?: string | ReadableStream;
}

export async function call(method: string, path: string, token: string | undefined, body?: unknown, options: CallOptions = {}): Promise<Reply> {
  if (method === 'GET' && /^\/events(\?|$)/.test(path)) await feedSettled();
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: any;
  if (options.raw !== undefined) payload = options.raw;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await sent(`${testEnv().baseUrl}${path}`, { method, headers, body: payload, ...(payload instanceof ReadableStream ? { duplex: 'half' } : {}) } as any);
  return received(method, path, res);
}

let contract: ResponseContract | undefined;
/** The contract of the broker under test (its schema base), compiled once per test file. */
export function responseContract(): ResponseContract {
  const env = testEnv();
  const base = (env.brokerEnv.SCHEMA_BASE ?? `${env.baseUrl}/schemas`).replace(/\/$/, '');
  if (contract?.schemaBase !== base) contract = new ResponseContract(base);
  return contract;
}

/** Violations seen since the last test ended: reported again after the test, in case it swallowed the error. */
const violations: string[] = [];

/**
 * Reads a reply and checks it against schemas/openapi.yaml (and each event's data against its
 * dataschema): a reply outside its schema throws in the test that received it. Only responses are
 * checked; what a test sends may be as wrong as it likes.
 */
async function received(method: string, path: string, res: Response): Promise<Reply> {
  const text = await res.text();
  let parsed: any = text || undefined;
  let json = false;
  try {
    if (text) (parsed = JSON.parse(text)), (json = true);
  } catch {
    /* keep text */
  }
  const observed: ObservedResponse = { method, path, status: res.status, contentType: res.headers.get('content-type'), body: parsed, json };
  try {
    responseContract().check(observed);
  } catch (e) {
    violations.push((e as Error).message);
    throw e;
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

afterEach(() => {
  if (violations.length === 0) return;
  const found = violations.splice(0);
  throw new Error(`${found.length} response(s) outside their schemas during this test:\n${found.join('\n')}`);
});

/** A connector of one organization, with a token holding all its scopes (or the given ones). */
export class Connector {
  private constructor(
    public readonly org: Org,
    public readonly token: string,
  ) {}

  static async of(org: Org, scope?: string): Promise<Connector> {
    return new Connector(org, await tokenFor(org.clientId, org.secret, scope));
  }

  get id() {
    return this.org.id;
  }

  get(path: string, headers?: Record<string, string>) {
    return call('GET', path, this.token, undefined, { headers });
  }

  post(path: string, body?: unknown, headers?: Record<string, string>) {
    return call('POST', path, this.token, body, { headers });
  }

  patch(path: string, body?: unknown, headers?: Record<string, string>) {
    return call('PATCH', path, this.token, body, { headers });
  }

  delete(path: string, headers?: Record<string, string>) {
    return call('DELETE', path, this.token, undefined, { headers });
  }

  /** A lifecycle command with If-Match taken from the given version. */
  command(path: string, version: number, body?: unknown, headers: Record<string, string> = {}) {
    return call('POST', path, this.token, body, { headers: { 'if-match': `"${version}"`, ...headers } });
  }
}

export const ALL_SHARING_SCOPES = ['capacity:publish', 'capacity:read', 'loads:publish', 'loads:read', 'matches:read', 'matches:decide', 'tenders:read', 'tenders:decide'];

export async function createRelationship(from: Connector, to: Connector, extra: Record<string, unknown> = {}): Promise<Reply> {
  return from.post('/partner-relationships', {
    requestingOrganizationId: from.id,
    acceptingOrganizationId: to.id,
    scopes: ALL_SHARING_SCOPES,
    ...extra,
  });
}

/** Creates, requests and accepts a relationship; returns the active record. */
export async function activeRelationship(from: Connector, to: Connector, extra: Record<string, unknown> = {}): Promise<any> {
  const created = await createRelationship(from, to, extra);
  expect(created.status).toBe(201);
  const requested = await from.command(`/partner-relationships/${created.body.id}/request`, 1);
  expect(requested.status).toBe(200);
  const accepted = await to.command(`/partner-relationships/${created.body.id}/accept`, 2);
  expect(accepted.status).toBe(200);
  return accepted.body;
}

export function expectProblem(reply: Reply, status: number, code: string) {
  if (reply.status !== status || reply.body?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(reply.body.type).toMatch(/^urn:exchange:protocol:error:[a-z-]+$/);
  expect(typeof reply.body.title).toBe('string');
  expect(typeof reply.body.detail).toBe('string');
  expect(reply.body.correlationId).toBe(reply.headers.get('x-correlation-id'));
}

/** Every record a list endpoint shows the caller (all pages): what a connector can see. */
export async function listAll(c: Connector, collection: string, query = ''): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: Reply = await c.get(`${collection}?limit=200${query ? `&${query}` : ''}${cursor ? `&cursor=${cursor}` : ''}`);
    if (page.status !== 200) throw new Error(`GET ${collection}: ${page.status} ${JSON.stringify(page.body)}`);
    items.push(...page.body.items);
    cursor = page.body.nextCursor;
  } while (cursor);
  return items;
}

/** Relationships the organization of `c` has requested, as its own list shows them. */
export async function relationshipsRequestedBy(c: Connector): Promise<any[]> {
  return (await listAll(c, '/partner-relationships')).filter((r) => r.requestingOrganizationId === c.id);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A token by private_key_jwt at the test broker's token endpoint: the access token, or the refusal. */
export async function tokenByKey(clientId: string, privateJwk: PrivateJwk): Promise<{ status: number; token?: string; body: any }> {
  const tokenUrl = `${testEnv().baseUrl}/oauth2/token`;
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: clientAssertion({ clientId, tokenUrl, privateJwk }) }),
  });
  const body = await res.json();
  return { status: res.status, token: body.access_token, body };
}

/**
 * The read model's side of commands a test process sends itself through core/entities.ts (the
 * broker's transition store, with the test broker's event source and schema base). PostgreSQL
 * only: on PGlite only the broker's process may open the read model.
 */
export function testTransitionStore(db: Db): TransitionStore {
  const base = testEnv().baseUrl;
  return createTransitionStore(db, { schemaBase: `${base}/schemas`, eventSource: `${base}/events` });
}
