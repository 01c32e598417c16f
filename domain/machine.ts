// The contract between a resource's state machine and the generic entity workflow
// (workflows/entity.ts). A machine is pure: given a state and a command it returns the next state
// and the events to emit, or throws a refusal. The same function serves the Update validator (run
// on a copy, result discarded) and the Update handler (applied), so the two can never disagree.
// Pure TypeScript without Node imports: this file is bundled into the workflow sandbox.
import type { ProblemCode } from './problems';

export interface Envelope {
  id: string;
  resourceVersion: number;
  ownerOrganizationId: string;
  createdAt: string;
  updatedAt: string;
  externalReferences?: Array<{ system: string; type: string; value: string }>;
  extensions?: Record<string, unknown>;
  status: string;
}

/**
 * Who issues a command. `broker` is the broker itself (timers, matching, flows); no HTTP caller
 * can be it. Commands recorded before the broker had that name say `system` (isBroker).
 */
export interface Actor {
  kind: 'connector' | 'operator' | 'broker' | 'system';
  organizationId?: string;
  clientId?: string;
  /** An interactive user acting through the client (the console); recorded in decidedBy. */
  userId?: string;
}

/** The broker itself, by either of its names (recorded histories say `system`). */
export const isBroker = (actor: Actor): boolean => actor.kind === 'broker' || actor.kind === 'system';

/** The broker as the actor of the commands it issues. */
export const BROKER: Actor = { kind: 'broker' };

export interface Command<P = any, C = any> {
  name: string;
  /**
   * Unique per logical request; a retried request carries the same id and gets the same answer.
   * Also the Workflow Update id, so Temporal deduplicates a re-sent command.
   */
  commandId: string;
  actor: Actor;
  /** The resourceVersion the caller observed (If-Match). Absent only for system commands and create. */
  expectedVersion?: number;
  payload: P;
  correlationId: string;
  /** Facts the API looked up for the machine (partnering policies, ...): workflows do no I/O. */
  context?: C;
  /**
   * A create sent with an Idempotency-Key whose resource id is drawn at random: a value derived
   * from (organization, operation, key, request) that the workflow records as its `PcxCreateKey`
   * search attribute once the create succeeds, so that a retry whose key the read model lost (a
   * restore of the read model alone) finds the resource it made (api/idempotency.ts).
   */
  createKey?: string;
}

/**
 * The audience entry of the protocol operator: an event that names it is on the feed (and the
 * webhooks) of every organization whose connector is a protocol operator's (`exchange:admin`).
 */
export const OPERATOR_AUDIENCE = 'pcx:operator';

export interface EventDraft {
  /** pcx.<resource>.<event>.v1 */
  type: string;
  /** Organizations that may read this event in the pull feed. */
  audience: string[];
  /**
   * Also the partners the resource is shared with when the event is written (active relationship
   * granting the read scope, and the resource's visibility); the feed re-checks the relationship
   * when it serves the event, so suspension stops sharing at once.
   */
  shareWithPartners?: boolean;
  /**
   * An event about an append-only record the transition added (a match decision, an execution
   * outcome): the record is its subject, at the record's own version, and its data. Without it the
   * subject is the resource at its new version. Within one subject versions strictly increase, so
   * a transition emits at most one event per subject (docs/decisions.md, "One event per subject
   * and version").
   */
  record?: EventRecord;
}

export interface EventRecord {
  /** The record's subject: `<collection>/<id>` or below its resource (`match-proposals/<id>/decisions/<id>`). */
  subject: string;
  version: number;
  /** The schema of the data: `<schema file>#/$defs/<Def>`. */
  schema: string;
  data: unknown;
}

/**
 * A consequence of a transition for other resources: the named flow (a workflow in
 * workflows/flows/) that carries it out, and its input. The entity workflow starts the flow (a
 * workflow of its own, not a child) after its own state is persisted, with an id derived from the
 * command, so a crash never loses the effect and a retry never starts it twice
 * (docs/architecture.md, "Cross-resource flows").
 */
export interface Effect {
  flow: string;
  input: unknown;
  /**
   * The command answers only once this flow has ended: its effects are part of what the caller
   * is told (a withdrawn request's proposals are withdrawn when the withdraw answers).
   */
  awaited?: boolean;
  /** The flow's whole life at most (its workflowExecutionTimeout), for flows an intermediate state waits for. */
  timeoutMs?: number;
}

export interface Transition<S> {
  state: S;
  events: EventDraft[];
  effects?: Effect[];
}

export interface Deadline {
  at: string;
  command: string;
}

export interface SearchAttributeValues {
  owner: string;
  partner?: string;
  status: string;
}

/** One transition function of a machine: the row of the resource's transition table. */
export type CommandHandler<S, P = any> = (state: S, command: Command<P>, now: string) => Transition<S>;

export interface Machine<S extends Envelope> {
  kind: string;
  create(command: Command, id: string, now: string): Transition<S>;
  /** Each lifecycle command is also the name of its Workflow Update (workflows/entity.ts). */
  commands: Record<string, CommandHandler<S>>;
  /** Names of commands only the broker itself may issue (timers, matching, flows). */
  brokerCommands: readonly string[];
  /**
   * Commands a connector sends without an observed resourceVersion: they are deduplicated by a
   * key of their own and serialised by the workflow (milestones, outcome reports).
   */
  unversionedCommands?: readonly string[];
  /** The next timer of this state, if any (expiresAt, effectiveUntil, ...). */
  deadline(state: S): Deadline | undefined;
  /**
   * The refusal of a command sent to a resource in a terminal state, whose workflow has ended:
   * the API answers it from the read model. Default: 422 invalid-state-transition.
   */
  ended?(state: S, command: string): Refusal;
}

/** The ApplicationFailure type that carries a refusal out of the workflow (its details: the Refusal). */
export const REFUSAL_FAILURE_TYPE = 'PcxRefusal';

/**
 * The ApplicationFailure type of a command an entity turned away because it is continuing as new:
 * not admitted (no history, no effect); the sender sends it again, with its id, to the next run.
 */
export const CONTINUING_FAILURE_TYPE = 'PcxContinuingAsNew';

/** A refusal of a command, carried out of the workflow as ApplicationFailure details. */
export interface Refusal {
  code: ProblemCode;
  detail: string;
  extensions?: Record<string, unknown>;
}

export class RefusalError extends Error {
  constructor(public readonly refusal: Refusal) {
    super(refusal.detail);
  }
}

export function refuse(code: ProblemCode, detail: string, extensions?: Record<string, unknown>): never {
  throw new RefusalError({ code, detail, extensions });
}

/** A command's required free-text reason (the registry's records: disable, suspend, revoke, ...). */
export function requiredReason(payload: unknown): string {
  const reason = (payload as { reason?: unknown } | undefined)?.reason;
  if (typeof reason !== 'string' || reason.trim() === '') refuse('VALIDATION_FAILED', 'a reason is required', { errors: [{ pointer: '/reason', message: 'is required' }] });
  return reason as string;
}

/** Who did it, as the registry's records keep it (createdBy, revocation, statusReason): the broker's own commands as `broker`. */
export function actorRef(command: Command): { organizationId: string; clientId?: string; userId?: string } {
  const { organizationId, clientId, userId } = command.actor;
  return { organizationId: organizationId ?? 'broker', ...(clientId ? { clientId } : {}), ...(userId ? { userId } : {}) };
}

/** The standard answer for a command that the current state does not list. */
export function invalidTransition(kind: string, command: string, status: string): never {
  refuse('INVALID_STATE_TRANSITION', `${command} is not allowed on a ${kind} in status ${status}`, {
    currentState: status,
  });
}

/** Next version of the envelope after a mutation. */
/** The envelope of a resource's first version: made now, by and for its owner. */
export function firstVersion(id: string, ownerOrganizationId: string, now: string): Pick<Envelope, 'id' | 'resourceVersion' | 'ownerOrganizationId' | 'createdAt' | 'updatedAt'> {
  return { id, resourceVersion: 1, ownerOrganizationId, createdAt: now, updatedAt: now };
}

export function bump<S extends Envelope>(state: S, now: string, changes: Partial<S>): S {
  return { ...state, ...changes, resourceVersion: state.resourceVersion + 1, updatedAt: now };
}
