// One definition per resource kind: what every layer needs to know about it, in one place. The
// API (routes, scopes, views), the projections, sharing and disclosure, the event feed, the worker
// and the Temporal UI all derive from it; domain/registry.ts lists the kinds. Pure TypeScript
// without Node imports: it is bundled into the workflow sandbox with the machine it carries.
import type { UpdateDefinition } from '@temporalio/common';
import { defineUpdate } from '@temporalio/workflow';
import type { Command, Envelope, Machine, SearchAttributeValues, Transition } from './machine';
import type { Retention } from './retention';
import type { CommandAnswer, TransitionRecord } from './transition';
import type { LedgerRecord } from './transparency-log';

/**
 * Disclosure class of a field (gate 9): who may see it. domain/disclosure.ts turns classes into
 * views per audience and phase.
 *   envelope    id, version, owner, times, status: whoever may see the resource at all
 *   lifecycle   transition timestamps and expiresAt: as envelope
 *   terms       the coarse terms partners see from discovery on (areas, windows, capacity, ...)
 *   restricted  exact addresses, customer identity, price, complete goods details: partners only
 *               from acceptance on (protocol rule 11)
 *   references  the owner's external references: partners only once committed
 *   audit       reasons and who ended it: the owner and the protocol operator
 *   private     the owner's bookkeeping (visibility list, extensions, matching state): owner only
 *   shared      every participant of the resource sees it (both parties of a relationship)
 * A field without a class is shown to the owner only: a new field stays private until someone
 * decides to disclose it.
 */
export type FieldClass = 'envelope' | 'lifecycle' | 'terms' | 'restricted' | 'references' | 'audit' | 'private' | 'shared';

export interface ResourceSpec<S extends Envelope, M extends Machine<S>> {
  /** Kind: the workflow id prefix, the schema file, the event type prefix (`pcx.<kind>.<event>.v1`). */
  kind: string;
  /** Collection path of the HTTP API: `/<collection>/{id}`. */
  collection: string;
  /** Workflow type registered by the worker (workflows/index.ts). */
  workflowType: string;
  /** Read-model table. */
  table: string;
  /**
   * `standard` (the default): the table has the standard shape, created from this definition
   * (read-model/database.ts) and written by projectDocument; `own`: a table of its own in
   * read-model/schema.sql with its projector in activities/ (listings' match columns, relationship pairs).
   */
  readModel?: 'standard' | 'own';
  /** Document fields a standard table indexes: the links its list filters by (a proposal's offer). */
  indexedFields?: readonly string[];
  statuses: readonly S['status'][];
  /** Terminal statuses: no command is accepted, the workflow completes. */
  terminalStatuses: readonly S['status'][];
  /** Gate 6: the scope every read needs, and the scope an owner's commands need by default. */
  scopes: { read: string; write: string };
  /**
   * Instead of `scopes.read` alone, any of these reads it and receives its events (a series of
   * offers or of requests: a carrier's connector holds capacity:publish, a shipper's loads:publish).
   */
  readScopes?: readonly string[];
  /** Disclosure class of each field of the resource's document. */
  fields: Readonly<Record<string, FieldClass>>;
  /** The classes a protocol operator reading it sees, instead of the default (domain/disclosure.ts). */
  operatorSees?: readonly FieldClass[];
  /**
   * The protocol operator's feed carries its events too (their audience names OPERATOR_AUDIENCE,
   * domain/machine.ts) and `exchange:admin` reads them there: the registry's records, for audit.
   */
  operatorFeed?: boolean;
  /** The events its transitions emit, by CloudEvents type: what emits each, and the schema of its data when it is not the resource's (`<file>#/$defs/<Def>`). */
  events?: Readonly<Record<string, { emittedBy: string; data?: string }>>;
  /** Statuses in which partners of the owner may see it (shared listings); absent: never. */
  partnerStatuses?: readonly S['status'][];
  /**
   * Organizations that take part in the resource besides its owner and see its `shared` fields
   * (both parties of a relationship, both sides of a proposal). Absent: the owner alone.
   */
  participants?(state: S): string[];
  /**
   * Organizations that accepted a match with this listing (offer and request owners of accepted
   * proposals): they read it in the `accepted` disclosure phase, whatever its status and even
   * once their relationship no longer shares it (a suspension leaves matched listings unaffected).
   */
  counterparts?(state: S): string[];
  /** Counterparts whose match a transport commitment records: they read in the `committed` phase. */
  committedCounterparts?(state: S): string[];
  /** Values of the search attributes operators filter on in the Temporal UI. */
  searchAttributes(state: S): SearchAttributeValues;
  /**
   * The read-model document and event data of a state, when it holds records projected into
   * tables of their own (an execution reference's milestones and outcomes). Default: the state.
   */
  document?(state: S): Record<string, unknown>;
  /**
   * The append-only records of a state that the transparency log holds, each once, appended with
   * the transition that wrote it (read-model/transparency-log.ts); their participants (or the owner)
   * may read their proofs. Absent: none.
   */
  ledger?(state: S): LedgerRecord[];
  /**
   * What the retention purge does with its records once final (domain/retention.ts): purged under
   * a class of record's period, following a relationship's policy, or kept, with the reason.
   * Required: a new kind is purged or kept by decision, never forgotten by the purge.
   */
  retention: Retention;
  machine: M;
}

type PayloadOf<H> = H extends (state: any, command: Command<infer P>, now: string) => any ? P : never;

/** What an Update answers: the snapshot with its transition (domain/transition.ts). */
export type UpdateAnswer<S extends Envelope> = CommandAnswer<S>;

export type UpdatesOf<S extends Envelope, M extends Machine<S>> = {
  [K in keyof M['commands'] & string]: UpdateDefinition<UpdateAnswer<S>, [Command<PayloadOf<M['commands'][K]>>], K>;
} & { create: UpdateDefinition<UpdateAnswer<S>, [Command], 'create'> };

export interface Resource<S extends Envelope = Envelope, M extends Machine<S> = Machine<S>> extends ResourceSpec<S, M> {
  /** Workflow id of a resource: `<kind>/<uuid>`, so an operator can type it in the Temporal UI. */
  workflowId(id: string): string;
  /** The named, typed Workflow Update of each command (and of create). */
  updates: UpdatesOf<S, M>;
}

/** Workflow id `<kind>/<id>` of any resource. */
export function workflowIdOf(kind: string, id: string): string {
  return `${kind}/${id}`;
}

/** The state type of a machine. */
export type StateOf<M> = M extends { create(command: Command, id: string, now: string): Transition<infer S> } ? S : never;

export function defineResource<M extends Machine<any>>(spec: ResourceSpec<StateOf<M>, M>): Resource<StateOf<M>, M> {
  type S = StateOf<M>;
  // The type requires it; this stops a definition that escaped the compiler (a cast, plain JS).
  if (!spec.retention || !('purged' in spec.retention || 'kept' in spec.retention)) throw new Error(`resource ${spec.kind}: no retention decision (purged under a class of record, or kept with the reason)`);
  const names = ['create', ...Object.keys(spec.machine.commands)];
  const updates = Object.fromEntries(names.map((name) => [name, defineUpdate<UpdateAnswer<S>, [Command]>(name)])) as UpdatesOf<S, M>;
  return { ...spec, workflowId: (id) => workflowIdOf(spec.kind, id), updates };
}

// What starts (and continues) the entity workflow of a resource (workflows/entity.ts).
export interface EntitySettings {
  continueAsNewAfterEvents: number;
  continueAsNewAfterCommands: number;
  /** Task queue of the flows a transition starts; absent: the entity's own. */
  flowTaskQueue?: string;
}

export interface EntityInput<S extends Envelope = Envelope> {
  kind: string;
  settings: EntitySettings;
  state?: S;
  /**
   * The ids of the last RECENT_COMMANDS commands (with the version each produced). A repeated
   * command is answered with the current snapshot instead of being applied again.
   */
  recent?: Array<[string, unknown]>;
  /** Transitions answered to their senders and not known to be written (workflows/entity.ts). */
  unwritten?: TransitionRecord[];
}

/** Workflow id of the flow that carries out effect `index` of a command: derived, so never started twice. */
export function effectWorkflowId(entityWorkflowId: string, commandId: string, index: number): string {
  return `${entityWorkflowId}/effect/${commandId}/${index}`;
}
