// Matching fixtures: a carrier's offer and a shipper's request that match, the market they meet
// in, and polling for what the matching flows do asynchronously.
import { SchemaRegistry } from '../core/schemas';
import { activeRelationship, Connector, freshOrgs, listAll, sleep, testEnv, type Reply } from './helpers';
import { OFFERS, publishedListing, REQUESTS } from './listing-fixtures';
import { offer, request } from './market-bodies';

export { DAY, HOUR, offer, request } from './market-bodies';
export const connectors = (n: number) => Promise.all(freshOrgs(n).map((o) => Connector.of(o)));
// Made on first use: the time-skipping tests import the bodies below without a shared stack.
let schemas: SchemaRegistry | undefined;

/** Polls with a growing pause (the test brokers rate-limit a token to 100 requests a minute). */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 100; ; pause = Math.min(1000, pause * 1.5)) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(pause);
  }
}

export const proposalsOf = (c: Connector, query: string) => listAll(c, '/match-proposals', query);
export const waitProposals = (c: Connector, query: string, n = 1) =>
  waitFor(`${n} proposal(s) for ${query}`, async () => {
    const found = await proposalsOf(c, query);
    return found.length >= n ? found : undefined;
  });
export const get = async (c: Connector, path: string) => (await c.get(path)).body;
export const waitStatus = (c: Connector, path: string, status: string, timeoutMs?: number) =>
  waitFor(`${path} in ${status}`, async () => {
    const doc = await get(c, path);
    return doc.status === status ? doc : undefined;
  }, timeoutMs);

export function decide(c: Connector, proposal: { id: string; resourceVersion: number }, decision: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  return c.post(`/match-proposals/${proposal.id}/decisions`, { decision, observedProposalVersion: proposal.resourceVersion, ...extra });
}

/** A carrier and a shipper with a relationship covering matching, and an offer and a request that match. */
export async function market(options: { policy?: 'BILATERAL_REQUIRED' | 'INITIATOR_ONLY'; offer?: Record<string, unknown>; request?: Record<string, unknown> } = {}) {
  const [carrier, shipper, outsider] = await connectors(3);
  const relationship = await activeRelationship(carrier, shipper, options.policy ? { decisionPolicy: { mode: options.policy } } : {});
  const o = await publishedListing({ ...OFFERS, body: () => offer(options.offer) }, carrier);
  const r = await publishedListing({ ...REQUESTS, body: () => request(options.request) }, shipper);
  return { carrier, shipper, outsider, relationship, offer: o, request: r };
}

export function expectValid(schema: string, body: unknown) {
  schemas ??= new SchemaRegistry(`${testEnv().baseUrl}/schemas`);
  const validate = schemas.validator(schema);
  if (!validate(body)) throw new Error(`not valid against ${schema}: ${JSON.stringify(validate.errors)}`);
}

