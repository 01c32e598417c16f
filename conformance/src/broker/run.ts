// Runs the Broker profile against a base URL: set-up, every check in order, then the two checks
// judged over the whole run's traffic (every answer against the implementation's own document,
// every error answer an RFC 9457 problem), and the report.
import type { CheckResult } from '../checks';
import { runCheck } from '../checks';
import { ResponseValidator } from '../document';
import { buildReport, type Report } from '../report';
import { Recorder, type Exchange } from '../traffic';
import { brokerChecks } from './checks';
import { World, type BrokerSettings, type ClientsFile } from './world';

export interface BrokerRunOptions {
  baseUrl: string;
  clients: ClientsFile;
  settings?: BrokerSettings;
  /** Check id -> why it is a known deviation (reported, not failing the run). */
  expectedFailures?: Record<string, string>;
  /** Only these checks (ids), for a quick run. */
  only?: string[];
  /** The document's path on the broker (default /openapi.bundled.json, else /openapi.json). */
  openapiPath?: string;
  log?: (line: string) => void;
}

export async function runBrokerProfile(options: BrokerRunOptions): Promise<Report> {
  const baseUrl = options.baseUrl.replace(/\/$/, '');
  const recorder = new Recorder();
  const world = new World(baseUrl, options.clients, options.settings ?? {}, recorder);
  const log = options.log ?? (() => undefined);
  const startedAt = new Date().toISOString();
  const results: CheckResult[] = [];
  const record = (result: Omit<CheckResult, 'exchanges'>, check: string) => {
    const expected = options.expectedFailures?.[result.id];
    const full: CheckResult = { ...result, exchanges: recorder.exchanges.filter((x) => x.check === check).map((x) => x.n), ...(expected && result.verdict === 'non-conformant' ? { expectedFailure: expected } : {}) };
    results.push(full);
    log(`${full.verdict.padEnd(14)} ${full.id} ${full.title}${full.expectedFailure ? ' (expected failure)' : ''}`);
  };

  recorder.check = 'set-up';
  let setUpError: string | undefined;
  try {
    await world.setUp();
  } catch (err) {
    setUpError = (err as Error).message;
    log(`set-up failed: ${setUpError}`);
  }
  for (const check of brokerChecks()) {
    if (options.only && !options.only.includes(check.id)) continue;
    recorder.check = check.id;
    if (setUpError) {
      record({ id: check.id, family: check.family, title: check.title, mandatory: check.mandatory, spec: check.spec, verdict: 'no traffic', evidence: [`no traffic: the set-up failed: ${setUpError}`], ms: 0 }, check.id);
      continue;
    }
    record(await runCheck(check, world), check.id);
  }

  // The checks judged over the whole traffic.
  recorder.check = 'SV-2';
  const exchanges = [...recorder.exchanges];
  record(await runCheck({ id: 'SV-2', family: 'schema-validation', title: "Every answer of the run conforms to the implementation's own OpenAPI document", mandatory: true, spec: 'Synchronous transport: HTTPS, described with OpenAPI 3.1 (normative for paths, authorization, status codes and headers; it references the schemas)', run: async (_w, t) => {
    const doc = await fetchDocument(baseUrl, options.openapiPath, recorder);
    if (!doc) t.noTraffic('the broker serves no OpenAPI document at /openapi.bundled.json or /openapi.json (give --openapi)');
    const { judged, violations } = new ResponseValidator(doc).validate(exchanges.filter((x) => !new URL(x.url).pathname.startsWith('/oauth2/')));
    t.note(`${judged} answers judged against the document`);
    for (const v of violations.slice(0, 20)) t.note(`exchange ${v.exchange} (${v.operation} -> ${v.status}): ${v.errors.join('; ')}`);
    t.expect(violations.length === 0, `${violations.length} answers break the document`);
  } }, world), 'SV-2');
  recorder.check = 'ER-3';
  record(await runCheck({ id: 'ER-3', family: 'errors', title: 'Every 4xx and 5xx answer of the run is application/problem+json with type, title, status, code and correlationId', mandatory: true, spec: 'Errors use RFC 9457 Problem Details. Members: type (URI), title, status, code (stable protocol code), detail, correlationId', run: async (_w, t) => {
    const bad = problemsOf(exchanges);
    t.note(`${exchanges.filter((x) => x.status >= 400).length} error answers judged`);
    for (const b of bad.slice(0, 20)) t.note(b);
    t.expect(bad.length === 0, `${bad.length} error answers are not complete problems`);
  } }, world), 'ER-3');

  return buildReport({ profile: 'broker', baseUrl, startedAt, results, exchanges: recorder.exchanges });
}

/** Error answers that are not RFC 9457 problems with the specification's members. */
export function problemsOf(exchanges: Exchange[]): string[] {
  const bad: string[] = [];
  for (const x of exchanges) {
    if (x.status < 400 || x.error || new URL(x.url).pathname.startsWith('/oauth2/')) continue;
    const type = (x.responseHeaders['content-type'] ?? '').split(';')[0].trim();
    const b: any = x.responseBody;
    const missing = ['type', 'title', 'status', 'code', 'correlationId'].filter((m) => b?.[m] === undefined);
    if (type !== 'application/problem+json' || missing.length || b.status !== x.status) {
      bad.push(`exchange ${x.n} (${x.method} ${new URL(x.url).pathname} -> ${x.status}): ${type || 'no content type'}${missing.length ? `, missing ${missing.join(', ')}` : ''}${b && b.status !== undefined && b.status !== x.status ? `, status member ${b.status}` : ''}`);
    }
  }
  return bad;
}

async function fetchDocument(baseUrl: string, path: string | undefined, recorder: Recorder): Promise<any | undefined> {
  const f = recorder.fetch('kit');
  for (const p of path ? [path] : ['/openapi.bundled.json', '/openapi.json']) {
    const res = await f(`${baseUrl}${p}`, { headers: { accept: 'application/json' } }).catch(() => undefined);
    if (res?.ok) return res.json();
  }
  return undefined;
}
