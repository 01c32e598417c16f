// The activity through which flows (workflows/flows/) send a command to an entity workflow: the
// command's named Workflow Update, with the flow's deterministic command id as the Update id, so
// a retried activity (after a crash or a timeout) never applies the command twice: Temporal
// deduplicates the Update within a run, and the entity answers a command id it has applied from
// its memory of recent commands across continue-as-new.
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  isGrpcServiceError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { REFUSAL_FAILURE_TYPE, type Actor, type Command, type Envelope, type Refusal } from '../domain/machine';
import { RESOURCES } from '../domain/registry';
import { workflowIdOf, type EntityInput, type EntitySettings, type Resource } from '../domain/resource';
import { WORKFLOW_TASK_TIMEOUT } from '../domain/timeouts';
import type { CommandOrder, CommandOutcome, CreateOrder, FlowStarts } from '../domain/activities';




export interface EntityPlacement {
  taskQueue: string;
  settings: EntitySettings;
}

function refusalOf(err: unknown): Refusal | undefined {
  const failure = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
  return failure instanceof ApplicationFailure && failure.type === REFUSAL_FAILURE_TYPE ? (failure.details?.[0] as Refusal) : undefined;
}


export function createCommandActivities(client: Client, placement?: EntityPlacement, resources: readonly Resource<any, any>[] = RESOURCES) {
  const byKind = new Map(resources.map((r) => [r.kind, r]));
  return {
    /** Starts each flow once: a start that finds its id already used (a retry) is done already. */
    async startFlows({ flows }: FlowStarts): Promise<void> {
      for (const flow of flows) {
        try {
          await client.workflow.start(flow.workflowType, {
            workflowId: flow.workflowId,
            taskQueue: flow.taskQueue,
            args: [flow.input],
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
            ...(flow.executionTimeoutMs ? { workflowExecutionTimeout: flow.executionTimeoutMs } : {}),
          });
        } catch (err) {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        }
      }
    },

    /** Waits until each flow has ended, however it ended (Effect.awaited: the command's answer includes them). */
    async awaitFlows({ workflowIds }: { workflowIds: string[] }): Promise<void> {
      for (const workflowId of workflowIds) {
        try {
          await client.workflow.getHandle(workflowId).result();
        } catch (err) {
          // Failed, terminated, timed out: ended. Anything else (Temporal unreachable) is retried.
          if (!(err instanceof WorkflowFailedError)) throw err;
        }
      }
    },

    /**
     * Creates a resource as the broker: update-with-start of its `create` Update, the command id as
     * Update id and the resource id as workflow id, so a retried activity creates it once.
     */
    async createResource(order: CreateOrder): Promise<CommandOutcome> {
      const resource = byKind.get(order.kind);
      if (!resource || !placement) throw new Error(`cannot create ${order.kind} here`);
      const input: EntityInput = { kind: resource.kind, settings: placement.settings };
      const command: Command = { name: 'create', commandId: order.commandId, actor: { kind: 'system' }, payload: order.payload, correlationId: order.correlationId, context: order.context };
      try {
        const snapshot = await client.workflow.executeUpdateWithStart(resource.updates.create, {
          args: [command],
          updateId: order.commandId,
          startWorkflowOperation: new WithStartWorkflowOperation(resource.workflowType, {
            workflowId: resource.workflowId(order.id),
            taskQueue: placement.taskQueue,
            args: [input],
            workflowIdConflictPolicy: 'USE_EXISTING',
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
          }),
        });
        return { ok: true, snapshot: snapshot as Envelope };
      } catch (err) {
        const refusal = refusalOf(err);
        if (refusal) return { ok: false, refusal };
        // Created on an earlier attempt, and already ended since: its result is its state.
        if (err instanceof WorkflowExecutionAlreadyStartedError) return { ok: true, snapshot: (await client.workflow.getHandle(resource.workflowId(order.id)).result()) as Envelope };
        throw err;
      }
    },

    async sendCommand(order: CommandOrder): Promise<CommandOutcome> {
      const handle = client.workflow.getHandle(workflowIdOf(order.kind, order.id));
      const command: Command = {
        name: order.name,
        commandId: order.commandId,
        actor: order.actor ?? { kind: 'system' },
        expectedVersion: order.expectedVersion,
        payload: order.payload,
        correlationId: order.correlationId,
      };
      try {
        const snapshot = await handle.executeUpdate<Envelope, [Command]>(order.name, { args: [command], updateId: order.commandId });
        return { ok: true, snapshot };
      } catch (err) {
        const refusal = refusalOf(err);
        if (refusal) return { ok: false, refusal };
        if (err instanceof WorkflowNotFoundError) {
          return { ok: false, refusal: { code: 'RESOURCE_NOT_FOUND', detail: `${order.kind} ${order.id} does not exist` } };
        }
        if (isCompleted(err)) {
          // A resource in a terminal state has completed its workflow; its result is the final state.
          const current = (await handle.result()) as Envelope | undefined;
          return {
            ok: false,
            refusal: { code: 'INVALID_STATE_TRANSITION', detail: `${order.name} is not allowed on a ${order.kind} in status ${current?.status}`, extensions: { currentState: current?.status } },
            current,
          };
        }
        throw err; // unknown outcome: the activity is retried with the same Update id
      }
    },
  };
}

function isCompleted(err: unknown): boolean {
  const message = err instanceof Error ? err.message : '';
  if (/already completed|workflow execution already completed/i.test(message)) return true;
  const cause = (err as any)?.cause;
  return isGrpcServiceError(cause) && /already completed/i.test(cause.details ?? '');
}
