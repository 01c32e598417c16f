// Every workflow type the worker registers. The entity workflows of all resource kinds are served
// by Temporal's default (dynamic) workflow: it finds the kind by the workflow type its definition
// names (domain/registry.ts), so a new kind needs no line here. The cross-resource flows are named
// exports (their names are their workflow types: never rename one that may be running).
import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { Envelope } from '../domain/machine';
import { RESOURCES } from '../domain/registry';
import type { EntityInput } from '../domain/resource';
import { runEntity } from './entity';

export default async function entityWorkflow(input: EntityInput): Promise<Envelope | undefined> {
  const { workflowType } = workflowInfo();
  const resource = RESOURCES.find((r) => r.workflowType === workflowType);
  if (!resource) throw ApplicationFailure.nonRetryable(`no workflow of type ${workflowType} runs here`, 'UnknownWorkflowType');
  return runEntity(resource, input);
}

export * from './flows';
export { webhookSubscriptionWorkflow } from './webhooks';
export { retentionWorkflow } from './retention';
