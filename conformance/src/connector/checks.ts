// The connector profiles' checks, judged from what the connector sent (the sandbox's record) and
// what its counterpart, the kit, saw happen. CX checks hold in every profile; PUB, CON, TEN and
// OUT belong to the role their scenario steps play (docs/conformance.md).
import type { Check, CheckContext } from '../checks';
import type { CounterpartLog } from './counterpart';
import type { ConnectorProfile } from './scenario';

/**
 * The Retry-After of the faults the kit injects (a 503 on the connector's first POST, CX-1 and
 * CX-2): 3 s, and a retry counts as waiting from 90 % of it. With 1 s, a connector that retries at
 * once passed when a busy machine delayed its retry by a second (seen in the suite under load).
 */
export const FAULT_RETRY_AFTER_SECONDS = 3;

export interface ConnectorRequest {
  sequence: number;
  at: string;
  method: string;
  path: string;
  status: number;
  idempotencyKey: string | null;
  ifMatch: string | null;
  bodyFields: string[];
  /** The body's deduplicationKey as sent (execution reports). */
  deduplicationKey: string | null;
  injectedFault: boolean;
}

export interface ConnectorWorld {
  requests: ConnectorRequest[];
  output: string;
  counterpart: CounterpartLog;
  /** What the counterpart reads of the broker once the connector has stopped (the outcome chain). */
  read: (path: string) => Promise<any>;
}

const ok = (r: ConnectorRequest) => r.status >= 200 && r.status < 300;
/** A command (POST /collection/{id}/name). */
const isCommand = (r: ConnectorRequest) => r.method === 'POST' && /^\/[a-z-]+\/[^/]+\/[a-z-]+$/.test(r.path) && !/\/(corrections|acknowledgements|counterproposals|amendments)$/.test(r.path);
const isDecision = (r: ConnectorRequest, collection = 'match-proposals') => r.method === 'POST' && new RegExp(`^/${collection}/[^/]+/decisions$`).test(r.path);
/** An execution report: an update, an outcome or a correction. */
const isReport = (r: ConnectorRequest) => r.method === 'POST' && (r.path === '/execution-updates' || r.path === '/execution-outcomes' || /^\/execution-outcomes\/[^/]+\/corrections$/.test(r.path));
/** The resource a request is about: /collection/{id}. */
const resourceOf = (path: string) => /^\/[a-z-]+\/[^/]+/.exec(path)?.[0];
/** A retry: the same method and path right after an answer that asks for one (429, 5xx). */
function retries(requests: ConnectorRequest[]): Array<[ConnectorRequest, ConnectorRequest]> {
  const pairs: Array<[ConnectorRequest, ConnectorRequest]> = [];
  requests.forEach((r, i) => {
    if (r.status !== 429 && r.status < 500) return;
    const next = requests.slice(i + 1).find((x) => x.method === r.method && x.path === r.path);
    if (next) pairs.push([r, next]);
  });
  return pairs;
}
/** What the counterpart got to, or "no traffic", saying where it stopped. */
function reached<T>(w: ConnectorWorld, t: CheckContext, value: T | undefined, missing: string): T {
  if (value === undefined) t.noTraffic(`${missing}${w.counterpart.stalled ? ` (${w.counterpart.stalled})` : ''}`);
  return value as T;
}
/**
 * The connector's requests to `path` on what the counterpart made (`made`: its id), answered 2xx;
 * "no traffic" when the counterpart did not get to make it.
 */
function answeredOn(w: ConnectorWorld, t: CheckContext, made: string | undefined, missing: string, path: (id: string) => string) {
  const id = reached(w, t, made, missing);
  return { id, answered: w.requests.filter((r) => r.path === path(id) && ok(r)) };
}
const list = (rs: ConnectorRequest[]) => rs.slice(0, 3).map((r) => `${r.method} ${r.path} ${r.status}`).join(', ');

/** Every profile: retries, politeness, versions on commands, bodies within the contract. */
const CX: Array<Check<ConnectorWorld>> = [
  {
    id: 'CX-1', family: 'idempotency', mandatory: true,
    title: 'A retried create or command carries the Idempotency-Key of the attempt it retries',
    spec: 'Retried commands are idempotent; Same key and identical payload returns the original outcome',
    async run(w, t) {
      const pairs = retries(w.requests).filter(([r]) => r.method === 'POST');
      if (pairs.length === 0) t.noTraffic('no POST of the connector was answered 429 or 5xx');
      for (const [first, again] of pairs) t.expect(first.idempotencyKey !== null && again.idempotencyKey === first.idempotencyKey, `${again.method} ${again.path} retried with key ${again.idempotencyKey ?? 'none'} after ${first.idempotencyKey ?? 'none'}`);
    },
  },
  {
    id: 'CX-2', family: 'errors', mandatory: true,
    title: 'After a 429 or 503 with Retry-After, the connector waits before it retries',
    spec: 'Rate limit exceeded: 429 (Retry-After); bad answers of the broker are retried politely',
    async run(w, t) {
      const pairs = retries(w.requests).filter(([r]) => r.injectedFault);
      if (pairs.length === 0) t.noTraffic('no injected fault was followed by a retry');
      for (const [first, again] of pairs) {
        const waited = Date.parse(again.at) - Date.parse(first.at);
        t.expect(waited >= FAULT_RETRY_AFTER_SECONDS * 900, `${again.method} ${again.path} retried ${waited} ms after the ${first.status} (Retry-After: ${FAULT_RETRY_AFTER_SECONDS} s)`);
      }
    },
  },
  {
    id: 'CX-3', family: 'stale-writes', mandatory: true,
    title: 'Every command carries the version last read (If-Match)',
    spec: 'State-changing commands carry If-Match (ETag of the resource) or an explicit observed resourceVersion',
    async run(w, t) {
      const commands = w.requests.filter(isCommand);
      if (commands.length === 0) t.noTraffic('the connector sent no command');
      const bare = commands.filter((r) => r.ifMatch === null && !r.bodyFields.some((f) => /^observed[A-Za-z]*Version$/.test(f)));
      t.expect(bare.length === 0, `${commands.length} commands, ${bare.length} without If-Match or an observed version${bare.length ? `: ${bare.slice(0, 3).map((r) => r.path).join(', ')}` : ''}`);
    },
  },
  {
    id: 'CX-4', family: 'schema-validation', mandatory: true,
    title: 'What the connector sends is within the contract (no request refused as invalid)',
    spec: 'Payload semantics: JSON Schema 2020-12; invalid, ambiguous or unsafe inbound messages are quarantined; required values are never invented',
    async run(w, t) {
      if (w.requests.length === 0) t.noTraffic('the connector sent nothing');
      const refused = w.requests.filter((r) => r.status === 400 || r.status === 415 || r.status === 422);
      t.expect(refused.length === 0, `${w.requests.length} requests, ${refused.length} refused as invalid${refused.length ? `: ${list(refused)}` : ''}`);
    },
  },
];

const PUBLISHER: Array<Check<ConnectorWorld>> = [
  {
    id: 'PUB-1', family: 'lifecycle', mandatory: true,
    title: 'The connector publishes what it creates (a publish answered 200)',
    spec: 'Profiles: Publisher (capacity offers and/or load requests); draft -> publish -> published',
    async run(w, t) {
      if (w.requests.length === 0) t.noTraffic('the connector sent nothing to the broker');
      const published = w.requests.filter((r) => r.method === 'POST' && /\/(capacity-offers|load-requests)\/[^/]+\/publish$/.test(r.path) && r.status === 200);
      t.expect(published.length > 0, `${published.length} publish commands answered 200`);
    },
  },
];

const CONSUMER: Array<Check<ConnectorWorld>> = [
  {
    id: 'CON-1', family: 'decision-policy', mandatory: true,
    title: 'The connector decides the proposal the scenario asks it to accept (its accept answered 200)',
    spec: 'Profiles: Consumer; every required organization accepts (requiredDecisionPolicy); decisions record who decided',
    async run(w, t) {
      const { id, answered: decided } = answeredOn(w, t, w.counterpart.proposalId, 'the counterpart made no proposal to decide', (proposal) => `/match-proposals/${proposal}/decisions`);
      t.expect(decided.length > 0, `${decided.length} decisions of the connector on proposal ${id} answered 2xx`);
      const proposal = await w.read(`/match-proposals/${id}`);
      t.expect(proposal?.status === 'accepted', `the proposal is ${proposal?.status}`);
    },
  },
  {
    id: 'CON-2', family: 'stale-writes', mandatory: true,
    title: 'After a 409 on a resource, the connector reads it again before it sends anything more to it',
    spec: 'Stale-write rejection: a command on an older resourceVersion is refused with 409 stale-resource-version; the client re-reads and decides again',
    async run(w, t) {
      const conflicts = w.requests.filter((r) => r.status === 409 && r.method === 'POST' && resourceOf(r.path));
      if (conflicts.length === 0) t.noTraffic('no command of the connector was answered 409');
      for (const conflict of conflicts) {
        const resource = resourceOf(conflict.path)!;
        const after = w.requests.filter((r) => r.sequence > conflict.sequence && resourceOf(r.path) === resource);
        const reread = after.findIndex((r) => r.method === 'GET' && r.path === resource);
        const sentFirst = after.findIndex((r) => r.method !== 'GET');
        t.expect(reread !== -1 && (sentFirst === -1 || reread < sentFirst), `${conflict.path} answered 409: ${reread === -1 ? 'never read again' : sentFirst !== -1 && sentFirst < reread ? `sent ${after[sentFirst].method} ${after[sentFirst].path} before reading it again` : 'read again first'}`);
      }
    },
  },
  {
    id: 'CON-3', family: 'events', mandatory: true,
    title: 'A stale event is not applied: a proposal shown only after its rejection (older version after newer) is never decided',
    spec: 'Duplicate and out-of-order events: consumers ignore events whose resourceVersion is not above the one applied for the subject',
    async run(w, t) {
      const decoy = w.counterpart.decoyProposalId;
      if (!decoy) t.noTraffic(w.counterpart.decoyUnusable ?? `the counterpart made no decoy${w.counterpart.stalled ? ` (${w.counterpart.stalled})` : ''}`);
      const decided = w.requests.filter((r) => r.path === `/match-proposals/${decoy}/decisions`);
      t.expect(decided.length === 0, `${decided.length} decisions sent on the rejected decoy proposal ${decoy}${decided.length ? `: ${list(decided)}` : ''}`);
    },
  },
  {
    id: 'CON-4', family: 'events', mandatory: true,
    title: 'A duplicated event is applied once: no proposal is decided again after a decision of the connector was answered 2xx',
    spec: 'Duplicate and out-of-order events: consumers deduplicate by event id',
    async run(w, t) {
      const decisions = w.requests.filter((r) => isDecision(r));
      if (decisions.length === 0) t.noTraffic('the connector decided no proposal');
      const again = decisions.filter((r) => decisions.some((d) => d.path === r.path && d.sequence < r.sequence && ok(d)));
      t.expect(again.length === 0, `${decisions.length} decisions on ${new Set(decisions.map((d) => d.path)).size} proposals, ${again.length} after one answered 2xx${again.length ? `: ${list(again)}` : ''}`);
    },
  },
];

const TENDERS: Array<Check<ConnectorWorld>> = [
  {
    id: 'TEN-1', family: 'lifecycle', mandatory: true,
    title: 'The connector accepts the tender for its accepted match, naming the revision, on the version read',
    spec: 'Accept or reject names the revision; Both accept the same revision; State-changing commands carry If-Match',
    async run(w, t) {
      const { id, answered: decided } = answeredOn(w, t, w.counterpart.tenderId, 'the counterpart issued no tender', (tender) => `/transport-tenders/${tender}/decisions`);
      t.expect(decided.length === 1, `${decided.length} decisions of the connector on tender ${id} answered 2xx`);
      for (const d of decided) t.expect(d.bodyFields.includes('revision') && (d.ifMatch !== null || d.bodyFields.includes('observedResourceVersion')), `its decision names the revision (${d.bodyFields.join(', ')}) and the version (If-Match ${d.ifMatch ?? 'none'})`);
    },
  },
  {
    id: 'TEN-2', family: 'idempotency', mandatory: true,
    title: 'The connector acknowledges the execution package (imported), with an Idempotency-Key',
    spec: 'Execution handover: the executing system acknowledges the package (imported or rejected); retried commands are idempotent',
    async run(w, t) {
      const { answered: acks } = answeredOn(w, t, w.counterpart.handoverId, 'the counterpart handed nothing over', (handover) => `/execution-handovers/${handover}/acknowledgements`);
      t.expect(acks.length >= 1, `${acks.length} acknowledgements answered 2xx`);
      t.expect(acks.every((a) => a.idempotencyKey !== null), 'each with an Idempotency-Key');
    },
  },
];

const OUTCOMES: Array<Check<ConnectorWorld>> = [
  {
    id: 'OUT-1', family: 'lifecycle', mandatory: true,
    title: 'The connector reports the milestones in order (picked up, then delivered), then the outcome',
    spec: 'Profiles: Outcome provider; execution updates and outcomes are appended to the execution reference',
    async run(w, t) {
      const id = reached(w, t, w.counterpart.executionReferenceId, 'no execution reference to report on');
      const updates = ((await w.read(`/execution-references/${id}/updates`))?.items ?? []) as any[];
      const milestones = updates.map((u) => u.milestone).filter(Boolean);
      t.expect(milestones.indexOf('pickedUp') !== -1 && milestones.indexOf('pickedUp') < milestones.indexOf('delivered'), `milestones as recorded: ${milestones.join(', ') || 'none'}`);
      const posted = w.requests.filter((r) => ok(r) && (r.path === '/execution-updates' || r.path === '/execution-outcomes'));
      const lastUpdate = posted.filter((r) => r.path === '/execution-updates').at(-1);
      const firstOutcome = posted.find((r) => r.path === '/execution-outcomes');
      // The evidence names what was posted, in the order the sandbox recorded it.
      const order = posted.map((r) => `${r.path === '/execution-updates' ? 'update' : 'outcome'} #${r.sequence} at ${r.at}`).join(', ') || 'none answered 2xx';
      t.expect(firstOutcome !== undefined && (lastUpdate === undefined || lastUpdate.sequence < firstOutcome.sequence), `the outcome after the milestones (posted: ${order})`);
    },
  },
  {
    id: 'OUT-2', family: 'outcomes', mandatory: true,
    title: 'Every execution update, outcome and correction carries a deduplicationKey, and a report sent again carries the key it had',
    spec: 'Execution-outcome deduplication: a repeat with the same deduplicationKey and payload returns the original record',
    async run(w, t) {
      const sent = w.requests.filter(isReport);
      if (!w.counterpart.executionReferenceId || sent.length === 0) t.noTraffic('the connector reported nothing');
      const bare = sent.filter((r) => r.deduplicationKey === null);
      t.expect(bare.length === 0, `${sent.length} reports, ${bare.length} without a deduplicationKey`);
      // A retry whose key is new is a second report to the broker: the original answer is lost.
      const retried = retries(w.requests).filter(([first]) => isReport(first));
      for (const [first, again] of retried) t.expect(again.deduplicationKey === first.deduplicationKey, `${again.path} sent again after a ${first.status} with deduplicationKey ${again.deduplicationKey ?? 'none'} (first: ${first.deduplicationKey ?? 'none'})`);
    },
  },
  {
    id: 'OUT-3', family: 'outcomes', mandatory: true,
    title: 'The outcome is reported once and corrected by a correction of the head on its version, not by a second outcome',
    spec: 'Execution outcomes are append-only; a correction supersedes the head, observedOutcomeVersion equals the superseded record resourceVersion',
    async run(w, t) {
      const id = w.counterpart.executionReferenceId;
      const corrections = w.requests.filter((r) => r.method === 'POST' && /^\/execution-outcomes\/[^/]+\/corrections$/.test(r.path));
      // Outcomes the broker recorded (2xx), told apart by their keys: more than one is a change made as a new outcome.
      const outcomeKeys = new Set(w.requests.filter((r) => r.method === 'POST' && r.path === '/execution-outcomes' && ok(r)).map((r) => r.deduplicationKey));
      if (!id || (corrections.length === 0 && outcomeKeys.size < 2)) t.noTraffic('the connector sent no correction');
      t.expect(outcomeKeys.size === 1, `${outcomeKeys.size} outcomes recorded under different deduplicationKeys (a change of the outcome is a correction)`);
      t.expect(corrections.some(ok), `${corrections.length} corrections sent, ${corrections.filter(ok).length} answered 2xx`);
      t.expect(corrections.every((c) => c.bodyFields.includes('observedOutcomeVersion') && c.bodyFields.includes('correctionReason')), 'each names the version corrected and why');
      const chain = (((await w.read(`/execution-outcomes?executionReferenceId=${id}`))?.items ?? []) as any[]).sort((a, b) => String(a.submittedAt).localeCompare(String(b.submittedAt)));
      const head = chain.find((o) => !o.supersededByOutcomeId);
      t.expect(chain.length >= 2 && Boolean(head?.supersedes), `the chain: ${chain.map((o) => `${o.status}${o.supersedes ? ` (supersedes ${o.supersedes.slice(0, 8)})` : ''}`).join(' -> ')}`);
    },
  },
];

/** Each profile's checks, in the order of the report. */
export const PROFILE_CHECKS: Record<ConnectorProfile, Array<Check<ConnectorWorld>>> = {
  publisher: [...PUBLISHER, ...CX],
  consumer: [...CONSUMER, ...CX],
  'outcome-provider': [...OUTCOMES, ...CX],
  full: [...PUBLISHER, ...CONSUMER, ...TENDERS, ...OUTCOMES, ...CX],
};
