// The generic entity workflow: one long-lived workflow per resource. Lifecycle commands arrive as
// the Workflow Update `command`; the validator refuses stale versions, wrong actors and invalid
// transitions before anything enters history; the handler, serialised by a mutex, re-checks
// (another command may have won the race in between), persists projection and events through a
// local activity, then commits the new state and returns the snapshot. A deadline timer
// (expiresAt, effectiveUntil) issues a system command. The workflow continues-as-new well before
// Temporal's history and Update limits, carrying its state and the ids of recent commands
// (Update-id deduplication does not survive a new run).
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineUpdate,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { Mutex } from 'async-mutex';
import type { Activities } from '../activities';
import { Command, Envelope, Machine, RefusalError, SearchAttributeValues } from './machine';

export const REFUSAL_FAILURE_TYPE = 'PcxRefusal';

export const commandUpdate = defineUpdate<Envelope, [Command]>('command');
export const snapshotQuery = defineQuery<Envelope | undefined>('snapshot');

export interface EntitySettings {
  continueAsNewAfterEvents: number;
  continueAsNewAfterCommands: number;
}

export interface EntityInput<S extends Envelope = Envelope> {
  kind: string;
  settings: EntitySettings;
  state?: S;
  /**
   * The ids of the last RECENT_COMMANDS commands (with the version each produced). A repeated
   * command is answered with the current snapshot instead of being applied again. Runs recorded
   * before this carried whole snapshots here; only the ids are read.
   */
  recent?: Array<[string, unknown]>;
}

const RECENT_COMMANDS = 64;

const { persistTransition } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100ms', maximumInterval: '2 seconds', maximumAttempts: 20 },
});

function toFailure(err: unknown): never {
  if (err instanceof RefusalError) {
    throw ApplicationFailure.create({
      type: REFUSAL_FAILURE_TYPE,
      message: err.refusal.detail,
      nonRetryable: true,
      details: [err.refusal],
    });
  }
  throw err;
}

export async function runEntity<S extends Envelope>(machine: Machine<S>, input: EntityInput<S>): Promise<S | undefined> {
  let state = input.state;
  const recent = new Map<string, unknown>(input.recent ?? []);
  const mutex = new Mutex();
  let commandsThisRun = 0;
  let wakeups = 0;
  let deadlineRetryPending = false;

  // The one decision function: stale version first (so the loser of a race always sees 409,
  // even when the winner's transition made its command invalid), then the machine (actor, lifecycle).
  function decide(current: S | undefined, command: Command, now: string) {
    if (command.name === 'create') {
      if (current) throw new RefusalError({ code: 'INVALID_STATE_TRANSITION', detail: `${machine.kind} already exists` });
      return machine.create(command, workflowInfo().workflowId.split('/')[1], now);
    }
    if (!current) {
      throw new RefusalError({ code: 'RESOURCE_NOT_FOUND', detail: `${machine.kind} does not exist` });
    }
    const handler = machine.commands[command.name];
    if (!handler) throw new RefusalError({ code: 'INVALID_STATE_TRANSITION', detail: `unknown command ${command.name}` });
    if (machine.systemCommands.includes(command.name) && command.actor.kind !== 'system') {
      throw new RefusalError({ code: 'ACTOR_NOT_PERMITTED', detail: `${command.name} is reserved to the broker` });
    }
    // Callers must name the version they observed; the broker's own commands may (matching does).
    if (command.actor.kind !== 'system' && command.expectedVersion === undefined) {
      throw new RefusalError({ code: 'PRECONDITION_REQUIRED', detail: 'an observed resourceVersion is required' });
    }
    if (command.expectedVersion !== undefined && command.expectedVersion !== current.resourceVersion) {
      throw new RefusalError({
        code: 'STALE_RESOURCE_VERSION',
        detail: `observed resourceVersion ${command.expectedVersion}, current is ${current.resourceVersion}`,
        extensions: { currentResourceVersion: current.resourceVersion, currentState: current.status },
      });
    }
    return handler(current, command, now);
  }

  async function apply(command: Command): Promise<S> {
    if (recent.has(command.commandId) && state) return state;
    const now = new Date().toISOString();
    let transition;
    try {
      transition = decide(state, command, now);
    } catch (err) {
      toFailure(err);
    }
    const events = transition.events.map((e) => ({ ...e, id: uuid4(), time: now }));
    await persistTransition({
      kind: machine.kind,
      snapshot: transition.state,
      events,
      correlationId: command.correlationId,
      causationId: command.commandId,
    });
    state = transition.state;
    remember(command.commandId, state.resourceVersion);
    commandsThisRun++;
    wakeups++;
    upsertAttributes({ kind: machine.kind, ...machine.searchAttributes(state) });
    return state;
  }

  function remember(commandId: string, version: number) {
    recent.set(commandId, version);
    while (recent.size > RECENT_COMMANDS) recent.delete(recent.keys().next().value as string);
  }

  setHandler(snapshotQuery, () => state);
  setHandler(
    commandUpdate,
    (command) => mutex.runExclusive(() => apply(command as Command)),
    {
      validator: (command: Command) => {
        if (recent.has(command.commandId)) return;
        try {
          decide(state, command, new Date().toISOString());
        } catch (err) {
          toFailure(err);
        }
      },
    },
  );

  const shouldContinueAsNew = () =>
    workflowInfo().continueAsNewSuggested ||
    workflowInfo().historyLength >= input.settings.continueAsNewAfterEvents ||
    commandsThisRun >= input.settings.continueAsNewAfterCommands;

  if (state) upsertAttributes({ kind: machine.kind, ...machine.searchAttributes(state) });

  // Started by a create that was refused (update-with-start starts the workflow either way):
  // nothing exists, so end rather than wait forever.
  if (!state && !(await condition(() => state !== undefined, '1 minute'))) {
    await condition(allHandlersFinished);
    if (!state) return undefined;
  }

  for (;;) {
    const seen = wakeups;
    const candidate = state ? machine.deadline(state) : undefined;
    // A deadline the clock cannot read (schemas refuse such timestamps) must never jam the loop.
    const deadline = candidate && Number.isFinite(Date.parse(candidate.at)) ? candidate : undefined;
    const timeout = deadline ? Math.max(0, Date.parse(deadline.at) - Date.now()) : undefined;
    const woken = await condition(
      () => wakeups !== seen || shouldContinueAsNew() || (state !== undefined && machine.terminal(state)),
      timeout === undefined ? undefined : Math.max(timeout, 1),
    );
    if (!woken && deadline) {
      // The deadline passed with no command in between: the broker issues the system command.
      await mutex.runExclusive(async () => {
        if (!state || machine.deadline(state)?.command !== deadline.command) return;
        try {
          await apply({
            name: deadline.command,
            commandId: `deadline:${deadline.command}:${state.resourceVersion}`,
            actor: { kind: 'system' },
            payload: {},
            correlationId: workflowInfo().workflowId,
          });
        } catch (err) {
          // A refusal means the state no longer has that deadline; the loop re-evaluates.
          if (err instanceof ApplicationFailure && err.type === REFUSAL_FAILURE_TYPE) return;
          // Anything else (the read-model database is down) must not fail the workflow for
          // good: wait and let the loop try the deadline again.
          deadlineRetryPending = true;
        }
      });
      if (deadlineRetryPending) {
        deadlineRetryPending = false;
        await sleep('30 seconds');
      }
      continue;
    }
    if (state && machine.terminal(state)) {
      await condition(allHandlersFinished);
      return state;
    }
    if (shouldContinueAsNew()) {
      await condition(allHandlersFinished);
      await continueAsNew<(input: EntityInput<S>) => Promise<S | undefined>>({
        kind: input.kind,
        settings: input.settings,
        state,
        recent: [...recent.entries()].slice(-RECENT_COMMANDS),
      });
    }
  }
}

function upsertAttributes(values: SearchAttributeValues & { kind: string }) {
  upsertSearchAttributes({
    PcxResourceKind: [values.kind],
    PcxOwnerOrganizationId: [values.owner],
    PcxPartnerOrganizationId: values.partner ? [values.partner] : [],
    PcxStatus: [values.status],
  });
}
