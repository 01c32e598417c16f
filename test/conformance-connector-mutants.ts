// Broken connectors for the conformance kit's connector profiles (test/conformance.test.ts): the
// example carrier connector, which conforms, behind a proxy that makes it misbehave in one way, as a
// connector with that bug would. The kit judges a connector by the sandbox's record of what reached
// the broker, so what the proxy sends in the connector's name is the connector's behaviour. Each
// must be reported non-conformant on exactly its check.
import { randomUUID } from 'node:crypto';
import type { ConnectorProfile } from '../conformance/src/connector/scenario';
import type { Answer, Mutant, ProxiedRequest } from './conformance-mutants';

export interface ConnectorMutant extends Mutant {
  /** The smallest profile that has the check. */
  profile: ConnectorProfile;
  seconds: number;
}

const isDecision = (x: ProxiedRequest, collection = 'match-proposals') => x.method === 'POST' && new RegExp(`^/${collection}/[^/]+/decisions$`).test(x.path);
const isPublish = (x: ProxiedRequest) => x.method === 'POST' && /^\/(capacity-offers|load-requests)\/[^/]+\/publish$/.test(x.path);
const ok = (a: Answer) => a.status >= 200 && a.status < 300;
const resourceOf = (path: string) => /^\/[a-z-]+\/[^/]+/.exec(path)![0];

export const CONNECTOR_MUTANTS: ConnectorMutant[] = [
  {
    profile: 'publisher', seconds: 40, check: 'PUB-1', bug: 'its publish never reaches the broker (answered locally, as a queue that drops commands would)',
    async intercept(x, tools) {
      if (!isPublish(x)) return undefined;
      const read = await tools.get(resourceOf(x.path), x.headers.authorization);
      return { status: 200, headers: { 'content-type': 'application/json' }, body: { ...read.body, status: 'published', resourceVersion: read.body.resourceVersion + 1 } };
    },
  },
  {
    profile: 'publisher', seconds: 40, check: 'CX-1', bug: 'it sends no Idempotency-Key',
    request(x) {
      if (x.method === 'POST') delete x.headers['idempotency-key'];
    },
  },
  {
    profile: 'publisher', seconds: 40, check: 'CX-2', bug: 'it retries a 503 at once, whatever Retry-After says',
    async response(x, a, tools) {
      return x.method === 'POST' && (a.status === 503 || a.status === 429) ? tools.send(x) : undefined;
    },
  },
  {
    profile: 'publisher', seconds: 40, check: 'CX-3', bug: 'its first try of a command carries no version (then it tries again with one)',
    async request(x, tools) {
      if (!isPublish(x)) return;
      const { 'if-match': _version, ...headers } = x.headers;
      await tools.send({ ...x, headers: { ...headers, 'idempotency-key': randomUUID() } });
    },
  },
  {
    profile: 'publisher', seconds: 40, check: 'CX-4', bug: 'it publishes what it has published already (refused as not allowed in that state)',
    async response(x, a, tools) {
      if (!isPublish(x) || !ok(a) || !a.headers.etag) return undefined;
      await tools.send({ ...x, headers: { ...x.headers, 'if-match': a.headers.etag, 'idempotency-key': randomUUID() } });
      return undefined;
    },
  },
  {
    profile: 'publisher', seconds: 40, check: 'CX-4', bug: 'it also sends its first offer with a field of its own TMS that the contract does not have (refused 400 by the schema)',
    async response(x, a, tools) {
      if (x.method !== 'POST' || x.path !== '/capacity-offers' || !ok(a) || tools.state.has('sent')) return undefined;
      tools.state.set('sent', true);
      await tools.send({ ...x, body: { ...x.body, truckPlate: 'HH-PX 204' }, headers: { ...x.headers, 'idempotency-key': randomUUID() } });
      return undefined;
    },
  },
  {
    profile: 'consumer', seconds: 90, check: 'CON-1', bug: 'its decisions never reach the broker',
    async intercept(x, tools) {
      if (!isDecision(x)) return undefined;
      const read = await tools.get(resourceOf(x.path), x.headers.authorization);
      return { status: 200, headers: { 'content-type': 'application/json' }, body: read.body };
    },
  },
  {
    profile: 'consumer', seconds: 90, check: 'CON-2', bug: 'after a 409 it sends the same decision again without reading the proposal',
    async response(x, a, tools) {
      return isDecision(x) && a.status === 409 ? tools.send(x) : undefined;
    },
  },
  {
    profile: 'consumer', seconds: 90, check: 'CON-3', bug: 'it applies a stale event: a proposal shown after its rejection is decided (on the version the event had), then read',
    async response(x, a, tools) {
      if (x.method !== 'GET' || x.path !== '/events' || !ok(a)) return undefined;
      for (const e of a.body.items ?? []) {
        const subject = String(e.subject ?? '');
        if (!subject.startsWith('match-proposals/')) continue;
        const version = Number(e.resourceversion);
        const seen = tools.state.get(subject) ?? { version: 0, status: '' };
        if (version > seen.version) {
          tools.state.set(subject, { version, status: e.data?.status });
          continue;
        }
        // An older version of a proposal already seen rejected (the decoy), applied as if new.
        if (e.data?.status !== 'open' || seen.status !== 'rejected' || tools.state.has(`decided ${subject}`)) continue;
        tools.state.set(`decided ${subject}`, true);
        const path = `/${subject}`;
        await tools.send({ ...x, method: 'POST', path: `${path}/decisions`, search: '', headers: { ...x.headers, 'content-type': 'application/json', 'if-match': `"${version}"`, 'idempotency-key': randomUUID() }, body: { decision: 'accept' } });
        await tools.get(path, x.headers.authorization);
      }
      return undefined;
    },
  },
  {
    profile: 'consumer', seconds: 90, check: 'CON-4', bug: 'it applies a duplicated event twice: a decision answered 200 is sent again',
    async response(x, a, tools) {
      if (!isDecision(x) || !ok(a) || tools.state.has(x.path)) return undefined;
      tools.state.set(x.path, true);
      await tools.send(x);
      return undefined;
    },
  },
  {
    profile: 'full', seconds: 120, check: 'TEN-1', bug: 'its tender decision is sent twice',
    async response(x, a, tools) {
      if (!isDecision(x, 'transport-tenders') || !ok(a) || tools.state.has(x.path)) return undefined;
      tools.state.set(x.path, true);
      await tools.send(x);
      return undefined;
    },
  },
  {
    profile: 'full', seconds: 120, check: 'TEN-2', bug: 'it acknowledges a handover without an Idempotency-Key',
    request(x) {
      if (x.method === 'POST' && /^\/execution-handovers\/[^/]+\/acknowledgements$/.test(x.path)) delete x.headers['idempotency-key'];
    },
  },
  {
    profile: 'outcome-provider', seconds: 120, check: 'OUT-1', bug: 'its "picked up" milestone is lost on the way',
    intercept(x) {
      if (x.method !== 'POST' || x.path !== '/execution-updates' || x.body?.milestone !== 'pickedUp') return undefined;
      return { status: 201, headers: { 'content-type': 'application/json' }, body: { id: randomUUID(), ...x.body, recordedAt: new Date().toISOString() } };
    },
  },
  {
    profile: 'outcome-provider', seconds: 120, check: 'OUT-2', bug: 'it makes a new deduplicationKey for each attempt of a report (its outcome, retried after the 503, is a new report)',
    request(x, tools) {
      if (x.method !== 'POST' || x.path !== '/execution-outcomes') return;
      if (tools.state.has('attempted')) x.body = { ...x.body, deduplicationKey: `${x.body.deduplicationKey}-${randomUUID()}` };
      tools.state.set('attempted', true);
    },
  },
  {
    profile: 'outcome-provider', seconds: 120, check: 'OUT-3', bug: 'it changes its outcome by reporting a second one, not by a correction of the head',
    async intercept(x, tools) {
      if (x.method !== 'POST' || !/^\/execution-outcomes\/[^/]+\/corrections$/.test(x.path)) return undefined;
      const head = await tools.get(resourceOf(x.path), x.headers.authorization);
      const { observedOutcomeVersion: _v, correctionReason: _r, correctionReasonCode: _c, ...outcome } = x.body;
      return tools.send({ ...x, path: '/execution-outcomes', body: { ...outcome, executionReferenceId: head.body.executionReferenceId }, headers: { ...x.headers, 'idempotency-key': randomUUID() } });
    },
  },
];
