// Broken brokers for the conformance kit's own test (test/conformance.test.ts): a proxy in front of
// this broker that plays one plausible implementation bug, the cheapest wrong reading of one
// passage of the specification, for every check of the Broker profile. Each must be reported
// non-conformant on exactly its check (and so its family), and on no other: a kit whose checks
// can all pass a broken broker proves nothing. A bug that a document would describe (an answer
// without a member the schema requires) comes with the document rewritten to match, as an
// implementation's own document would be: the check about the specification must find it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { BrokerSettings } from '../conformance/src/broker/world';

export interface ProxiedRequest {
  method: string;
  path: string;
  search: string;
  /** Who sent it: A, B or C (by the token's subject), else `other`. */
  party: string;
  /** The organization the token names (org_id). */
  organizationId: string | undefined;
  /** Lower-case names; a mutant may change them. */
  headers: Record<string, string>;
  /** The JSON body (or the text), which a mutant may change. */
  body: any;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

export interface Tools {
  /** A GET to the broker itself with the caller's authorization. */
  get(path: string, authorization: string | undefined): Promise<Answer>;
  /** The mutant's memory across requests. */
  state: Map<string, any>;
  /** Sends a request to the broker itself (as the caller would have: a connector's second request). */
  send(x: ProxiedRequest): Promise<Answer>;
}

export interface Mutant {
  /** The one check that must find it. */
  check: string;
  /** The bug, as an implementer would have made it. */
  bug: string;
  /** The checks to run (default: the check alone; the run-wide checks always run). */
  only?: string[];
  settings?: BrokerSettings;
  request?(x: ProxiedRequest, tools: Tools): void | Promise<void>;
  /** Answers in the broker's place, without forwarding (a bug before the broker's own code). */
  intercept?(x: ProxiedRequest, tools: Tools): Answer | undefined | Promise<Answer | undefined>;
  response?(x: ProxiedRequest, answer: Answer, tools: Tools): Answer | undefined | Promise<Answer | undefined>;
  /** Rewrites the implementation's own OpenAPI document as it serves it. */
  document?(doc: any): void;
}

/** A problem document as a broker would answer it. */
export function problem(status: number, code: string, name: string, detail = name): Answer {
  return {
    status,
    headers: { 'content-type': 'application/problem+json' },
    body: { type: `urn:exchange:protocol:error:${name}`, title: detail, status, code, detail, correlationId: randomUUID() },
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({ status, headers: { ...headers, 'content-type': 'application/json' }, body });
const resourcePath = (path: string) => /^\/[a-z-]+\/[^/]+/.exec(path)?.[0] ?? path;
const isCommand = (x: ProxiedRequest) => x.method === 'POST' && /^\/[a-z-]+\/[^/]+\/[a-z-]+$/.test(x.path);

/** The current resource, as the caller reads it: what a broker that "ignores" a refusal answers. */
async function current(x: ProxiedRequest, tools: Tools): Promise<Answer> {
  const read = await tools.get(resourcePath(x.path), x.headers.authorization);
  return json(read.status, read.body, read.headers.etag ? { etag: read.headers.etag } : {});
}

/** If-Match replaced by the resource's current ETag: the broker that never refuses a stale write. */
async function currentIfMatch(x: ProxiedRequest, tools: Tools): Promise<void> {
  if (!x.headers['if-match']) return;
  const read = await tools.get(resourcePath(x.path), x.headers.authorization);
  if (read.headers.etag) x.headers['if-match'] = read.headers.etag;
}

export const MUTANTS: Mutant[] = [
  {
    check: 'SV-1', bug: 'a create whose body breaks the schema is repaired silently and stored',
    request(x) {
      if (x.method === 'POST' && x.path === '/capacity-offers' && x.body && typeof x.body.availableCapacity !== 'object') {
        x.body = { ...x.body, availableCapacity: { palletSpaces: 1 }, expiresAt: x.body.availabilityWindow?.end };
      }
    },
  },
  {
    check: 'LT-1', bug: 'publishing does not increment the version',
    response(x, a) {
      if (x.method === 'POST' && /\/capacity-offers\/[^/]+\/publish$/.test(x.path) && a.status === 200) return json(200, { ...a.body, resourceVersion: a.body.resourceVersion - 1 });
      return undefined;
    },
  },
  {
    check: 'LT-2', bug: 'a command not allowed in the state is ignored and answered 200',
    async response(x, a, tools) {
      return isCommand(x) && a.status === 422 && a.body?.code === 'INVALID_STATE_TRANSITION' ? current(x, tools) : undefined;
    },
  },
  {
    check: 'LT-3', bug: 'a withdraw without a reason gets a default reason',
    request(x) {
      if (x.method === 'POST' && x.path.endsWith('/withdraw') && x.body && typeof x.body === 'object' && !x.body.reason) x.body = { ...x.body, reason: 'none given' };
    },
  },
  {
    check: 'LT-4', bug: 'a refused relationship command (a reactivation) is ignored and answered 200',
    async response(x, a, tools) {
      return x.method === 'POST' && /^\/partner-relationships\/[^/]+\/reactivate$/.test(x.path) && a.status >= 400 && a.status < 500 ? current(x, tools) : undefined;
    },
  },
  ...['ID-1', 'ID-2'].map((check) => ({
    check, bug: 'creates ignore Idempotency-Key',
    request(x: ProxiedRequest) {
      if (x.method === 'POST' && x.path === '/capacity-offers') delete x.headers['idempotency-key'];
    },
  })),
  {
    check: 'ID-3', bug: 'commands ignore Idempotency-Key',
    request(x) {
      if (isCommand(x)) delete x.headers['idempotency-key'];
    },
  },
  {
    check: 'ID-4', bug: 'a replay answers the resource as it is now, not the original outcome',
    async response(x, a, tools) {
      const key = x.headers['idempotency-key'];
      if (!key || x.method !== 'POST' || a.status >= 300) return undefined;
      const seen = tools.state.has(key);
      tools.state.set(key, true);
      if (!seen) return undefined;
      const read = await tools.get(x.path === '/capacity-offers' ? `/capacity-offers/${a.body.id}` : resourcePath(x.path), x.headers.authorization);
      return json(a.status, read.body, read.headers.etag ? { etag: read.headers.etag, ...(a.headers.location ? { location: a.headers.location } : {}) } : {});
    },
  },
  {
    check: 'SW-1', bug: 'If-Match is not compared: the last writer wins',
    request: (x, tools) => (x.method === 'POST' && x.path.endsWith('/withdraw') ? currentIfMatch(x, tools) : undefined),
  },
  {
    check: 'SW-2', bug: 'a concurrent second command is answered 200 as if it had been applied',
    async response(x, a, tools) {
      return x.method === 'POST' && x.path.endsWith('/withdraw') && [409, 412, 422].includes(a.status) ? current(x, tools) : undefined;
    },
  },
  {
    check: 'SW-3', bug: 'a decision is applied to the proposal as it is now, whatever version it observed',
    request: (x, tools) => (x.method === 'POST' && x.path.endsWith('/decisions') ? currentIfMatch(x, tools) : undefined),
  },
  {
    check: 'SW-4', bug: 'answers carry no ETag',
    response(_x, a) {
      if (!a.headers.etag) return undefined;
      const { etag: _etag, ...headers } = a.headers;
      return { ...a, headers };
    },
  },
  {
    check: 'IS-1', bug: "another organization's resource answers 403 (revealing that it exists)",
    response(x, a) {
      return x.party === 'C' && x.method === 'GET' && a.status === 404 ? problem(403, 'FORBIDDEN', 'forbidden', 'not yours') : undefined;
    },
  },
  {
    check: 'IS-2', bug: "the relationships list is not filtered by party: a stranger lists the others' relationships",
    response(x, a, tools) {
      // The relationships A is answered (its relationship with B) are what C's list shows too.
      if (x.party === 'A' && a.status < 300 && typeof a.body?.requestingOrganizationId === 'string') tools.state.set(`relationship:${a.body.id}`, a.body);
      if (x.party !== 'C' || x.method !== 'GET' || x.path !== '/partner-relationships' || a.status !== 200) return undefined;
      const theirs = [...tools.state.entries()].filter(([k]) => k.startsWith('relationship:')).map(([, v]) => v);
      return json(200, { ...a.body, items: [...a.body.items, ...theirs] });
    },
  },
  {
    check: 'IS-3', bug: "a stranger's command on another organization's resource answers 403",
    response(x, a) {
      return x.party === 'C' && x.method === 'POST' && a.status === 404 ? problem(403, 'FORBIDDEN', 'forbidden', 'not yours') : undefined;
    },
  },
  {
    check: 'IS-5', bug: 'visibility is cached: a former partner keeps reading what it read before the relationship ended',
    response(x, a, tools) {
      if (x.party !== 'C' || x.method !== 'GET' || !/^\/load-requests\/[^/]+$/.test(x.path)) return undefined;
      if (a.status === 200) tools.state.set(x.path, a);
      return a.status === 404 ? tools.state.get(x.path) : undefined;
    },
  },
  {
    check: 'FD-1', bug: 'the owner does not see its own restricted details (redacted for everyone)',
    response(x, a) {
      if (x.party !== 'A' || x.method !== 'GET' || !/^\/capacity-offers\/[^/]+$/.test(x.path) || a.status !== 200) return undefined;
      const { restrictedDetails: _r, ...rest } = a.body;
      return json(200, rest, a.headers.etag ? { etag: a.headers.etag } : {});
    },
  },
  {
    check: 'FD-2', bug: "a partner's list of requests leaves out the requests shared with it",
    response(x, a) {
      if (x.party !== 'A' || x.method !== 'GET' || x.path !== '/load-requests' || a.status !== 200) return undefined;
      return json(200, { ...a.body, items: a.body.items.filter((r: any) => r.ownerOrganizationId === x.organizationId) });
    },
  },
  {
    check: 'EV-1', bug: 'events carry no correlationid (and the document does not ask for one)',
    response(x, a) {
      if (x.method !== 'GET' || x.path !== '/events' || a.status !== 200) return undefined;
      return json(200, { ...a.body, items: a.body.items.map(({ correlationid: _c, ...e }: any) => e) });
    },
    document: (doc) => dropRequired(doc, 'correlationid'),
  },
  {
    check: 'EV-2', bug: 'a feed page is served newest first, so versions decrease within a subject',
    response(x, a) {
      if (x.party !== 'A' || x.method !== 'GET' || x.path !== '/events' || a.status !== 200) return undefined;
      return json(200, { ...a.body, items: [...a.body.items].reverse() });
    },
  },
  {
    check: 'PR-1', bug: 'proposals stay open when their listing is withdrawn',
    response(x, a) {
      if (x.method !== 'GET' || !/^\/match-proposals\/[^/]+$/.test(x.path) || a.body?.status !== 'withdrawn') return undefined;
      return json(200, { ...a.body, status: 'open' }, a.headers.etag ? { etag: a.headers.etag } : {});
    },
  },
  {
    check: 'PR-2', bug: 'proposals never expire',
    settings: { proposalValiditySeconds: 15 },
    response(x, a) {
      if (x.method !== 'GET' || !/^\/match-proposals\/[^/]+$/.test(x.path) || a.body?.status !== 'expired') return undefined;
      return json(200, { ...a.body, status: 'open' }, a.headers.etag ? { etag: a.headers.etag } : {});
    },
  },
  {
    check: 'DP-1', bug: 'one accept commits the proposal (the bilateral policy is not applied)',
    response(x, a, tools) {
      if (x.party !== 'B' || x.method !== 'POST' || !x.path.endsWith('/decisions') || a.status !== 200) return undefined;
      if (tools.state.has(x.path)) return undefined;
      tools.state.set(x.path, true);
      return json(200, { ...a.body, status: 'accepted', decisionState: 'COMMITTED' }, a.headers.etag ? { etag: a.headers.etag } : {});
    },
  },
  {
    check: 'DP-2', bug: 'a decision on a committed proposal is ignored and answered 200',
    async response(x, a, tools) {
      return x.party !== 'C' && x.method === 'POST' && x.path.endsWith('/decisions') && a.status === 409 ? current(x, tools) : undefined;
    },
  },
  {
    check: 'OC-1', bug: 'a replayed outcome is answered as a new one (201)',
    response(x, a) {
      return x.method === 'POST' && x.path === '/execution-outcomes' && a.status === 200 ? { ...a, status: 201 } : undefined;
    },
  },
  {
    check: 'OC-2', bug: 'a stale correction is answered as a validation error (422)',
    response(x, a) {
      return x.method === 'POST' && x.path.endsWith('/corrections') && a.status === 409 && a.body?.code === 'STALE_RESOURCE_VERSION' ? problem(422, 'VALIDATION_FAILED', 'validation-failed', 'observedOutcomeVersion is wrong') : undefined;
    },
  },
  {
    check: 'OC-3', bug: 'an outcome rewritten after it was recorded (its status changed in the read model): served as it is now, its log left as it was',
    response(x, a) {
      return x.method === 'GET' && /^\/execution-outcomes\/[^/]+$/.test(x.path) && a.status === 200 ? { ...a, body: { ...a.body, status: a.body.status === 'disputed' ? 'completed' : 'disputed' } } : undefined;
    },
  },
  {
    check: 'ER-1', bug: 'a request without a valid token is served as the last caller',
    request(x, tools) {
      if (x.party !== 'other') tools.state.set('token', x.headers.authorization);
      else if (tools.state.has('token') && !x.path.startsWith('/oauth2/') && !x.path.startsWith('/openapi')) x.headers.authorization = tools.state.get('token');
    },
  },
  {
    check: 'ER-2', bug: 'an oversized body is parsed and refused as invalid (400), not 413',
    intercept(x) {
      const size = typeof x.body === 'string' ? x.body.length : JSON.stringify(x.body ?? '').length;
      return size > 256 * 1024 ? problem(400, 'VALIDATION_FAILED', 'validation-failed', 'the body is not valid') : undefined;
    },
  },
  {
    check: 'ER-3', bug: 'problems carry no correlationId (and the document does not ask for one)',
    only: ['LT-2'],
    response(_x, a) {
      if (a.status < 400 || typeof a.body !== 'object' || !a.body) return undefined;
      const { correlationId: _c, ...rest } = a.body;
      return { ...a, body: rest };
    },
    document: (doc) => dropRequired(doc, 'correlationId'),
  },
  {
    check: 'SV-2', bug: 'reads answer a weak ETag the document does not allow',
    only: ['LT-1'],
    response(x, a) {
      return x.method === 'GET' && a.headers.etag && !a.headers.etag.startsWith('W/') ? { ...a, headers: { ...a.headers, etag: `W/${a.headers.etag}` } } : undefined;
    },
  },
  {
    check: 'IS-4', bug: "partners' lists forget to leave out the owner's drafts (their restricted details are left out)",
    only: ['LT-1'],
    response(x, a, tools) {
      if (x.party === 'A' && x.method === 'POST' && x.path === '/capacity-offers' && a.status === 201) {
        const { restrictedDetails: _r, ...draft } = a.body;
        tools.state.set('drafts', [...(tools.state.get('drafts') ?? []), draft]);
      }
      if (x.party !== 'B' || x.method !== 'GET' || x.path !== '/capacity-offers' || a.status !== 200) return undefined;
      return json(200, { ...a.body, items: [...a.body.items, ...(tools.state.get('drafts') ?? [])] });
    },
  },
  {
    check: 'FD-3', bug: "partners' feed events carry the owner's restricted details",
    only: ['LT-1'],
    response(x, a) {
      if (x.party !== 'B' || x.method !== 'GET' || x.path !== '/events' || a.status !== 200) return undefined;
      const items = a.body.items.map((e: any) => (e.data?.availableCapacity ? { ...e, data: { ...e.data, restrictedDetails: { price: { amount: 900, currency: 'EUR' } } } } : e));
      return json(200, { ...a.body, items });
    },
  },
];

/** Removes `member` from every `required` list of the document (the implementation's document agreeing with its bug). */
function dropRequired(node: any, member: string): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node.required)) node.required = node.required.filter((m: string) => m !== member);
  for (const value of Object.values(node)) dropRequired(value, member);
}

/**
 * A proxy that plays `mutant` in front of `target`. `parties` maps client ids to A, B and C (the
 * token's subject names the caller).
 */
export async function brokenBroker(target: string, mutant: Mutant, parties: Record<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  const state = new Map<string, any>();
  const send = async (x: ProxiedRequest): Promise<Answer> => {
    const raw = x.body === undefined ? undefined : typeof x.body === 'string' ? x.body : JSON.stringify(x.body);
    const headers: Record<string, string> = { ...x.headers };
    delete headers.host;
    delete headers['content-length'];
    const upstream = await fetch(`${target}${x.path}${x.search}`, { method: x.method, headers, ...(raw === undefined ? {} : { body: raw }) });
    const answer: Answer = { status: upstream.status, headers: {}, body: undefined };
    upstream.headers.forEach((v, k) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) answer.headers[k] = v;
    });
    const text = await upstream.text();
    try {
      answer.body = text ? JSON.parse(text) : undefined;
    } catch {
      answer.body = text;
    }
    return answer;
  };
  const tools: Tools = {
    state,
    send,
    async get(path, authorization) {
      const res = await fetch(`${target}${path}`, { headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) } });
      const headers: Record<string, string> = {};
      res.headers.forEach((v, k) => (headers[k] = v));
      const text = await res.text();
      return { status: res.status, headers, body: text ? JSON.parse(text) : undefined };
    },
  };
  const server: Server = createServer(async (req, res) => {
    try {
      const x = await proxied(req, parties);
      if (mutant.document && x.method === 'GET' && /^\/openapi(\.bundled)?\.json$/.test(x.path)) {
        const doc = (await tools.get(x.path, undefined)).body;
        mutant.document(doc);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(doc));
        return;
      }
      const intercepted = await mutant.intercept?.(x, tools);
      if (intercepted) {
        res.writeHead(intercepted.status, intercepted.headers);
        res.end(JSON.stringify(intercepted.body));
        return;
      }
      await mutant.request?.(x, tools);
      const answer = await send(x);
      const out = (await mutant.response?.(x, answer, tools)) ?? answer;
      res.writeHead(out.status, out.headers);
      if (out.status === 204 || out.status === 304 || out.body === undefined) res.end();
      else res.end(typeof out.body === 'string' ? out.body : JSON.stringify(out.body));
    } catch (err) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: ${(err as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function proxied(req: IncomingMessage, parties: Record<string, string>): Promise<ProxiedRequest> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
  let body: any;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  const url = new URL(req.url ?? '/', 'http://proxy');
  const claims = claimsOf(headers.authorization);
  return { method: req.method ?? 'GET', path: url.pathname, search: url.search, party: parties[claims.sub] ?? 'other', organizationId: claims.org_id, headers, body };
}

/** The token's claims, unverified (the broker verifies them; the proxy only tells the parties apart). */
function claimsOf(authorization: string | undefined): { sub?: any; org_id?: any } {
  const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  try {
    return token ? JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) : {};
  } catch {
    return {};
  }
}
