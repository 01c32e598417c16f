// PcxClient: the typed SDK over the broker's HTTP API (sdk/README.md).
//
// Three levels, from the most convenient:
//   - resource clients (`pcx.offers`, `pcx.proposals`, ...): create, get, list (an async iterator
//     over every page), update and every command of the resource by name (`pcx.offers.publish(offer)`),
//     If-Match taken from the resource the caller last read;
//   - `pcx.request(method, path, ...)`: any operation of the document, checked against it at run time;
//   - `pcx.api`: openapi-fetch typed by the document, for full control.
// All three go through one transport (transport.ts): token, Idempotency-Key, retries, timeouts.
import createClient, { type Client } from 'openapi-fetch';
import type { SuccessResponseJSON } from 'openapi-typescript-helpers';
import type { paths } from './generated/openapi';
import { OPERATIONS, RESOURCE_NAMES, type OperationInfo } from './generated/operations';
import { isProblem, PcxProblemError, problemError, problemOfStatus, type Problem } from './errors';
import { ClientCredentials, createTransport, DEFAULT_RETRY, StaticToken, type RetryInfo, type RetryPolicy, type TokenSource } from './transport';
import { FeedConsumer, type FeedOptions } from './feed';
import type { PrivateJwk } from './keys';
import { DpopKey } from './dpop';
import { discover, tokenEndpointOf } from './discovery';
import { mutualTlsFetch } from './mutual-tls';

export const SDK_VERSION = '0.1.0';

export interface PcxClientOptions {
  /** The broker's base URL, e.g. http://localhost:3000. */
  baseUrl: string;
  /** Client credentials of a connector (the usual way); or `accessToken`. */
  clientId?: string;
  clientSecret?: string;
  /** Instead of clientSecret: the connector's private key (a JWK), for private_key_jwt (sdk/src/keys.ts). */
  privateKey?: PrivateJwk;
  /**
   * Instead of clientSecret or privateKey: a TLS client certificate (PEM) and its key, for mutual
   * TLS (RFC 8705; `ca` an extra authority for the broker's server certificate). `baseUrl` is then
   * the broker's mutual-TLS address, where its certificate-bound tokens work.
   */
  certificate?: { cert: string | Buffer; key: string | Buffer; ca?: string | Buffer };
  /** DPoP (RFC 9449): tokens bound to a key of the connector's (true: a new P-256 key for this client; or the private JWK to use). */
  dpop?: boolean | PrivateJwk;
  /** The token endpoint; by default the one the broker's metadata names (`/.well-known/oauth-authorization-server`), else `/oauth2/token`. */
  tokenUrl?: string;
  /** Narrows the token to these scopes (space-separated), when given. */
  scope?: string;
  /** A token, or a function giving the current one (an interactive user's; asked with `renew: true` after a 401). */
  accessToken?: string | ((options: { renew: boolean }) => Promise<string> | string);
  /** Each attempt's limit in ms (default 30,000). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Called before each retry (the CLI reports them on stderr). */
  onRetry?: (info: RetryInfo) => void;
  fetch?: typeof fetch;
  userAgent?: string;
  /**
   * Called with every resource read by `get`, `page` or `list` (its collection and document) before it is returned:
   * a TransparencyMonitor's `verifyReads()` proves the decisions, revisions, digests,
   * acknowledgements and outcomes in it in the broker's transparency log, and throws
   * TransparencyError when one is not what was logged (docs/transparency-log.md).
   */
  onRead?: (collection: string, document: unknown) => Promise<void>;
}

/** Per call: an AbortSignal, an Idempotency-Key of the caller's (one is made otherwise), a correlation id. */
export interface CallOptions {
  signal?: AbortSignal;
  idempotencyKey?: string;
  correlationId?: string;
}

/** The resource a command applies to, as last read (its `resourceVersion` becomes If-Match), or its id and version. */
export type Target = { id: string; resourceVersion: number } | { id: string; ifMatch: string | number };

export interface CommandOptions extends CallOptions {
  /**
   * The command is safe to decide again on the resource as it is now: on 409
   * STALE_RESOURCE_VERSION the resource is read again and the command sent with its new version
   * (up to `attempts`, default 3). Only for commands whose meaning does not depend on what changed.
   */
  redecideOnStale?: boolean | { attempts: number };
}

/** The collections of the API by their path, as the document names them (RESOURCE_NAMES, generated). */
export type Collection = (typeof RESOURCE_NAMES)[keyof typeof RESOURCE_NAMES];
export const COLLECTIONS: readonly Collection[] = Object.values(RESOURCE_NAMES);

type PathOf<P> = P extends keyof paths ? P : never;
type Op<P, M extends string> = PathOf<P> extends never ? never : paths[PathOf<P>] extends { [K in M]: infer O extends Record<string | number, any> } ? O : never;

/** An operation's JSON request body (undefined when it takes none); optional bodies too. */
type JsonBody<O> = O extends { requestBody?: infer B } ? (NonNullable<B> extends { content: { 'application/json': infer J } } ? J : undefined) : undefined;

/** A resource as the broker answers a read. */
export type ResourceOf<C extends Collection> = SuccessResponseJSON<Op<`/${C}/{id}`, 'get'>>;
/** The body of a create. */
export type CreateBody<C extends Collection> = JsonBody<Op<`/${C}`, 'post'>>;
/** The answer to a create. */
export type Created<C extends Collection> = SuccessResponseJSON<Op<`/${C}`, 'post'>>;
/** A list's query parameters. */
export type ListQuery<C extends Collection> = Op<`/${C}`, 'get'> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** One item of a list. */
export type ItemOf<C extends Collection> = SuccessResponseJSON<Op<`/${C}`, 'get'>> extends { items: (infer I)[] } ? I : never;
/** The body of a PATCH. */
export type UpdateBody<C extends Collection> = JsonBody<Op<`/${C}/{id}`, 'patch'>>;

type PostPaths = { [P in keyof paths]: paths[P] extends { post: {} } ? P : never }[keyof paths];
/** The commands of a collection: `/{collection}/{id}/{action}` operations with POST. */
export type ActionOf<C extends Collection> = PostPaths extends infer P ? (P extends `/${C}/{id}/${infer A}` ? (A extends `${string}/${string}` ? never : A) : never) : never;
export type CommandBody<C extends Collection, A extends string> = JsonBody<Op<`/${C}/{id}/${A}`, 'post'>>;
export type CommandResult<C extends Collection, A extends string> = SuccessResponseJSON<Op<`/${C}/{id}/${A}`, 'post'>>;

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;

/** A command by name: `pcx.offers.publish(offer)`, `pcx.proposals.decisions(proposal, { decision: 'accept' })`. */
export type CommandMethods<C extends Collection> = {
  [A in ActionOf<C> as Camel<A>]: (target: Target | string, body?: CommandBody<C, A>, options?: CommandOptions) => Promise<CommandResult<C, A>>;
};

export interface Page<T> {
  items: T[];
  nextCursor?: string | null;
}

export type ResourceClient<C extends Collection> = {
  readonly collection: C;
  get(id: string, options?: CallOptions): Promise<ResourceOf<C>>;
  /** Every item over every page, fetched as the loop goes (`for await`). */
  list(query?: ListQuery<C>, options?: CallOptions): AsyncIterable<ItemOf<C>>;
  /** One page: items and the cursor of the next. */
  page(query?: ListQuery<C> & { cursor?: string; limit?: number }, options?: CallOptions): Promise<Page<ItemOf<C>>>;
  create(body: CreateBody<C>, options?: CallOptions): Promise<Created<C>>;
  update(target: Target | string, patch: UpdateBody<C>, options?: CommandOptions): Promise<ResourceOf<C>>;
  command<A extends ActionOf<C>>(action: A, target: Target | string, body?: CommandBody<C, A>, options?: CommandOptions): Promise<CommandResult<C, A>>;
} & CommandMethods<C>;

/** An answer's data with its response (headers: ETag, Idempotent-Replayed, X-Correlation-Id). */
export interface Answer<T> {
  data: T;
  response: Response;
}

const ifMatchOf = (target: Target | string): string | undefined => {
  if (typeof target === 'string') return undefined;
  if ('resourceVersion' in target) return `"${target.resourceVersion}"`;
  return typeof target.ifMatch === 'number' ? `"${target.ifMatch}"` : target.ifMatch;
};
const idOf = (target: Target | string): string => (typeof target === 'string' ? target : target.id);

/** The client of each collection by its name (pcx.offers: ResourceClient<'capacity-offers'>), from the document. */
type CollectionClients = { readonly [N in keyof typeof RESOURCE_NAMES]: ResourceClient<(typeof RESOURCE_NAMES)[N]> };
// Declared by interface merging: the constructor sets them from RESOURCE_NAMES.
export interface PcxClient extends CollectionClients {}

export class PcxClient {
  readonly baseUrl: string;
  /** openapi-fetch, typed by the broker's document, on the same transport. */
  readonly api: Client<paths>;
  private readonly transport: (request: Request) => Promise<Response>;
  private readonly tokens: TokenSource;
  /** What every read of a resource calls with it (PcxClientOptions.onRead); settable later: `pcx.onRead = monitor.verifyReads()`. */
  onRead: PcxClientOptions['onRead'];


  constructor(options: PcxClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Bound: a browser's fetch called as another object's method throws "Illegal invocation".
    const fetchImpl = options.fetch ?? (options.certificate ? mutualTlsFetch(options.certificate) : globalThis.fetch.bind(globalThis));
    let tokens: TokenSource;
    if (options.accessToken !== undefined) tokens = new StaticToken(options.accessToken);
    else if (options.clientId && (options.clientSecret || options.privateKey || options.certificate)) {
      const method = options.privateKey ? { privateKey: options.privateKey } : options.clientSecret ? { clientSecret: options.clientSecret } : { certificate: true };
      // The token endpoint as given, or as the broker's metadata names it (RFC 8414; its mutual-TLS alias for a client with a certificate).
      const tokenUrl = options.tokenUrl ?? (async () => tokenEndpointOf(await discover(this.baseUrl, fetchImpl), this.baseUrl, options.certificate !== undefined));
      const dpop = options.dpop === true ? new DpopKey() : options.dpop ? new DpopKey(options.dpop) : undefined;
      tokens = new ClientCredentials({ tokenUrl, clientId: options.clientId, ...method, ...(dpop ? { dpop } : {}), scope: options.scope, fetch: fetchImpl });
    } else throw new TypeError('PcxClient needs clientId and clientSecret (or privateKey, or certificate), or accessToken');
    this.tokens = tokens;
    this.onRead = options.onRead;
    this.transport = createTransport({
      tokens,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      timeoutMs: options.timeoutMs ?? 30_000,
      fetch: fetchImpl,
      userAgent: options.userAgent ?? `pcx-sdk/${SDK_VERSION}`,
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    });
    this.api = createClient<paths>({ baseUrl: this.baseUrl, fetch: this.transport });
    // pcx.offers, pcx.relationships, ...: one client per collection, by the name the document gives it.
    for (const [name, collection] of Object.entries(RESOURCE_NAMES)) Object.defineProperty(this, name, { value: this.resource(collection), enumerable: true });
  }

  /**
   * The connector's current access token, for services that take the organization's own exchange
   * token (the adapter gateway): renewed before it expires, like every call's.
   */
  accessToken(): Promise<string> {
    return this.tokens.token();
  }

  /**
   * Any operation of the document by method and path template (`/capacity-offers/{id}/publish`),
   * with its path parameters, query, body and If-Match; the answer's JSON, or a PcxProblemError.
   */
  async request<T = unknown>(
    method: string,
    pathTemplate: string,
    input: { path?: Record<string, string>; query?: Record<string, unknown>; body?: unknown; ifMatch?: string } & CallOptions = {},
  ): Promise<Answer<T>> {
    const operation = findOperation(method, pathTemplate);
    if (!operation) throw new TypeError(`${method} ${pathTemplate} is not an operation of the broker's document`);
    const path = pathTemplate.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = input.path?.[name];
      if (value === undefined) throw new TypeError(`${method} ${pathTemplate}: path parameter ${name} missing`);
      return encodeURIComponent(value);
    });
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v));
    }
    const headers = new Headers({ accept: 'application/json' });
    if (input.body !== undefined) headers.set('content-type', 'application/json');
    if (input.ifMatch !== undefined && operation.ifMatch) headers.set('if-match', input.ifMatch);
    if (input.idempotencyKey) headers.set('idempotency-key', input.idempotencyKey);
    if (input.correlationId) headers.set('x-correlation-id', input.correlationId);
    const request = new Request(url, {
      method: method.toUpperCase(),
      headers,
      ...(input.body !== undefined ? { body: JSON.stringify(input.body) } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const response = await this.transport(request);
    if (!response.ok) throw await problemFrom(response, { method: request.method, path });
    const text = await response.text();
    return { data: (text ? JSON.parse(text) : undefined) as T, response };
  }

  /**
   * An operation of the document by the URL a caller holds (`/capacity-offers/0192…/publish`, a
   * list's path with its query, a link from an answer) rather than its template: the URL is matched
   * to its operation (a literal segment before a parameter) and sent as `request` sends it, so it
   * is refused before it leaves when no operation has that path.
   */
  async send<T = unknown>(method: string, url: string, input: { body?: unknown; ifMatch?: string } & CallOptions = {}): Promise<Answer<T>> {
    const parsed = new URL(url, `${this.baseUrl}/`);
    const match = operationOf(method, parsed.pathname);
    if (!match) throw new TypeError(`${method} ${parsed.pathname} is not an operation of the broker's document`);
    const query: Record<string, string[]> = {};
    for (const [name, value] of parsed.searchParams) (query[name] ??= []).push(value);
    return this.request<T>(method, match.operation.path, { ...input, path: match.path, query });
  }

  /**
   * Reads with `read`, acts with `act` on what it read, and on 409 STALE_RESOURCE_VERSION reads
   * again and acts again (up to `attempts`, default 3): for decisions that stay right whatever changed.
   */
  async retryOnStale<R, T>(read: () => Promise<R>, act: (current: R) => Promise<T>, options: { attempts?: number } = {}): Promise<T> {
    const attempts = options.attempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      const current = await read();
      try {
        return await act(current);
      } catch (err) {
        if (!isProblem(err, 'STALE_RESOURCE_VERSION') || attempt >= attempts) throw err;
      }
    }
  }

  /** The organization's event feed (GET /events): `for await (const event of pcx.events(...))`. */
  events(options: FeedOptions = {}): FeedConsumer {
    return new FeedConsumer((query, call) => this.request('GET', '/events', { query, ...call }).then((a) => a.data as any), options);
  }

  /** The client of one collection (the properties above are these). */
  resource<C extends Collection>(collection: C): ResourceClient<C> {
    const base = `/${collection}`;
    const client = {
      collection,
      get: async (id: string, options?: CallOptions) => {
        const { data } = await this.request(`GET`, `${base}/{id}`, { path: { id }, ...options });
        await this.onRead?.(collection, data);
        return data;
      },
      page: async (query: Record<string, unknown> = {}, options?: CallOptions) => {
        const { data } = await this.request<Page<unknown>>('GET', base, { query, ...options });
        for (const item of data.items) await this.onRead?.(collection, item);
        return data;
      },
      list: (query: Record<string, unknown> = {}, options?: CallOptions) => this.paginate(collection, query, options),
      create: async (body: unknown, options?: CallOptions) => (await this.request('POST', base, { body, ...options })).data,
      update: (target: Target | string, patch: unknown, options?: CommandOptions) => this.versioned(collection, 'PATCH', `${base}/{id}`, target, patch, options),
      command: (action: string, target: Target | string, body?: unknown, options?: CommandOptions) =>
        this.versioned(collection, 'POST', `${base}/{id}/${action}`, target, body, options),
    };
    const actions = OPERATIONS.filter((o) => o.method === 'POST' && o.path.startsWith(`${base}/{id}/`) && o.path.split('/').length === 4);
    for (const { path } of actions) {
      const action = path.split('/')[3];
      const name = action.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
      (client as Record<string, unknown>)[name] = (target: Target | string, body?: unknown, options?: CommandOptions) => client.command(action, target, body, options);
    }
    return client as unknown as ResourceClient<C>;
  }

  private async *paginate(collection: Collection, query: Record<string, unknown>, options?: CallOptions): AsyncGenerator<any> {
    let cursor: string | undefined;
    for (;;) {
      const page = (await this.request<Page<unknown>>('GET', `/${collection}`, { query: { ...query, ...(cursor ? { cursor } : {}) }, ...options })).data;
      for (const item of page.items) {
        await this.onRead?.(collection, item);
        yield item;
      }
      if (!page.nextCursor || page.items.length === 0) return;
      cursor = page.nextCursor;
    }
  }

  private async versioned(collection: Collection, method: 'POST' | 'PATCH', template: string, target: Target | string, body: unknown, options: CommandOptions = {}): Promise<any> {
    const id = idOf(target);
    const send = (ifMatch: string | undefined, idempotencyKey: string | undefined) =>
      this.request(method, template, { path: { id }, body, ...(ifMatch ? { ifMatch } : {}), ...options, ...(idempotencyKey ? { idempotencyKey } : {}) }).then((a) => a.data);
    const redecide = options.redecideOnStale;
    if (!redecide) return send(ifMatchOf(target), options.idempotencyKey);
    const attempts = typeof redecide === 'object' ? redecide.attempts : 3;
    let ifMatch = ifMatchOf(target);
    for (let attempt = 1; ; attempt++) {
      try {
        // A new decision is a new request: the caller's key belongs to the first only.
        return await send(ifMatch, attempt === 1 ? options.idempotencyKey : undefined);
      } catch (err) {
        if (!isProblem(err, 'STALE_RESOURCE_VERSION') || attempt >= attempts) throw err;
        const current = (await this.request<{ resourceVersion: number }>('GET', `/${collection}/{id}`, { path: { id }, ...(options.signal ? { signal: options.signal } : {}) })).data;
        ifMatch = `"${current.resourceVersion}"`;
      }
    }
  }
}

/**
 * The operation a concrete path belongs to and its path parameters (decoded), or undefined. Where
 * two templates fit (`/console/places` and a `/{id}`), the one with more literal segments wins.
 */
export function operationOf(method: string, pathname: string): { operation: OperationInfo; path: Record<string, string> } | undefined {
  const m = method.toUpperCase();
  const segments = pathname.split('/');
  let best: { operation: OperationInfo; path: Record<string, string>; literals: number } | undefined;
  for (const operation of OPERATIONS) {
    if (operation.method !== m) continue;
    const template = operation.path.split('/');
    if (template.length !== segments.length) continue;
    const path: Record<string, string> = {};
    let literals = 0;
    const fits = template.every((part, i) => {
      const parameter = /^\{(\w+)\}$/.exec(part);
      if (!parameter) return part === segments[i] && ++literals > 0;
      if (!segments[i]) return false;
      path[parameter[1]] = decodeURIComponent(segments[i]);
      return true;
    });
    if (fits && (!best || literals > best.literals)) best = { operation, path, literals };
  }
  return best && { operation: best.operation, path: best.path };
}

function findOperation(method: string, path: string): OperationInfo | undefined {
  const m = method.toUpperCase();
  return OPERATIONS.find((o) => o.method === m && o.path === path);
}

async function problemFrom(response: Response, request: { method: string; path: string }): Promise<PcxProblemError> {
  const text = await response.text().catch(() => '');
  let problem: Problem | undefined;
  try {
    const body = JSON.parse(text) as Problem;
    if (body && typeof body === 'object' && typeof body.code === 'string') problem = { ...body, status: body.status ?? response.status };
  } catch {
    // Not a problem document (a proxy's page): a stand-in below.
  }
  problem ??= problemOfStatus(response.status, text.slice(0, 200));
  problem.correlationId ??= response.headers.get('x-correlation-id') ?? undefined;
  return problemError(problem, request);
}
