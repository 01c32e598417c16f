// The Temporal worker: entity workflows and the activities that keep read models and the outbox.
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { Config } from './core/config';
import type { Db } from './core/db';
import { createActivities } from './activities';

export async function createWorker(config: Config, db: Db, workflowBundle?: WorkflowBundleOption): Promise<Worker> {
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...(workflowBundle ? { workflowBundle } : { workflowsPath: require.resolve('./workflows') }),
    activities: createActivities(db, { schemaBase: config.schemaBase, eventSource: eventSource(config) }),
    // Entity workflows are many, long-lived and mostly idle: keep the cache generous.
    maxCachedWorkflows: 2000,
  });
}

export function eventSource(config: Config): string {
  return `${config.publicBaseUrl}/events`;
}
