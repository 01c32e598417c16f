// The generic entity workflow: one long-lived workflow per resource. Each lifecycle command is a
// Workflow Update named after the command (publish, withdraw, accept, ...; see the resource's
// `updates`), so the Temporal UI shows what happened and a route calls its handler by a typed
// definition. The validator refuses stale versions, wrong actors and invalid transitions before
// anything enters history; the handler, serialised by a mutex, re-checks (another command may
// have won the race in between), persists projection and events through an activity,
// starts the transition's effects on other resources as flows, then commits the new state
// and returns the snapshot. A deadline timer (expiresAt, effectiveUntil) issues a system command.
// The workflow continues-as-new well before Temporal's history and Update limits, carrying its
// state and the ids of recent commands (Update-id deduplication does not survive a new run).
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  makeContinueAsNewFunc,
  defineQuery,
  defineUpdate,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { Mutex } from 'async-mutex';
import type { Activities } from '../domain/activities';
import { BROKER, Command, Effect, Envelope, isBroker, Machine, REFUSAL_FAILURE_TYPE, RefusalError, SearchAttributeValues } from '../domain/machine';
import { effectWorkflowId, type EntityInput, type Resource } from '../domain/resource';
import { PERSISTENCE_ACTIVITY_TIMEOUT, WORKFLOW_TASK_TIMEOUT } from '../domain/timeouts';

/** The patch id under which transitions start their effects (docs/decisions.md, "Effects"). */
export const EFFECTS_PATCH = 'cross-resource-effects';
/**
 * The patch id under which a transition is persisted and its effects started by recorded
 * (regular) activities rather than local ones (docs/decisions.md, "Side effects only from
 * recorded activities").
 */
export const RECORDED_SIDE_EFFECTS_PATCH = 'side-effects-as-activities';
/** The patch id under which a command waits for its awaited effects (Effect.awaited). */
export const AWAITED_EFFECTS_PATCH = 'awaited-effects';

/**
 * The single Update of runs recorded before commands had names of their own: its payload names
 * the command. Kept registered so that histories recorded then still replay and running
 * workflows of that time keep working (docs/decisions.md, "Named Updates").
 */
export const legacyCommandUpdate = defineUpdate<Envelope, [Command]>('command');
export const snapshotQuery = defineQuery<Envelope | undefined>('snapshot');



const RECENT_COMMANDS = 64;

const SIDE_EFFECT_OPTIONS = {
  startToCloseTimeout: PERSISTENCE_ACTIVITY_TIMEOUT,
  retry: { initialInterval: '100ms', maximumInterval: '2 seconds', maximumAttempts: 20 },
} as const;
// A local activity runs inside the workflow task, before the server has accepted it: when that
// task is lost (a speculative Update task dropped, "Task not found when completing"), its writes
// stay while the retried task may apply the concurrent commands in another order, leaving
// read-model rows and feed events of transitions that never happened. A regular activity runs
// only once the task that scheduled it is in history. Runs recorded before keep the local ones.
const recorded = proxyActivities<Activities>(SIDE_EFFECT_OPTIONS);
const local = proxyLocalActivities<Activities>(SIDE_EFFECT_OPTIONS);
const sideEffects = () => (patched(RECORDED_SIDE_EFFECTS_PATCH) ? recorded : local);
// Waiting for awaited flows: a flow ends within minutes (its activities give up); past this the
// command answers anyway (its transition is persisted; the flow goes on or fails visibly).
const { awaitFlows } = proxyActivities<Activities>({ startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 3 } });

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


/** The workflow function of a resource kind (workflows/index.ts exports one per kind: its name is the workflow type). */
export function entityWorkflow<S extends Envelope, M extends Machine<S>>(resource: Resource<S, M>): (input: EntityInput<S>) => Promise<S | undefined> {
  return (input) => runEntity(resource, input);
}

export async function runEntity<S extends Envelope, M extends Machine<S>>(resource: Resource<S, M>, input: EntityInput<S>): Promise<S | undefined> {
  const machine = resource.machine;
  let state = input.state;
  const recent = new Map<string, unknown>(input.recent ?? []);
  const mutex = new Mutex();
  let commandsThisRun = 0;
  let wakeups = 0;
  let deadlineRetryPending = false;
  const terminal = (s: S) => (resource.terminalStatuses as readonly string[]).includes(s.status);

  // The one decision function: stale version first (so the loser of a race always sees 409,
  // even when the winner's transition made its command invalid), then the machine (actor, lifecycle).
  function decide(current: S | undefined, command: Command, now: string) {
    if (command.name === 'create') {
      if (current) throw new RefusalError({ code: 'RESOURCE_EXISTS', detail: `this ${machine.kind} exists already`, extensions: { id: current.id, currentState: current.status } });
      return machine.create(command, workflowInfo().workflowId.split('/')[1], now);
    }
    if (!current) {
      throw new RefusalError({ code: 'RESOURCE_NOT_FOUND', detail: `${machine.kind} does not exist` });
    }
    const handler = machine.commands[command.name];
    if (!handler) throw new RefusalError({ code: 'INVALID_STATE_TRANSITION', detail: `unknown command ${command.name}` });
    if (machine.brokerCommands.includes(command.name) && !isBroker(command.actor)) {
      throw new RefusalError({ code: 'ACTOR_NOT_PERMITTED', detail: `${command.name} is reserved to the broker` });
    }
    // Callers must name the version they observed; the broker's own commands may (matching does).
    if (!isBroker(command.actor) && command.expectedVersion === undefined && !machine.unversionedCommands?.includes(command.name)) {
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
    // A command that changes nothing (a repeated report, say) is answered without a write.
    if (state && transition.state.resourceVersion === state.resourceVersion && patched(RECORDED_SIDE_EFFECTS_PATCH)) {
      remember(command.commandId, state.resourceVersion);
      return state;
    }
    await sideEffects().persistTransition({
      kind: resource.kind,
      snapshot: transition.state,
      events,
      correlationId: command.correlationId,
      causationId: command.commandId,
    });
    await startEffects(command, transition.effects ?? []);
    state = transition.state;
    remember(command.commandId, state.resourceVersion);
    commandsThisRun++;
    wakeups++;
    upsertAttributes({ kind: resource.kind, ...resource.searchAttributes(state) });
    return state;
  }

  // Effects on other resources run as flows (workflows of their own) started after this
  // transition is persisted, by an activity. Their ids derive from
  // the command: a replay after a crash starts the same ids again, which Temporal refuses as
  // already started, so a flow is never started twice and never lost. They are not children: the
  // entity neither waits for them nor hears of their end (nothing arrives that could race with a
  // continue-as-new), and they outlive it.
  async function startEffects(command: Command, effects: Effect[]) {
    // Runs recorded before transitions had effects replay without them (Temporal's patching).
    if (effects.length === 0 || !patched(EFFECTS_PATCH)) return;
    // Indexes stay those of the transition's list, so a flow's id never depends on a patch.
    const due = effects.map((effect, index) => ({ effect, index })).filter(({ effect }) => !effect.patch || patched(effect.patch));
    if (due.length === 0) return;
    const flows = due.map(({ effect, index }) => ({
      workflowId: effectWorkflowId(workflowInfo().workflowId, command.commandId, index),
      workflowType: effect.flow,
      input: effect.input,
      taskQueue: input.settings.flowTaskQueue ?? workflowInfo().taskQueue,
      ...(effect.timeoutMs ? { executionTimeoutMs: effect.timeoutMs } : {}),
    }));
    await sideEffects().startFlows({ flows });
    // Effects the command's answer includes (Effect.awaited). Runs recorded before replay without the wait.
    const awaited = flows.filter((_, i) => due[i].effect.awaited).map((f) => f.workflowId);
    if (awaited.length && patched(AWAITED_EFFECTS_PATCH)) {
      try {
        await awaitFlows({ workflowIds: awaited });
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        log.warn('an awaited flow did not end in time; the command answers without it', { flows: awaited });
      }
    }
  }

  function remember(commandId: string, version: number) {
    recent.set(commandId, version);
    while (recent.size > RECENT_COMMANDS) recent.delete(recent.keys().next().value as string);
  }

  // The validator answers early only when no command is in flight. While one is (its transition
  // may already be in the read model, its state not yet here), a command decided against the old
  // state would be refused wrongly (a decision on a proposal just created: not found); it waits
  // for the mutex instead and apply decides it against the state it will really meet.
  function validate(command: Command) {
    if (recent.has(command.commandId) || mutex.isLocked()) return;
    try {
      decide(state, command, new Date().toISOString());
    } catch (err) {
      toFailure(err);
    }
  }

  setHandler(snapshotQuery, () => state);
  // One Update per command, named after it; the update's name is the command's.
  for (const [name, definition] of Object.entries(resource.updates)) {
    setHandler(definition, (command: Command) => mutex.runExclusive(() => apply({ ...command, name })), {
      validator: (command: Command) => validate({ ...command, name }),
    });
  }
  setHandler(legacyCommandUpdate, (command) => mutex.runExclusive(() => apply(command)), { validator: validate });

  const shouldContinueAsNew = () =>
    workflowInfo().continueAsNewSuggested ||
    workflowInfo().historyLength >= input.settings.continueAsNewAfterEvents ||
    commandsThisRun >= input.settings.continueAsNewAfterCommands;

  if (state) upsertAttributes({ kind: resource.kind, ...resource.searchAttributes(state) });

  // Started by a create that was refused (update-with-start starts the workflow either way):
  // nothing exists, so end rather than wait forever.
  if (!state && !(await condition(() => state !== undefined, '1 minute'))) {
    await condition(allHandlersFinished);
    if (!state) return undefined;
  }

  for (;;) {
    const seen = wakeups;
    const candidate = state ? machine.deadline(state) : undefined;
    // A deadline the clock cannot read (schemas refuse such timestamps) must never jam the loop;
    // one added after runs were recorded applies only where its patch does (a new timer).
    const deadline = candidate && Number.isFinite(Date.parse(candidate.at)) && (!candidate.patch || patched(candidate.patch)) ? candidate : undefined;
    const timeout = deadline ? Math.max(0, Date.parse(deadline.at) - Date.now()) : undefined;
    const woken = await condition(
      () => wakeups !== seen || shouldContinueAsNew() || (state !== undefined && terminal(state)),
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
            actor: BROKER,
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
    if (state && terminal(state)) {
      await condition(allHandlersFinished);
      return state;
    }
    if (shouldContinueAsNew()) {
      await condition(allHandlersFinished);
      // The next run keeps the short workflow task timeout (runs started before it get it here).
      await makeContinueAsNewFunc<(input: EntityInput<S>) => Promise<S | undefined>>({ workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT })({
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
