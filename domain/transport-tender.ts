// TransportTender: a versioned request that a selected partner execute a bounded movement. Its
// terms live in immutable, numbered revisions: issuing presents revision 1; a counterproposal by
// either party adds revision n+1 and never changes one already presented; a decision names the
// revision it decides on, so what the recipient accepts is exactly what it saw. When every
// decision the policy requires has accepted the current revision, the commit flow creates the
// TransportCommitment. After acceptance an amendment (POST /transport-commitments/{id}/amendments)
// adds a revision linked to the commitment; accepted, it creates the next commitment version.
// Transition table: docs/decisions.md, "TransportTender transitions".
import { bump, Command, Envelope, EventDraft, Machine, refuse, Transition, firstVersion } from './machine';
import { EXECUTION_LEAD_MINUTES, EXECUTION_LEAD_MS } from './listing';
import { defineResource } from './resource';
import { FLOW_DEADLINE_MS, FLOW_TIMEOUT_MS, FLOWS, type CommitTenderInput } from './flows';
import { listRecords } from './transparency-log';

export type TenderStatus = 'draft' | 'issued' | 'accepting' | 'accepted' | 'amending' | 'rejected' | 'withdrawn' | 'expired' | 'closed';
export type MovementScope = 'fullTransport' | 'routeLeg' | 'collection' | 'delivery';

/** The decision-relevant terms of one revision (docs/decisions.md, "Tender terms"). */
export interface TenderTerms {
  cargo?: {
    goodsCategory?: string;
    description?: string;
    weight?: { value: number; unitCode: string };
    volume?: { value: number; unitCode: string };
    loadingMetres?: { value: number; unitCode: string };
    palletSpaces?: number;
    dangerousGoods?: { adrClasses: string[] };
    temperature?: { minCelsius: number; maxCelsius: number };
  };
  equipment?: { bodyTypes?: string[]; equipment?: string[] };
  /** Coarse areas and time windows: exact addresses travel only in the execution handover. */
  stops: Array<{ sequence: number; role: 'pickup' | 'delivery'; area: unknown; timeWindow: { start: string; end: string; timeZone?: string } }>;
  commercialTerms?: { amount: number; currency: string };
  externalTermsReference?: { system: string; type: string; value: string };
}

export interface TenderRevision {
  number: number;
  authorOrganizationId: string;
  createdAt: string;
  terms: TenderTerms;
  reason?: string;
  /** What changed against the previous revision: one entry per changed top-level term. */
  changes: Array<{ term: string; before?: unknown; after?: unknown }>;
  /** Set when the revision amends an accepted commitment. */
  amendsCommitmentId?: string;
  outcome?: 'accepted' | 'rejected' | 'superseded';
}

export interface TenderDecision {
  id: string;
  organizationId: string;
  decision: 'accept' | 'reject';
  revision: number;
  decidedAt: string;
  decidedBy: { organizationId: string; clientId?: string; userId?: string };
  reason?: string;
}

/**
 * Facts the API gathers for an amendment (POST /transport-commitments/{id}/amendments): the
 * commitment amended as the read model holds it, and the version the caller observed (If-Match).
 */
export interface AmendmentContext {
  commitment?: { id: string; status: string; resourceVersion: number };
  observedCommitmentVersion?: number;
}

export interface AmendmentPolicy {
  /** bilateral: either party may propose an amendment, which the policy's parties must accept. */
  mode: 'bilateral' | 'none';
}

export interface CancellationPolicy {
  mode: 'either' | 'issuerOnly' | 'none';
  /** Hours before the first stop's window after which a cancel is refused. */
  noticeHours?: number;
}

export interface TransportTender extends Envelope {
  status: TenderStatus;
  issuingOrganizationId: string;
  executingOrganizationId: string;
  movementScope: MovementScope;
  expiresAt: string;
  requiredDecisionPolicy: { mode: 'BILATERAL_REQUIRED' | 'INITIATOR_ONLY'; relationshipId: string; relationshipVersion: number };
  originatingProposalId?: string;
  /** The offer and request of the originating proposal, whose committed capacity the commitment records. */
  capacityOfferId?: string;
  loadRequestId?: string;
  amendmentPolicy: AmendmentPolicy;
  cancellationPolicy: CancellationPolicy;
  /** The draft's terms; once issued the terms are the revisions'. */
  draftTerms?: TenderTerms;
  revisions: TenderRevision[];
  currentRevision: number;
  decisions: TenderDecision[];
  issuedAt?: string;
  acceptedAt?: string;
  commitmentId?: string;
  commitmentIds: string[];
  withdrawnAt?: string;
  rejectedAt?: string;
  expiredAt?: string;
  closedAt?: string;
  endReason?: { reason: string; reasonCode?: string; organizationId?: string };
}

export const KIND = 'transport-tender';

/**
 * Facts the API gathers for issue and decide: whether a relationship granting TENDER_SCOPES is in
 * force between the two organizations now. Absent in commands recorded before it existed: taken
 * as in force.
 */
export interface TenderCommandContext {
  relationshipInForce?: boolean;
}

/** Sharing stops with the relationship: no tender is presented or accepted into a commitment after it. */
function requireRelationship(command: Command<unknown, TenderCommandContext>, what: string) {
  if ((command.context as TenderCommandContext | undefined)?.relationshipInForce === false) {
    refuse('RELATIONSHIP_INACTIVE', `no partner relationship granting ${TENDER_SCOPES.join(' and ')} is in force between the two organizations: ${what}`);
  }
}

/** Facts the API gathers for a create: the relationship in force and, from a proposal, its pair. */
export interface TenderContext {
  relationship?: { id: string; resourceVersion: number; decisionPolicy: { mode: 'BILATERAL_REQUIRED' | 'INITIATOR_ONLY' }; scopes: string[] };
  proposal?: { id: string; status: string; capacityOfferId: string; loadRequestId: string; participants: string[] };
}

export interface CreatePayload {
  executingOrganizationId: string;
  originatingProposalId?: string;
  movementScope: MovementScope;
  expiresAt: string;
  terms: TenderTerms;
  amendmentPolicy?: AmendmentPolicy;
  cancellationPolicy?: CancellationPolicy;
  externalReferences?: Array<{ system: string; type: string; value: string }>;
  extensions?: Record<string, unknown>;
}

/** Scopes a relationship must grant for tenders between its organizations. */
export const TENDER_SCOPES = ['tenders:read', 'tenders:decide'];

const both = (t: TransportTender) => [t.issuingOrganizationId, t.executingOrganizationId];
const event = (t: TransportTender, name: string): EventDraft => ({ type: `pcx.${KIND}.${name}.v1`, audience: both(t) });
const current = (t: TransportTender) => t.revisions[t.revisions.length - 1];
const OPEN: readonly TenderStatus[] = ['issued', 'amending'];

function requireParty(t: TransportTender, command: Command) {
  if (command.actor.kind !== 'connector' || !both(t).includes(command.actor.organizationId ?? '')) {
    refuse('ACTOR_NOT_PERMITTED', 'only the issuing and the executing organization act on a tender');
  }
}

function requireIssuer(t: TransportTender, command: Command) {
  if (command.actor.kind !== 'connector' || command.actor.organizationId !== t.issuingOrganizationId) {
    refuse('ACTOR_NOT_PERMITTED', `only the issuing organization may ${command.name} the tender`);
  }
}

function requireStatus(t: TransportTender, command: Command, allowed: readonly TenderStatus[]) {
  if (!allowed.includes(t.status)) {
    refuse('INVALID_STATE_TRANSITION', `${command.name} is not allowed on a ${KIND} in status ${t.status}`, { currentState: t.status });
  }
}

/** A decision or counterproposal names the revision it was made on; only the current one counts. */
function requireCurrentRevision(t: TransportTender, revision: unknown) {
  if (revision !== t.currentRevision) {
    refuse('STALE_RESOURCE_VERSION', `revision ${String(revision)} is no longer current; the current revision is ${t.currentRevision}`, {
      currentRevision: t.currentRevision,
      currentResourceVersion: t.resourceVersion,
      currentState: t.status,
    });
  }
}

function validateTerms(terms: TenderTerms | undefined, pointer: string): TenderTerms {
  const errors: Array<{ pointer: string; message: string }> = [];
  if (!terms || !Array.isArray(terms.stops) || terms.stops.length === 0) errors.push({ pointer: `${pointer}/stops`, message: 'at least one stop is required' });
  if (terms && !terms.commercialTerms === !terms.externalTermsReference) {
    errors.push({ pointer: `${pointer}/commercialTerms`, message: 'give commercialTerms or externalTermsReference, exactly one' });
  }
  for (const [i, stop] of (terms?.stops ?? []).entries()) {
    if (Date.parse(stop.timeWindow?.start) >= Date.parse(stop.timeWindow?.end)) errors.push({ pointer: `${pointer}/stops/${i}/timeWindow/end`, message: 'must be after start' });
  }
  if (errors.length) refuse('VALIDATION_FAILED', 'the tender terms are not valid', { errors });
  return terms!;
}

/** The pickup stop whose window ends first: the movement cannot start after it. */
function firstPickup(terms: TenderTerms): { index: number; sequence: number; end: string } | undefined {
  let first: { index: number; sequence: number; end: string } | undefined;
  for (const [index, stop] of terms.stops.entries()) {
    if (stop.role !== 'pickup' || !Number.isFinite(Date.parse(stop.timeWindow?.end))) continue;
    if (!first || Date.parse(stop.timeWindow.end) < Date.parse(first.end)) first = { index, sequence: stop.sequence, end: stop.timeWindow.end };
  }
  return first;
}

/**
 * A movement whose first pickup window ends within the hour a commitment needs cannot be executed:
 * 422 WINDOW_PASSED (docs/decisions.md, "Listings in time": the same lead as the listings').
 */
function requirePickupInTime(terms: TenderTerms, pointer: string, now: string) {
  const first = firstPickup(terms);
  if (first && Date.parse(first.end) - EXECUTION_LEAD_MS <= Date.parse(now)) {
    refuse('WINDOW_PASSED', `the pickup window of stop ${first.sequence} ends at ${first.end}, less than ${EXECUTION_LEAD_MINUTES} minutes from now: the movement can no longer be executed`, {
      errors: [{ pointer: `${pointer}/stops/${first.index}/timeWindow/end`, message: `ends less than ${EXECUTION_LEAD_MINUTES} minutes from now` }],
    });
  }
}

/** A tender open for decisions after its movement could start makes no sense: expiresAt an hour before the first pickup ends at the latest. */
function requireExpiryBeforePickup(expiresAt: string, terms: TenderTerms) {
  const first = firstPickup(terms);
  if (first && Date.parse(expiresAt) > Date.parse(first.end) - EXECUTION_LEAD_MS) {
    refuse('VALIDATION_FAILED', 'the tender would stay open after its movement could start', {
      errors: [{ pointer: '/expiresAt', message: `must be at least ${EXECUTION_LEAD_MINUTES} minutes before the first pickup window ends (${first.end})` }],
    });
  }
}

/** The changes of `next` against `previous`, term by term (top-level members of the terms). */
export function changesOf(previous: TenderTerms | undefined, next: TenderTerms): TenderRevision['changes'] {
  const keys = [...new Set([...Object.keys(previous ?? {}), ...Object.keys(next)])].sort();
  const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
  return keys
    .filter((k) => !same((previous as any)?.[k], (next as any)[k]))
    .map((term) => ({ term, ...((previous as any)?.[term] !== undefined ? { before: (previous as any)[term] } : {}), ...((next as any)[term] !== undefined ? { after: (next as any)[term] } : {}) }));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, canonical(v)]));
  return value;
}

function revise(t: TransportTender, command: Command<{ terms: Partial<TenderTerms>; reason?: string; revision?: number }>, now: string, amendsCommitmentId?: string) {
  const previous = current(t);
  // A counterproposal gives the terms it changes; the others carry over from the current revision.
  // The price and an external terms reference are alternatives: giving one replaces the other.
  const carried: Partial<TenderTerms> = { ...previous.terms };
  if (command.payload.terms?.commercialTerms) delete carried.externalTermsReference;
  if (command.payload.terms?.externalTermsReference) delete carried.commercialTerms;
  const terms = validateTerms({ ...carried, ...command.payload.terms } as TenderTerms, '/terms');
  const changes = changesOf(previous.terms, terms);
  if (changes.length === 0) refuse('VALIDATION_FAILED', 'the revision changes no term', { errors: [{ pointer: '/terms', message: 'changes nothing' }] });
  // New stops must still be executable; a counter before the commitment must leave the tender's expiry before them.
  if (command.payload.terms?.stops) {
    requirePickupInTime(terms, '/terms', now);
    if (!amendsCommitmentId) requireExpiryBeforePickup(t.expiresAt, terms);
  }
  const revision: TenderRevision = {
    number: previous.number + 1,
    authorOrganizationId: command.actor.organizationId!,
    createdAt: now,
    terms,
    ...(command.payload.reason ? { reason: command.payload.reason } : {}),
    changes,
    ...(amendsCommitmentId ? { amendsCommitmentId } : {}),
  };
  const revisions = t.revisions.map((r) => (r.number === previous.number && !r.outcome ? { ...r, outcome: 'superseded' as const } : r));
  return { revisions: [...revisions, revision], currentRevision: revision.number };
}

/** Whether the decisions on the current revision satisfy the policy. */
export function policySatisfied(t: Pick<TransportTender, 'decisions' | 'currentRevision' | 'revisions' | 'requiredDecisionPolicy' | 'issuingOrganizationId' | 'executingOrganizationId'>): boolean {
  const revision = t.revisions.find((r) => r.number === t.currentRevision)!;
  const accepted = new Set(t.decisions.filter((d) => d.revision === t.currentRevision && d.decision === 'accept').map((d) => d.organizationId));
  const recipient = [t.issuingOrganizationId, t.executingOrganizationId].find((o) => o !== revision.authorOrganizationId)!;
  // BILATERAL_REQUIRED: the revision's author and the other organization accept it explicitly.
  // INITIATOR_ONLY: presenting a revision is its author's acceptance; the recipient's accept suffices.
  return t.requiredDecisionPolicy.mode === 'INITIATOR_ONLY' ? accepted.has(recipient) : accepted.has(revision.authorOrganizationId) && accepted.has(recipient);
}

function commitInput(t: TransportTender, decisions: TenderDecision[]): CommitTenderInput {
  const revision = current(t);
  return {
    tenderId: t.id,
    revision: revision.number,
    ...(revision.amendsCommitmentId ? { previousCommitmentId: revision.amendsCommitmentId } : {}),
    ...(t.originatingProposalId ? { originatingProposalId: t.originatingProposalId, capacityOfferId: t.capacityOfferId, loadRequestId: t.loadRequestId } : {}),
    requiredDecisions: decisions.filter((d) => d.revision === revision.number && d.decision === 'accept'),
  };
}

export const transportTenderMachine = {
  kind: KIND,
  brokerCommands: ['expire', 'commit', 'abandonAcceptance', 'close'],

  create(command: Command<CreatePayload, TenderContext>, id: string, now: string): Transition<TransportTender> {
    const p = command.payload;
    const org = command.actor.organizationId;
    if (command.actor.kind !== 'connector' || !org) refuse('ACTOR_NOT_PERMITTED', 'only a connector can issue a tender');
    if (p.executingOrganizationId === org) refuse('VALIDATION_FAILED', 'a tender goes to another organization', { errors: [{ pointer: '/executingOrganizationId', message: 'must differ from the caller' }] });
    const context = command.context ?? {};
    if (p.originatingProposalId) {
      const proposal = context.proposal;
      if (!proposal || !proposal.participants.includes(org)) refuse('RESOURCE_NOT_FOUND', 'no such match proposal, or it is not visible to your organization');
      if (proposal.status !== 'accepted') refuse('INVALID_STATE_TRANSITION', 'a tender can follow only an accepted match proposal', { currentState: proposal.status });
      if (!proposal.participants.includes(p.executingOrganizationId)) {
        refuse('VALIDATION_FAILED', 'the executing organization must be the proposal\u2019s counterpart', { errors: [{ pointer: '/executingOrganizationId', message: 'is not the counterpart of the proposal' }] });
      }
    }
    const relationship = context.relationship;
    if (!relationship || !TENDER_SCOPES.every((s) => relationship.scopes.includes(s))) {
      refuse('RELATIONSHIP_INACTIVE', `a tender needs an active relationship with the executing organization granting ${TENDER_SCOPES.join(' and ')}`);
    }
    if (!(Date.parse(p.expiresAt) > Date.parse(now))) refuse('VALIDATION_FAILED', 'expiresAt must be in the future', { errors: [{ pointer: '/expiresAt', message: 'must be in the future' }] });
    const draftTerms = validateTerms(p.terms, '/terms');
    requirePickupInTime(draftTerms, '/terms', now);
    requireExpiryBeforePickup(p.expiresAt, draftTerms);
    const state: TransportTender = {
      ...firstVersion(id, org, now),
      ...(p.externalReferences ? { externalReferences: p.externalReferences } : {}),
      ...(p.extensions ? { extensions: p.extensions } : {}),
      status: 'draft',
      issuingOrganizationId: org,
      executingOrganizationId: p.executingOrganizationId,
      movementScope: p.movementScope,
      expiresAt: p.expiresAt,
      requiredDecisionPolicy: { mode: relationship.decisionPolicy.mode, relationshipId: relationship.id, relationshipVersion: relationship.resourceVersion },
      ...(p.originatingProposalId ? { originatingProposalId: p.originatingProposalId, capacityOfferId: context.proposal!.capacityOfferId, loadRequestId: context.proposal!.loadRequestId } : {}),
      amendmentPolicy: p.amendmentPolicy ?? { mode: 'bilateral' },
      cancellationPolicy: p.cancellationPolicy ?? { mode: 'either' },
      draftTerms,
      revisions: [],
      currentRevision: 0,
      decisions: [],
      commitmentIds: [],
    };
    // A draft is the issuer's alone: no event.
    return { state, events: [] };
  },

  commands: {
    // draft -> issued: revision 1 is presented to the executing organization.
    issue(t: TransportTender, command: Command, now: string): Transition<TransportTender> {
      requireIssuer(t, command);
      requireStatus(t, command, ['draft']);
      if (Date.parse(t.expiresAt) <= Date.parse(now)) refuse('RESOURCE_EXPIRED', 'expiresAt has passed');
      requirePickupInTime(t.draftTerms!, '/terms', now);
      requireRelationship(command, 'the tender cannot be issued');
      const revision: TenderRevision = { number: 1, authorOrganizationId: t.issuingOrganizationId, createdAt: now, terms: t.draftTerms!, changes: changesOf(undefined, t.draftTerms!) };
      const next = bump(t, now, { status: 'issued', issuedAt: now, revisions: [revision], currentRevision: 1 });
      delete next.draftTerms;
      return { state: next, events: [event(next, 'issued')] };
    },

    // Either party: revision n+1 with the changed terms and a reason. Accepts given on earlier
    // revisions do not carry over.
    counterpropose(t: TransportTender, command: Command<{ terms: Partial<TenderTerms>; reason: string; revision: number }>, now: string): Transition<TransportTender> {
      requireParty(t, command);
      requireStatus(t, command, ['issued']);
      requireCurrentRevision(t, command.payload.revision);
      const next = bump(t, now, revise(t, command, now));
      return { state: next, events: [event(next, 'countered')] };
    },

    // Either party accepts or rejects the current revision (of the tender or of an amendment).
    decide(t: TransportTender, command: Command<{ decision: 'accept' | 'reject'; revision: number; reason?: string }>, now: string): Transition<TransportTender> {
      requireParty(t, command);
      requireStatus(t, command, OPEN);
      requireCurrentRevision(t, command.payload.revision);
      if (t.status === 'issued' && Date.parse(t.expiresAt) <= Date.parse(now)) refuse('RESOURCE_EXPIRED', 'the tender has expired');
      const org = command.actor.organizationId!;
      const { decision, revision, reason } = command.payload;
      // An amendment of an agreed commitment is existing work; a new acceptance is not.
      if (decision === 'accept' && t.status === 'issued') requireRelationship(command, 'the tender can be rejected but not accepted');
      // A repeated accept of one revision by one organization changes nothing.
      if (decision === 'accept' && t.decisions.some((d) => d.organizationId === org && d.revision === revision && d.decision === 'accept')) return { state: t, events: [] };
      const record: TenderDecision = { id: command.commandId, organizationId: org, decision, revision, decidedAt: now, decidedBy: { organizationId: org, clientId: command.actor.clientId, ...(command.actor.userId ? { userId: command.actor.userId } : {}) }, ...(reason ? { reason } : {}) };
      const decisions = [...t.decisions, record];
      if (decision === 'reject') {
        const revisions = t.revisions.map((r) => (r.number === revision ? { ...r, outcome: 'rejected' as const } : r));
        // A rejected amendment leaves the commitment as it is; a rejected tender ends.
        if (t.status === 'amending') return { state: bump(t, now, { decisions, revisions, status: 'accepted' }), events: [] };
        return { state: bump(t, now, { decisions, revisions, status: 'rejected', rejectedAt: now, endReason: { reason: reason ?? 'rejected', organizationId: org } }), events: [event(t, 'rejected')] };
      }
      const candidate = { ...t, decisions };
      if (!policySatisfied(candidate)) return { state: bump(t, now, { decisions }), events: [] };
      return { state: bump(t, now, { decisions, status: 'accepting' }), events: [], effects: [{ flow: FLOWS.commitTender, input: commitInput(t, decisions), timeoutMs: FLOW_TIMEOUT_MS }] };
    },

    // The commit flow created the commitment.
    commit(t: TransportTender, command: Command<{ commitmentId: string; revision: number }>, now: string): Transition<TransportTender> {
      requireStatus(t, command, ['accepting']);
      const revisions = t.revisions.map((r) => (r.number === command.payload.revision ? { ...r, outcome: 'accepted' as const } : r));
      const next = bump(t, now, { status: 'accepted', acceptedAt: now, revisions, commitmentId: command.payload.commitmentId, commitmentIds: [...t.commitmentIds, command.payload.commitmentId] });
      return { state: next, events: [] };
    },

    // The commitment could not be made (the proposal's capacity is no longer committed).
    // Also the accepting deadline (no reason given): the flow never finished it.
    abandonAcceptance(t: TransportTender, command: Command<{ reason?: string }>, now: string): Transition<TransportTender> {
      requireStatus(t, command, ['accepting']);
      const reason = command.payload?.reason ?? 'the acceptance was not committed in time';
      if (t.commitmentId) return { state: bump(t, now, { status: 'accepted', endReason: { reason } }), events: [] };
      return { state: bump(t, now, { status: 'withdrawn', withdrawnAt: now, endReason: { reason } }), events: [event(t, 'withdrawn')] };
    },

    // POST /transport-commitments/{id}/amendments, routed here: a revision linked to the commitment.
    amend(t: TransportTender, command: Command<{ terms: Partial<TenderTerms>; reason: string; commitmentId: string }, AmendmentContext>, now: string): Transition<TransportTender> {
      // The commitment amended, as the caller named it (If-Match on the commitment) and as it stands.
      const commitment = command.context?.commitment;
      if (commitment && commitment.status !== 'active') {
        refuse('INVALID_STATE_TRANSITION', `the commitment is ${commitment.status}`, { currentState: commitment.status, currentResourceVersion: commitment.resourceVersion });
      }
      if (commitment && command.context?.observedCommitmentVersion !== commitment.resourceVersion) {
        refuse('STALE_RESOURCE_VERSION', `observed commitment version ${command.context?.observedCommitmentVersion}, current is ${commitment.resourceVersion}`, { currentState: commitment.status, currentResourceVersion: commitment.resourceVersion });
      }
      requireParty(t, command);
      requireStatus(t, command, ['accepted']);
      if (t.amendmentPolicy.mode === 'none') refuse('AMENDMENT_NOT_ALLOWED', 'the tender\u2019s amendment policy allows no amendment');
      if (command.payload.commitmentId !== t.commitmentId) refuse('STALE_RESOURCE_VERSION', 'only the current commitment version can be amended', { currentCommitmentId: t.commitmentId });
      const next = bump(t, now, { status: 'amending', ...revise(t, command, now, t.commitmentId) });
      return { state: next, events: [event(next, 'countered')] };
    },

    // The issuer withdraws a draft or an issued tender, with a reason.
    withdraw(t: TransportTender, command: Command<{ reason: string; reasonCode?: string }>, now: string): Transition<TransportTender> {
      requireIssuer(t, command);
      requireStatus(t, command, ['draft', 'issued']);
      const { reason, reasonCode } = command.payload ?? {};
      if (typeof reason !== 'string' || reason.trim() === '') refuse('VALIDATION_FAILED', 'a reason is required to withdraw', { errors: [{ pointer: '/reason', message: 'is required' }] });
      const next = bump(t, now, { status: 'withdrawn', withdrawnAt: now, endReason: { reason, ...(reasonCode ? { reasonCode } : {}), organizationId: t.issuingOrganizationId } });
      return { state: next, events: t.status === 'draft' ? [] : [event(next, 'withdrawn')] };
    },

    // expiresAt passed while the tender was open for decisions.
    expire(t: TransportTender, command: Command, now: string): Transition<TransportTender> {
      requireStatus(t, command, ['issued']);
      if (Date.parse(now) < Date.parse(t.expiresAt)) refuse('INVALID_STATE_TRANSITION', 'expiresAt has not passed', { currentState: t.status });
      const next = bump(t, now, { status: 'expired', expiredAt: now });
      return { state: next, events: [event(next, 'expired')] };
    },

    // Its commitment was cancelled: the tender is over.
    close(t: TransportTender, command: Command<{ reason: string; commitmentId: string }>, now: string): Transition<TransportTender> {
      requireStatus(t, command, ['accepted', 'amending']);
      if (command.payload.commitmentId !== t.commitmentId) refuse('INVALID_STATE_TRANSITION', 'not the tender\u2019s current commitment', { currentState: t.status });
      return { state: bump(t, now, { status: 'closed', closedAt: now, endReason: { reason: command.payload.reason } }), events: [] };
    },
  },

  deadline(t: TransportTender) {
    if (t.status === 'issued') return { at: t.expiresAt, command: 'expire' };
    // accepting began at updatedAt; its commit flow has ended long before this (FLOW_TIMEOUT_MS).
    if (t.status === 'accepting') return { at: new Date(Date.parse(t.updatedAt) + FLOW_DEADLINE_MS).toISOString(), command: 'abandonAcceptance' };
    return undefined;
  },
} satisfies Machine<TransportTender>;

const FIELDS = [
  'id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'externalReferences', 'extensions', 'status',
  'issuingOrganizationId', 'executingOrganizationId', 'movementScope', 'expiresAt', 'requiredDecisionPolicy', 'originatingProposalId',
  'capacityOfferId', 'loadRequestId', 'amendmentPolicy', 'cancellationPolicy', 'revisions', 'currentRevision', 'decisions',
  'issuedAt', 'acceptedAt', 'commitmentId', 'commitmentIds', 'withdrawnAt', 'rejectedAt', 'expiredAt', 'closedAt', 'endReason',
];

export const transportTender = defineResource({
  kind: KIND,
  retention: { purged: 'tender', relationship: { field: ['requiredDecisionPolicy', 'relationshipId'] } },
  collection: 'transport-tenders',
  workflowType: 'transportTenderWorkflow',
  table: 'transport_tenders',
  indexedFields: ['originatingProposalId'],
  statuses: ['draft', 'issued', 'accepting', 'accepted', 'amending', 'rejected', 'withdrawn', 'expired', 'closed'],
  terminalStatuses: ['rejected', 'withdrawn', 'expired', 'closed'],
  scopes: { read: 'tenders:read', write: 'tenders:publish' },
  // Both see the revisions, decisions and policies; the draft's terms are the issuer's alone
  // (and a draft is invisible to the executing organization anyway).
  fields: { ...Object.fromEntries(FIELDS.map((f) => [f, 'shared' as const])), draftTerms: 'private' },
  // A revision as it was presented: its outcome (accepted, rejected, superseded) comes later and is the decisions' record.
  ledger: (t) => [...listRecords(`transport-tenders/${t.id}`, 'revisions', t.revisions.map(({ outcome: _o, ...presented }) => presented)), ...listRecords(`transport-tenders/${t.id}`, 'decisions', t.decisions)],
  participants: (t) => (t.status === 'draft' || (t.status === 'withdrawn' && !t.issuedAt) ? [] : both(t)),
  searchAttributes: (t) => ({ owner: t.issuingOrganizationId, partner: t.executingOrganizationId, status: t.status }),
  machine: transportTenderMachine,
  // The events its transitions emit (domain/events.ts gathers every kind's), and what emits each.
  events: {
    'pcx.transport-tender.issued.v1': { emittedBy: 'issue' },
    'pcx.transport-tender.countered.v1': { emittedBy: 'a counterproposal (a new immutable revision)' },
    'pcx.transport-tender.rejected.v1': { emittedBy: 'a reject decision' },
    'pcx.transport-tender.withdrawn.v1': { emittedBy: 'withdraw' },
    'pcx.transport-tender.expired.v1': { emittedBy: 'expiry reached before every required accept' },
  },
});
