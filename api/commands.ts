// Sends lifecycle commands to entity workflows (through the Temporal facade, core/entities.ts)
// and turns the answers into HTTP responses. Creates use update-with-start, so the workflow and its
// first snapshot come into being in one call. Every create and command goes through idempotency;
// every refusal inside the workflow comes back as a problem with the code the machine chose.
import { EntityUnavailable, type EntityAnswer } from '../core/entities';
import { commandDuration } from '../core/metrics';
import { Problem } from '../domain/problems';
import { RefusalError, type Actor, type Command, type Envelope } from '../domain/machine';
import type { Resource } from '../domain/resource';
import { etagOf, type Ctx } from './http';
import { fingerprint, idempotent, type StoredResponse } from './idempotency';

export interface CommandRequest {
  resource: Resource<any, any>;
  /** `create` or a command of the resource's machine: the name of the Workflow Update sent. */
  name: string;
  payload: unknown;
  context?: unknown;
  /** The resource; for a create, absent (the command id becomes the id) or a derived id. */
  id?: string;
  expectedVersion?: number;
  /** The caller's view of a snapshot (gate 9). */
  view: (snapshot: any) => unknown;
  /** Who issues the command; by default the caller's connector. */
  actor?: Actor;
  /** Reads the current read-model row when the workflow has already completed. */
  current?: () => Promise<Envelope | undefined>;
  /** Runs inside the idempotent section before the workflow is asked (claims, quotas). */
  before?: (id: string) => Promise<void>;
  /** Undoes `before` when the command was refused. */
  refused?: (id: string) => Promise<void>;
  /**
   * Runs after the workflow answered, inside the idempotent section: waits for what the command
   * started (an acceptance flow) and returns the snapshot to answer with, or throws a problem.
   */
  settle?: (snapshot: Envelope, commandId: string) => Promise<Envelope>;
  /** The whole answer, when it is not the resource (a milestone or an outcome the command recorded). */
  respond?: (snapshot: Envelope, commandId: string) => StoredResponse;
  /**
   * Runs inside the idempotent section with the command id, before the command is sent: the
   * payload to send instead of `payload` (which alone keys idempotency), what to add to this
   * answer only (`reveal`: never stored, so a replay answers without it: a secret shown once), and
   * what to undo when the command is refused.
   */
  prepare?: (commandId: string) => Promise<Prepared>;
}

export interface Prepared {
  payload?: unknown;
  reveal?: (body: Record<string, unknown>, snapshot: Envelope) => Record<string, unknown>;
  refused?: () => Promise<void>;
}

function actorOf(c: Ctx): Actor {
  const p = c.get('principal');
  return { kind: 'connector', organizationId: p.organizationId, clientId: p.clientId, ...(p.userId ? { userId: p.userId } : {}) };
}

/**
 * Runs a create or a command with idempotency and returns the HTTP response. A create's resource
 * id is its command id, so a retry that takes over an unfinished create reuses the same id.
 */
export async function runCommand(c: Ctx, request: CommandRequest): Promise<Response> {
  const stopTimer = commandDuration.startTimer({ kind: request.resource.kind, command: request.name });
  try {
    const response = await commandResponse(c, request);
    stopTimer({ status: response.status });
    return response;
  } catch (err) {
    stopTimer({ status: err instanceof Problem ? err.status : 500 });
    throw err;
  }
}

async function commandResponse(c: Ctx, request: CommandRequest): Promise<Response> {
  const hash = fingerprint([request.resource.kind, request.name, request.id ?? null, request.expectedVersion ?? null, request.payload]);
  let reveal: ((body: Record<string, unknown>) => Record<string, unknown>) | undefined;
  const stored = await idempotent(c, hash, async (commandId, keyed) => {
    const prepared = (await request.prepare?.(commandId)) ?? {};
    const id = request.name === 'create' ? (request.id ?? commandId) : request.id!;
    const command: Command = {
      name: request.name,
      commandId,
      actor: request.actor ?? actorOf(c),
      expectedVersion: request.expectedVersion,
      // Personal data sealed under the record's key before Temporal or the read model hold it (core/personal-data.ts).
      payload: c.get('services').personalData.sealFields(request.resource.kind, id, prepared.payload ?? request.payload),
      correlationId: c.get('correlationId'),
      context: request.context,
      ...(keyed ? { createKey: keyed.createKey } : {}),
    };
    const answered = await withHooks(request, id, async () => {
      try {
        return await send(c, request, command, id, keyed?.found);
      } catch (err) {
        if (err instanceof Problem && err.status < 500) await prepared.refused?.();
        throw err;
      }
    });
    if (prepared.reveal) reveal = (body) => prepared.reveal!(body, answered);
    const snapshot = request.settle ? await request.settle(answered, commandId) : answered;
    if (request.respond) return request.respond(snapshot, commandId);
    const headers: Record<string, string> = { etag: etagOf(snapshot.resourceVersion) };
    if (request.name === 'create') headers.location = `/${request.resource.collection}/${snapshot.id}`;
    return { status: request.name === 'create' ? 201 : 200, headers, body: request.view(snapshot) } satisfies StoredResponse;
    // A create whose id is its command id is found again by its key; every other command id is
    // derived from the key (api/idempotency.ts, CommandIds).
  }, { commandIds: request.name === 'create' && request.id === undefined ? 'create' : 'derived' });
  // What is shown once is added to this answer only, after the stored one was written.
  return c.json((reveal ? reveal(stored.body as Record<string, unknown>) : stored.body) as object, stored.status as 200, stored.headers);
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

/**
 * Sends the create or command through the Temporal facade: the new snapshot, or the machine's
 * refusal as its problem. A resource whose workflow has ended is answered from the read model
 * (answerEnded); an unknown outcome is 503, the idempotency claim kept for the retry.
 */
async function send(c: Ctx, request: CommandRequest, command: Command, id: string, found = false): Promise<Envelope> {
  const { entities } = c.get('services');
  let answer: EntityAnswer;
  try {
    answer = request.name === 'create' ? await entities.create(request.resource, id, command, { found }) : await entities.send(request.resource, id, command);
  } catch (err) {
    if (err instanceof EntityUnavailable) throw Problem.unavailable();
    throw err;
  }
  if (answer.ok) return answer.snapshot;
  if ('refusal' in answer) throw Problem.fromRefusal(answer.refusal);
  if (request.name === 'create') {
    // The create happened (an earlier attempt with this key) and its resource has ended since:
    // answered with the resource as it ended, if Temporal still has it.
    const ended = await entities.finalState(request.resource, id).catch(() => undefined);
    if (ended) return ended;
    throw new Problem('IDEMPOTENCY_CONFLICT', 'the resource this request created has since ended; use a new Idempotency-Key');
  }
  if (!request.current) throw Problem.unavailable();
  return answerEnded(request, command);
}

/**
 * A command on a resource whose workflow has ended (it is terminal) is decided against the read
 * model: version first, then the machine. A command that would change nothing (a repeated
 * milestone, say) is answered with the resource; any other is refused as the machine says.
 */
async function answerEnded(request: CommandRequest, command: Command): Promise<Envelope> {
  const current = await request.current!();
  if (!current) throw Problem.unavailable();
  if (request.expectedVersion !== undefined && request.expectedVersion !== current.resourceVersion) {
    throw new Problem('STALE_RESOURCE_VERSION', `observed resourceVersion ${request.expectedVersion}, current is ${current.resourceVersion}`, {
      currentResourceVersion: current.resourceVersion,
      currentState: current.status,
    });
  }
  const handler = request.resource.machine.commands[request.name];
  try {
    const transition = handler?.(current, command, new Date().toISOString());
    if (transition && transition.state.resourceVersion === current.resourceVersion) return current;
  } catch (err) {
    // A read-model document may lack what only the workflow kept (a machine may then throw other
    // than a refusal): the resource has ended, which is the answer below.
    if (err instanceof RefusalError && err.refusal.code !== 'INVALID_STATE_TRANSITION') throw Problem.fromRefusal(err.refusal);
  }
  const ended = request.resource.machine.ended?.(current, request.name);
  if (ended) throw Problem.fromRefusal(ended);
  throw new Problem('INVALID_STATE_TRANSITION', `${request.name} is not allowed on a ${request.resource.kind} in status ${current.status}`, {
    currentState: current.status,
  });
}

/**
 * Runs a resource's create rules here, before a workflow is started for a create they would
 * refuse. The rules stay in one place, the machine; the API only asks it early (update-with-start
 * starts the workflow even when the create is then refused).
 */
export function precheckCreate(c: Ctx, resource: Resource<any, any>, payload: unknown, context?: unknown, actor?: Actor): void {
  try {
    resource.machine.create(
      { name: 'create', commandId: 'precheck', actor: actor ?? actorOf(c), payload, correlationId: c.get('correlationId'), context },
      'precheck',
      new Date().toISOString(),
    );
  } catch (err) {
    if (err instanceof RefusalError) throw Problem.fromRefusal(err.refusal);
    throw err;
  }
}
