// The one way the API and the activities talk to Temporal about resources and flows: a create is
// update-with-start of the resource's `create` Update, a command its named Update, a flow an
// idempotent start. Every answer is one of three: the new snapshot, the machine's refusal, or
// "the resource's workflow has ended" (a terminal resource: callers answer from the read model or
// from the workflow's final state). Anything else is an unknown outcome (Temporal unreachable, the
// deadline passed): EntityUnavailable, which callers retry with the same command id. No error is
// recognised by its message text: an ended workflow is recognised by describing it.
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
import { REFUSAL_FAILURE_TYPE, type Command, type Envelope, type Refusal } from '../domain/machine';
import type { EntityInput, EntitySettings, Resource } from '../domain/resource';
import { WORKFLOW_TASK_TIMEOUT } from '../domain/timeouts';

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

/** A command sent after this long without an answer has an unknown outcome (no worker, Temporal down). */
const DEFAULT_DEADLINE_MS = 30_000;

export class Entities {
  constructor(
    private readonly client: Client,
    private readonly placement: EntityPlacement,
    private readonly deadlineMs = DEFAULT_DEADLINE_MS,
  ) {}

  /** Creates resource `id`: its workflow and its first snapshot in one call; a retry with the same command id is answered once. */
  async create<S extends Envelope>(resource: Resource<any, any>, id: string, command: Command): Promise<EntityAnswer<S>> {
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
    try {
      const snapshot = await this.within(() =>
        this.client.workflow.executeUpdateWithStart(resource.updates.create, { args: [command], updateId: command.commandId, startWorkflowOperation }),
      );
      return { ok: true, snapshot: snapshot as S };
    } catch (err) {
      return this.answerOf(err, this.client.workflow.getHandle(resource.workflowId(id)));
    }
  }

  /** Sends `command` (its name is the Update's) to resource `id`; the command id is the Update id. */
  async send<S extends Envelope>(resource: Resource<any, any>, id: string, command: Command): Promise<EntityAnswer<S>> {
    const handle = this.client.workflow.getHandle(resource.workflowId(id));
    const definition = resource.updates[command.name];
    if (!definition) throw new Error(`${resource.kind} has no command ${command.name}`);
    try {
      return { ok: true, snapshot: (await this.within(() => handle.executeUpdate(definition, { args: [command], updateId: command.commandId }))) as S };
    } catch (err) {
      return this.answerOf(err, handle);
    }
  }

  /** The final state of an ended resource's workflow, if Temporal still has it. */
  async finalState<S extends Envelope>(resource: Resource<any, any>, id: string, withinMs = this.deadlineMs): Promise<S | undefined> {
    return this.endedResult<S>(resource.workflowId(id), withinMs);
  }

  /** Starts a flow once: a start that finds its id taken (a retry) is done already. */
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

  private within<T>(call: () => Promise<T>): Promise<T> {
    return this.client.withDeadline(Date.now() + this.deadlineMs, call);
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
