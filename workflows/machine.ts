// The contract between a resource's state machine and the generic entity workflow
// (workflows/entity.ts). A machine is pure: given a state and a command it returns the next state
// and the events to emit, or throws a refusal. The same function serves the Update validator (run
// on a copy, result discarded) and the Update handler (applied), so the two can never disagree.
// Pure TypeScript without Node imports: this file is bundled into the workflow sandbox.
import type { ProblemCode } from '../core/problems';

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

/** Who issues a command. `system` is the broker itself (timers, matching); no HTTP caller can be it. */
export interface Actor {
  kind: 'connector' | 'operator' | 'system';
  organizationId?: string;
  clientId?: string;
}

export interface Command {
  name: string;
  /** Unique per logical request; a retried request carries the same id and gets the same answer. */
  commandId: string;
  actor: Actor;
  /** The resourceVersion the caller observed (If-Match). Absent only for system commands and create. */
  expectedVersion?: number;
  payload: any;
  correlationId: string;
  /** Facts the API looked up for the machine (partnering policies, ...): workflows do no I/O. */
  context?: any;
}

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
}

export interface Transition<S> {
  state: S;
  events: EventDraft[];
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

export interface Machine<S extends Envelope> {
  kind: string;
  create(command: Command, id: string, now: string): Transition<S>;
  commands: Record<string, (state: S, command: Command, now: string) => Transition<S>>;
  /** Names of commands only the broker itself may issue. */
  systemCommands: readonly string[];
  /** The next timer of this state, if any (expiresAt, effectiveUntil, ...). */
  deadline(state: S): Deadline | undefined;
  terminal(state: S): boolean;
  searchAttributes(state: S): SearchAttributeValues;
}

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

/** The standard answer for a command that the current state does not list. */
export function invalidTransition(kind: string, command: string, status: string): never {
  refuse('INVALID_STATE_TRANSITION', `${command} is not allowed on a ${kind} in status ${status}`, {
    currentState: status,
  });
}

/** Next version of the envelope after a mutation. */
export function bump<S extends Envelope>(state: S, now: string, changes: Partial<S>): S {
  return { ...state, ...changes, resourceVersion: state.resourceVersion + 1, updatedAt: now };
}
