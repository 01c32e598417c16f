// The adapter gateway process (npm start runs it beside the broker; `npx tsx gateway/main.ts` alone):
// its database, a Temporal worker for the message workflows on its own task queue, the
// mailboxes, and its HTTP interface. It reaches the broker only through the public API.
import { serve } from '@hono/node-server';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { Server } from 'node:http';
import { connectTemporal, sealedPayloads } from '../core/temporal';
import { readFileSync } from 'node:fs';
import { createResolver } from '../core/webhooks/target';
import { createGatewayActivities } from './activities';
import { createClients } from './clients';
import { createDelivery } from './delivery';
import { createFollower } from './follower';
import { reconcile } from './reconcile';
import { gatewayWorkflowBundle } from './bundle';
import { loadGatewayConfig, type GatewayConfig } from './config';
import { gatewayApp } from './http';
import { formatOfFile } from './formats';
import { createIntake, screen } from './intake';
import { ensureMailbox, mailboxEntryId, takeFiles, type DroppedFile } from './mailbox';
import { createSettings } from './settings';
import { eraseOldContent, openGatewayDb } from './store';

/** How often a mailbox file may fail to be taken in (its database answering) before it is moved to failed/. */
const POISON_ATTEMPTS = 3;

export async function startGateway(config: GatewayConfig) {
  // The worker's state changes are not news; warnings and errors are (once per process).
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // a runtime is already installed (another worker in this process): keep it
  }
  const db = await openGatewayDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  // Each organization's adapter settings in force: the file's, or what it set through the API since (settings.ts).
  const settings = await createSettings(db, config.organizations);
  const clientOf = createClients(config);
  const connection = await connectTemporal({ address: config.temporal.address });
  // The messages in transit (EDIFACT, spreadsheets) sealed before they reach Temporal, as the broker's payloads.
  const dataConverter = config.temporal.payloads ? sealedPayloads(config.temporal.payloads) : undefined;
  const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter });
  const workerConnection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection: workerConnection,
    dataConverter,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    workflowBundle: await gatewayWorkflowBundle(config.workflowBundleFile),
    activities: createGatewayActivities(db, config, clientOf, settings.current),
    // A killed worker polls no more: its cached workflows' tasks go to another within a second.
    stickyQueueScheduleToStartTimeout: '1 second',
  });
  const workerRun = worker.run();
  workerRun.catch((err) => {
    process.stderr.write(`[gateway] worker stopped: ${String(err)}\n`);
    process.exit(1);
  });

  const intake = createIntake(db, client, config.temporal.taskQueue);
  await intake.resume();

  // The mailboxes: looked at every GATEWAY_MAILBOX_POLL_MS; a file is screened, recorded, then
  // removed. Nothing a file holds stops the loop: a failure is logged and the file tried again at
  // the next round, and a file that fails POISON_ATTEMPTS times while the database answers is
  // moved to failed/ with its reason (mailbox.ts), so that one bad file never holds up the others.
  for (const org of config.organizations) ensureMailbox(config.mailboxRoot, org.organizationId);
  let polling = true;
  const failures = new Map<string, number>();
  const takeFile = async (org: (typeof config.organizations)[number], file: DroppedFile) => {
    const format = formatOfFile(file.name);
    const { content, refusal } = screen(file.content, file.size, format, config.maxMessageBytes);
    await intake.take({ id: mailboxEntryId(org.organizationId, file.name, file.content, file.size), organizationId: org.organizationId, transport: 'mailbox', format: format.name, name: file.name, content, ...(refusal ? { refusal } : {}) });
    file.done();
  };
  const poll = async () => {
    while (polling) {
      for (const org of config.organizations) {
        let files: DroppedFile[] = [];
        try {
          files = takeFiles(config.mailboxRoot, org.organizationId, config.maxMessageBytes);
        } catch (err) {
          process.stderr.write(`[gateway] the mailbox of ${org.organizationId} could not be read (tried again): ${String(err)}\n`);
        }
        for (const file of files) {
          const key = `${org.organizationId}/${file.name}`;
          try {
            await takeFile(org, file);
            failures.delete(key);
          } catch (err) {
            const databaseUp = await db.query('select 1').then(() => true, () => false);
            const count = databaseUp ? (failures.get(key) ?? 0) + 1 : failures.get(key) ?? 0;
            failures.set(key, count);
            process.stderr.write(`[gateway] ${key} could not be taken in (attempt ${count} of ${POISON_ATTEMPTS}): ${String(err)}\n`);
            if (count >= POISON_ATTEMPTS) {
              file.fail(`the gateway could not take this file in after ${count} attempts: ${String(err)}`);
              failures.delete(key);
            }
          }
        }
      }
      await new Promise((resolve) => setTimeout(resolve, config.mailboxPollMs));
    }
  };
  const polled = poll();

  // The exchange's side: each organization's feed followed, notices delivered as they are written,
  // and every organization reconciled once at start (what happened while the gateway was down).
  const delivery = createDelivery(db, settings.current, config.mailboxRoot, {
    allowCidrs: config.push.allowCidrs,
    resolve: createResolver(),
    ...(config.push.caFile ? { ca: readFileSync(config.push.caFile, 'utf8') } : {}),
  });
  const deliver = () => void delivery.deliver().catch((err) => process.stderr.write(`[gateway] delivery failed: ${String(err)}\n`));
  const follower = createFollower(db, settings.current, clientOf, { pollMs: config.feedPollMs, onNotice: deliver });
  const deliveries = setInterval(deliver, config.feedPollMs);
  deliver();
  // Old messages' content erased at start and hourly (store.ts, eraseOldContent).
  const erase = () =>
    void eraseOldContent(db, config.contentRetentionDays).then(
      (erased) => (erased.inbox || erased.outbox) && process.stderr.write(`[gateway] erased the content of ${erased.inbox} received and ${erased.outbox} sent messages older than ${config.contentRetentionDays} days\n`),
      (err) => process.stderr.write(`[gateway] erasing old content failed (tried again in an hour): ${String(err)}\n`),
    );
  const erasures = setInterval(erase, 3_600_000);
  erase();
  const reconciled = (async () => {
    for (const org of settings.current()) {
      try {
        const report = await reconcile(db, org, clientOf(org), follower);
        if (report.repaired.mappingsAdded || report.repaired.noticesWritten || report.missing.length) process.stderr.write(`[gateway] reconciled ${org.organizationId}: ${JSON.stringify(report)}\n`);
      } catch (err) {
        process.stderr.write(`[gateway] could not reconcile ${org.organizationId} at start (the feed catches up): ${String(err)}\n`);
      }
    }
  })();

  const ready = async () => {
    try {
      await db.query('select 1');
      const broker = await fetch(`${config.brokerUrl}/health/live`);
      return broker.ok && worker.getState() === 'RUNNING';
    } catch {
      return false;
    }
  };
  const app = gatewayApp({ db, config, intake, ready, follower, delivery, settings, reconcile: (org) => reconcile(db, org, clientOf(org), follower) });
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s as Server));
  });
  const address = server.address();
  const url = `http://${config.host}:${typeof address === 'object' && address ? address.port : config.port}`;
  process.stderr.write(`[gateway] listening on ${url}, mailboxes in ${config.mailboxRoot}\n`);

  return {
    url,
    async stop() {
      polling = false;
      await polled;
      clearInterval(deliveries);
      clearInterval(erasures);
      await reconciled;
      await follower.stop();
      settings.stop();
      await new Promise((resolve) => server.close(resolve));
      // The worker stops by itself on SIGINT and SIGTERM (the SDK's own handlers): only one still running is told.
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await workerRun.catch(() => undefined);
      await workerConnection.close();
      await connection.close();
      await db.close();
    },
  };
}

if (require.main === module) {
  startGateway(loadGatewayConfig()).then(
    (gateway) => {
      const stop = () => void gateway.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      // Started by npm start (an IPC channel to it): stops itself when npm start is gone (scripts/start.ts).
      if (process.send) process.once('disconnect', () => (setTimeout(() => process.exit(1), 15_000).unref(), stop()));
    },
    (err) => {
      process.stderr.write(`[gateway] could not start: ${String(err?.stack ?? err)}\n`);
      process.exit(1);
    },
  );
}
