// ExecutionReference: the link between an accepted match (and its commitment and handover) and
// the executing systems' own records, without copying them; the timeline of shared milestones
// (ExecutionUpdate); and the append-only chain of ExecutionOutcome records with its corrections.
// Milestones and outcomes are serialised through this workflow, so concurrent corrections of one
// head have one winner and the chain keeps one head (docs/decisions.md, "ExecutionReference",
// "ExecutionOutcome"). Reference states: created, linked, completed, cancelled (the last two are
// terminal and accept nothing).
import { bump, Command, Envelope, EventDraft, isBroker, Machine, refuse, Transition, firstVersion } from './machine';
import { defineResource } from './resource';
import { DERIVED, derivedId } from './ids';

/** The id of the one execution reference of an accepted proposal (reference rule 3). */
export const referenceIdOf = (proposalId: string) => derivedId(proposalId, DERIVED.executionReference);

export type ReferenceStatus = 'created' | 'linked' | 'completed' | 'cancelled';
export const MILESTONES = ['assigned', 'atPickup', 'pickedUp', 'inTransit', 'delayed', 'atDelivery', 'delivered', 'failed', 'cancelled', 'disputed'] as const;
export type Milestone = (typeof MILESTONES)[number];
export const OUTCOME_STATUSES = ['planned', 'inProgress', 'completed', 'cancelled', 'disputed', 'failed'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];
/** Outcome statuses that end the execution: the first such head completes the reference. */
export const FINAL_OUTCOMES: readonly OutcomeStatus[] = ['completed', 'cancelled'];

export interface ExternalRef {
  system: string;
  type: string;
  value: string;
}

export interface TimeRange {
  start?: string;
  end?: string;
}

export interface Actor {
  organizationId: string;
  clientId?: string;
}

/** A shared milestone (ExecutionUpdate). */
export interface ExecutionUpdate {
  id: string;
  executionReferenceId: string;
  milestone: Milestone;
  /** When it happened, as the source says. */
  occurredAt: string;
  /** When the broker recorded it. */
  recordedAt: string;
  deduplicationKey: string;
  reason?: string;
  estimatedTimes?: { pickupAt?: string; deliveryAt?: string };
  /** Coarse position only (an Area: a UN/LOCODE, a subdivision, a circle of at least 1 km). */
  position?: unknown;
  submittedBy: Actor;
}

/** One record of the outcome chain (ExecutionOutcome). */
export interface ExecutionOutcome {
  id: string;
  executionReferenceId: string;
  resourceVersion: number;
  status: OutcomeStatus;
  submittedAt: string;
  submittedBy: Actor;
  deduplicationKey: string;
  plannedTimeRange?: TimeRange;
  actualTimeRange?: TimeRange;
  participantConfirmations?: Array<{ organizationId: string; confirmed: boolean; at?: string; note?: string }>;
  externalExecutionRefs?: ExternalRef[];
  operationalDeviations?: Array<{ code: string; description?: string; at?: string }>;
  capacityUtilizationObservations?: Record<string, unknown>;
  routeObservations?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  schemaVersion: string;
  /** The record this one corrects (or, for a later initial report, the head it followed). */
  supersedes: string | null;
  supersededByOutcomeId: string | null;
  correctionReason?: string;
  correctionReasonCode?: string;
  observedOutcomeVersion?: number;
  /** The reference version the submitter observed (recorded, not enforced: see decisions). */
  observedReferenceVersion?: number;
  /** The command that created it: a replay is told apart from a new record by this. */
  commandId: string;
  updatedAt: string;
}

export interface ExecutionReference extends Envelope {
  status: ReferenceStatus;
  acceptedProposalId: string;
  acceptedProposalVersion: number;
  carrierOrganizationId: string;
  shipperOrganizationId: string;
  participatingOrganizationIds: string[];
  commitmentId?: string;
  commitmentIds: string[];
  handoverId?: string;
  sourceExternalReferences: ExternalRef[];
  destinationExternalReferences: ExternalRef[];
  externalTripRefs: ExternalRef[];
  externalOrderRefs: ExternalRef[];
  plannedTimeRange?: TimeRange;
  actualTimeRange?: TimeRange;
  retentionPolicyRef?: string;
  createdBy: { kind: 'broker' } | { kind: 'participant'; organizationId: string; clientId?: string };
  currentMilestone?: { milestone: Milestone; occurredAt: string; updateId: string };
  headOutcomeId?: string;
  /** What the last outcome event names: the new record and the one it superseded. */
  lastOutcomeChange?: { kind: 'recorded' | 'corrected'; outcomeId: string; supersededOutcomeId?: string };
  linkedAt?: string;
  completedAt?: string;
  cancelledAt?: string;
  cancellation?: { reason: string; reasonCode?: string; organizationId: string; at: string };
  /** The timeline and the chain: projected into tables of their own, not into the document. */
  updates: ExecutionUpdate[];
  outcomes: ExecutionOutcome[];
}

export const KIND = 'execution-reference';

const participants = (r: ExecutionReference) => r.participatingOrganizationIds;
const event = (r: ExecutionReference, type: string): EventDraft => ({ type, audience: participants(r) });

/** Canonical JSON (sorted keys): the same content is the same, whatever the key order. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function actorOf(command: Command): Actor {
  return { organizationId: command.actor.organizationId!, ...(command.actor.clientId ? { clientId: command.actor.clientId } : {}) };
}

function requireParticipant(r: ExecutionReference, command: Command) {
  if (isBroker(command.actor)) return;
  if (command.actor.kind !== 'connector' || !participants(r).includes(command.actor.organizationId ?? '')) {
    refuse('ACTOR_NOT_PERMITTED', 'only a participating organization acts on an execution reference');
  }
}

function requireOpen(r: ExecutionReference, command: Command) {
  if (r.status === 'completed' || r.status === 'cancelled') {
    refuse('INVALID_STATE_TRANSITION', `${command.name} is not allowed on an ${KIND} in status ${r.status}`, { currentState: r.status });
  }
}

/** References from different systems are never equivalent: a reference is its (system, type, value). */
function addRefs(existing: ExternalRef[], added: ExternalRef[] | undefined): ExternalRef[] {
  const key = (x: ExternalRef) => `${x.system}\u0000${x.type}\u0000${x.value}`;
  const seen = new Set(existing.map(key));
  return [...existing, ...(added ?? []).filter((x) => !seen.has(key(x)) && seen.add(key(x)))];
}

export interface CreatePayload {
  acceptedProposalId: string;
  acceptedProposalVersion: number;
  participatingOrganizationIds: string[];
  commitmentId?: string;
  handoverId?: string;
  plannedTimeRange?: TimeRange;
}

/** Facts the API or the flow gathered: the accepted proposal this reference is tied to. */
export interface ReferenceContext {
  proposal?: { id: string; status: string; resourceVersion: number; carrierOrganizationId: string; shipperOrganizationId: string };
  retentionPolicyRef?: string;
}

export interface LinkPayload {
  externalTripRef?: ExternalRef;
  externalOrderRef?: ExternalRef;
  sourceExternalReferences?: ExternalRef[];
  destinationExternalReferences?: ExternalRef[];
}

export interface UpdatePayload {
  milestone: Milestone;
  occurredAt: string;
  deduplicationKey: string;
  reason?: string;
  estimatedTimes?: ExecutionUpdate['estimatedTimes'];
  position?: unknown;
}

export type OutcomeContent = Omit<ExecutionOutcome, 'id' | 'executionReferenceId' | 'resourceVersion' | 'submittedAt' | 'submittedBy' | 'supersedes' | 'supersededByOutcomeId' | 'commandId' | 'updatedAt' | 'observedOutcomeVersion'>;
export type OutcomePayload = OutcomeContent & { executionReferenceVersion?: number };
export type CorrectionPayload = OutcomeContent & { outcomeId: string; observedOutcomeVersion: number; correctionReason: string; correctionReasonCode?: string };

/** The content a replay must repeat exactly (the fields a submitter chose). */
function contentOf(o: Partial<ExecutionOutcome>): string {
  const { id: _i, executionReferenceId: _e, resourceVersion: _v, submittedAt: _s, submittedBy: _b, supersedes: _p, supersededByOutcomeId: _q, commandId: _c, updatedAt: _u, observedReferenceVersion: _r, observedOutcomeVersion: _o, ...rest } = o as ExecutionOutcome;
  return canonical(rest);
}

/** The record a report or a correction adds: the new head of the chain, superseding `supersedes`. */
function newHead(
  r: ExecutionReference,
  command: Command,
  content: Record<string, unknown>,
  now: string,
  supersedes: string | null,
  observed: Pick<ExecutionOutcome, 'observedReferenceVersion' | 'observedOutcomeVersion'>,
): ExecutionOutcome {
  return {
    ...(content as OutcomeContent),
    id: command.commandId,
    executionReferenceId: r.id,
    resourceVersion: 1,
    submittedAt: now,
    submittedBy: actorOf(command),
    supersedes,
    supersededByOutcomeId: null,
    ...observed,
    commandId: command.commandId,
    updatedAt: now,
  };
}

/** A new chain record after the head: marks the head superseded (its only change) and returns both. */
function appendToChain(r: ExecutionReference, record: ExecutionOutcome, now: string): ExecutionOutcome[] {
  return [
    ...r.outcomes.map((o) => (o.id === record.supersedes ? { ...o, supersededByOutcomeId: record.id, resourceVersion: o.resourceVersion + 1, updatedAt: now } : o)),
    record,
  ];
}

/** A head in a final status completes a linked (or created) reference, never from a superseded record. */
function afterOutcome(r: ExecutionReference, head: ExecutionOutcome, now: string): Partial<ExecutionReference> {
  const changes: Partial<ExecutionReference> = r.status === 'created' ? { status: 'linked', linkedAt: now } : {};
  if (FINAL_OUTCOMES.includes(head.status) && head.supersededByOutcomeId === null) {
    return { ...changes, status: 'completed', completedAt: now, ...(head.actualTimeRange ? { actualTimeRange: head.actualTimeRange } : {}) };
  }
  return changes;
}

/**
 * The events of a new chain record: one about the record itself (its subject, its version 1, its
 * data: a correction names the record it supersedes), and at most one about the reference, for
 * the state it ends in: completed, or else linked (a first outcome on a created reference). One
 * event per subject and version (docs/decisions.md, "One event per subject and version").
 */
/** An outcome as it is read (GET /execution-outcomes/{id}), in events and in the transparency log: the command that made it is the broker's own. */
export function outcomeRecord({ commandId: _c, ...record }: ExecutionOutcome): Omit<ExecutionOutcome, 'commandId'> {
  return record;
}

/**
 * An outcome as the transparency log holds it: as it was made. The members a later correction
 * changes (who superseded it, its version, its update time) are left out; the correction's own
 * record names what it supersedes (docs/transparency-log.md, sdk/src/transparency.ts `loggedValue`).
 */
export function loggedOutcome(o: ExecutionOutcome) {
  const { supersededByOutcomeId: _s, resourceVersion: _v, updatedAt: _u, ...made } = outcomeRecord(o);
  return made;
}

function outcomeEvents(r: ExecutionReference, next: ExecutionReference, record: ExecutionOutcome, kind: 'recorded' | 'corrected'): EventDraft[] {
  const data = outcomeRecord(record);
  const events: EventDraft[] = [{
    ...event(next, `pcx.execution-outcome.${kind}.v1`),
    record: { subject: `execution-outcomes/${record.id}`, version: record.resourceVersion, schema: `${KIND}#/$defs/ExecutionOutcome`, data },
  }];
  if (r.status !== 'completed' && next.status === 'completed') events.push(event(next, 'pcx.execution.completed.v1'));
  else if (r.status !== 'linked' && next.status === 'linked') events.unshift(event(next, 'pcx.execution-reference.linked.v1'));
  return events;
}

function checkOutcome(content: OutcomeContent, pointer = '') {
  const errors: Array<{ pointer: string; message: string }> = [];
  if (content.status === 'completed' && !(content.actualTimeRange?.start && content.actualTimeRange?.end)) {
    errors.push({ pointer: `${pointer}/actualTimeRange`, message: 'is required (start and end) when status is completed' });
  }
  for (const field of ['plannedTimeRange', 'actualTimeRange'] as const) {
    const range = content[field];
    if (range?.start && range?.end && Date.parse(range.start) > Date.parse(range.end)) errors.push({ pointer: `${pointer}/${field}/end`, message: 'must not be before start' });
  }
  if (errors.length) refuse('VALIDATION_FAILED', 'the outcome is not valid', { errors });
}

/**
 * How far a source's clock may run ahead of the broker's (or behind it, against the reference's
 * creation): 5 minutes. Times reported as facts (when a milestone happened, when the movement
 * started and ended, a confirmation, a deviation) are refused beyond it (docs/decisions.md,
 * "Now against the movement: milestones and outcomes").
 */
export const CLOCK_SKEW_MINUTES = 5;
const CLOCK_SKEW_MS = CLOCK_SKEW_MINUTES * 60_000;

/** The facts' times of an outcome (not its plannedTimeRange: a plan may lie anywhere). */
function outcomeTimes(content: OutcomeContent): Array<{ pointer: string; value: string | undefined }> {
  return [
    { pointer: '/actualTimeRange/start', value: content.actualTimeRange?.start },
    { pointer: '/actualTimeRange/end', value: content.actualTimeRange?.end },
    ...(content.participantConfirmations ?? []).map((c, i) => ({ pointer: `/participantConfirmations/${i}/at`, value: c?.at })),
    ...(content.operationalDeviations ?? []).map((d, i) => ({ pointer: `/operationalDeviations/${i}/at`, value: d?.at })),
  ];
}

/**
 * A reported time is a fact: not more than CLOCK_SKEW_MINUTES ahead of the broker's now, and not
 * before the reference was created (less the same skew): the reference is created when its
 * proposal is accepted, and nothing of the movement happens before the match. 400
 * VALIDATION_FAILED with each time's pointer; the detail names the field, now and the bound.
 */
function requireReportedTimes(r: ExecutionReference, times: Array<{ pointer: string; value: string | undefined }>, now: string) {
  const latest = new Date(Date.parse(now) + CLOCK_SKEW_MS).toISOString();
  const earliest = new Date(Date.parse(r.createdAt) - CLOCK_SKEW_MS).toISOString();
  const errors: Array<{ pointer: string; message: string }> = [];
  const sentences: string[] = [];
  for (const { pointer, value } of times) {
    const at = value === undefined ? NaN : Date.parse(value);
    if (!Number.isFinite(at)) continue;
    const field = pointer.slice(1);
    if (at > Date.parse(latest)) {
      errors.push({ pointer, message: `is more than ${CLOCK_SKEW_MINUTES} minutes after the broker's now (${now}): at the latest ${latest}` });
      sentences.push(`${field} ${value} is in the future: the broker's now is ${now}, and a reported time may be at most ${CLOCK_SKEW_MINUTES} minutes ahead of it (${latest})`);
    } else if (at < Date.parse(earliest)) {
      errors.push({ pointer, message: `is before the execution reference was created (${r.createdAt}): at the earliest ${earliest}` });
      sentences.push(`${field} ${value} is before the movement: the execution reference was created at ${r.createdAt} (the broker's now is ${now}), and a reported time may be at most ${CLOCK_SKEW_MINUTES} minutes before that (${earliest})`);
    }
  }
  if (errors.length) refuse('VALIDATION_FAILED', `${sentences.join('; ')}.`, { errors });
}

export const executionReferenceMachine = {
  kind: KIND,
  brokerCommands: ['attach'],
  // Deduplicated by their keys, and serialised here: no If-Match (docs/decisions.md).
  unversionedCommands: ['recordUpdate', 'recordOutcome', 'correctOutcome'],

  create(command: Command<CreatePayload, ReferenceContext>, id: string, now: string): Transition<ExecutionReference> {
    const p = command.payload;
    const proposal = command.context?.proposal;
    if (!proposal || proposal.id !== p.acceptedProposalId) refuse('RESOURCE_NOT_FOUND', 'no such match proposal, or it is not visible to your organization');
    if (proposal.status !== 'accepted') refuse('INVALID_STATE_TRANSITION', 'an execution reference needs an accepted match proposal', { currentState: proposal.status });
    if (p.acceptedProposalVersion !== proposal.resourceVersion) {
      refuse('STALE_RESOURCE_VERSION', `observed proposal version ${p.acceptedProposalVersion}, current is ${proposal.resourceVersion}`, { currentResourceVersion: proposal.resourceVersion });
    }
    const required = [proposal.carrierOrganizationId, proposal.shipperOrganizationId];
    if (!isBroker(command.actor) && !required.includes(command.actor.organizationId ?? '')) refuse('ACTOR_NOT_PERMITTED', 'only a party to the accepted proposal or the broker creates its reference');
    const missing = required.filter((o) => !p.participatingOrganizationIds.includes(o));
    if (missing.length) {
      refuse('VALIDATION_FAILED', 'participatingOrganizationIds must include the carrier and the shipper of the accepted proposal', { errors: [{ pointer: '/participatingOrganizationIds', message: `lacks ${missing.join(', ')}` }] });
    }
    const state: ExecutionReference = {
      ...firstVersion(id, proposal.carrierOrganizationId, now),
      status: 'created',
      acceptedProposalId: p.acceptedProposalId,
      acceptedProposalVersion: p.acceptedProposalVersion,
      carrierOrganizationId: proposal.carrierOrganizationId,
      shipperOrganizationId: proposal.shipperOrganizationId,
      participatingOrganizationIds: [...new Set(p.participatingOrganizationIds)],
      ...(p.commitmentId ? { commitmentId: p.commitmentId } : {}),
      commitmentIds: p.commitmentId ? [p.commitmentId] : [],
      ...(p.handoverId ? { handoverId: p.handoverId } : {}),
      sourceExternalReferences: [],
      destinationExternalReferences: [],
      externalTripRefs: [],
      externalOrderRefs: [],
      ...(p.plannedTimeRange ? { plannedTimeRange: p.plannedTimeRange } : {}),
      ...(command.context?.retentionPolicyRef ? { retentionPolicyRef: command.context.retentionPolicyRef } : {}),
      createdBy: isBroker(command.actor) ? { kind: 'broker' } : { kind: 'participant', ...actorOf(command) },
      updates: [],
      outcomes: [],
    };
    return { state, events: [event(state, 'pcx.execution-reference.created.v1')] };
  },

  commands: {
    // The commitment and the handover of the match, once they exist, and the records the two
    // systems named in the handover (the broker's flows). Silent: nothing a participant did.
    attach(
      r: ExecutionReference,
      command: Command<{ commitmentId?: string; handoverId?: string; sourceExternalReferences?: ExternalRef[]; destinationExternalReferences?: ExternalRef[] }>,
      now: string,
    ): Transition<ExecutionReference> {
      const { commitmentId, handoverId, sourceExternalReferences, destinationExternalReferences } = command.payload;
      const source = addRefs(r.sourceExternalReferences, sourceExternalReferences);
      const destination = addRefs(r.destinationExternalReferences, destinationExternalReferences);
      const same =
        (!commitmentId || r.commitmentId === commitmentId) &&
        (!handoverId || r.handoverId === handoverId) &&
        source.length === r.sourceExternalReferences.length &&
        destination.length === r.destinationExternalReferences.length;
      if (same) return { state: r, events: [] };
      return {
        state: bump(r, now, {
          ...(commitmentId ? { commitmentId, commitmentIds: r.commitmentIds.includes(commitmentId) ? r.commitmentIds : [...r.commitmentIds, commitmentId] } : {}),
          ...(handoverId ? { handoverId } : {}),
          sourceExternalReferences: source,
          destinationExternalReferences: destination,
        }),
        events: [],
      };
    },

    // External record references: at least a trip or an order reference; several links may add more.
    link(r: ExecutionReference, command: Command<LinkPayload>, now: string): Transition<ExecutionReference> {
      requireParticipant(r, command);
      requireOpen(r, command);
      const p = command.payload;
      if (!p.externalTripRef && !p.externalOrderRef) {
        refuse('VALIDATION_FAILED', 'a link needs an externalTripRef or an externalOrderRef', { errors: [{ pointer: '/externalTripRef', message: 'externalTripRef or externalOrderRef is required' }] });
      }
      const next = bump(r, now, {
        status: 'linked',
        ...(r.linkedAt ? {} : { linkedAt: now }),
        externalTripRefs: addRefs(r.externalTripRefs, p.externalTripRef ? [p.externalTripRef] : []),
        externalOrderRefs: addRefs(r.externalOrderRefs, p.externalOrderRef ? [p.externalOrderRef] : []),
        sourceExternalReferences: addRefs(r.sourceExternalReferences, p.sourceExternalReferences),
        destinationExternalReferences: addRefs(r.destinationExternalReferences, p.destinationExternalReferences),
      });
      return { state: next, events: [event(next, 'pcx.execution-reference.linked.v1')] };
    },

    // Only with a final outcome at the head of the chain (rule 6, invariant 11).
    complete(r: ExecutionReference, command: Command, now: string): Transition<ExecutionReference> {
      requireParticipant(r, command);
      if (r.status !== 'linked') refuse('INVALID_STATE_TRANSITION', `complete is not allowed on an ${KIND} in status ${r.status}`, { currentState: r.status });
      const head = r.outcomes.find((o) => o.id === r.headOutcomeId);
      if (!head || !FINAL_OUTCOMES.includes(head.status)) {
        refuse('INVALID_STATE_TRANSITION', 'a reference completes only with a completed or cancelled outcome at the head of its chain', { currentState: r.status });
      }
      const next = bump(r, now, { status: 'completed', completedAt: now });
      return { state: next, events: [event(next, 'pcx.execution.completed.v1')] };
    },

    // A reason is required; every participant is told. A delayed cancel never overwrites completed.
    cancel(r: ExecutionReference, command: Command<{ reason: string; reasonCode?: string }>, now: string): Transition<ExecutionReference> {
      requireParticipant(r, command);
      requireOpen(r, command);
      const { reason, reasonCode } = command.payload ?? {};
      if (typeof reason !== 'string' || reason.trim() === '') refuse('VALIDATION_FAILED', 'a reason is required to cancel', { errors: [{ pointer: '/reason', message: 'is required' }] });
      const next = bump(r, now, { status: 'cancelled', cancelledAt: now, cancellation: { reason, ...(reasonCode ? { reasonCode } : {}), organizationId: command.actor.organizationId!, at: now } });
      return { state: next, events: [event(next, 'pcx.execution-reference.cancelled.v1')] };
    },

    // POST /execution-updates. Duplicates are absorbed (same key and content: the original; another
    // content: 409); an older milestone arriving late is kept but never moves the current one back.
    recordUpdate(r: ExecutionReference, command: Command<UpdatePayload>, now: string): Transition<ExecutionReference> {
      requireParticipant(r, command);
      const p = command.payload;
      const existing = r.updates.find((u) => u.deduplicationKey === p.deduplicationKey);
      const content = (u: Partial<ExecutionUpdate>) => canonical({ milestone: u.milestone, occurredAt: u.occurredAt, reason: u.reason, estimatedTimes: u.estimatedTimes, position: u.position });
      if (existing) {
        if (content(existing) === content(p)) return { state: r, events: [] };
        refuse('IDEMPOTENCY_CONFLICT', 'this deduplicationKey was used for another milestone', { updateId: existing.id });
      }
      requireOpen(r, command);
      requireReportedTimes(r, [{ pointer: '/occurredAt', value: p.occurredAt }], now);
      const update: ExecutionUpdate = {
        id: command.commandId,
        executionReferenceId: r.id,
        milestone: p.milestone,
        occurredAt: p.occurredAt,
        recordedAt: now,
        deduplicationKey: p.deduplicationKey,
        ...(p.reason ? { reason: p.reason } : {}),
        ...(p.estimatedTimes ? { estimatedTimes: p.estimatedTimes } : {}),
        ...(p.position ? { position: p.position } : {}),
        submittedBy: actorOf(command),
      };
      const newer = !r.currentMilestone || Date.parse(update.occurredAt) >= Date.parse(r.currentMilestone.occurredAt);
      const next = bump(r, now, {
        updates: [...r.updates, update],
        ...(newer ? { currentMilestone: { milestone: update.milestone, occurredAt: update.occurredAt, updateId: update.id } } : {}),
      });
      return { state: next, events: [event(next, 'pcx.execution.updated.v1')] };
    },

    // POST /execution-outcomes: an initial report. On a chain that has a head already, the new
    // record follows it (supersedes it): one head at all times (invariant 5).
    recordOutcome(r: ExecutionReference, command: Command<OutcomePayload>, now: string): Transition<ExecutionReference> {
      requireParticipant(r, command);
      const { executionReferenceVersion, ...content } = command.payload;
      const existing = r.outcomes.find((o) => o.deduplicationKey === content.deduplicationKey);
      if (existing) {
        if (contentOf(existing) === contentOf(content as ExecutionOutcome)) return { state: r, events: [] }; // an exact replay: the original
        refuse('IDEMPOTENCY_CONFLICT', 'this deduplicationKey was used for another outcome of this reference', { outcomeId: existing.id });
      }
      requireOpen(r, command);
      checkOutcome(content);
      requireReportedTimes(r, outcomeTimes(content), now);
      const record = newHead(r, command, content, now, r.headOutcomeId ?? null, executionReferenceVersion !== undefined ? { observedReferenceVersion: executionReferenceVersion } : {});
      const outcomes = appendToChain(r, record, now);
      const change = { kind: 'recorded' as const, outcomeId: record.id, ...(record.supersedes ? { supersededOutcomeId: record.supersedes } : {}) };
      const next = bump(r, now, { outcomes, headOutcomeId: record.id, lastOutcomeChange: change, ...afterOutcome(r, record, now) });
      return { state: next, events: outcomeEvents(r, next, record, 'recorded') };
    },

    // POST /execution-outcomes/{id}/corrections: version first (the loser of concurrent corrections
    // gets stale-resource-version), then the head (a correction of a superseded record is
    // idempotency-conflict), then a new key; a completed or cancelled reference takes none.
    correctOutcome(r: ExecutionReference, command: Command<CorrectionPayload>, now: string): Transition<ExecutionReference> {
      requireParticipant(r, command);
      const { outcomeId, observedOutcomeVersion, ...content } = command.payload;
      const existing = r.outcomes.find((o) => o.deduplicationKey === content.deduplicationKey);
      if (existing) {
        if (existing.supersedes === outcomeId && contentOf(existing) === contentOf(content as ExecutionOutcome)) return { state: r, events: [] };
        refuse('IDEMPOTENCY_CONFLICT', 'this deduplicationKey was used for another outcome of this reference', { outcomeId: existing.id });
      }
      const target = r.outcomes.find((o) => o.id === outcomeId);
      if (!target) refuse('RESOURCE_NOT_FOUND', 'no such execution outcome');
      if (observedOutcomeVersion !== target.resourceVersion) {
        refuse('STALE_RESOURCE_VERSION', `observed outcome version ${observedOutcomeVersion}, current is ${target.resourceVersion}`, {
          currentResourceVersion: target.resourceVersion,
          headOutcomeId: r.headOutcomeId,
        });
      }
      if (target.supersededByOutcomeId !== null) refuse('IDEMPOTENCY_CONFLICT', 'only the head of the chain can be corrected', { headOutcomeId: r.headOutcomeId });
      // Rule 5: a completed or cancelled reference accepts nothing, corrections included.
      requireOpen(r, command);
      if (typeof content.correctionReason !== 'string' || content.correctionReason.trim() === '') {
        refuse('VALIDATION_FAILED', 'correctionReason is required', { errors: [{ pointer: '/correctionReason', message: 'is required' }] });
      }
      checkOutcome(content);
      requireReportedTimes(r, outcomeTimes(content), now);
      const record = newHead(r, command, content, now, target.id, { observedOutcomeVersion });
      const outcomes = appendToChain(r, record, now);
      const next = bump(r, now, { outcomes, headOutcomeId: record.id, lastOutcomeChange: { kind: 'corrected', outcomeId: record.id, supersededOutcomeId: target.id }, ...afterOutcome(r, record, now) });
      return { state: next, events: outcomeEvents(r, next, record, 'corrected') };
    },
  },

  deadline: () => undefined,
} satisfies Machine<ExecutionReference>;

const FIELDS = [
  'id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'externalReferences', 'extensions', 'status',
  'acceptedProposalId', 'acceptedProposalVersion', 'carrierOrganizationId', 'shipperOrganizationId', 'participatingOrganizationIds',
  'commitmentId', 'commitmentIds', 'handoverId', 'sourceExternalReferences', 'destinationExternalReferences', 'externalTripRefs',
  'externalOrderRefs', 'plannedTimeRange', 'actualTimeRange', 'retentionPolicyRef', 'createdBy', 'currentMilestone', 'headOutcomeId',
  'lastOutcomeChange', 'linkedAt', 'completedAt', 'cancelledAt', 'cancellation',
];

export const executionReference = defineResource({
  kind: KIND,
  // Its policy is copied from the relationship when it is made (it may outlive the proposal's row).
  retention: { purged: 'execution', relationship: { through: 'match-proposal', by: ['acceptedProposalId'] }, ownPolicyRef: true },
  collection: 'execution-references',
  workflowType: 'executionReferenceWorkflow',
  table: 'execution_references',
  indexedFields: ['acceptedProposalId'],
  statuses: ['created', 'linked', 'completed', 'cancelled'],
  terminalStatuses: ['completed', 'cancelled'],
  scopes: { read: 'outcomes:review', write: 'outcomes:write' },
  // The participating organizations see all of it, and authorized operators (rule 7); nobody else.
  fields: Object.fromEntries(FIELDS.map((f) => [f, 'shared' as const])),
  operatorSees: ['shared'],
  participants: (r) => r.participatingOrganizationIds,
  // An outcome is read as a document of its own (GET /execution-outcomes/{id}), a correction too.
  ledger: (r) => r.outcomes.map((o) => ({ key: `execution-outcomes/${o.id}`, record: loggedOutcome(o) })),
  searchAttributes: (r) => ({ owner: r.carrierOrganizationId, partner: r.shipperOrganizationId, status: r.status }),
  // Milestones and outcomes live in tables of their own (GET .../updates, /execution-outcomes).
  document: ({ updates: _u, outcomes: _o, ...doc }) => doc,
  machine: executionReferenceMachine,
  // The events its transitions emit (domain/events.ts gathers every kind's), and what emits each.
  events: {
    'pcx.execution-reference.created.v1': { emittedBy: 'POST /execution-references, or the broker when a proposal is accepted' },
    'pcx.execution-reference.linked.v1': { emittedBy: 'link' },
    'pcx.execution-reference.cancelled.v1': { emittedBy: 'cancel' },
    'pcx.execution.completed.v1': { emittedBy: 'complete (or the first final outcome)' },
    'pcx.execution.updated.v1': { emittedBy: 'POST /execution-updates (a milestone)' },
    'pcx.execution-outcome.recorded.v1': { emittedBy: 'POST /execution-outcomes', data: 'execution-reference#/$defs/ExecutionOutcome' },
    'pcx.execution-outcome.corrected.v1': { emittedBy: 'POST /execution-outcomes/{id}/corrections', data: 'execution-reference#/$defs/ExecutionOutcome' },
  },
});
