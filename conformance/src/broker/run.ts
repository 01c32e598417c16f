// Runs the Broker profile against a base URL: set-up, every check in order, then the checks
// judged over the whole run's traffic (what each organization was shown, every answer against the
// implementation's own document, every error answer an RFC 9457 problem), and the report. A run
// whose implementation cannot be reached, or whose set-up it refuses, is not run (exit 2): no
// check is judged on no evidence.
import type { CheckResult } from '../checks';
import { runCheck } from '../checks';
import { ResponseValidator } from '../document';
import { buildReport, type Report } from '../report';
import { Recorder, type Exchange } from '../traffic';
import { brokerChecks } from './checks';
import { disclosureFindings, lookAround, shownItems, visibilityFindings } from './audit';
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
    // Unreachable (a network failure) or refused (credentials, scopes, relationships): the run proves nothing.
    const unreachable = recorder.exchanges.length > 0 && recorder.exchanges.every((x) => x.error !== undefined);
    setUpError = unreachable ? `the implementation at ${baseUrl} could not be reached: ${(err as Error).message}` : `the set-up failed: ${(err as Error).message}`;
    log(setUpError);
  }
  for (const check of brokerChecks()) {
    if (options.only && !options.only.includes(check.id)) continue;
    recorder.check = check.id;
    if (setUpError) {
      record({ id: check.id, family: check.family, title: check.title, mandatory: check.mandatory, spec: check.spec, verdict: 'no traffic', evidence: [`no traffic: ${setUpError}`], ms: 0 }, check.id);
      continue;
    }
    for (const party of [world.a, world.b, world.c, world.operator]) party?.newSession();
    record(await runCheck(check, world), check.id);
  }

  if (setUpError) {
    for (const check of RUN_WIDE) record({ ...check, verdict: 'no traffic', evidence: [`no traffic: ${setUpError}`], ms: 0 }, check.id);
    return buildReport({ profile: 'broker', baseUrl, startedAt, results, exchanges: recorder.exchanges, notRun: setUpError });
  }

  // The checks judged over the whole traffic: each organization looks at its lists once more, then
  // everything it was shown during the run is audited.
  for (const party of [world.a, world.b, world.c]) party.newSession();
  recorder.check = 'IS-4';
  const audit = RUN_WIDE[0];
  record(await runCheck({ ...audit, run: async (w, t) => {
    await lookAround(w);
    const shown = shownItems(recorder.exchanges);
    t.note(`${shown.length} resources and events shown to A, B and C judged`);
    const findings = visibilityFindings(w, shown);
    for (const f of findings.slice(0, 20)) t.note(f);
    t.expect(findings.length === 0, `${findings.length} things shown to an organization that may not see them`);
  } }, world), 'IS-4');
  recorder.check = 'FD-3';
  record(await runCheck({ ...RUN_WIDE[1], run: async (w, t) => {
    const shown = shownItems(recorder.exchanges);
    t.note(`${shown.length} resources and events shown to A, B and C judged`);
    const findings = disclosureFindings(w, shown);
    for (const f of findings.slice(0, 20)) t.note(f);
    t.expect(findings.length === 0, `${findings.length} restricted values shown before acceptance`);
  } }, world), 'FD-3');
  recorder.check = 'SV-2';
  const exchanges = [...recorder.exchanges];
  record(await runCheck({ ...RUN_WIDE[2], run: async (_w, t) => {
    const doc = await fetchDocument(baseUrl, options.openapiPath, recorder);
    if (!doc) t.noTraffic('the broker serves no OpenAPI document at /openapi.bundled.json or /openapi.json (give --openapi)');
    const validator = new ResponseValidator(doc);
    const unreachable = await validator.loadReferences(async (url) => {
      const res = await recorder.fetch('kit')(url, { headers: { accept: 'application/schema+json, application/json' } });
      return res.ok ? res.json() : undefined;
    });
    for (const url of unreachable) t.note(`the document references ${url}, which could not be fetched`);
    const { judged, violations } = validator.validate(exchanges.filter((x) => x.party !== 'kit' && !new URL(x.url).pathname.startsWith('/oauth2/')));
    if (judged === 0) t.noTraffic('no answer to judge');
    t.note(`${judged} answers judged against the document`);
    for (const v of violations.slice(0, 20)) t.note(`exchange ${v.exchange} (${v.operation} -> ${v.status}): ${v.errors.join('; ')}`);
    t.expect(violations.length === 0, `${violations.length} answers the document does not describe`);
  } }, world), 'SV-2');
  recorder.check = 'ER-3';
  record(await runCheck({ ...RUN_WIDE[3], run: async (_w, t) => {
    const errors = exchanges.filter((x) => x.status >= 400 && !x.error && !new URL(x.url).pathname.startsWith('/oauth2/'));
    if (errors.length === 0) t.noTraffic('no error answer to judge');
    const bad = problemsOf(exchanges);
    t.note(`${errors.length} error answers judged`);
    for (const b of bad.slice(0, 20)) t.note(b);
    t.expect(bad.length === 0, `${bad.length} error answers are not complete problems`);
  } }, world), 'ER-3');

  return buildReport({ profile: 'broker', baseUrl, startedAt, results, exchanges: recorder.exchanges });
}

/** The checks judged over the whole run, after the others (their `run` is given by runBrokerProfile). */
const RUN_WIDE = [
  { id: 'IS-4', family: 'isolation' as const, mandatory: true, title: 'Nothing any organization was shown during the run is something it may not see: no draft of another, nothing outside its visibility, nothing of a non-partner', spec: 'States: draft (visible only to the owner); Visibility requires an active bilateral PartnerRelationship and a matching scope' },
  { id: 'FD-3', family: 'disclosure' as const, mandatory: true, title: 'No answer of the run, in any read, list, proposal or event, showed restricted details to anyone but their owner before acceptance', spec: 'Customer identity, exact address, price and complete goods details are excluded unless policy explicitly permits disclosure; A proposal never discloses protected fields merely because a potential match exists' },
  { id: 'SV-2', family: 'schema-validation' as const, mandatory: true, title: "Every answer of the run is one the implementation's own OpenAPI document describes: its operation, status, media type, headers and body", spec: 'Synchronous transport: HTTPS, described with OpenAPI 3.1 (normative for paths, authorization, status codes and headers; it references the schemas)' },
  { id: 'ER-3', family: 'errors' as const, mandatory: true, title: 'Every 4xx and 5xx answer of the run is application/problem+json with type, title, status, code and correlationId', spec: 'Errors use RFC 9457 Problem Details. Members: type (URI), title, status, code (stable protocol code), detail, correlationId' },
];

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
    // Once more after a network failure (a connection the server was closing as it was reused).
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await f(`${baseUrl}${p}`, { headers: { accept: 'application/json' } }).catch(() => undefined);
      if (res?.ok) return res.json();
      if (res) break;
    }
  }
  return undefined;
}
