// The broker process: worker and/or HTTP API (PCX_ROLE), on the configuration from the environment.
import { serve } from '@hono/node-server';
import { Client } from '@temporalio/client';
import { loadConfigOrExit, type Config } from './core/config';
import type { Db } from './core/db';
import { openReadModel } from './read-model/database';
import { assertFeedCanGrow } from './read-model/events';
import { createLogger } from './core/log';
import { collectProcessMetrics, observeCluster } from './core/metrics';
import { loadRegistry } from './core/registry';
import { importSeed } from './seed';
import { SchemaRegistry } from './core/schemas';
import { createTokenVerifier, loadSigningKey } from './core/auth';
import { connectTemporal, dataConverterOf, ensureSearchAttributes, startRetention } from './core/temporal';
import { Entities } from './core/entities';
import { startWorkerHealthServer, workerHealthUrl } from './core/worker-health';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type RequestListener, type Server as HttpServer, type ServerOptions } from 'node:http';
import { createApp } from './api/app';
import { answerClientError } from './api/http';
import { purgeExpiredIdempotencyKeys } from './read-model/idempotency-keys';
import { purgeOldRateCounters } from './read-model/rate-counters';
import { purgeExpiredAssertions } from './read-model/client-assertions';
import { managedRegistry } from './read-model/managed-registry';
import { purgeExpiredRevocations } from './read-model/revoked-tokens';
import { createOAuthState } from './api/oauth-state';
import { createWorker, eventSource } from './worker';
import { createTransitionStore } from './read-model/transition-store';
import { startWebhookWatcher } from './delivery/webhook-watcher';
import { keyRingOf, type KeyRing } from './core/secrets';
import { personalDataOf } from './core/personal-data';
import { claimDataFolder, markDataFolder, unmarkDataFolder } from './core/data-folder';
import { resealSecrets } from './read-model/webhook-subscriptions';
import { openTransparencyLog } from './read-model/transparency-log';
import { loadTransparencyLogKeys } from './core/transparency-log-key';

export async function startBroker(config: Config) {
  const log = createLogger(config.log);
  const { db, secrets } = await openStores(config, log);
  const connection = await connectTemporal(config.temporal);
  await ensureSearchAttributes(connection, config.temporal.namespace);
  const dataConverter = dataConverterOf(config);
  const client = () => new Client({ connection, namespace: config.temporal.namespace, dataConverter });
  // The cluster gauges of /metrics (open entity workflows, feed lag) read through these.
  const cluster = observeCluster({ db, client: client() });
  collectProcessMetrics();
  const worker = config.role !== 'api' ? await startWorkerRole(config, db, client, log) : undefined;
  // The worker role serves no API, so it answers its own liveness and readiness probes; the other
  // roles have the API's /health/* (api/health.ts).
  let healthServer: HttpServer | undefined;
  if (config.role === 'worker') {
    healthServer = await startWorkerHealthServer({ worker: worker!.worker, db, connection, metricsToken: config.metricsToken }, { host: config.host, port: config.workerHealthPort });
    log.info({ url: workerHealthUrl(healthServer), taskQueue: config.temporal.taskQueue, database: db.engine }, 'worker health listening');
  }
  const api = config.role !== 'worker' ? await startApi(config, db, client(), secrets, log) : undefined;

  return {
    async stop() {
      cluster.stop();
      await api?.stop();
      await worker?.stop();
      // Answers 503 while the worker drains; closed once it has.
      if (healthServer) {
        healthServer.closeAllConnections();
        await new Promise<void>((resolve) => healthServer!.close(() => resolve()));
      }
      await connection.close();
      await db.close();
      if (!config.databaseUrl) unmarkDataFolder(config.dataDir);
    },
  };
}

type Log = ReturnType<typeof createLogger>;

/** The read model, checked before anything writes to it, and the key ring that seals webhook signing secrets. */
async function openStores(config: Config, log: Log) {
  // The embedded database's folder in this version's format, or refused before it is opened (core/data-folder.ts).
  if (!config.databaseUrl) claimDataFolder(config.dataDir);
  const db = await openReadModel({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  // The embedded database's folder is in use: the backup script refuses to copy it meanwhile.
  if (!config.databaseUrl) markDataFolder(config.dataDir);
  // A database restored from a logical dump would hide new events from every feed: refused at once.
  await assertFeedCanGrow(db);
  // The key ring that seals webhook signing secrets (core/secrets.ts); generated into the data
  // folder on a first start without SECRETS_KEY_FILE.
  const { ring: secrets, generated } = keyRingOf({ keyFile: config.secrets.keyFile, dataDir: config.dataDir });
  if (generated) log.info({ file: generated }, 'secrets key generated (a backup of the data folder holds it; mount SECRETS_KEY_FILE from elsewhere in production)');
  // Secrets in clear from before sealing, or under a key no longer the primary, sealed again
  // under the primary, in the background (row by row; any replica may run it at once).
  resealSecrets(db, secrets)
    .then((done) => {
      if (done.resealed) log.info({ subscriptions: done.subscriptions, resealed: done.resealed, keyId: secrets.primary }, 'webhook secrets sealed under the primary key');
      if (done.unopened) log.error({ subscriptions: done.unopened, keyFile: secrets.source }, 'webhook secrets sealed under keys this key ring does not hold: every replica needs the same key file');
    })
    .catch((err) => log.warn({ error: String(err) }, 'webhook secrets not sealed again yet; tried at the next start or by npm run secrets:rotate'));
  return { db, secrets };
}

/** The worker, the webhook watcher and the retention purge's clock. */
async function startWorkerRole(config: Config, db: Db, client: () => Client, log: Log) {
  const { worker, connection, records, webhooks } = await createWorker(config, db, client());
  const run = worker.run();
  // Delivers webhooks as the outbox grows, directly or by poking subscriptions' workflows (delivery/webhook-watcher.ts).
  const watcher = startWebhookWatcher({ delivery: webhooks, db, client: client(), taskQueue: config.temporal.taskQueue, idlePumpSeconds: config.webhooks.idlePumpSeconds, log });
  // The retention purge's clock (workflows/retention.ts): started once, then it rounds daily.
  startRetention(client(), config.temporal.taskQueue).catch((err) => log.warn({ error: String(err) }, 'the retention workflow could not be started; tried again at the next start'));
  // A process whose worker died must not keep serving as if it could complete commands.
  run.catch((err) => {
    log.error({ error: String(err) }, 'worker stopped');
    process.exit(1);
  });
  return {
    worker,
    async stop() {
      records.stop();
      await watcher.stop();
      // The Temporal runtime shuts its workers down on SIGTERM and SIGINT itself; a second call throws.
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run.catch(() => undefined);
      await connection.close().catch(() => undefined);
    },
  };
}

/** The HTTP API (and its mutual-TLS listener), with what serves it: the registry, the command sender and its sweep, OAuth, housekeeping. */
async function startApi(config: Config, db: Db, temporal: Client, secrets: KeyRing, log: Log) {
  const registry = loadRegistry(config);
  for (const warning of registry.warnings) log.warn(warning);
  // Organizations and connectors managed through the API (domain/organization.ts, domain/connector.ts), over the files': fresh within a second on every replica.
  const managed = await managedRegistry(db, { openName: (name) => personalDataOf(config.secrets).openValue(name), onError: (err) => log.warn({ error: String(err) }, 'managed records could not be refreshed') });
  registry.useManaged(managed);
  const schemas = new SchemaRegistry(config.schemaBase);
  // The key the broker's token endpoint (and the development identity provider) signs with.
  const signingKey = config.auth.tokenEndpoint || config.auth.devServer ? await loadSigningKey(config.dataDir, config.auth.tokenEndpoint?.keyFile) : undefined;
  const entities = new Entities(temporal, { taskQueue: config.temporal.taskQueue, settings: config.workflow }, createTransitionStore(db, { schemaBase: config.schemaBase, eventSource: eventSource(config) }));
  const intentSweep = sweepIntents(entities, log);
  const oauthState = await createOAuthState({ config, db, signingKey, log });
  // The transparency log's checkpoints: signed when asked for, and at an interval whenever the log grew.
  const { origin, keyFile, checkpointSeconds, witnessKeys } = config.transparencyLog;
  const transparencyLog = openTransparencyLog(db, { keys: loadTransparencyLogKeys(config.dataDir, keyFile, origin), origin, witnesses: witnessKeys });
  const app = createApp({ config, db, temporal, entities, registry, schemas, verifyToken: createTokenVerifier(config, signingKey), signingKey, oauth: oauthState, secrets, personalData: personalDataOf(config.secrets), log, transparencyLog });
  // The organizations, connectors and users files as records, beside serving (the file answers until a record exists).
  if (config.registry.seedRecords) {
    importSeed({ registry, entities, db, personalData: personalDataOf(config.secrets), organizationsFile: config.registry.organizationsFile, connectorsFile: config.registry.connectorsFile, usersFile: config.registry.usersFile, log }).catch((err) => log.warn({ error: String(err) }, 'the seed was not imported; it is tried again at the next start'));
  }
  // The development identity provider for interactive users answers under /oidc itself (dev/oidc.ts).
  // Loaded only when on: the production image carries no oidc-provider (a devDependency).
  const identityProvider = config.auth.users?.devProvider && signingKey ? (require('./dev/oidc') as typeof import('./dev/oidc')).createDevIdentityProvider({ config, registry, signingKey, db }) : undefined;
  const createServer = ((options: ServerOptions, listener: RequestListener) =>
    createHttpServer(options, (req, res) => (identityProvider && /^\/oidc(\/|\?|$)/.test(req.url ?? '') ? identityProvider(req, res) : listener(req, res)))) as typeof createHttpServer;
  const servers = [await listen(app.fetch, { port: config.port, hostname: config.host, createServer }, log)];
  // The mutual-TLS listener (RFC 8705): the same API over HTTPS, asking each client for a
  // certificate without requiring one from a known authority (self_signed_tls_client_auth: the
  // key is trusted because a connector registered it); a certificate that chains to one of the
  // operator's trust anchors (CLIENT_CA_FILE) is marked so by the handshake (tls_client_auth;
  // api/client-authentication.ts, api/gates.ts).
  if (config.mtls) {
    const { port, certFile, keyFile } = config.mtls;
    const ca = config.auth.clientTrustAnchors.map((anchor) => anchor.toString());
    const serverOptions = { cert: readFileSync(certFile), key: readFileSync(keyFile), requestCert: true, rejectUnauthorized: false, ...(ca.length ? { ca } : {}) };
    servers.push(await listen(app.fetch, { port, hostname: config.host, createServer: createHttpsServer, serverOptions }, log));
    log.info({ url: config.mtls.baseUrl }, 'mutual-TLS listener');
  }
  const housekeeping = setInterval(() => {
    Promise.all([purgeExpiredIdempotencyKeys(db), purgeOldRateCounters(db), purgeExpiredAssertions(db), purgeExpiredRevocations(db)]).catch((err) => log.warn({ error: String(err) }, 'housekeeping failed'));
  }, 10 * 60 * 1000);
  housekeeping.unref();
  const checkpoints = setInterval(() => transparencyLog.current().catch((err) => log.warn({ error: String(err) }, 'the transparency log could not be signed')), checkpointSeconds * 1000);
  checkpoints.unref();
  log.info({ url: `http://${config.host}:${config.port}`, role: config.role, database: db.engine }, 'broker listening');
  return {
    async stop() {
      managed.stop();
      oauthState.revocations.stop();
      clearInterval(housekeeping);
      clearInterval(checkpoints);
      clearInterval(intentSweep);
      for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Commands whose sender died between Temporal's answer and its write are finished here, by any
 * replica (core/entities.ts, sweep), within seconds.
 */
function sweepIntents(entities: Entities, log: Log): NodeJS.Timeout {
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    entities
      .sweep(50, (commandId, err) => log.warn({ commandId, error: String(err) }, 'a command intent could not be settled yet'))
      .catch((err) => log.warn({ error: String(err) }, 'the sweep of command intents failed'))
      .finally(() => (sweeping = false));
  }, 1000);
  timer.unref();
  return timer;
}

/** One listener of the API, listening when this resolves. */
function listen(fetch: Parameters<typeof serve>[0]['fetch'], options: Omit<Parameters<typeof serve>[0], 'fetch'>, log: Log): Promise<HttpServer> {
  return new Promise((resolve) => {
    const server = serve({ fetch, ...options } as Parameters<typeof serve>[0], () => resolve(server as HttpServer)) as HttpServer;
    // Idle keep-alive connections are kept longer than clients keep them (undici, the SDK, load
    // balancers at 60 s): the client closes first. With Node's 5 s a client could send on a
    // socket the broker was closing at that moment and fail with EPIPE or "other side closed".
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    // Requests Node's HTTP parser refuses get a problem body too, not Node's bare 400/431.
    server.on('clientError', (err, socket) => answerClientError(err, socket, log));
  });
}

if (require.main === module) {
  const config = loadConfigOrExit();
  startBroker(config).then(
    (broker) => {
      let stopping = false;
      const stop = () => {
        if (stopping) return;
        stopping = true;
        broker.stop().then(
          () => process.exit(0),
          (err) => {
            process.stderr.write(`broker failed to stop cleanly: ${(err as Error)?.stack ?? err}\n`);
            process.exit(1);
          },
        );
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      // Started by npm start (an IPC channel to it): stops itself when npm start is gone (scripts/start.ts).
      if (process.send) process.on('disconnect', () => (setTimeout(() => process.exit(1), 15_000).unref(), stop()));
    },
    (err) => {
      process.stderr.write(`broker failed to start: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
