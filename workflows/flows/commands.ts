// How a flow talks to entity workflows: `send` a command to a resource through the sendCommand
// activity (activities/commands.ts). Each step of a flow names itself, and the command id is the
// flow's workflow id plus that step, so a flow replayed after a crash, or an activity retried,
// re-sends the same command id: Temporal and the entity deduplicate it, and the effect happens
// once.
//
// Failure policy (docs/decisions.md, "Every flow ends"): a refusal comes back as data and the
// flow decides what it means. An activity is retried a bounded number of times (FLOW_ACTIVITIES);
// once it gives up, the flow undoes what it holds (`bestEffort` steps) and fails with a
// non-retryable ApplicationFailure naming the step (`flowFailed`), which an operator finds in the
// Temporal UI. Nothing throws a plain Error: in the TypeScript SDK that fails the workflow task,
// which Temporal retries forever.
import { ActivityFailure, ApplicationFailure, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ActivityOptions } from '@temporalio/workflow';
import type { Activities, CommandOrder, CommandOutcome, StepOrder } from '../../domain/activities';
import type { Actor, Command, Envelope } from '../../domain/machine';
import type { Resource, StateOf } from '../../domain/resource';

/**
 * Every activity a flow runs: at most 8 attempts within 5 minutes (1, 2, 4, 8, 16, 30, 30 s
 * apart), so a step that cannot succeed (the database or Temporal down for minutes) ends the flow
 * instead of holding it forever. The entity deadlines that wait for a flow lie beyond a flow's
 * whole life (FLOW_TIMEOUT in ./names.ts).
 */
export const FLOW_ACTIVITIES: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  // Beaten by the worker while the activity runs (worker.ts, heartbeatWhileRunning): a worker that
  // died in the middle of one is noticed after this, and the step retried with its command ids.
  heartbeatTimeout: '5 seconds',
  scheduleToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2, maximumAttempts: 8 },
};

/** The failure type of a flow that gave up: the Temporal UI shows it with its reason. */
export const FLOW_FAILED = 'PcxFlowFailed';

const { sendCommand, sendInOrder } = proxyActivities<Activities>(FLOW_ACTIVITIES);

/** The commands a flow may send to a resource: its machine's (a create goes through createResource). */
export type CommandName<R extends Resource<any, any>> = keyof R['machine']['commands'] & string;
/** A command's payload, as its handler in the resource's machine declares it. */
export type PayloadOf<R extends Resource<any, any>, K extends CommandName<R>> = R['machine']['commands'][K] extends (state: any, command: Command<infer P>, now: string) => any ? P : never;

/** A step's name (unique in the flow), the version it expects, and who sends it (the broker unless given). */
export interface StepOptions {
  step: string;
  expectedVersion?: number;
  /** In an owner's name: a series publishing its occurrences (its commands then pass the owner's rules). */
  actor?: Actor;
  /** Facts the command decides on. */
  context?: unknown;
}

/**
 * Sends command `name` to the resource `id` of `resource`'s kind, as the broker: typed by the
 * resource's machine, so a misspelled command or a wrong payload does not compile. `step` must
 * be unique within the flow and the same on every replay. With `expectedVersion` the command is
 * refused (STALE_RESOURCE_VERSION) if the target changed since the flow observed it: optimistic
 * concurrency across resources.
 */
export function send<R extends Resource<any, any>, K extends CommandName<R>>(
  resource: R,
  id: string,
  name: K,
  payload: PayloadOf<R, K>,
  options: StepOptions,
): Promise<CommandOutcome<StateOf<R['machine']> & Envelope>> {
  return sendCommand(step(resource, id, name, payload, options).command) as Promise<CommandOutcome<StateOf<R['machine']> & Envelope>>;
}

/** The order `send` would send, as a step of a sequence for `inOrder`. */
export function step<R extends Resource<any, any>, K extends CommandName<R>>(
  resource: R,
  id: string,
  name: K,
  payload: PayloadOf<R, K>,
  options: StepOptions,
): { command: CommandOrder } {
  const { workflowId } = workflowInfo();
  return {
    command: {
      kind: resource.kind,
      id,
      name,
      payload,
      commandId: `${workflowId}:${options.step}`,
      expectedVersion: options.expectedVersion,
      correlationId: workflowId,
      ...(options.actor ? { actor: options.actor } : {}),
      ...(options.context !== undefined ? { context: options.context } : {}),
    },
  };
}

/**
 * Steps sent in one activity, one after the other until one is refused: the outcomes of those
 * sent. A flow's sequence then costs one workflow task instead of one per step; each step keeps
 * its command id, so a retry applies nothing twice.
 */
export function inOrder(steps: StepOrder[]): Promise<CommandOutcome[]> {
  return sendInOrder(steps);
}

/** The non-retryable failure that ends a flow that gave up: its reason, and what it left behind. */
export function flowFailed(reason: string, cause?: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    type: FLOW_FAILED,
    message: reason,
    nonRetryable: true,
    cause: cause instanceof Error ? cause : undefined,
  });
}

/**
 * A compensating step: tried (with the activity's bounded retries), never allowed to hide the
 * failure that made it necessary. Answers whether it was applied; a refusal is fine (nothing to undo).
 */
export async function bestEffort(what: string, step: () => Promise<CommandOutcome | unknown>): Promise<boolean> {
  try {
    await step();
    return true;
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    log.warn(`compensation could not be applied: ${what}`, { error: err.message });
    return false;
  }
}

/** Whether an error is an activity that gave up (its retries spent), the case a flow compensates. */
export const gaveUp = (err: unknown): err is ActivityFailure => err instanceof ActivityFailure;
