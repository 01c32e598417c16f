// Sends lifecycle commands to entity workflows as Workflow Updates and turns the answers into
// HTTP responses. Creates use update-with-start, so the workflow and its first snapshot come into
// being in one call. Every create and command goes through idempotency; every refusal inside the
// workflow comes back as a problem with the code the machine chose.
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  isGrpcServiceError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { isProblemCode, Problem } from '../core/problems';
import { resourcePath, workflowId } from '../core/resources';
import { commandUpdate, REFUSAL_FAILURE_TYPE, type EntityInput } from '../workflows/entity';
import type { Actor, Command, Envelope, Refusal } from '../workflows/machine';
import { etagOf, type Ctx } from './http';
import { fingerprint, idempotent, type StoredResponse } from './idempotency';

export interface CommandRequest {
  kind: string;
  name: string;
  payload: unknown;
  context?: unknown;
  /** Absent for create. */
  id?: string;
  expectedVersion?: number;
  /** The caller's view of a snapshot (gate 9). */
  view: (snapshot: any) => unknown;
  /** Who issues the command; by default the caller's connector. */
  actor?: Actor;
  /** For create: the workflow function name. */
  workflowType?: string;
  /** Reads the current read-model row when the workflow has already completed. */
  current?: () => Promise<Envelope | undefined>;
  /** Runs inside the idempotent section before the workflow is asked (claims, quotas). */
  before?: (id: string) => Promise<void>;
  /** Undoes `before` when the command was refused. */
  refused?: (id: string) => Promise<void>;
}

/** A command that has not completed by then answers 503 (no worker, Temporal down); its outcome
 * is unknown, so the idempotency claim is kept for the retry. */
const COMMAND_DEADLINE_MS = 30_000;

function actorOf(c: Ctx): Actor {
  const p = c.get('principal');
  return { kind: 'connector', organizationId: p.organizationId, clientId: p.clientId };
}

/**
 * Runs a create or a command with idempotency and returns the HTTP response. A create's resource
 * id is its command id, so a retry that takes over an unfinished create reuses the same id.
 */
export async function runCommand(c: Ctx, request: CommandRequest): Promise<Response> {
  const hash = fingerprint([request.kind, request.name, request.id ?? null, request.expectedVersion ?? null, request.payload]);
  const stored = await idempotent(c, hash, async (commandId) => {
    const command: Command = {
      name: request.name,
      commandId,
      actor: request.actor ?? actorOf(c),
      expectedVersion: request.expectedVersion,
      payload: request.payload,
      correlationId: c.get('correlationId'),
      context: request.context,
    };
    const snapshot = await withHooks(request, request.id ?? commandId, () =>
      request.name === 'create' ? create(c, request, command, commandId) : update(c, request, command),
    );
    const headers: Record<string, string> = { etag: etagOf(snapshot.resourceVersion) };
    if (request.name === 'create') headers.location = `/${resourcePath(request.kind, snapshot.id)}`;
    return { status: request.name === 'create' ? 201 : 200, headers, body: request.view(snapshot) } satisfies StoredResponse;
  });
  return c.json(stored.body as object, stored.status as 200, stored.headers);
}

async function withHooks(request: CommandRequest, id: string, send: () => Promise<Envelope>): Promise<Envelope> {
  await request.before?.(id);
  try {
    return await send();
  } catch (err) {
    // Only a refusal is known to have changed nothing; an unknown outcome keeps the claim.
    if (err instanceof Problem && err.status < 500) await request.refused?.(id);
    throw err;
  }
}

async function create(c: Ctx, request: CommandRequest, command: Command, id: string): Promise<Envelope> {
  const { temporal, config } = c.get('services');
  const input: EntityInput = { kind: request.kind, settings: config.workflow };
  const start = new WithStartWorkflowOperation(request.workflowType!, {
    workflowId: workflowId(request.kind, id),
    taskQueue: config.temporal.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    // A retried create must never start a second life of an id whose workflow has ended.
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
  });
  try {
    return await temporal.withDeadline(Date.now() + COMMAND_DEADLINE_MS, () =>
      temporal.workflow.executeUpdateWithStart(commandUpdate, {
        args: [command],
        updateId: command.commandId,
        startWorkflowOperation: start,
      }),
    );
  } catch (err) {
    throw await translate(err, request);
  }
}

async function update(c: Ctx, request: CommandRequest, command: Command): Promise<Envelope> {
  const { temporal } = c.get('services');
  const handle = temporal.workflow.getHandle(workflowId(request.kind, request.id!));
  try {
    return await temporal.withDeadline(Date.now() + COMMAND_DEADLINE_MS, () =>
      handle.executeUpdate(commandUpdate, { args: [command], updateId: command.commandId }),
    );
  } catch (err) {
    throw await translate(err, request);
  }
}

/** Maps a Temporal error to a problem. Anything unexpected becomes 503 without internals. */
async function translate(err: unknown, request: CommandRequest): Promise<Problem> {
  if (err instanceof Problem) return err;
  const failure = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
  if (failure instanceof ApplicationFailure && failure.type === REFUSAL_FAILURE_TYPE) {
    const refusal = failure.details?.[0] as Refusal | undefined;
    if (refusal && isProblemCode(refusal.code)) return new Problem(refusal.code, refusal.detail, refusal.extensions ?? {});
  }
  if (isCompleted(err) && request.current) {
    // Terminal resources end their workflow; answer from the read model, version first.
    const current = await request.current();
    if (current) {
      if (request.expectedVersion !== undefined && request.expectedVersion !== current.resourceVersion) {
        return new Problem('STALE_RESOURCE_VERSION', `observed resourceVersion ${request.expectedVersion}, current is ${current.resourceVersion}`, {
          currentResourceVersion: current.resourceVersion,
          currentState: current.status,
        });
      }
      return new Problem('INVALID_STATE_TRANSITION', `${request.name} is not allowed on a ${request.kind} in status ${current.status}`, {
        currentState: current.status,
      });
    }
  }
  if (err instanceof WorkflowExecutionAlreadyStartedError) {
    return new Problem('IDEMPOTENCY_CONFLICT', 'the resource this request created has since ended; use a new Idempotency-Key');
  }
  return new Problem('SERVICE_UNAVAILABLE', 'the workflow service did not complete the command; retry with the same Idempotency-Key', {}, { 'retry-after': '1' });
}

function isCompleted(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError) return true;
  const message = err instanceof Error ? err.message : '';
  if (/already completed|workflow execution already completed/i.test(message)) return true;
  const cause = (err as any)?.cause;
  return isGrpcServiceError(cause) && /already completed/i.test(cause.details ?? '');
}
