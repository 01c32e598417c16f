// The Temporal worker: entity workflows and the activities that keep read models and the outbox.
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { Config } from './core/config';
import type { Db } from './core/db';
import { createActivities } from './activities';
import { Entities } from './core/entities';
import { temporalConnectionOptions } from './core/temporal';
import { STICKY_QUEUE_TIMEOUT } from './domain/timeouts';

/**
 * @param client the client flows send commands through (activities/commands.ts).
 * @returns the worker and its own connection, which the caller closes once the worker has stopped.
 */
export async function createWorker(
  config: Config,
  db: Db,
  client: Client,
  workflowBundle?: WorkflowBundleOption,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  // The same address, TLS and API key as the client connection (core/temporal.ts).
  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...(workflowBundle ? { workflowBundle } : { workflowsPath: require.resolve('./workflows') }),
    activities: createActivities(
      db,
      { schemaBase: config.schemaBase, eventSource: eventSource(config), matching: config.matching },
      new Entities(client, { taskQueue: config.temporal.taskQueue, settings: config.workflow }),
    ),
    // Entity workflows are many, long-lived and mostly idle: keep the cache generous.
    maxCachedWorkflows: 2000,
    // A killed worker's sticky queue is drained by another within seconds (domain/timeouts.ts).
    stickyQueueScheduleToStartTimeout: STICKY_QUEUE_TIMEOUT,
  });
  return { worker, connection };
}

export function eventSource(config: Config): string {
  return `${config.publicBaseUrl}/events`;
}
