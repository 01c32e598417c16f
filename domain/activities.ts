// The activities the workflows call, as a contract: their names, inputs and answers. Workflow code
// (workflows/) proxies them through this interface; activities/ implements it (createActivities
// returns an Activities). Types only: the workflows depend on this, never on activities/.
import type { Evaluation } from './matching';
import type { PumpInput, PumpResult } from './webhooks';
import type { CreatePayload as ReferencePayload, ReferenceContext } from './execution-reference';
import type { CommitTenderInput, MatchInput } from './flows';
import type { Actor, Envelope, Refusal } from './machine';
import type { TransitionRecord } from './transition';

export type { CommandAnswer, TransitionRecord } from './transition';
import type { RequiredDecisionPolicy } from './match-proposal';
import type { CreatePayload as CommitmentPayload } from './transport-commitment';

/** Flows a transition starts (workflows/entity.ts, startEffects). */
export interface FlowStarts {
  flows: Array<{ workflowId: string; workflowType: string; input: unknown; taskQueue: string; executionTimeoutMs?: number }>;
  /** Written first (fenced, in version order): the entity's unwritten transitions, the one with the effects last. */
  transitions: TransitionRecord[];
}

/** A command a flow sends to an entity (its named Workflow Update). */
export interface CommandOrder {
  kind: string;
  id: string;
  /** The command: the name of the target's Workflow Update. */
  name: string;
  payload: unknown;
  /** Deterministic per flow step: the Update id. */
  commandId: string;
  /** Optimistic concurrency: the version the flow observed. */
  expectedVersion?: number;
  correlationId: string;
  /** The broker itself unless given. */
  actor?: Actor;
  /** Facts the command decides on (a publish in an owner's name: whether it has a relationship in force). */
  context?: unknown;
}

/** What became of a command: the new snapshot, or the target's refusal (and its state, if known). */
export type CommandOutcome<S extends Envelope = Envelope> = { ok: true; snapshot: S } | { ok: false; refusal: Refusal; current?: S };

/** What a flow needs to create a resource (a proposal): its kind, id and create payload. */
export interface CreateOrder {
  kind: string;
  id: string;
  payload: unknown;
  /** Facts the machine's create decides on (read from the read model by the flow). */
  context?: unknown;
  commandId: string;
  correlationId: string;
  /** The broker itself unless given (a series creates its occurrences in its owner's name). */
  actor?: Actor;
}

/** One command of a sequence sent in one activity (`sendInOrder`): a create or a command. */
export type StepOrder = { create: CreateOrder } | { command: CommandOrder };

/** What an ended series' flow needs to know of an occurrence before it withdraws it. */
export interface ListingStanding {
  resourceVersion: number;
  status: string;
  /** Some of it is committed: an offer with a committed allocation, a matched request. */
  committed: boolean;
}

/** One compatible pair, with everything the flow needs to reserve, propose and create. */
export interface MatchCandidate {
  offer: { id: string; version: number; ownerOrganizationId: string };
  request: { id: string; version: number; ownerOrganizationId: string };
  evaluation: Evaluation;
  policy: RequiredDecisionPolicy;
  validUntil: string;
}

/** A pair to evaluate again (after a stale version) or for a participant who asks for it. */
export interface PairQuery {
  offerId: string;
  requestId: string;
  /** The flow's own earlier attempt, or a participant asking again: a pair proposed before may be proposed. */
  repeat?: boolean;
  /** The participant who asks: the initiator of the decision policy. */
  initiator?: string;
}

/** What evaluating one pair gives: the candidate if it can be proposed, the evaluation, or why not. */
export interface PairEvaluation {
  candidate?: MatchCandidate;
  evaluation?: Evaluation;
  refusal?: { code: 'DUPLICATE_MATCH' | 'PROPOSAL_LIMIT_REACHED' | 'LISTING_INCOMPLETE'; detail: string; extensions?: Record<string, unknown> };
}

export interface Activities {
  /** activities/projection.ts: transitions of one resource, in version order, written where the read model lacks them (the workflow's flush). */
  persistTransitions(batch: { transitions: TransitionRecord[] }): Promise<void>;
  /** activities/commands.ts */
  startFlows(starts: FlowStarts): Promise<void>;
  awaitFlows(flows: { workflowIds: string[] }): Promise<void>;
  createResource(order: CreateOrder): Promise<CommandOutcome>;
  sendCommand(order: CommandOrder): Promise<CommandOutcome>;
  /**
   * Steps sent one after the other, stopping after the first refusal: the outcomes of the steps
   * sent (the last one refused, or all of them applied). One activity where a flow would wait for
   * a workflow task between each; every step keeps its own command id, so a retry re-sends them
   * and the entities answer the ones they applied from memory.
   */
  sendInOrder(steps: StepOrder[]): Promise<CommandOutcome[]>;
  /** activities/matching.ts */
  findMatches(input: MatchInput): Promise<MatchCandidate[]>;
  evaluatePair(pair: PairQuery): Promise<PairEvaluation>;
  openListingsOf(organizationIds: string[]): Promise<MatchInput[]>;
  openProposalsOf(relationshipId: string, at: string): Promise<string[]>;
  /** Whether an organization has at least one partner relationship in force now (a publish's fact). */
  hasRelationshipInForce(organizationId: string): Promise<boolean>;
  /** A listing as the read model holds it: its version, status and whether any of it is committed (an ended series leaves those alone). */
  listingStanding(kind: 'capacity-offer' | 'load-request', id: string): Promise<ListingStanding | undefined>;
  /** activities/transport.ts */
  prepareCommitment(input: CommitTenderInput): Promise<Omit<CommitmentPayload, never> | { refused: string }>;
  /** activities/execution-reference.ts */
  prepareReference(proposalId: string): Promise<{ payload: ReferencePayload; context: ReferenceContext } | undefined>;
  /** activities/webhooks.ts over delivery/webhook-pump.ts: collect a subscription's new events and attempt what is due. */
  pumpWebhookSubscription(input: PumpInput): Promise<PumpResult>;
  /** activities/retention.ts: purge what is due at `now` (a batch; `more` when more is due). */
  purgeDue(input: { now: string }): Promise<{ purged: number; erased: number; more: boolean }>;
}
