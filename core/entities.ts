// The one way the API and the activities talk to Temporal about resources and flows: a create is
// update-with-start of the resource's `create` Update, a command its named Update, a flow an
// idempotent start. Every answer is one of three: the new snapshot, the machine's refusal, or
// "the resource's workflow has ended" (a terminal resource: callers answer from the read model or
// from the workflow's final state). Anything else is an unknown outcome (Temporal unreachable, the
// deadline passed): EntityUnavailable, which callers retry with the same command id. No error is
// recognised by its message text: an ended workflow is recognised by describing it.
//
// A command costs one Update (docs/decisions.md, "A command at the price of one Update"): the
// workflow answers with the transition it decided and the sender writes it into the read model
// before it returns (so the sender reads its own write), through the TransitionStore, under a
// version fence and in order per resource. An intent written before the Update and cleared with
// that write lets any process finish the write of a sender that died in between (sweep).
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { CommandAnswer, TransitionRecord, UnwrittenTransitions } from '../domain/transition';
import { CONTINUING_FAILURE_TYPE, REFUSAL_FAILURE_TYPE, type Command, type Envelope, type Refusal } from '../domain/machine';
import type { EntityInput, EntitySettings, Resource } from '../domain/resource';
import { WORKFLOW_TASK_TIMEOUT } from '../domain/timeouts';
import { transitionsInHistory } from './history';

/** Where entity workflows run: the task queue and the settings each starts with. */
export interface EntityPlacement {
  taskQueue: string;
  settings: EntitySettings;
}

export type EntityAnswer<S extends Envelope = Envelope> =
  | { ok: true; snapshot: S }
  /** The machine refused; nothing changed. */
  | { ok: false; refusal: Refusal }
  /** The resource's workflow has ended (it is terminal, or long gone): nothing changed. */
  | { ok: false; ended: true };

/** The outcome of a create or command is unknown: retry it with the same command id. */
export class EntityUnavailable extends Error {
  constructor(readonly cause?: unknown) {
    super('the workflow service did not complete the command');
  }
}

/** The read model's side of a command (read-model/transition-store.ts): intents and the writes of answers. */
export interface TransitionStore {
  /** Before the Update: the command is about to be sent (swept after `graceSeconds` if still there). */
  intend(intent: { commandId: string; workflowId: string; kind: string }, graceSeconds: number): Promise<void>;
  /**
   * Writes the transitions newer than the resource's row, in version order, and clears the intent
   * of `commandId` (if given) in the same transaction; a first transition that does not follow the
   * row is a gap, reported and not written, unless `whole` (the list is all there is up to its last).
   */
  write(transitions: TransitionRecord[], commandId: string | undefined, whole?: boolean): Promise<{ gapAfter: number } | { version: number }>;
  /** Clears the intent of a command that changed nothing (refused, or written by its workflow). */
  forget(commandId: string): Promise<void>;
  /** Intents past their grace, each claimed for a while. */
  due(limit: number): Promise<Array<{ commandId: string; workflowId: string; ageSeconds: number }>>;
}

/** The Query an entity answers with the transitions its callers may not have written (workflows/entity.ts). */
export const UNWRITTEN_TRANSITIONS_QUERY = 'unwrittenTransitions';

/** Seconds an intent waits before a sweeper takes it (and between two sweeps of one intent). */
export const INTENT_GRACE_SECONDS = 3;

/**
 * Writes one answered transition. If the row is behind it (another sender's answer is not written
 * yet, or that sender died), the transitions in between come from the workflow's list of unwritten
 * ones (`unwritten`), and only those older than this one: all of them are in history, since this
 * one is, while the workflow may hold newer ones that are not yet.
 */
export async function writeAnswer(store: TransitionStore, transition: TransitionRecord, commandId: string, unwritten: () => Promise<TransitionRecord[]>): Promise<void> {
  const outcome = await store.write([transition], commandId);
  if (!('gapAfter' in outcome)) return;
  const version = transition.snapshot.resourceVersion;
  const before = (await unwritten()).filter((t) => t.snapshot.resourceVersion > outcome.gapAfter && t.snapshot.resourceVersion < version);
  await store.write([...before, transition], commandId, true);
}

/** An Update the entity turned away while continuing as new: not admitted, to be sent again to the next run. */
function isContinuing(err: unknown): boolean {
  return err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === CONTINUING_FAILURE_TYPE;
}

/** gRPC's RESOURCE_EXHAUSTED, on the error or its cause (the client wraps it in a ServiceError). */
function isResourceExhausted(err: unknown): boolean {
  const code = (e: unknown) => (e as { code?: unknown })?.code;
  return code(err) === 8 || code((err as { cause?: unknown })?.cause) === 8;
}

/** How long the sweep asks one workflow, and how many it asks at once. */
const SWEEP_QUERY_MS = 2_000;
const SWEEP_PARALLEL = 8;

/** How long a create waits for visibility to say whether its key made a resource already. */
const VISIBILITY_MS = 2_000;

/** A command sent after this long without an answer has an unknown outcome (no worker, Temporal down). */
const DEFAULT_DEADLINE_MS = 30_000;

export class Entities {
  constructor(
    private readonly client: Client,
    private readonly placement: EntityPlacement,
    private readonly store: TransitionStore,
    private readonly deadlineMs = DEFAULT_DEADLINE_MS,
  ) {}

  /**
   * How long an intent waits before a sweeper takes it. A live sender is then usually done; one
   * that is not (a slow Update) loses nothing: the sweeper waits for the same answer, and two
   * writes of one transition are one (the fence).
   */
  private readonly graceSeconds = INTENT_GRACE_SECONDS;

  /** Past this, an intent whose Update Temporal does not know can belong to no live sender. */
  private get unsentAfterSeconds(): number {
    return Math.ceil(this.deadlineMs / 1000) + 10;
  }

  /** Creates resource `id`: its workflow and its first snapshot in one call; a retry with the same command id is answered once. */
  async create<S extends Envelope>(resource: Resource<any, any>, id: string, command: Command, options: { found?: boolean } = {}): Promise<EntityAnswer<S>> {
    const input: EntityInput = { kind: resource.kind, settings: this.placement.settings };
    const startWorkflowOperation = new WithStartWorkflowOperation(resource.workflowType, {
      workflowId: resource.workflowId(id),
      taskQueue: this.placement.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      // A retried create must never start a second life of an id whose workflow has ended.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
    });
    const handle = this.client.workflow.getHandle(resource.workflowId(id));
    await this.store.intend({ commandId: command.commandId, workflowId: handle.workflowId, kind: resource.kind }, this.graceSeconds);
    let answer: CommandAnswer;
    try {
      answer = await this.within(() =>
        this.client.workflow.executeUpdateWithStart(resource.updates.create, { args: [command], updateId: command.commandId, startWorkflowOperation }),
      );
    } catch (err) {
      return this.forgetUnlessUnknown(handle, command.commandId, () => this.answerOf(err, handle));
    }
    const snapshot = (await this.written(handle, answer, command.commandId)) as S;
    if (options.found) await this.restoreRecord(handle.workflowId);
    return { ok: true, snapshot };
  }

  /**
   * A create found by its key (`createdWith`: its record was lost with a read model restored
   * alone) writes the resource's transitions from its histories, those the read model lacks, so
   * that its retry brings the resource back as it is now, with its events.
   */
  private async restoreRecord(workflowId: string): Promise<void> {
    const runs: string[] = [];
    for await (const execution of this.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(execution.runId);
    const transitions: TransitionRecord[] = [];
    for (const runId of runs) transitions.push(...(await transitionsInHistory((await this.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [], this.client.options.loadedDataConverter.payloadCodecs)));
    const byVersion = new Map(transitions.map((t) => [t.snapshot.resourceVersion, t]));
    if (byVersion.size) await this.store.write([...byVersion.values()].sort((a, b) => a.snapshot.resourceVersion - b.snapshot.resourceVersion), undefined, true);
  }

  /**
   * The id of the resource a create with this key made (`Command.createKey`, recorded by its
   * workflow as the `PcxCreateKey` search attribute when the create succeeded) since `since`, if
   * Temporal's visibility knows one. Visibility lags a moment behind, which matters not: it is
   * asked only when the read model has no record of the key, i.e. for a key never used, or used
   * before a restore of the read model alone. A visibility that cannot answer (the time-skipping
   * test server lists nothing) counts as none: the create is made as before.
   */
  async createdWith(createKey: string, since: Date): Promise<string | undefined> {
    const query = `PcxCreateKey = '${createKey}' AND StartTime > '${since.toISOString()}'`;
    try {
      return await this.client.withDeadline(Date.now() + VISIBILITY_MS, async () => {
        for await (const execution of this.client.workflow.list({ query, pageSize: 1 })) return execution.workflowId.split('/')[1];
        return undefined;
      });
    } catch {
      return undefined;
    }
  }

  /** Sends `command` (its name is the Update's) to resource `id`; the command id is the Update id. */
  async send<S extends Envelope>(resource: Resource<any, any>, id: string, command: Command): Promise<EntityAnswer<S>> {
    const handle = this.client.workflow.getHandle(resource.workflowId(id));
    const definition = resource.updates[command.name];
    if (!definition) throw new Error(`${resource.kind} has no command ${command.name}`);
    await this.store.intend({ commandId: command.commandId, workflowId: handle.workflowId, kind: resource.kind }, this.graceSeconds);
    let answer: CommandAnswer;
    try {
      answer = await this.within(() => handle.executeUpdate(definition, { args: [command], updateId: command.commandId }));
    } catch (err) {
      return this.forgetUnlessUnknown(handle, command.commandId, () => this.answerOf(err, handle));
    }
    return { ok: true, snapshot: (await this.written(handle, answer, command.commandId)) as S };
  }

  /**
   * Writes what an Update answered and returns its snapshot. A null transition changed nothing or
   * was written by the workflow. A transition that does not follow the row (another sender's
   * answer is not written yet, or that sender died) is written with those before it, which the
   * workflow still holds: all of them are in history, since this one is.
   */
  private async written(handle: WorkflowHandle, answer: CommandAnswer, commandId: string): Promise<Envelope> {
    if (answer.transition) await this.write(handle, answer.transition, commandId);
    else await this.store.forget(commandId);
    return answer.snapshot;
  }

  private write(handle: WorkflowHandle, transition: TransitionRecord, commandId: string): Promise<void> {
    return writeAnswer(this.store, transition, commandId, async () => (await this.unwrittenForGap(handle)).transitions);
  }

  /**
   * The unwritten transitions a sender needs to fill a gap before its own. Temporal fails a Query at
   * once while the workflow's task is being retried (a task that timed out on a loaded machine), so
   * a failed Query is asked again until the deadline. Past it the command's outcome is unknown to
   * this sender (a 503: the answer is Temporal's, and its intent's sweep writes it), never an error
   * of ours.
   */
  private async unwrittenForGap(handle: WorkflowHandle): Promise<UnwrittenTransitions> {
    const until = Date.now() + this.deadlineMs;
    for (let pause = 100; ; pause = Math.min(pause * 2, 2_000)) {
      try {
        return await this.unwritten(handle, undefined, Math.max(1_000, until - Date.now()));
      } catch (err) {
        if (Date.now() + pause >= until) throw new EntityUnavailable(err);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /**
   * A known answer (a refusal, an ended workflow) changed nothing: its intent goes. An unknown one
   * keeps it for the sweep. A refusal may be due to a transition another sender has not written
   * yet (a create that found the resource made a moment ago, a version just moved on): the
   * workflow's unwritten transitions are written first, so that whoever reads the read model after
   * this refusal sees what refused it. (A Query sees only completed workflow tasks: what it
   * returns is in history.)
   */
  private async forgetUnlessUnknown<T extends EntityAnswer<never>>(handle: WorkflowHandle, commandId: string, answer: () => Promise<T>): Promise<T> {
    const known = await answer();
    if ('refusal' in known) {
      const { transitions } = await this.unwritten(handle, undefined, SWEEP_QUERY_MS).catch(() => ({ transitions: [] }));
      if (transitions.length) await this.store.write(transitions, undefined, true).catch(() => undefined);
    }
    await this.store.forget(commandId).catch(() => undefined);
    return known;
  }

  /** The workflow's unwritten transitions (a Query: it sees only completed workflow tasks, so all of them are in history). */
  private unwritten(handle: WorkflowHandle, commandId?: string, withinMs = this.deadlineMs): Promise<UnwrittenTransitions> {
    return this.client.withDeadline(Date.now() + withinMs, () => handle.query<UnwrittenTransitions, [string?]>(UNWRITTEN_TRANSITIONS_QUERY, commandId));
  }

  /**
   * Finishes the commands whose senders died between Temporal's answer and their write (or never
   * heard it): for each intent past its grace, the workflow's unwritten transitions are written,
   * and the intent goes once the workflow knows the command (its transition is then written, or it
   * changed nothing), or once no live sender can still hold it (a command never sent, refused
   * before history, or decided so long ago that the workflow wrote it itself and forgot it).
   * Temporal keeps no Update outcome to ask for after the fact: the dev server answers "update
   * not found" for completed ones, so the workflow is asked instead. Returns the intents settled.
   */
  async sweep(limit = 50, onFailure?: (commandId: string, err: unknown) => void): Promise<number> {
    let settled = 0;
    const due = await this.store.due(limit);
    // A few at a time, each asked briefly: a workflow no worker answers (its task queue has none
    // now) must not hold up the others; its intent comes round again after the claim.
    const settle = async (intent: (typeof due)[number]) => {
      const handle = this.client.workflow.getHandle(intent.workflowId);
      const old = intent.ageSeconds > this.unsentAfterSeconds;
      try {
        const { transitions, known } = await this.unwritten(handle, intent.commandId, SWEEP_QUERY_MS);
        if (transitions.length) await this.store.write(transitions, undefined, true);
        if (known || old) {
          await this.store.forget(intent.commandId);
          settled++;
        }
      } catch (err) {
        // A workflow that never started (a create never sent) or is long gone.
        if (err instanceof WorkflowNotFoundError && old) {
          await this.store.forget(intent.commandId);
          settled++;
        } else onFailure?.(intent.commandId, err);
      }
    };
    for (let i = 0; i < due.length; i += SWEEP_PARALLEL) await Promise.all(due.slice(i, i + SWEEP_PARALLEL).map(settle));
    return settled;
  }

  /** The final state of an ended resource's workflow, if Temporal still has it. */
  async finalState<S extends Envelope>(resource: Resource<any, any>, id: string, withinMs = this.deadlineMs): Promise<S | undefined> {
    return this.endedResult<S>(resource.workflowId(id), withinMs);
  }

  /**
   * Whether a resource's workflow is running, has closed, or does not exist: for a caller that must
   * tell a claim whose create is still under way from one whose create never happened.
   */
  async lifecycle(resource: Resource<any, any>, id: string): Promise<'running' | 'closed' | 'missing'> {
    try {
      const description = await this.client.workflow.getHandle(resource.workflowId(id)).describe();
      return description.status.name === 'RUNNING' ? 'running' : 'closed';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'missing';
      throw err;
    }
  }

  /**
   * Deletes every closed run of a workflow id (its histories), for the retention purge and personal
   * data erasure (activities/retention.ts). A running run is never deleted: the answer says how many
   * went and whether one still runs. The runs are found through visibility; a server without it
   * (the time-skipping test server) has its current run deleted only.
   */
  async deleteHistories(workflowId: string, options: { waitForCloseMs?: number } = {}): Promise<{ deleted: number; running: boolean }> {
    // The current run's status from the workflow itself (visibility lags behind a close); every
    // other run of the id has closed (continued as new), whatever visibility says of it yet.
    let current: { runId: string; running: boolean };
    try {
      const d = await this.client.workflow.getHandle(workflowId).describe();
      current = { runId: d.runId, running: d.status.name === 'RUNNING' };
      // A resource that has just become final closes its workflow moments later: waited for.
      if (current.running && options.waitForCloseMs) {
        await this.client.withDeadline(Date.now() + options.waitForCloseMs, () => this.client.workflow.getHandle(workflowId, d.runId).result()).catch(() => undefined);
        const again = await this.client.workflow.getHandle(workflowId).describe();
        current = { runId: again.runId, running: again.status.name === 'RUNNING' };
      }
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { deleted: 0, running: false };
      throw err;
    }
    const runs = new Set<string>(current.running ? [] : [current.runId]);
    try {
      for await (const run of this.client.workflow.list({ query: `WorkflowId = '${workflowId.replace(/'/g, "\\'")}'` })) if (run.runId !== current.runId) runs.add(run.runId);
    } catch {
      // No visibility (the time-skipping test server): the current run only.
    }
    let deleted = 0;
    for (const runId of runs) {
      try {
        await this.client.workflowService.deleteWorkflowExecution({ namespace: this.client.options.namespace, workflowExecution: { workflowId, runId } });
        deleted++;
      } catch (err) {
        const code = (err as { code?: number }).code;
        // Gone already (a retried purge): as good as deleted.
        if (code === 5) continue;
        // A server that cannot delete (the time-skipping test server): nothing more to do here.
        if (code === 12) return { deleted, running: current.running };
        throw err;
      }
    }
    return { deleted, running: current.running };
  }

  /** Starts a flow once: a start that finds its id taken (a retry) is done already. */
  async startFlow(workflowType: string, workflowId: string, input: unknown, options: { taskQueue?: string; executionTimeoutMs?: number } = {}): Promise<void> {
    try {
      await this.client.workflow.start(workflowType, {
        workflowId,
        taskQueue: options.taskQueue ?? this.placement.taskQueue,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
        ...(options.executionTimeoutMs ? { workflowExecutionTimeout: options.executionTimeoutMs } : {}),
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }

  /**
   * A flow's result once it has ended, waiting at most `withinMs`: `{ ended: false }` if it still
   * runs then, `{ ended: true, value: undefined }` if it failed (its reason is in the Temporal UI).
   */
  async flowResult<T>(workflowId: string, withinMs: number): Promise<{ ended: false } | { ended: true; value: T | undefined }> {
    try {
      return { ended: true, value: (await this.client.withDeadline(Date.now() + withinMs, () => this.client.workflow.getHandle(workflowId).result())) as T };
    } catch (err) {
      if (err instanceof WorkflowFailedError) return { ended: true, value: undefined };
      return { ended: false };
    }
  }

  /** Waits until each workflow has ended, however it ended. Anything else (Temporal unreachable) throws. */
  async awaitEnd(workflowIds: string[]): Promise<void> {
    for (const workflowId of workflowIds) {
      try {
        await this.client.workflow.getHandle(workflowId).result();
      } catch (err) {
        if (!(err instanceof WorkflowFailedError)) throw err;
      }
    }
  }

  /**
   * A call within the command deadline. Temporal refuses an Update while too many are in flight on
   * one workflow (RESOURCE_EXHAUSTED: twenty concurrent corrections of one outcome reach its
   * limit), and an entity turns Updates away while it continues as new (CONTINUING_FAILURE_TYPE);
   * such an Update was not admitted, so it is sent again, with the same id, after a short pause
   * (to the next run), instead of answering 503.
   */
  private async within<T>(call: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.deadlineMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.client.withDeadline(deadline, call);
      } catch (err) {
        if (!(isResourceExhausted(err) || isContinuing(err)) || Date.now() > deadline - 1000) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.min(500, 20 * 2 ** attempt) * (0.5 + Math.random())));
      }
    }
  }

  private async endedResult<S>(workflowId: string, withinMs: number): Promise<S | undefined> {
    try {
      return (await this.client.withDeadline(Date.now() + withinMs, () => this.client.workflow.getHandle(workflowId).result())) as S;
    } catch {
      return undefined;
    }
  }

  /** A refusal, an ended workflow (described, not guessed from a message), or an unknown outcome. */
  private async answerOf(err: unknown, handle: WorkflowHandle): Promise<EntityAnswer<never>> {
    const failure = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (failure instanceof ApplicationFailure && failure.type === REFUSAL_FAILURE_TYPE && failure.details?.[0]) {
      return { ok: false, refusal: failure.details[0] as Refusal };
    }
    // A create whose workflow was started by an earlier attempt and has ended since.
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { ok: false, ended: true };
    const status = await this.within(() => handle.describe()).then(
      (d) => d.status.name,
      (e) => (e instanceof WorkflowNotFoundError ? 'GONE' : undefined),
    );
    if (status !== undefined && status !== 'RUNNING') return { ok: false, ended: true };
    throw new EntityUnavailable(err);
  }
}
