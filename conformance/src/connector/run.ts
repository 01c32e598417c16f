// The connector profiles (Publisher, Consumer, Outcome provider, Full reference client): the
// connector under test talks to a PCX sandbox, given a scenario (scenario.ts) in PCX_SCENARIO,
// while the kit plays its counterpart (counterpart.ts) and watches what it sent (the sandbox's
// record, GET /sandbox/connector-requests, read as the operator). The sandbox answers some of its
// requests with faults (POST /sandbox/faults) and serves its event feed out of order and twice
// (POST /sandbox/event-disorder). The verdicts come from that record and from what the
// counterpart saw (docs/conformance.md).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCheck, type CheckResult } from '../checks';
import { buildReport, type Report } from '../report';
import { Party, Recorder, type Credentials } from '../traffic';
import { must } from '../broker/world';
import { FAULT_RETRY_AFTER_SECONDS, PROFILE_CHECKS, type ConnectorRequest, type ConnectorWorld } from './checks';
import { Counterpart } from './counterpart';
import { scenarioFor, type ConnectorProfile, type Scenario } from './scenario';

export type { ConnectorProfile } from './scenario';

export interface ConnectorRunOptions {
  baseUrl: string;
  /** The sandbox's operator (reads the record, sets faults). */
  operator: Credentials;
  /**
   * The connector's organization (credentials the kit uses before the run only, to make the
   * partnership the scenario needs) and the organization the kit plays; both with every scope.
   */
  organization: Credentials;
  counterpart: Credentials;
  tokenUrl?: string;
  /** The connector under test. */
  connectorClientId: string;
  /** How the kit runs it: a command (argv) and its environment; it is stopped after `seconds` or when the scenario is done. */
  command: string[];
  env?: Record<string, string>;
  seconds: number;
  cwd?: string;
  log?: (line: string) => void;
}

/** How long changes of one burst are held together in the connector's feed. */
const HOLD_SECONDS = 3;

/** Runs a connector profile: the scenario, faults and disorder set, the connector run, its record judged. */
export async function runConnectorProfile(profile: ConnectorProfile, options: ConnectorRunOptions): Promise<Report> {
  const baseUrl = options.baseUrl.replace(/\/$/, '');
  const recorder = new Recorder();
  const tokenUrl = options.tokenUrl ?? `${baseUrl}/oauth2/token`;
  const operator = new Party('operator', options.operator, baseUrl, tokenUrl, recorder);
  const log = options.log ?? (() => undefined);
  const startedAt = new Date().toISOString();
  const records = (after: number) => must(operator.get(`/sandbox/connector-requests?clientId=${encodeURIComponent(options.connectorClientId)}&after=${after}&limit=1000`), 200, 'read the sandbox record');
  recorder.check = 'set-up';
  // What an earlier run set and its connector never met must not answer this one (nor the set-up).
  const reset = () => must(operator.post('/sandbox/reset', { clientId: options.connectorClientId }), 200, 'reset the sandbox for the connector');
  await reset();
  const counterpartParty = new Party('counterpart', options.counterpart, baseUrl, tokenUrl, recorder);
  const organization = new Party('connector-organization', options.organization, baseUrl, tokenUrl, recorder);
  const scenario: Scenario = scenarioFor(profile, organization.id, counterpartParty.id);
  const counterpart = new Counterpart(counterpartParty, organization, scenario, HOLD_SECONDS, log);
  await counterpart.setUp();
  const scenarioFile = join(mkdtempSync(join(tmpdir(), 'pcx-scenario-')), 'scenario.json');
  writeFileSync(scenarioFile, JSON.stringify(scenario, null, 2));
  // The record's end as the run starts: every page read (a busy connector's record holds more than one).
  let baseline = 0;
  for (let page = await records(0); page.items.length; page = await records(baseline)) baseline = page.after as number;

  // Every profile: the connector's first POST is answered 503 with Retry-After (CX-1, CX-2).
  const fault = (body: Record<string, unknown>) => must(operator.post('/sandbox/faults', { clientId: options.connectorClientId, count: 1, retryAfterSeconds: FAULT_RETRY_AFTER_SECONDS, method: 'POST', ...body }), 200, 'set a fault');
  await fault({ status: 503 });
  if (profile === 'consumer' || profile === 'full') {
    // Its first decision on a proposal: 409, as if the proposal had just changed (CON-2).
    await fault({ status: 409, pathPrefix: '/match-proposals/', pathSuffix: '/decisions' });
    // Its feed: bursts together, reversed, twice (CON-3, CON-4).
    await must(operator.post('/sandbox/event-disorder', { clientId: options.connectorClientId, holdSeconds: HOLD_SECONDS, pages: 10_000 }), 200, 'set the event disorder');
  }
  // Its first outcome: 503 (CX-1 on a report; OUT-2 sees it recorded once).
  if (profile === 'outcome-provider' || profile === 'full') await fault({ status: 503, pathPrefix: '/execution-outcomes' });

  recorder.check = 'scenario';
  const play = counterpart.play(startedAt);
  // Once the counterpart's part is done, the connector's last reports (a correction after the
  // outcome) are awaited until it has sent nothing for a while, not for a fixed time: on a loaded
  // machine they come later, and a connector stopped before them would be judged on half a record.
  const quiet = play.then(() => connectorQuiet(records, baseline));
  const output = await runFor(options, { ...options.env, PCX_SCENARIO: scenarioFile, PCX_BASE_URL: baseUrl }, quiet);
  counterpart.stop();
  await play;
  recorder.check = 'judgement';
  // Ends the disorder and any fault not used.
  await reset();
  const requests: ConnectorRequest[] = [];
  for (let after = baseline; ; ) {
    const page = await records(after);
    requests.push(...page.items);
    if (page.items.length === 0) break;
    after = page.after;
  }
  log(`the connector made ${requests.length} requests`);
  const reader = counterpartParty;
  const world: ConnectorWorld = {
    requests,
    output,
    counterpart: counterpart.log,
    read: async (path) => {
      const r = await reader.get(path);
      return r.status === 200 ? r.body : undefined;
    },
  };
  const results: CheckResult[] = [];
  for (const check of PROFILE_CHECKS[profile]) {
    const result = await runCheck(check, world);
    results.push({ ...result, exchanges: [] });
    log(`${result.verdict.padEnd(14)} ${result.id} ${result.title}`);
  }
  return buildReport({ profile, baseUrl, startedAt, results, exchanges: recorder.exchanges });
}

/** How long the connector must have sent nothing, once the counterpart's part is done, before it is stopped; and the most that is waited. */
const QUIET_MS = 3000;
const QUIET_AT_MOST_MS = 30_000;

/** Resolves once the sandbox has recorded no new write of the connector (its feed reads go on) for QUIET_MS (at most QUIET_AT_MOST_MS). */
async function connectorQuiet(records: (after: number) => Promise<any>, baseline: number): Promise<void> {
  const deadline = Date.now() + QUIET_AT_MOST_MS;
  let after = baseline;
  let lastNews = Date.now();
  while (Date.now() < deadline && Date.now() - lastNews < QUIET_MS) {
    await new Promise((r) => setTimeout(r, 500));
    for (;;) {
      const page = await records(after);
      if (page.items.length === 0) break;
      after = page.after;
      if ((page.items as ConnectorRequest[]).some((r) => r.method !== 'GET' && r.method !== 'HEAD')) lastNews = Date.now();
    }
  }
}

/**
 * Runs the connector's command until it exits, `seconds` pass, or `done` settles (the
 * counterpart's part is done and the connector has gone quiet); its output.
 */
function runFor(options: ConnectorRunOptions, env: Record<string, string>, done: Promise<void> | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const [command, ...args] = options.command;
    // Its own process group, stopped as a whole: a command such as `npx tsx connector.ts` is a
    // wrapper whose child would outlive a signal sent to the wrapper alone.
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stopped = false;
    const stop = () => {
      stopped = true;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        /* gone already */
      }
    };
    let output = '';
    child.stdout!.on('data', (c) => (output += c.toString()));
    child.stderr!.on('data', (c) => (output += c.toString()));
    const timer = setTimeout(stop, options.seconds * 1000);
    void done?.then(() => stop(), () => stop());
    // The kit interrupted: its connector with it.
    process.once('exit', stop);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      process.off('exit', stop);
      // A connector that stopped by itself with an error: its last words, for the participant.
      if (!stopped && code !== 0) options.log?.(`the connector exited with ${code}:\n${output.split('\n').slice(-15).join('\n')}`);
      resolve(output);
    });
  });
}
