// The activities through which flows (workflows/flows/) start flows and send commands to entity
// workflows, through the one Temporal facade (core/entities.ts). A command is its named Workflow
// Update with the flow's deterministic command id as the Update id, so a retried activity (after a
// crash or a timeout) never applies the command twice: Temporal deduplicates the Update within a
// run, and the entity answers a command id it has applied from its memory of recent commands
// across continue-as-new. An unknown outcome throws, and the activity is retried with that id.
import type { CommandOrder, CommandOutcome, CreateOrder, FlowStarts, StepOrder } from '../domain/activities';
import { BROKER, type Command } from '../domain/machine';
import { RESOURCES } from '../domain/registry';
import type { Resource } from '../domain/resource';
import type { Entities } from '../core/entities';

export function createCommandActivities(entities: Entities, resources: readonly Resource<any, any>[] = RESOURCES) {
  const byKind = new Map(resources.map((r) => [r.kind, r]));
  const resourceOf = (kind: string) => {
    const resource = byKind.get(kind);
    if (!resource) throw new Error(`no resource kind ${kind} here`);
    return resource;
  };
  const activities = {
    /** Starts each flow once: a start that finds its id already used (a retry) is done already. */
    async startFlows({ flows }: FlowStarts): Promise<void> {
      for (const flow of flows) {
        await entities.startFlow(flow.workflowType, flow.workflowId, flow.input, { taskQueue: flow.taskQueue, executionTimeoutMs: flow.executionTimeoutMs });
      }
    },

    /** Waits until each flow has ended, however it ended (Effect.awaited: the command's answer includes them). */
    async awaitFlows({ workflowIds }: { workflowIds: string[] }): Promise<void> {
      await entities.awaitEnd(workflowIds);
    },

    /**
     * Creates a resource as the broker: the command id as Update id and the resource id as
     * workflow id, so a retried activity creates it once.
     */
    async createResource(order: CreateOrder): Promise<CommandOutcome> {
      const resource = resourceOf(order.kind);
      const command: Command = { name: 'create', commandId: order.commandId, actor: order.actor ?? BROKER, payload: order.payload, correlationId: order.correlationId, context: order.context };
      const answer = await entities.create(resource, order.id, command);
      if (answer.ok || 'refusal' in answer) return answer;
      // Created on an earlier attempt, and already ended since: its final state is the answer.
      const final = await entities.finalState(resource, order.id);
      if (!final) throw new Error(`${order.kind} ${order.id} was created and has ended, and its final state is gone`);
      return { ok: true, snapshot: final };
    },

    async sendCommand(order: CommandOrder): Promise<CommandOutcome> {
      const resource = resourceOf(order.kind);
      const command: Command = {
        name: order.name,
        commandId: order.commandId,
        actor: order.actor ?? BROKER,
        expectedVersion: order.expectedVersion,
        payload: order.payload,
        correlationId: order.correlationId,
        ...(order.context !== undefined ? { context: order.context } : {}),
      };
      const answer = await entities.send(resource, order.id, command);
      if (answer.ok || 'refusal' in answer) return answer;
      // A resource in a terminal state has completed its workflow; its result is the final state.
      const current = await entities.finalState(resource, order.id);
      if (!current) return { ok: false, refusal: { code: 'RESOURCE_NOT_FOUND', detail: `${order.kind} ${order.id} does not exist` } };
      return {
        ok: false,
        refusal: { code: 'INVALID_STATE_TRANSITION', detail: `${order.name} is not allowed on a ${order.kind} in status ${current.status}`, extensions: { currentState: current.status } },
        current,
      };
    },

    /** Steps in order until one is refused (domain/activities.ts): a flow's sequence for one workflow task. */
    sendInOrder(steps: StepOrder[]): Promise<CommandOutcome[]> {
      return stepsInOrder(steps, (step) => ('create' in step ? activities.createResource(step.create) : activities.sendCommand(step.command)));
    },
  };
  return activities;
}

/**
 * Sends steps one after the other until one is refused. A step that throws fails the whole
 * sequence (the activity is retried from its first step: the entities answer those applied from
 * memory), its error naming the step, so the flow that gives up can say which.
 */
export async function stepsInOrder(steps: StepOrder[], sendOne: (step: StepOrder) => Promise<CommandOutcome>): Promise<CommandOutcome[]> {
  const outcomes: CommandOutcome[] = [];
  for (const step of steps) {
    let outcome: CommandOutcome;
    try {
      outcome = await sendOne(step);
    } catch (err) {
      const order = 'create' in step ? { kind: step.create.kind, id: step.create.id, name: 'create' } : step.command;
      if (err instanceof Error) err.message = `${order.name} of ${order.kind} ${order.id}: ${err.message}`;
      throw err;
    }
    outcomes.push(outcome);
    if (!outcome.ok) break;
  }
  return outcomes;
}
