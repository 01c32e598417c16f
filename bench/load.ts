// Load generation shared by the command-path benchmarks (bench/relationships.ts, bench/topology.ts):
// `concurrency` lanes pull flow numbers from one counter until `flows` are done, timing each step;
// the relationship flow (create, request, accept) over HTTP; organization pairs that never repeat.
// And the offers the read-model benchmarks (backup, purge, rebuild) measure against.
import { randomUUID } from 'node:crypto';
import { offer } from '../test/market-bodies';

export interface Sample {
  step: string;
  ms: number;
  keyed?: boolean;
}
export type Timer = <T>(step: string, fn: () => Promise<T>, keyed?: boolean) => Promise<T>;
export type Flow = (i: number, time: Timer) => Promise<void>;
export interface Run<C extends Record<string, number> = Record<string, number>> {
  system: string;
  concurrency: number;
  flows: number;
  seconds: number;
  samples: Sample[];
  /** CPU milliseconds each process (tree) spent during the run. */
  cpu: C;
}

export async function runLevel<C extends Record<string, number>>(system: string, concurrency: number, flows: number, flow: Flow, cpuNow: () => C): Promise<Run<C>> {
  const samples: Sample[] = [];
  const time: Timer = async (step, fn, keyed) => {
    const t0 = performance.now();
    const result = await fn();
    samples.push({ step, ms: performance.now() - t0, keyed });
    return result;
  };
  let next = 0;
  let failed = false;
  const cpuBefore = cpuNow();
  const started = performance.now();
  const lane = async () => {
    while (!failed && next < flows) {
      try {
        await flow(next++, time);
      } catch (err) {
        failed = true; // the other lanes stop at their next flow
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuNow();
  const cpu = Object.fromEntries(Object.keys(cpuAfter).map((k) => [k, cpuAfter[k] - cpuBefore[k]])) as C;
  return { system, concurrency, flows, seconds, samples, cpu };
}

/** As a connector does: a 503 is retried with the same Idempotency-Key, a few times. */
export async function retried<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt >= 5 || !/: 503 /.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 1000 * attempt));
    }
  }
}

export async function send(base: string, method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

export const orgNumber = (n: number) => String(n).padStart(3, '0');

/**
 * Every unordered pair of the registry's organizations once (at most one non-terminated
 * relationship per pair), in round-robin order (circle method): each round of N/2 pairs uses every
 * organization once, so concurrent flows rarely share an organization and do not queue on its
 * advisory lock or rate-counter rows, which a real load of many organizations would not either.
 */
export function* organizationPairs(n: number): Generator<[string, string]> {
  for (let round = 0; round < n - 1; round++) {
    yield [orgNumber(n), orgNumber(round + 1)];
    for (let k = 1; k < n / 2; k++) yield [orgNumber(((round + k) % (n - 1)) + 1), orgNumber(((round - k + n - 1) % (n - 1)) + 1)];
  }
}

/**
 * The broker's limits out of a benchmark's way; the counters are still upserted on every request,
 * as in production.
 */
export const UNLIMITED = {
  RATE_LIMIT_ORG_PER_MINUTE: '1000000000',
  RATE_LIMIT_TOKEN_PER_MINUTE: '1000000000',
  INVITES_PER_MINUTE: '1000000000',
  INVITES_PER_HOUR: '1000000000',
  MAX_PENDING_OUTBOUND: '1000000000',
};

export const SCOPES = ['capacity:publish', 'capacity:read', 'loads:publish', 'loads:read', 'matches:read', 'matches:decide'];

export interface Created {
  id: string;
  requester: string;
}

/**
 * The command path. Every other flow sends an Idempotency-Key on all three commands, so the
 * key's cost shows as the difference between the two halves.
 * @param base the API each request goes to (a balancer across replicas returns the next one).
 */
export function commandFlow(base: () => string, tokens: Map<string, string>, pairs: Iterator<[string, string]>, created: Created[]): Flow {
  return async (i, time) => {
    const next = pairs.next();
    if (next.done) throw new Error('out of organization pairs: lower FLOWS or REPEATS');
    const [a, b] = next.value;
    const [ta, tb] = [tokens.get(a)!, tokens.get(b)!];
    const keyed = i % 2 === 0;
    const key = randomUUID();
    const headers = (extra: Record<string, string> = {}) => ({ ...extra, ...(keyed ? { 'idempotency-key': key } : {}) });
    const body = { requestingOrganizationId: `org-${a}`, acceptingOrganizationId: `org-${b}`, scopes: SCOPES };
    const r = await time('create', () => send(base(), 'POST', '/partner-relationships', ta, body, headers()), keyed);
    await time('request', () => send(base(), 'POST', `/partner-relationships/${r.id}/request`, ta, undefined, headers({ 'if-match': '"1"' })), keyed);
    await time('accept', () => send(base(), 'POST', `/partner-relationships/${r.id}/accept`, tb, undefined, headers({ 'if-match': '"2"' })), keyed);
    created.push({ id: r.id, requester: ta });
  };
}

/** One development token per organization of the test registry, fetched up front (not part of the path). */
export async function tokensOf(base: string, count: number): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  for (let n = 1; n <= count; n++) {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: `client-${orgNumber(n)}`, client_secret: `secret-${orgNumber(n)}` });
    const res = await fetch(`${base}/oauth2/token`, { method: 'POST', body: form, signal: AbortSignal.timeout(30000) });
    tokens.set(orgNumber(n), ((await res.json()) as any).access_token);
  }
  return tokens;
}

/**
 * `count` capacity offers created over HTTP by the organizations of `tokens` in turn, `concurrency`
 * at a time, each then published or withdrawn: the records the read-model benchmarks work on, and
 * their reference time in seconds. `keyed` sends each call with an Idempotency-Key and retries a
 * 503 with it, as a connector does; without, one plain call each.
 */
export async function createOffers(base: string, tokens: readonly string[], work: { count: number; concurrency: number; then: 'publish' | 'withdraw'; keyed: boolean }): Promise<number> {
  const started = performance.now();
  const body = work.then === 'withdraw' ? { reason: 'bench' } : {};
  const call = (path: string, token: string, payload: unknown, headers: Record<string, string>, key: string) =>
    work.keyed ? retried(() => send(base, 'POST', path, token, payload, { ...headers, 'idempotency-key': key })) : send(base, 'POST', path, token, payload, headers);
  let next = 0;
  await Promise.all(
    Array.from({ length: work.concurrency }, async () => {
      for (let i = next++; i < work.count; i = next++) {
        const token = tokens[i % tokens.length];
        const created = await call('/capacity-offers', token, offer(), {}, `create-${i}`);
        await call(`/capacity-offers/${created.id}/${work.then}`, token, body, { 'if-match': '"1"' }, `${work.then}-${i}`);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}
