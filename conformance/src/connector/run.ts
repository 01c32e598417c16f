// The connector profiles: the connector under test talks to a PCX sandbox while the kit watches
// what it sent (the sandbox's record, GET /sandbox/connector-requests, read as the operator) and
// answers some of its requests with faults (POST /sandbox/faults). The verdicts come from that
// record only. Built so far: the Publisher profile (docs/conformance.md).
import { spawn } from 'node:child_process';
import { runCheck, type Check, type CheckResult } from '../checks';
import { buildReport, type Report } from '../report';
import { Party, Recorder, type Credentials } from '../traffic';
import { must } from '../broker/world';

export interface ConnectorRequest {
  sequence: number;
  at: string;
  method: string;
  path: string;
  status: number;
  idempotencyKey: string | null;
  ifMatch: string | null;
  bodyFields: string[];
  injectedFault: boolean;
}

export interface ConnectorRunOptions {
  baseUrl: string;
  /** The sandbox's operator (reads the record, sets faults). */
  operator: Credentials;
  tokenUrl?: string;
  /** The connector under test. */
  connectorClientId: string;
  /** How the kit runs it: a command (argv) and its environment; it is stopped after `seconds`. */
  command: string[];
  env?: Record<string, string>;
  seconds: number;
  cwd?: string;
  log?: (line: string) => void;
}

export interface ConnectorWorld {
  requests: ConnectorRequest[];
  output: string;
}

/** A create (POST /collection) or a command (POST /collection/{id}/name). */
const isCreate = (r: ConnectorRequest) => r.method === 'POST' && /^\/[a-z-]+$/.test(r.path);
const isCommand = (r: ConnectorRequest) => r.method === 'POST' && /^\/[a-z-]+\/[^/]+\/[a-z-]+$/.test(r.path) && !/\/(decisions|corrections|acknowledgements|counterproposals|amendments)$/.test(r.path);
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

const PUBLISHER_CHECKS: Array<Check<ConnectorWorld>> = [
  {
    id: 'PUB-1',
    family: 'lifecycle',
    title: 'The connector publishes what it creates (a publish answered 200)',
    mandatory: true,
    spec: 'Profiles: Publisher (capacity offers and/or load requests); draft -> publish -> published',
    async run(w, t) {
      if (w.requests.length === 0) t.noTraffic('the connector sent nothing to the broker');
      const published = w.requests.filter((r) => r.method === 'POST' && /\/(capacity-offers|load-requests)\/[^/]+\/publish$/.test(r.path) && r.status === 200);
      t.expect(published.length > 0, `${published.length} publish commands answered 200`);
    },
  },
  {
    id: 'PUB-2',
    family: 'idempotency',
    title: 'A retried create or command carries the Idempotency-Key of the attempt it retries',
    mandatory: true,
    spec: 'Retried commands are idempotent; Same key and identical payload returns the original outcome',
    async run(w, t) {
      const pairs = retries(w.requests).filter(([r]) => isCreate(r) || isCommand(r));
      if (pairs.length === 0) t.noTraffic('no create or command of the connector was answered 429 or 5xx');
      for (const [first, again] of pairs) t.expect(first.idempotencyKey !== null && again.idempotencyKey === first.idempotencyKey, `${again.method} ${again.path} retried with key ${again.idempotencyKey ?? 'none'} after ${first.idempotencyKey ?? 'none'}`);
    },
  },
  {
    id: 'PUB-3',
    family: 'errors',
    title: 'After a 429 or 503 with Retry-After, the connector waits before it retries',
    mandatory: true,
    spec: 'Rate limit exceeded: 429 (Retry-After); bad answers of the broker are retried politely',
    async run(w, t) {
      const pairs = retries(w.requests).filter(([r]) => r.injectedFault);
      if (pairs.length === 0) t.noTraffic('no injected fault was followed by a retry');
      for (const [first, again] of pairs) {
        const waited = Date.parse(again.at) - Date.parse(first.at);
        t.expect(waited >= 900, `${again.method} ${again.path} retried ${waited} ms after the ${first.status} (Retry-After: 1 s)`);
      }
    },
  },
  {
    id: 'PUB-4',
    family: 'stale-writes',
    title: 'Every command carries the version last read (If-Match)',
    mandatory: true,
    spec: 'State-changing commands carry If-Match (ETag of the resource) or an explicit observed resourceVersion',
    async run(w, t) {
      const commands = w.requests.filter(isCommand);
      if (commands.length === 0) t.noTraffic('the connector sent no command');
      const bare = commands.filter((r) => r.ifMatch === null && !r.bodyFields.includes('observedResourceVersion'));
      t.expect(bare.length === 0, `${commands.length} commands, ${bare.length} without If-Match or observedResourceVersion${bare.length ? `: ${bare.slice(0, 3).map((r) => r.path).join(', ')}` : ''}`);
    },
  },
  {
    id: 'PUB-5',
    family: 'schema-validation',
    title: 'What the connector sends is within the contract (no request refused as invalid)',
    mandatory: true,
    spec: 'Payload semantics: JSON Schema 2020-12; invalid, ambiguous or unsafe inbound messages are quarantined; required values are never invented',
    async run(w, t) {
      if (w.requests.length === 0) t.noTraffic('the connector sent nothing');
      const refused = w.requests.filter((r) => r.status === 400 || r.status === 415 || r.status === 422);
      t.expect(refused.length === 0, `${w.requests.length} requests, ${refused.length} refused as invalid${refused.length ? `: ${refused.slice(0, 3).map((r) => `${r.method} ${r.path} ${r.status}`).join(', ')}` : ''}`);
    },
  },
];

/** Runs the Publisher profile: a fault on the connector's first POST, the connector for `seconds`, the record judged. */
export async function runPublisherProfile(options: ConnectorRunOptions): Promise<Report> {
  const baseUrl = options.baseUrl.replace(/\/$/, '');
  const recorder = new Recorder();
  const operator = new Party('operator', options.operator, baseUrl, options.tokenUrl ?? `${baseUrl}/oauth2/token`, recorder);
  const log = options.log ?? (() => undefined);
  const startedAt = new Date().toISOString();
  const records = (after: number) => must(operator.get(`/sandbox/connector-requests?clientId=${encodeURIComponent(options.connectorClientId)}&after=${after}&limit=1000`), 200, 'read the sandbox record');
  recorder.check = 'set-up';
  const baseline = (await records(0)).after as number;
  // Its first POST is answered 503, Retry-After 1 s: PUB-2 and PUB-3 watch the retry.
  await must(operator.post('/sandbox/faults', { clientId: options.connectorClientId, status: 503, count: 1, retryAfterSeconds: 1, method: 'POST' }), 200, 'set a fault');
  const output = await runFor(options);
  const requests: ConnectorRequest[] = [];
  for (let after = baseline; ; ) {
    const page = await records(after);
    requests.push(...page.items);
    if (page.items.length === 0) break;
    after = page.after;
  }
  log(`the connector made ${requests.length} requests`);
  const world: ConnectorWorld = { requests, output };
  const results: CheckResult[] = [];
  for (const check of PUBLISHER_CHECKS) {
    const result = await runCheck(check, world);
    results.push({ ...result, exchanges: [] });
    log(`${result.verdict.padEnd(14)} ${result.id} ${result.title}`);
  }
  return buildReport({ profile: 'publisher', baseUrl, startedAt, results, exchanges: recorder.exchanges });
}

/** Runs the connector's command for `seconds` (or until it exits), then stops it; its output. */
function runFor(options: ConnectorRunOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const [command, ...args] = options.command;
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (c) => (output += c.toString()));
    child.stderr!.on('data', (c) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), options.seconds * 1000);
    child.once('error', reject);
    child.once('close', () => {
      clearTimeout(timer);
      resolve(output);
    });
  });
}
