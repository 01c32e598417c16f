// ExecutionHandover: after a transport commitment, the bounded execution package the issuing
// organization hands to the executing organization (stops with exact addresses and time windows,
// cargo facts, equipment constraints, references, instructions, document references, contacts;
// nothing more: protocol rule 17), and the executing connector's technical acknowledgement of it
// (imported, linked, rejected, quarantined). The acknowledgement is a fact of its own, separate
// from the commercial acceptance that the commitment records (rule 13). One handover per
// commitment: its id derives from the commitment's (handoverIdOf), so
// a repeated delivery resolves to the same record (rule 14). The package never changes; only the
// status, the append-only acknowledgements and, on success, the destination reference do.
// Transition table: docs/decisions.md, "ExecutionHandover and acknowledgement".
//
// status       how it gets there
// offered      created by the commitment's issuing organization (pcx.execution-handover.offered.v1)
// quarantined  the executing connector set it aside for review; a final acknowledgement may follow
// imported     the executing system created work from it (final; destinationExternalReference)
// linked       the executing system linked it to work it already had (final; destinationExternalReference)
// rejected     the executing system refused it, with a reason (final)
// Every acknowledgement emits pcx.execution-handover.acknowledged.v1. The final statuses are terminal.
import { bump, Command, Envelope, EventDraft, Machine, refuse, Transition, firstVersion } from './machine';
import { DERIVED, derivedId } from './ids';
import { defineResource } from './resource';
import { referenceIdOf } from './execution-reference';
import { FLOWS, type HandoverToReferenceInput } from './flows';
import { listRecords } from './transparency-log';

export type HandoverStatus = 'offered' | 'quarantined' | 'imported' | 'linked' | 'rejected';
export type AcknowledgementOutcome = 'imported' | 'linked' | 'rejected' | 'quarantined';

export interface ExternalReference {
  system: string;
  type: string;
  value: string;
}

export interface TimeWindow {
  start: string;
  end: string;
  timeZone?: string;
}

export interface Contact {
  role: 'dispatch' | 'pickup' | 'delivery' | 'emergency' | 'other';
  name: string;
  phone?: string;
  email?: string;
  languages?: string[];
}

/** The execution package (schemas/execution-handover.json#/$defs/ExecutionPackage). */
export interface ExecutionPackage {
  stops: Array<{
    sequence: number;
    role: 'pickup' | 'delivery';
    location: {
      name?: string;
      address: { lines: string[]; postalCode?: string; city: string; countryCode: string; coordinates?: number[] };
      unLocode?: string;
      gln?: string;
    };
    timeWindow: TimeWindow;
    appointmentReference?: string;
    instructions?: string;
    contacts?: Contact[];
  }>;
  cargo?: Record<string, unknown>;
  equipment?: Record<string, unknown>;
  references?: Array<{ type: string; value: string }>;
  instructions?: string;
  documents?: Array<{ type: string; uri: string; title?: string; mediaType?: string; sha256?: string }>;
  contacts?: Contact[];
}

/** SHA-256 over the RFC 8785 bytes of the delivery's members in `fields` (computed by the API). */
export interface PackageDigest {
  algorithm: 'SHA-256';
  canonicalization: 'RFC 8785';
  fields: string[];
  value: string;
}

/** One technical acknowledgement by the executing connector: append-only. */
export interface Acknowledgement {
  id: string;
  outcome: AcknowledgementOutcome;
  destinationExternalReference?: ExternalReference;
  reason?: string;
  reasonCode?: string;
  acknowledgedAt: string;
  acknowledgedBy: { organizationId: string; clientId?: string };
  /** The handover version the acknowledgement was recorded on. */
  observedHandoverVersion: number;
}

export interface ExecutionHandover extends Envelope {
  status: HandoverStatus;
  commitmentId: string;
  /** The commitment's own version number (1, then n+1 per accepted amendment). */
  commitmentVersion: number;
  tenderId: string;
  issuingOrganizationId: string;
  executingOrganizationId: string;
  movementScope: string;
  schemaVersion: string;
  package: ExecutionPackage;
  /** The issuing system's references of the movement (order, shipment, trip, ...). */
  sourceExternalReferences: ExternalReference[];
  packageDigest: PackageDigest;
  offeredAt: string;
  acknowledgements: Acknowledgement[];
  /** The executing system's record, from the successful (imported or linked) acknowledgement. */
  destinationExternalReference?: ExternalReference;
  /** The execution reference of the match the commitment came from (none for a direct tender). */
  executionReferenceId?: string;
  quarantinedAt?: string;
  /** When the final acknowledgement (imported, linked, rejected) was recorded. */
  acknowledgedAt?: string;
}

/** The id of the handover of a commitment: the same for every delivery (rule 14). */
export const handoverIdOf = (commitmentId: string) => derivedId(commitmentId, DERIVED.executionHandover);

export const KIND = 'execution-handover';
export const SCHEMA_VERSION = 'v0';
/** How many acknowledgements one handover records (quarantines may repeat with new reasons). */
export const MAX_ACKNOWLEDGEMENTS = 50;

export const FINAL_OUTCOMES: readonly AcknowledgementOutcome[] = ['imported', 'linked', 'rejected'];
const SUCCESS: readonly AcknowledgementOutcome[] = ['imported', 'linked'];
const OUTCOMES: readonly AcknowledgementOutcome[] = ['imported', 'linked', 'rejected', 'quarantined'];

export interface CreatePayload {
  commitmentId: string;
  package: ExecutionPackage;
  sourceExternalReferences: ExternalReference[];
}

export interface AcknowledgementPayload {
  outcome: AcknowledgementOutcome;
  destinationExternalReference?: ExternalReference;
  reason?: string;
  reasonCode?: string;
}

/** The commitment as the API read it: the facts the machine decides a create on. */
export interface CommitmentFacts {
  id: string;
  status: string;
  commitmentVersion: number;
  tenderId: string;
  issuingOrganizationId: string;
  executingOrganizationId: string;
  movementScope: string;
  /** The agreed stops of the accepted revision (areas left out: the package names exact places). */
  stops: Array<{ sequence: number; role: string; timeWindow: TimeWindow }>;
  /** The accepted match the tender came from (none for a direct tender). */
  originatingProposalId?: string;
}

/** Facts the API gathers for a create: the commitment (absent: the caller cannot see it) and the package digest. */
export interface HandoverContext {
  commitment?: CommitmentFacts;
  packageDigest?: PackageDigest;
}

const both = (h: Pick<ExecutionHandover, 'issuingOrganizationId' | 'executingOrganizationId'>) => [h.issuingOrganizationId, h.executingOrganizationId];
const event = (h: ExecutionHandover, name: string): EventDraft => ({ type: `pcx.${KIND}.${name}.v1`, audience: both(h) });
type FieldError = { pointer: string; message: string };

/**
 * Who may hand over for this commitment: its issuing organization. The executing organization
 * sees the commitment, so it learns 403; anyone else cannot see it and gets 404.
 */
function requireIssuer(commitment: Pick<CommitmentFacts, 'issuingOrganizationId' | 'executingOrganizationId'>, command: Command) {
  const org = command.actor.organizationId;
  if (command.actor.kind !== 'connector' || !org) refuse('ACTOR_NOT_PERMITTED', 'only a connector of the commitment\u2019s issuing organization hands over');
  if (org === commitment.issuingOrganizationId) return;
  if (org === commitment.executingOrganizationId) refuse('ACTOR_NOT_PERMITTED', 'only the commitment\u2019s issuing organization hands over; the executing organization acknowledges');
  refuse('RESOURCE_NOT_FOUND', 'no such transport commitment, or it is not visible to your organization');
}

/**
 * The package's stops against the agreed ones: every agreed stop exactly once, with its role,
 * and a time window inside the agreed window (an exact slot may be narrower, never outside:
 * accepted terms change only through an amendment, rule 15). No stop the commitment lacks.
 */
export function stopErrors(stops: ExecutionPackage['stops'], agreed: CommitmentFacts['stops']): FieldError[] {
  const errors: FieldError[] = [];
  const bySequence = new Map(agreed.map((s) => [s.sequence, s]));
  const seen = new Set<number>();
  for (const [i, stop] of stops.entries()) {
    const at = `/package/stops/${i}`;
    if (seen.has(stop.sequence)) errors.push({ pointer: `${at}/sequence`, message: 'appears twice' });
    seen.add(stop.sequence);
    const target = bySequence.get(stop.sequence);
    if (!target) {
      errors.push({ pointer: `${at}/sequence`, message: 'is not a stop of the commitment' });
      continue;
    }
    if (target.role !== stop.role) errors.push({ pointer: `${at}/role`, message: `must be ${target.role}, as agreed` });
    const start = Date.parse(stop.timeWindow?.start);
    const end = Date.parse(stop.timeWindow?.end);
    if (!(start < end)) errors.push({ pointer: `${at}/timeWindow/end`, message: 'must be after start' });
    else if (start < Date.parse(target.timeWindow.start) || end > Date.parse(target.timeWindow.end)) {
      errors.push({ pointer: `${at}/timeWindow`, message: `must lie within the agreed window ${target.timeWindow.start} to ${target.timeWindow.end}` });
    }
  }
  for (const s of agreed) if (!seen.has(s.sequence)) errors.push({ pointer: '/package/stops', message: `lacks the agreed stop ${s.sequence} (${s.role})` });
  return errors;
}

function sameReference(a?: ExternalReference, b?: ExternalReference): boolean {
  return a?.system === b?.system && a?.type === b?.type && a?.value === b?.value;
}

/** Two acknowledgements with the same content (outcome, destination reference, reason, code) are one. */
export function sameAcknowledgement(a: Pick<Acknowledgement, 'outcome' | 'destinationExternalReference' | 'reason' | 'reasonCode'>, b: AcknowledgementPayload): boolean {
  return a.outcome === b.outcome && sameReference(a.destinationExternalReference, b.destinationExternalReference) && a.reason === b.reason && a.reasonCode === b.reasonCode;
}

function validateAcknowledgement(p: AcknowledgementPayload | undefined): AcknowledgementPayload {
  const errors: FieldError[] = [];
  if (!p || !OUTCOMES.includes(p.outcome)) errors.push({ pointer: '/outcome', message: `must be one of ${OUTCOMES.join(', ')}` });
  else if (SUCCESS.includes(p.outcome) && !p.destinationExternalReference) errors.push({ pointer: '/destinationExternalReference', message: `is required when the outcome is ${p.outcome}` });
  else if (!SUCCESS.includes(p.outcome) && (typeof p.reason !== 'string' || p.reason.trim() === '')) errors.push({ pointer: '/reason', message: `is required when the outcome is ${p.outcome}` });
  if (errors.length) refuse('VALIDATION_FAILED', 'the acknowledgement is not valid', { errors });
  return p!;
}

/**
 * A repeated POST /execution-handovers for a commitment that has its handover (rule 14): the same
 * delivery (equal package digest) is the existing handover, unchanged; another one is 409
 * HANDOVER_CONFLICT. Not a command (it never changes the handover, and the handover's workflow
 * may have ended): the API applies it to the stored handover.
 */
export function redeliver(h: ExecutionHandover, command: Command<CreatePayload, HandoverContext>): ExecutionHandover {
  requireIssuer(h, command);
  if (command.context?.packageDigest?.value !== h.packageDigest.value) {
    refuse('HANDOVER_CONFLICT', 'the commitment already has a handover with another package; a changed package needs a new commitment version (an amendment)', {
      handoverId: h.id,
      currentState: h.status,
      packageDigest: h.packageDigest.value,
    });
  }
  return h;
}

/** The match's execution reference records the handover and the systems' records (a flow). */
function toReference(h: ExecutionHandover, input: Omit<HandoverToReferenceInput, 'referenceId'>) {
  if (!h.executionReferenceId) return [];
  return [{ flow: FLOWS.handoverToReference, input: { referenceId: h.executionReferenceId, ...input } satisfies HandoverToReferenceInput }];
}

export const executionHandoverMachine = {
  kind: KIND,
  brokerCommands: [],

  // POST /execution-handovers by the commitment's issuing organization, for an active commitment.
  create(command: Command<CreatePayload, HandoverContext>, id: string, now: string): Transition<ExecutionHandover> {
    const context = command.context ?? {};
    const commitment = context.commitment;
    if (!commitment || commitment.id !== command.payload?.commitmentId) refuse('RESOURCE_NOT_FOUND', 'no such transport commitment, or it is not visible to your organization');
    requireIssuer(commitment, command);
    if (commitment.status !== 'active') {
      refuse('INVALID_STATE_TRANSITION', `a handover needs an active commitment; this one is ${commitment.status}`, { currentState: commitment.status });
    }
    const p = command.payload;
    const errors = stopErrors(p.package?.stops ?? [], commitment.stops);
    if (!Array.isArray(p.sourceExternalReferences) || p.sourceExternalReferences.length === 0) {
      errors.push({ pointer: '/sourceExternalReferences', message: 'name at least one record of the issuing system' });
    }
    if (errors.length) refuse('VALIDATION_FAILED', 'the execution package does not fit the commitment', { errors });
    // A package offered after its pickup window closed cannot be driven (a repeated delivery of
    // one already offered is answered by `redeliver`, whatever the hour).
    const pickups = (p.package?.stops ?? []).map((stop, i) => ({ stop, i })).filter(({ stop }) => stop.role === 'pickup');
    const closed = pickups.find(({ stop }) => Date.parse(stop.timeWindow.end) <= Date.parse(now));
    if (closed) {
      refuse('WINDOW_PASSED', `the pickup window of stop ${closed.stop.sequence} ended at ${closed.stop.timeWindow.end}: too late to hand the movement over`, {
        errors: [{ pointer: `/package/stops/${closed.i}/timeWindow/end`, message: 'has passed' }],
      });
    }
    if (!context.packageDigest) refuse('VALIDATION_FAILED', 'the package digest is missing');
    const state: ExecutionHandover = {
      ...firstVersion(id, commitment.issuingOrganizationId, now),
      status: 'offered',
      commitmentId: commitment.id,
      commitmentVersion: commitment.commitmentVersion,
      tenderId: commitment.tenderId,
      issuingOrganizationId: commitment.issuingOrganizationId,
      executingOrganizationId: commitment.executingOrganizationId,
      movementScope: commitment.movementScope,
      schemaVersion: SCHEMA_VERSION,
      package: p.package,
      sourceExternalReferences: p.sourceExternalReferences,
      packageDigest: context.packageDigest,
      offeredAt: now,
      acknowledgements: [],
      ...(commitment.originatingProposalId ? { executionReferenceId: referenceIdOf(commitment.originatingProposalId) } : {}),
    };
    return { state, events: [event(state, 'offered')], effects: toReference(state, { handoverId: id, sourceExternalReferences: p.sourceExternalReferences }) };
  },

  commands: {
    // POST /execution-handovers/{id}/acknowledgements by the executing organization. Deduplicated
    // by content: an acknowledgement equal to one recorded changes nothing. After a final one,
    // any other is 409 ACKNOWLEDGEMENT_CONFLICT; a quarantine may be followed by another
    // acknowledgement.
    acknowledge(h: ExecutionHandover, command: Command<AcknowledgementPayload>, now: string): Transition<ExecutionHandover> {
      const org = command.actor.organizationId;
      if (command.actor.kind !== 'connector' || org !== h.executingOrganizationId) {
        refuse('ACTOR_NOT_PERMITTED', 'only the executing organization acknowledges a handover');
      }
      const p = validateAcknowledgement(command.payload);
      if (h.acknowledgements.some((a) => sameAcknowledgement(a, p))) return { state: h, events: [] };
      if ((FINAL_OUTCOMES as readonly string[]).includes(h.status)) {
        const final = h.acknowledgements[h.acknowledgements.length - 1];
        refuse('ACKNOWLEDGEMENT_CONFLICT', `the handover was already acknowledged as ${h.status}; a different acknowledgement cannot replace it`, {
          currentState: h.status,
          acknowledgement: final,
        });
      }
      if (h.acknowledgements.length >= MAX_ACKNOWLEDGEMENTS) {
        refuse('INVALID_STATE_TRANSITION', `a handover records at most ${MAX_ACKNOWLEDGEMENTS} acknowledgements`, { currentState: h.status });
      }
      const record: Acknowledgement = {
        id: command.commandId,
        outcome: p.outcome,
        ...(p.destinationExternalReference ? { destinationExternalReference: p.destinationExternalReference } : {}),
        ...(p.reason !== undefined ? { reason: p.reason } : {}),
        ...(p.reasonCode !== undefined ? { reasonCode: p.reasonCode } : {}),
        acknowledgedAt: now,
        acknowledgedBy: { organizationId: org!, ...(command.actor.clientId ? { clientId: command.actor.clientId } : {}) },
        observedHandoverVersion: h.resourceVersion,
      };
      const final = FINAL_OUTCOMES.includes(p.outcome);
      const next = bump(h, now, {
        status: p.outcome,
        acknowledgements: [...h.acknowledgements, record],
        ...(final ? { acknowledgedAt: now } : { quarantinedAt: now }),
        ...(SUCCESS.includes(p.outcome) ? { destinationExternalReference: p.destinationExternalReference } : {}),
      });
      const destination = SUCCESS.includes(p.outcome) ? toReference(next, { destinationExternalReferences: [p.destinationExternalReference!] }) : [];
      return { state: next, events: [event(next, 'acknowledged')], effects: destination };
    },
  },

  // An acknowledgement reaching a handover whose workflow has ended (final): the API decides it on
  // the stored handover with `acknowledge` itself; this answers only a race with that end.
  ended: (h: ExecutionHandover) => ({
    code: 'ACKNOWLEDGEMENT_CONFLICT',
    detail: `the handover was already acknowledged as ${h.status}`,
    extensions: { currentState: h.status },
  }),

  deadline: () => undefined,
} satisfies Machine<ExecutionHandover>;

const FIELDS = [
  'id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'status',
  'commitmentId', 'commitmentVersion', 'tenderId', 'issuingOrganizationId', 'executingOrganizationId', 'movementScope',
  'schemaVersion', 'package', 'sourceExternalReferences', 'packageDigest', 'offeredAt', 'acknowledgements',
  'destinationExternalReference', 'quarantinedAt', 'acknowledgedAt', 'executionReferenceId', 'contactsErased',
];

export const executionHandover = defineResource({
  kind: KIND,
  retention: { purged: 'handover', relationship: { through: 'transport-commitment', by: ['commitmentId'] } },
  collection: 'execution-handovers',
  workflowType: 'executionHandoverWorkflow',
  table: 'execution_handovers',
  indexedFields: ['commitmentId'],
  statuses: ['offered', 'quarantined', 'imported', 'linked', 'rejected'],
  terminalStatuses: FINAL_OUTCOMES as readonly HandoverStatus[],
  scopes: { read: 'handovers:read', write: 'handovers:write' },
  // The two organizations see all of it, exact addresses and contacts included (rules 11, 17:
  // disclosed now, to the executing organization only); nobody else sees a handover at all.
  fields: Object.fromEntries(FIELDS.map((f) => [f, 'shared' as const])),
  participants: (h) => both(h),
  ledger: (h) => listRecords(`execution-handovers/${h.id}`, 'acknowledgements', h.acknowledgements),
  searchAttributes: (h) => ({ owner: h.issuingOrganizationId, partner: h.executingOrganizationId, status: h.status }),
  machine: executionHandoverMachine,
  // The events its transitions emit (domain/events.ts gathers every kind's), and what emits each.
  events: {
    'pcx.execution-handover.offered.v1': { emittedBy: 'POST /execution-handovers' },
    'pcx.execution-handover.acknowledged.v1': { emittedBy: 'POST /execution-handovers/{id}/acknowledgements' },
  },
});
