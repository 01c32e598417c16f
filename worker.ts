// The Temporal worker: entity workflows and the activities that keep read models and the outbox.
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker, type ActivityInterceptorsFactory, type WorkflowBundleOption } from '@temporalio/worker';
import { activityDuration, activityFailures, flowDuration } from './core/metrics';
import { eventSource, type Config } from './core/config';
import type { Db } from './core/db';
import { createActivities } from './activities';
import { Entities } from './core/entities';
import { createTransitionStore } from './read-model/transition-store';
import { dataConverterOf, temporalConnectionOptions } from './core/temporal';
import { STICKY_QUEUE_TIMEOUT } from './domain/timeouts';
import { Registry } from './core/registry';
import { managedRegistry, type ManagedRegistry } from './read-model/managed-registry';
import { createWebhookDelivery, type WebhookDelivery } from './delivery/webhook-pump';
import { workflowCode } from './workflows/bundle';
import { keyRingOf } from './core/secrets';
import { personalDataOf } from './core/personal-data';

/**
 * @param client the client flows send commands through (activities/commands.ts).
 * @returns the worker and its own connection, which the caller closes once the worker has stopped.
 */
export async function createWorker(
  config: Config,
  db: Db,
  client: Client,
  workflowBundle?: WorkflowBundleOption,
): Promise<{ worker: Worker; connection: NativeConnection; webhooks: WebhookDelivery; records: ManagedRegistry }> {
  // The same address, TLS and API key as the client connection (core/temporal.ts).
  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  // One webhook pump per process, shared by the activity and the outbox watcher's direct path
  // (delivery/webhook-pump.ts), so its limits per target host and per subscription hold for both.
  // The worker authenticates no one: connectors' secrets, where present, are ignored here. The
  // pump asks the registry whether a subscription's connector and organization are still active:
  // the managed records too (a managed connector's subscriptions, a suspended organization).
  const registry = Registry.load(config.registry.organizationsFile, config.registry.connectorsFile, config.registry.environment, 'ignored');
  const records = await managedRegistry(db, { refreshMs: 1000, openName: (name) => personalDataOf(config.secrets).openValue(name) });
  registry.useManaged(records);
  const webhooks = createWebhookDelivery(db, {
    webhooks: config.webhooks,
    registry,
    eventSource: eventSource(config),
    schemaBase: config.schemaBase,
    // The same ring as the API's in this process (one per key file).
    secrets: keyRingOf({ keyFile: config.secrets.keyFile, dataDir: config.dataDir }).ring,
    personalData: personalDataOf(config.secrets),
  });
  const code = workflowBundle ? { workflowBundle } : workflowCode(config.workflow.bundleFile);
  const worker = await Worker.create({
    connection,
    // Sealed payloads (core/payload-codec.ts), as the clients' (broker.ts).
    dataConverter: dataConverterOf(config),
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...('workflowBundle' in code ? { workflowBundle: code.workflowBundle } : { workflowsPath: code.workflowsPath, bundlerOptions: { preloadModules: code.preloadModules } }),
    activities: createActivities(
      db,
      {
        schemaBase: config.schemaBase,
        eventSource: eventSource(config),
        matching: config.matching,
        webhooks,
        retention: config.retention,
        personalData: personalDataOf(config.secrets),
      },
      new Entities(client, { taskQueue: config.temporal.taskQueue, settings: config.workflow }, createTransitionStore(db, { schemaBase: config.schemaBase, eventSource: eventSource(config) })),
    ),
    // A prebuilt bundle carries the workflow interceptors itself (workflows/bundle.ts).
    interceptors: { workflowModules: 'interceptorModules' in code ? code.interceptorModules : [], activity: [measureActivity, heartbeatWhileRunning] },
    sinks: { flowMetrics: { flowEnded: { fn: (_info, flow: string, outcome: string, seconds: number) => flowDuration.observe({ flow, outcome }, seconds) } } },
    // Entity workflows are many, long-lived and mostly idle: an evicted one replays its short
    // history on its next command, while every cached one holds memory (docs/benchmarks.md, goal 4).
    maxCachedWorkflows: config.workflow.cachedWorkflows,
    // A killed worker's sticky queue is drained by another within seconds (domain/timeouts.ts).
    stickyQueueScheduleToStartTimeout: STICKY_QUEUE_TIMEOUT,
  });
  return { worker, connection, webhooks, records };
}

/** Every activity's duration and result, and its failures by error name (core/metrics.ts). */
const measureActivity: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const activity = ctx.info.activityType;
      const stop = activityDuration.startTimer({ activity });
      try {
        const result = await next(input);
        stop({ result: 'ok' });
        return result;
      } catch (err) {
        stop({ result: 'failed' });
        // An ApplicationFailure's type says more than its class name.
        activityFailures.inc({ activity, error: (err as { type?: string })?.type ?? (err as Error)?.name ?? 'unknown' });
        throw err;
      }
    },
  },
});

/**
 * An activity scheduled with a heartbeat timeout (the flows', FLOW_ACTIVITIES) beats while it runs,
 * however long its one step takes (an Update that waits for a flow the entity awaits): Temporal
 * then learns of a dead worker within the heartbeat timeout, not at the end of the step's whole
 * start-to-close timeout, and the retry (same command ids) runs within seconds of a crash.
 */
const heartbeatWhileRunning: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const timeoutMs = ctx.info.heartbeatTimeoutMs;
      if (!timeoutMs) return next(input);
      const beat = setInterval(() => ctx.heartbeat(), Math.max(250, Math.floor(timeoutMs / 4)));
      try {
        return await next(input);
      } finally {
        clearInterval(beat);
      }
    },
  },
});

export { eventSource };
