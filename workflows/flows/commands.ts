// How a flow talks to entity workflows: `send` a command to a resource through the sendCommand
// activity (activities/commands.ts). Each step of a flow names itself, and the command id is the
// flow's workflow id plus that step, so a flow replayed after a crash, or an activity retried,
// re-sends the same command id: Temporal and the entity deduplicate it, and the effect happens
// once. The activity retries until the command gets an answer (accepted or refused).
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { CommandOutcome } from '../../activities/commands';
import type { Envelope } from '../machine';

const { sendCommand } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

export interface Target {
  kind: string;
  id: string;
}

/**
 * Sends command `name` to `target` as the broker. `step` must be unique within the flow and the
 * same on every replay. With `expectedVersion` the command is refused (STALE_RESOURCE_VERSION) if
 * the target changed since the flow observed it: optimistic concurrency across resources.
 */
export function send<S extends Envelope = Envelope>(
  target: Target,
  name: string,
  payload: unknown,
  options: { step: string; expectedVersion?: number },
): Promise<CommandOutcome<S>> {
  const { workflowId } = workflowInfo();
  return sendCommand({
    kind: target.kind,
    id: target.id,
    name,
    payload,
    commandId: `${workflowId}:${options.step}`,
    expectedVersion: options.expectedVersion,
    correlationId: workflowId,
  }) as Promise<CommandOutcome<S>>;
}
