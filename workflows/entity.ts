// The generic entity workflow: one long-lived workflow per resource, and the one path a command
// takes (docs/decisions.md, "A command at the price of one Update").
//
// Each lifecycle command is a Workflow Update named after it (publish, withdraw, accept, ...; the
// resource's `updates`), so the Temporal UI shows what happened and a route calls its handler by a
// typed definition. The validator refuses stale versions, wrong actors and invalid transitions
// before anything enters history. The handler, serialised by a mutex, decides again (another
// command may have won the race in between) and commits the new state:
//
// - a transition without effects is answered from the task that decided it, with the transition
//   itself (`CommandAnswer`): the sender writes it into the read model (core/entities.ts) and the
//   workflow keeps it in its list of unwritten transitions until a write of its own (a flush);
// - a transition with effects (flows on other resources, workflows/flows/) is written by the
//   activity that starts them, together with everything still unwritten, since the flows read the
//   read model; the command waits for the flows its transition awaits (Effect.awaited).
//
// Every write is a regular activity (never a local one) or the sender's, and the read model's
// writer fences them by version, so two writes of one transition are one (read-model/projection.ts).
// A deadline timer (expiresAt, effectiveUntil, ...) issues the broker's own command. The workflow
// continues as new well before Temporal's history and Update limits, carrying its state, the ids of
// recent commands (Update-id deduplication does not survive a new run) and what is unwritten.
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  makeContinueAsNewFunc,
  patched,
  defineQuery,
  log,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { Mutex } from 'async-mutex';
import type { Activities, CommandAnswer, TransitionRecord } from '../domain/activities';
import type { UnwrittenTransitions } from '../domain/transition';
import { BROKER, Command, CONTINUING_FAILURE_TYPE, Deadline, Effect, Envelope, isBroker, Machine, REFUSAL_FAILURE_TYPE, RefusalError, SearchAttributeValues } from '../domain/machine';
import { effectWorkflowId, type EntityInput, type Resource } from '../domain/resource';
import { PERSISTENCE_ACTIVITY_TIMEOUT, WORKFLOW_TASK_TIMEOUT } from '../domain/timeouts';

export const snapshotQuery = defineQuery<Envelope | undefined>('snapshot');
/** The transitions decided and not known to be written, and whether a command was decided (core/entities.ts, UNWRITTEN_TRANSITIONS_QUERY). */
export const unwrittenTransitionsQuery = defineQuery<UnwrittenTransitions, [string?]>('unwrittenTransitions');

const RECENT_COMMANDS = 64;
/** The patch under which search attributes are upserted only when they change (Entity.publishAttributes). */
const SEARCH_ATTRIBUTES_ON_CHANGE = 'search-attributes-on-change';
/**
 * The workflow writes its unwritten transitions itself once this many have gathered (their
 * senders have almost always written them already: the fence makes that a no-op), which keeps the
 * list short for the gap-filling Query and for continue-as-new.
 */
const FLUSH_AFTER_TRANSITIONS = 16;

/**
 * The writing activities retry until they succeed, every 2 s at most: a write that gave up would
 * fail its Update, and Temporal answers a failed Update's id with that failure ever after, so the
 * command's retries (the same Idempotency-Key, the same Update id) would be refused 503 for good,
 * though the command was never applied. Waiting instead, the Update completes once the database is
 * back and the retries get its outcome (test/database-chaos.test.ts: 45 s away under a command).
 * An error that never passes (a bug) shows as the activity's last failure in Temporal's UI and
 * clears with the fix, as Temporal means activities to.
 *
 * Regular activities, not local ones: a local activity runs inside the workflow task, before the
 * server has accepted it, so a task the server dropped (a speculative Update task, "Task not found
 * when completing") would leave writes of transitions that never happened. A regular activity runs
 * only once the task that scheduled it is in history.
 */
const { persistTransitions, startFlows } = proxyActivities<Activities>({
  startToCloseTimeout: PERSISTENCE_ACTIVITY_TIMEOUT,
  retry: { initialInterval: '100ms', maximumInterval: '2 seconds' }, // no maximumAttempts: unlimited
});
// Waiting for awaited flows: a flow ends within minutes (its activities give up); past this the
// command answers anyway (its transition is persisted; the flow goes on or fails visibly).
const { awaitFlows } = proxyActivities<Activities>({ startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 3 } });

function toFailure(err: unknown): never {
  if (err instanceof RefusalError) {
    throw ApplicationFailure.create({
      type: REFUSAL_FAILURE_TYPE,
      message: err.refusal.detail,
      nonRetryable: true,
      details: [{ code: err.refusal.code, detail: err.refusal.detail, ...(err.refusal.extensions ? { extensions: err.refusal.extensions } : {}) }],
    });
  }
  throw err;
}


/**
 * One resource's entity: its state, the commands it remembers, and the decisions on them. The
 * workflow's handlers delegate to it (Temporal's safe-message-handlers pattern); runEntity below
 * is the workflow's main loop around it. Pure bookkeeping and the Temporal calls of a transition:
 * no I/O but through activities.
 */
class Entity<S extends Envelope, M extends Machine<S>> {
  state: S | undefined;
  private readonly recent: Map<string, unknown>;
  readonly mutex = new Mutex();
  private commandsThisRun = 0;
  /** Counts applied transitions: the main loop wakes up when it changes. */
  wakeups = 0;
  /**
   * Set once the run has decided to continue as new: from then on the validator turns every
   * command away (CONTINUING_FAILURE_TYPE: not admitted, sent again to the next run), so that the
   * state the next run starts from holds every command this run answered. Without it a command
   * admitted in the task that continued as new was answered with a version the next run then
   * gave to another command (test/command-sweep.test.ts found it: the read model ahead of the
   * workflow).
   */
  closing = false;
  /**
   * Transitions answered to their senders and not known to be in the read model, oldest first. A
   * sender writes its own; the workflow writes them all (flush) with a transition's effects, before
   * it continues as new, before it ends, after a deadline's command and once they gather.
   */
  unwritten: TransitionRecord[];

  constructor(
    private readonly resource: Resource<S, M>,
    private readonly input: EntityInput<S>,
  ) {
    this.state = input.state;
    this.recent = new Map<string, unknown>(input.recent ?? []);
    this.unwritten = input.unwritten ?? [];
  }

  private get machine(): M {
    return this.resource.machine;
  }

  terminal(): boolean {
    return this.state !== undefined && (this.resource.terminalStatuses as readonly string[]).includes(this.state.status);
  }

  shouldContinueAsNew(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= this.input.settings.continueAsNewAfterEvents || this.commandsThisRun >= this.input.settings.continueAsNewAfterCommands;
  }

  /** What the next run starts from: the state, the ids of recent commands and what is unwritten. */
  continuation(): EntityInput<S> {
    return {
      kind: this.input.kind,
      settings: this.input.settings,
      state: this.state,
      recent: [...this.recent.entries()].slice(-RECENT_COMMANDS),
      ...(this.unwritten.length ? { unwritten: this.unwritten } : {}),
    };
  }

  // The one decision function: stale version first (so the loser of a race always sees 409,
  // even when the winner's transition made its command invalid), then the machine (actor, lifecycle).
  private decide(current: S | undefined, command: Command, now: string) {
    const machine = this.machine;
    if (command.name === 'create') {
      if (current) throw new RefusalError({ code: 'RESOURCE_EXISTS', detail: `this ${machine.kind} exists already`, extensions: { id: current.id, currentState: current.status } });
      return machine.create(command, workflowInfo().workflowId.split('/')[1], now);
    }
    if (!current) throw new RefusalError({ code: 'RESOURCE_NOT_FOUND', detail: `${machine.kind} does not exist` });
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

  /**
   * The Update handler (under the mutex): decide, commit, and answer with the transition for the
   * sender to write (one workflow task, no activity); a transition with effects is written here
   * instead, by the activity that starts them, and answered without it.
   */
  async apply(command: Command): Promise<CommandAnswer<S>> {
    if (this.recent.has(command.commandId) && this.state) {
      // A retried Update whose first answer was lost: its transition again, if it may be unwritten.
      return { snapshot: this.state, transition: this.unwritten.find((t) => t.causationId === command.commandId) ?? null };
    }
    const now = new Date().toISOString();
    let transition;
    try {
      transition = this.decide(this.state, command, now);
    } catch (err) {
      toFailure(err);
    }
    // A command that changes nothing (a repeated report, say) is answered without a write.
    if (this.state && transition.state.resourceVersion === this.state.resourceVersion) {
      this.remember(command.commandId, this.state.resourceVersion);
      return { snapshot: this.state, transition: null };
    }
    const events = transition.events.map((e) => ({ ...e, id: uuid4(), time: now }));
    const record: TransitionRecord = { kind: this.resource.kind, snapshot: transition.state, events, correlationId: command.correlationId, causationId: command.commandId };
    const effects = transition.effects ?? [];
    if (effects.length === 0) {
      // History holds this task's decision once the sender hears the answer (an Update's answer
      // never leaves a task the server dropped), so the sender writes only what happened.
      this.commit(command, transition.state);
      this.unwritten.push(record);
      return { snapshot: transition.state, transition: record };
    }
    // Effects read the read model (matching reads the listing it starts from): everything
    // unwritten and this transition are written by the activity that then starts them.
    const batch = [...this.unwritten, record];
    await this.startEffects(command, effects, batch);
    this.forgetWritten(batch);
    this.commit(command, transition.state);
    return { snapshot: transition.state, transition: null };
  }

  private commit(command: Command, state: S): void {
    this.state = state;
    this.remember(command.commandId, state.resourceVersion);
    this.commandsThisRun++;
    this.wakeups++;
    // A create's key is recorded once it succeeded (a refused create's workflow has none), for a
    // retry the read model lost to find it (Command.createKey).
    const createKey = command.name === 'create' ? command.createKey : undefined;
    this.publishAttributes(state, createKey);
  }

  /** The last search attributes this run upserted (their values as JSON). */
  private published = '';

  /**
   * Upserts the state's search attributes when they changed (issue 53): most commands change none
   * of kind, owner, partner and status, and each upsert costs Temporal a visibility write.
   * Behind a patch: the first release's runs upserted on every command, and their replay must.
   */
  publishAttributes(state: S, createKey?: string): void {
    const values = { kind: this.resource.kind, ...this.resource.searchAttributes(state) };
    const key = JSON.stringify(values);
    if (!createKey && key === this.published && patched(SEARCH_ATTRIBUTES_ON_CHANGE)) return;
    this.published = key;
    upsertAttributes({ ...values, ...(createKey ? { createKey } : {}) });
  }

  /**
   * Writes the unwritten transitions by activity and forgets those written. Senders may be writing
   * the same ones at once: the writer's fence makes every write of one transition one.
   */
  async flush(): Promise<void> {
    const batch = [...this.unwritten];
    if (batch.length === 0) return;
    await persistTransitions({ transitions: batch });
    this.forgetWritten(batch);
  }

  /** Drops from the unwritten list what a batch wrote (newer transitions may have come meanwhile). */
  private forgetWritten(batch: TransitionRecord[]): void {
    const last = batch[batch.length - 1].snapshot.resourceVersion;
    this.unwritten = this.unwritten.filter((t) => t.snapshot.resourceVersion > last);
  }

  /**
   * The main loop's flush: a read model away longer than the activity's retries must not fail the
   * workflow (the transitions stay in the list, and the senders' intents are swept meanwhile).
   */
  async tryFlush(): Promise<boolean> {
    try {
      await this.flush();
      return true;
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      log.warn('unwritten transitions could not be written; trying again later', { unwritten: this.unwritten.length });
      return false;
    }
  }

  shouldFlush(): boolean {
    return this.unwritten.length >= FLUSH_AFTER_TRANSITIONS;
  }

  // The validator answers early only when no command is in flight. While one is (its transition
  // may already be in the read model, its state not yet here), a command decided against the old
  // state would be refused wrongly (a decision on a proposal just created: not found); it waits
  // for the mutex instead and apply decides it against the state it will really meet.
  validate(command: Command): void {
    if (this.closing) {
      throw ApplicationFailure.create({ type: CONTINUING_FAILURE_TYPE, message: 'the resource is moving to its next run: send the command again', nonRetryable: true });
    }
    if (this.recent.has(command.commandId) || this.mutex.isLocked()) return;
    try {
      this.decide(this.state, command, new Date().toISOString());
    } catch (err) {
      toFailure(err);
    }
  }

  /** The next deadline of the state, if its clock can be read. */
  deadline(): Deadline | undefined {
    return this.state ? readable(this.machine.deadline(this.state)) : undefined;
  }

  /**
   * The deadline passed with no command in between: the broker issues its command. Answers
   * whether the loop should wait before trying again (anything but a refusal: the read-model
   * database is down, say, which must not fail the workflow for good).
   */
  async runDeadline(deadline: Deadline): Promise<boolean> {
    return this.mutex.runExclusive(async () => {
      const state = this.state;
      if (!state || readable(this.machine.deadline(state))?.command !== deadline.command) return false;
      try {
        await this.apply({ name: deadline.command, commandId: `deadline:${deadline.command}:${state.resourceVersion}`, actor: BROKER, payload: {}, correlationId: workflowInfo().workflowId });
        // No sender waits for the broker's own command: the workflow writes it.
        await this.flush();
        return false;
      } catch (err) {
        // A refusal means the state no longer has that deadline; the loop re-evaluates.
        return !(err instanceof ApplicationFailure && err.type === REFUSAL_FAILURE_TYPE);
      }
    });
  }

  // Effects on other resources run as flows (workflows of their own) started, by the activity that
  // first writes `transitions` (this one's among them), once this transition is in the read model.
  // Their ids derive from the command: a replay after a crash starts the same ids again, which
  // Temporal refuses as already started, so a flow is never started twice and never lost. They are
  // not children: the entity hears nothing of their end (nothing arrives that could race with a
  // continue-as-new), and they outlive it.
  private async startEffects(command: Command, effects: Effect[], transitions: TransitionRecord[]) {
    const flows = effects.map((effect, index) => ({
      workflowId: effectWorkflowId(workflowInfo().workflowId, command.commandId, index),
      workflowType: effect.flow,
      input: effect.input,
      taskQueue: this.input.settings.flowTaskQueue ?? workflowInfo().taskQueue,
      ...(effect.timeoutMs ? { executionTimeoutMs: effect.timeoutMs } : {}),
    }));
    await startFlows({ flows, transitions });
    // Effects the command's answer includes (Effect.awaited).
    const awaited = flows.filter((_, i) => effects[i].awaited).map((f) => f.workflowId);
    if (awaited.length === 0) return;
    try {
      await awaitFlows({ workflowIds: awaited });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      log.warn('an awaited flow did not end in time; the command answers without it', { flows: awaited });
    }
  }

  /** Whether the command was decided here (in this run or among the recent ones it carried). */
  knows(commandId: string): boolean {
    return this.recent.has(commandId);
  }

  private remember(commandId: string, version: number) {
    this.recent.set(commandId, version);
    while (this.recent.size > RECENT_COMMANDS) this.recent.delete(this.recent.keys().next().value as string);
  }
}

/** A deadline the clock can read (schemas refuse other timestamps): any other must never jam the loop. */
function readable(deadline: Deadline | undefined): Deadline | undefined {
  return deadline && Number.isFinite(Date.parse(deadline.at)) ? deadline : undefined;
}

/** The entity workflow: handlers for every command, then the loop of deadlines, completion and continue-as-new. */
export async function runEntity<S extends Envelope, M extends Machine<S>>(resource: Resource<S, M>, input: EntityInput<S>): Promise<S | undefined> {
  const entity = new Entity(resource, input);
  setHandler(snapshotQuery, () => entity.state);
  setHandler(unwrittenTransitionsQuery, (commandId?: string) => ({ transitions: entity.unwritten, known: commandId === undefined ? null : entity.knows(commandId) }));
  // One Update per command, named after it; the update's name is the command's.
  for (const [name, definition] of Object.entries(resource.updates)) {
    setHandler(definition, (command: Command) => entity.mutex.runExclusive(() => entity.apply({ ...command, name })), {
      validator: (command: Command) => entity.validate({ ...command, name }),
    });
  }

  if (entity.state) entity.publishAttributes(entity.state);

  // Started by a create that was refused (update-with-start starts the workflow either way):
  // nothing exists, so end rather than wait forever.
  if (!entity.state && !(await condition(() => entity.state !== undefined, '1 minute'))) {
    await condition(allHandlersFinished);
    if (!entity.state) return undefined;
  }

  for (;;) {
    const seen = entity.wakeups;
    const deadline = entity.deadline();
    const timeout = deadline ? Math.max(0, Date.parse(deadline.at) - Date.now()) : undefined;
    const woken = await condition(() => entity.wakeups !== seen || entity.shouldContinueAsNew() || entity.terminal() || entity.shouldFlush(), timeout === undefined ? undefined : Math.max(timeout, 1));
    if (!woken && deadline) {
      if (await entity.runDeadline(deadline)) await sleep('30 seconds');
      continue;
    }
    if (entity.shouldFlush() && !(await entity.tryFlush())) await sleep('30 seconds');
    if (entity.terminal()) {
      await condition(allHandlersFinished);
      // The read model keeps the record once the workflow has ended: nothing may be left unwritten.
      while (!(await entity.tryFlush())) await sleep('30 seconds');
      return entity.state;
    }
    if (entity.shouldContinueAsNew()) {
      // No command is admitted from here on (the validator turns them to the next run); those
      // admitted already finish, and the state handed on holds every one of them.
      entity.closing = true;
      await condition(allHandlersFinished);
      // What is still unwritten after this goes with the state (EntityInput.unwritten).
      await entity.tryFlush();
      await condition(allHandlersFinished);
      // The next run keeps the short workflow task timeout the first was started with (core/entities.ts).
      await makeContinueAsNewFunc<(input: EntityInput<S>) => Promise<S | undefined>>({ workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT })(entity.continuation());
    }
  }
}

function upsertAttributes(values: SearchAttributeValues & { kind: string; createKey?: string }) {
  upsertSearchAttributes({
    PcxResourceKind: [values.kind],
    PcxOwnerOrganizationId: [values.owner],
    PcxPartnerOrganizationId: values.partner ? [values.partner] : [],
    PcxStatus: [values.status],
    ...(values.createKey ? { PcxCreateKey: [values.createKey] } : {}),
  });
}
