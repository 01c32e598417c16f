// The broker process: worker and/or HTTP API (PCX_ROLE), on the configuration from the environment.
import { serve } from '@hono/node-server';
import { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfigOrExit, type Config } from './core/config';
import { openReadModel } from './read-model/database';
import { assertFeedCanGrow } from './read-model/events';
import { createLogger } from './core/log';
import { observeCluster } from './core/metrics';
import { loadRegistry } from './core/registry';
import { importSeed } from './seed';
import { SchemaRegistry } from './core/schemas';
import { createTokenVerifier, loadSigningKey } from './core/auth';
import { connectTemporal, ensureSearchAttributes, startRetention } from './core/temporal';
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
import { managedRegistry, type ManagedRegistry } from './read-model/managed-registry';
import { purgeExpiredRevocations } from './read-model/revoked-tokens';
import { createOAuthState, type OAuthState } from './api/oauth-state';
import { createWorker, eventSource } from './worker';
import { createTransitionStore } from './read-model/transition-store';
import { startWebhookWatcher } from './delivery/webhook-watcher';
import { keyRingOf } from './core/secrets';
import { markDataFolder, unmarkDataFolder } from './core/data-folder';
import { resealSecrets } from './read-model/webhook-subscriptions';

export async function startBroker(config: Config) {
  const log = createLogger(config.log);
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
  const connection = await connectTemporal(config.temporal);
  await ensureSearchAttributes(connection, config.temporal.namespace);
  // The cluster gauges of /metrics (open entity workflows, feed lag) read through these.
  const cluster = observeCluster({ db, client: new Client({ connection, namespace: config.temporal.namespace }) });

  let worker: Worker | undefined;
  let workerConnection: NativeConnection | undefined;
  let workerRecords: ManagedRegistry | undefined;
  let workerRun: Promise<void> | undefined;
  let watcher: { stop(): Promise<void> } | undefined;
  if (config.role !== 'api') {
    const created = await createWorker(config, db, new Client({ connection, namespace: config.temporal.namespace }));
    ({ worker, connection: workerConnection } = created);
    workerRecords = created.records;
    workerRun = worker.run();
    // Delivers webhooks as the outbox grows, directly or by poking subscriptions' workflows (delivery/webhook-watcher.ts).
    watcher = startWebhookWatcher({
      delivery: created.webhooks,
      db,
      client: new Client({ connection, namespace: config.temporal.namespace }),
      taskQueue: config.temporal.taskQueue,
      idlePumpSeconds: config.webhooks.idlePumpSeconds,
      log,
    });
    // The retention purge's clock (workflows/retention.ts): started once, then it rounds daily.
    startRetention(new Client({ connection, namespace: config.temporal.namespace }), config.temporal.taskQueue).catch((err) =>
      log.warn({ error: String(err) }, 'the retention workflow could not be started; tried again at the next start'),
    );
    // A process whose worker died must not keep serving as if it could complete commands.
    workerRun.catch((err) => {
      log.error({ error: String(err) }, 'worker stopped');
      process.exit(1);
    });
  }
  // The worker role serves no API, so it answers its own liveness and readiness probes; the other
  // roles have the API's /health/* (api/health.ts).
  let healthServer: import('node:http').Server | undefined;
  if (config.role === 'worker') {
    healthServer = await startWorkerHealthServer({ worker: worker!, db, connection, metricsToken: config.metricsToken }, { host: config.host, port: config.workerHealthPort });
    log.info({ url: workerHealthUrl(healthServer), taskQueue: config.temporal.taskQueue, database: db.engine }, 'worker health listening');
  }

  let server: ReturnType<typeof serve> | undefined;
  let mtlsServer: ReturnType<typeof serve> | undefined;
  let housekeeping: NodeJS.Timeout | undefined;
  let intentSweep: NodeJS.Timeout | undefined;
  let managed: ManagedRegistry | undefined;
  let oauthState: OAuthState | undefined;
  if (config.role !== 'worker') {
    const registry = loadRegistry(config);
    for (const warning of registry.warnings) log.warn(warning);
    // Organizations and connectors managed through the API (domain/organization.ts, domain/connector.ts), over the files': fresh within a second on every replica.
    managed = await managedRegistry(db, { onError: (err) => log.warn({ error: String(err) }, 'managed records could not be refreshed') });
    registry.useManaged(managed);
    const schemas = new SchemaRegistry(config.schemaBase);
    // The key the broker's token endpoint (and the development identity provider) signs with.
    const signingKey = config.auth.tokenEndpoint || config.auth.devServer ? await loadSigningKey(config.dataDir, config.auth.tokenEndpoint?.keyFile) : undefined;
    const temporal = new Client({ connection, namespace: config.temporal.namespace });
    const entities = new Entities(temporal, { taskQueue: config.temporal.taskQueue, settings: config.workflow }, createTransitionStore(db, { schemaBase: config.schemaBase, eventSource: eventSource(config) }));
    // Commands whose sender died between Temporal's answer and its write are finished here, by
    // any replica (core/entities.ts, sweep), within seconds.
    let sweeping = false;
    intentSweep = setInterval(() => {
      if (sweeping) return;
      sweeping = true;
      entities
        .sweep(50, (commandId, err) => log.warn({ commandId, error: String(err) }, 'a command intent could not be settled yet'))
        .catch((err) => log.warn({ error: String(err) }, 'the sweep of command intents failed'))
        .finally(() => (sweeping = false));
    }, 1000);
    intentSweep.unref();
    oauthState = await createOAuthState({ config, db, signingKey, log });
    const app = createApp({ config, db, temporal, entities, registry, schemas, verifyToken: createTokenVerifier(config, signingKey), signingKey, oauth: oauthState, secrets, log });
    // The organizations, connectors and users files as records, beside serving (the file answers until a record exists).
    if (config.registry.seedRecords) {
      importSeed({ registry, entities, db, organizationsFile: config.registry.organizationsFile, connectorsFile: config.registry.connectorsFile, usersFile: config.registry.usersFile, log }).catch((err) => log.warn({ error: String(err) }, 'the seed was not imported; it is tried again at the next start'));
    }
    // The development identity provider for interactive users answers under /oidc itself (dev/oidc.ts).
    // Loaded only when on: the production image carries no oidc-provider (a devDependency).
    const identityProvider = config.auth.users?.devProvider && signingKey ? (require('./dev/oidc') as typeof import('./dev/oidc')).createDevIdentityProvider({ config, registry, signingKey, db }) : undefined;
    const createServer = ((options: ServerOptions, listener: RequestListener) =>
      createHttpServer(options, (req, res) => (identityProvider && /^\/oidc(\/|\?|$)/.test(req.url ?? '') ? identityProvider(req, res) : listener(req, res)))) as typeof createHttpServer;
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, port: config.port, hostname: config.host, createServer }, () => resolve());
      // Idle keep-alive connections are kept longer than clients keep them (undici, the SDK, load
      // balancers at 60 s): the client closes first. With Node's 5 s a client could send on a
      // socket the broker was closing at that moment and fail with EPIPE or "other side closed".
      (server as HttpServer).keepAliveTimeout = 65_000;
      (server as HttpServer).headersTimeout = 66_000;
      // Requests Node's HTTP parser refuses get a problem body too, not Node's bare 400/431.
      (server as HttpServer).on('clientError', (err, socket) => answerClientError(err, socket, log));
    });
    // The mutual-TLS listener (RFC 8705): the same API over HTTPS, asking each client for a
    // certificate without requiring one from a known authority (self_signed_tls_client_auth: the
    // key is trusted because a connector registered it); a certificate that chains to one of the
    // operator's trust anchors (CLIENT_CA_FILE) is marked so by the handshake (tls_client_auth;
    // api/client-authentication.ts, api/gates.ts).
    if (config.mtls) {
      const { port, certFile, keyFile } = config.mtls;
      const ca = config.auth.clientTrustAnchors.map((anchor) => anchor.toString());
      await new Promise<void>((resolve) => {
        mtlsServer = serve({ fetch: app.fetch, port, hostname: config.host, createServer: createHttpsServer, serverOptions: { cert: readFileSync(certFile), key: readFileSync(keyFile), requestCert: true, rejectUnauthorized: false, ...(ca.length ? { ca } : {}) } }, () => resolve());
        (mtlsServer as HttpServer).keepAliveTimeout = 65_000;
        (mtlsServer as HttpServer).headersTimeout = 66_000;
        (mtlsServer as HttpServer).on('clientError', (err, socket) => answerClientError(err, socket, log));
      });
      log.info({ url: config.mtls.baseUrl }, 'mutual-TLS listener');
    }
    housekeeping = setInterval(() => {
      Promise.all([purgeExpiredIdempotencyKeys(db), purgeOldRateCounters(db), purgeExpiredAssertions(db), purgeExpiredRevocations(db)]).catch((err) => log.warn({ error: String(err) }, 'housekeeping failed'));
    }, 10 * 60 * 1000);
    housekeeping.unref();
    log.info({ url: `http://${config.host}:${config.port}`, role: config.role, database: db.engine }, 'broker listening');
  }

  return {
    async stop() {
      cluster.stop();
      workerRecords?.stop();
      managed?.stop();
      oauthState?.revocations.stop();
      if (housekeeping) clearInterval(housekeeping);
      if (intentSweep) clearInterval(intentSweep);
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
      if (mtlsServer) await new Promise<void>((resolve) => mtlsServer!.close(() => resolve()));
      await watcher?.stop();
      if (worker) {
        // The Temporal runtime shuts its workers down on SIGTERM and SIGINT itself; a second call throws.
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await workerRun?.catch(() => undefined);
        await workerConnection?.close().catch(() => undefined);
      }
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
