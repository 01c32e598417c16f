// Organization: a party of the exchange as a record (issue 29), registered, verified, suspended
// and ended by the protocol operator instead of a file and a restart; iSHARE's party register is
// the model (a legal identifier, an adherence status and period every service checks).
//
// status     how it gets there                          what gate 3 lets it do (api/gates.ts)
// pending    registered; not verified yet (or rejected)  manage itself: its record, connectors
// active     verify; reinstate                           everything its scopes allow
// suspended  suspend                                     read, and manage itself; no command
// ended      end; the adherence period's end (a timer)   nothing (terminal)
//
// Outside its adherence period (before `from`, from `until`) an active organization counts as
// ended at that second, before the timer has fired (`standingOf`). Every change is an event on
// the organization's feed and on the operator's (OPERATOR_AUDIENCE), kept for audit.
import { actorRef, bump, Command, Envelope, EventDraft, isBroker, Machine, OPERATOR_AUDIENCE, refuse, requiredReason, Transition, firstVersion } from './machine';
import { defineResource } from './resource';
import { FLOWS, type OrganizationEndedInput } from './flows';
import { RELATIONSHIP_SCOPES, SCOPES } from './scopes';

export type OrganizationStatus = 'pending' | 'active' | 'suspended' | 'ended';
export type VerificationStatus = 'pending' | 'verified' | 'rejected';

export interface ActorRef {
  organizationId: string;
  clientId?: string;
  userId?: string;
}

export interface Verification {
  status: VerificationStatus;
  /** When and by whom it was verified or rejected. */
  decidedAt?: string;
  decidedBy?: ActorRef;
  /** Where the operator's evidence is kept (a case number, a document reference): never the document. */
  evidenceReference?: string;
  reason?: string;
}

export interface Organization extends Envelope {
  status: OrganizationStatus;
  /** The broker-scoped id every other record names it by (ownerOrganizationId, audiences, tokens' org_id). */
  organizationId: string;
  name: string;
  /** `operator`: the protocol operator (only the seed makes one). */
  role: 'participant' | 'operator';
  /** Its legal identifier, checked by form and check digits (domain/legal-identifier.ts). */
  legalIdentifier?: { scheme: 'LEI' | 'VAT' | 'EORI'; value: string };
  verification: Verification;
  /** The period in which it takes part in the exchange: from verification (or the date set) until the end set, if any. */
  adherence: { from?: string; until?: string };
  /** The scopes it grants partners (the partnering policy of the relationship negotiation). */
  partneringPolicy: { grantedScopes: string[] };
  /** The scopes its connectors may be given. */
  scopeCeiling: string[];
  /** Its entry in the exchange's directory (GET /directory), as the operator curates it; absent: not listed. */
  directoryListing?: DirectoryListing;
  suspendedAt?: string;
  endedAt?: string;
  statusReason?: ActorRef & { reason: string; at: string };
}

/** How an organization appears in the directory where other organizations' admins find it to invite it. */
export interface DirectoryListing {
  listed: boolean;
  /** Its trade or lanes, for a planner choosing whom to invite. */
  description?: string;
  /** Where it is established (ISO 3166-1 alpha-2). */
  country?: string;
}

export const KIND = 'organization';

/** What the API looked up for the machine: the scope vocabularies a policy and a ceiling are chosen from. */
export interface OrganizationContext {
  relationshipScopes: readonly string[];
  connectorScopes: readonly string[];
  /** Set when the record is imported from the configuration files (the development seed): verified as it stands. */
  seed?: { source: string };
}

/** The context of every organization command: the vocabularies; `seed` for the import of the files. */
export const organizationContext = (seed?: { source: string }): OrganizationContext => ({ relationshipScopes: RELATIONSHIP_SCOPES, connectorScopes: SCOPES, ...(seed ? { seed } : {}) });

export interface CreatePayload {
  organizationId: string;
  name: string;
  role?: 'participant' | 'operator';
  legalIdentifier?: { scheme: 'LEI' | 'VAT' | 'EORI'; value: string };
  adherence?: { from?: string; until?: string };
  partneringPolicy?: { grantedScopes: string[] };
  scopeCeiling?: string[];
  directoryListing?: DirectoryListing;
}

const ORGANIZATION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{2,127}$/;

const event = (o: Organization, name: string): EventDraft => ({ type: `pcx.${KIND}.${name}.v1`, audience: [o.organizationId, OPERATOR_AUDIENCE] });

/** The operator's commands: a protocol operator (the API checks exchange:admin) or the broker. */
function requireOperator(command: Command): void {
  if (!isBroker(command.actor) && command.actor.kind !== 'operator') refuse('ACTOR_NOT_PERMITTED', 'only the protocol operator does this');
}


function timestamp(value: unknown, pointer: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) refuse('VALIDATION_FAILED', `${pointer.slice(1)} must be a timestamp`, { errors: [{ pointer, message: 'must be a UTC timestamp' }] });
  return new Date(Date.parse(value as string)).toISOString().replace(/\.000Z$/, 'Z');
}

function checkAdherence(a: unknown, now: string, pointer: string): { from?: string; until?: string } {
  if (a === undefined) return {};
  const from = timestamp((a as any)?.from, `${pointer}/from`);
  const until = timestamp((a as any)?.until, `${pointer}/until`);
  if (until && Date.parse(until) <= Date.parse(now)) refuse('VALIDATION_FAILED', 'the adherence period must end in the future', { errors: [{ pointer: `${pointer}/until`, message: 'must lie in the future' }] });
  if (from && until && Date.parse(from) >= Date.parse(until)) refuse('VALIDATION_FAILED', 'the adherence period must end after it starts', { errors: [{ pointer: `${pointer}/until`, message: 'must lie after from' }] });
  return { ...(from ? { from } : {}), ...(until ? { until } : {}) };
}

function checkScopes(scopes: unknown, allowed: readonly string[], pointer: string, what: string): string[] {
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string')) refuse('VALIDATION_FAILED', `${what} must be an array of scopes`, { errors: [{ pointer, message: 'must be an array of strings' }] });
  const unknown = (scopes as string[]).filter((s) => !allowed.includes(s));
  if (unknown.length) refuse('VALIDATION_FAILED', `${what}: not scopes it can hold: ${unknown.join(', ')}`, { errors: [{ pointer, message: `not allowed here: ${unknown.join(', ')}` }] });
  return [...new Set(scopes as string[])];
}

function requireLive(o: Organization, what: string): void {
  if (o.status === 'ended') refuse('INVALID_STATE_TRANSITION', `an ended organization cannot ${what}`, { currentState: o.status });
}

/**
 * An organization that ended takes its open offers and requests off the exchange: partners would
 * otherwise see listings nobody can act on until they expire (gate 3 refuses the organization
 * everything).
 */
const listingsEnd = (o: Organization, reason: string) => [
  { flow: FLOWS.organizationEnded, input: { organizationId: o.organizationId, reason: `the organization ended: ${reason}` } satisfies OrganizationEndedInput },
];

/** A directory listing as given (the API's schema checks it too; the seed's files are checked here). */
function checkDirectoryListing(l: DirectoryListing, pointer: string): DirectoryListing {
  const wrong = (where: string, message: string): never => refuse('VALIDATION_FAILED', `${pointer}${where}: ${message}`, { errors: [{ pointer: `${pointer}${where}`, message }] });
  if (typeof l !== 'object' || l === null || typeof l.listed !== 'boolean') wrong('/listed', 'must be true or false');
  if (l.description !== undefined && (typeof l.description !== 'string' || !l.description.trim() || l.description.length > 200)) wrong('/description', 'must be 1 to 200 characters');
  if (l.country !== undefined && (typeof l.country !== 'string' || !/^[A-Z]{2}$/.test(l.country))) wrong('/country', 'must be an ISO 3166-1 alpha-2 code');
  return { listed: l.listed, ...(l.description ? { description: l.description.trim() } : {}), ...(l.country ? { country: l.country } : {}) };
}

export const organizationMachine = {
  kind: KIND,
  brokerCommands: ['endAdherence'],

  create(command: Command<CreatePayload, OrganizationContext>, id: string, now: string): Transition<Organization> {
    requireOperator(command);
    const p = command.payload;
    const context = command.context!;
    if (typeof p.organizationId !== 'string' || !ORGANIZATION_ID.test(p.organizationId)) refuse('VALIDATION_FAILED', 'organizationId: 3 to 128 letters, digits, dots, colons, dashes, underscores', { errors: [{ pointer: '/organizationId', message: 'is not an organization id' }] });
    if (typeof p.name !== 'string' || !p.name.trim()) refuse('VALIDATION_FAILED', 'name is required', { errors: [{ pointer: '/name', message: 'is required' }] });
    // Only the seed makes an operator: the operator's role is configuration, not an API grant.
    const role = context.seed && p.role === 'operator' ? 'operator' : 'participant';
    const connectorCeiling = context.connectorScopes.filter((s) => role === 'operator' || s !== 'exchange:admin');
    const adherence = checkAdherence(p.adherence, now, '/adherence');
    const verification: Verification = context.seed
      ? { status: 'verified', decidedAt: now, decidedBy: actorRef(command), evidenceReference: context.seed.source }
      : { status: 'pending' };
    const state: Organization = {
      ...firstVersion(id, p.organizationId, now),
      status: context.seed ? 'active' : 'pending',
      organizationId: p.organizationId,
      name: p.name.trim(),
      role,
      ...(p.legalIdentifier ? { legalIdentifier: p.legalIdentifier } : {}),
      verification,
      adherence: context.seed ? { from: adherence.from ?? now, ...(adherence.until ? { until: adherence.until } : {}) } : adherence,
      partneringPolicy: { grantedScopes: p.partneringPolicy ? checkScopes(p.partneringPolicy.grantedScopes, context.relationshipScopes, '/partneringPolicy/grantedScopes', 'grantedScopes') : [...context.relationshipScopes] },
      scopeCeiling: p.scopeCeiling ? checkScopes(p.scopeCeiling, connectorCeiling, '/scopeCeiling', 'scopeCeiling') : connectorCeiling,
      ...(p.directoryListing ? { directoryListing: checkDirectoryListing(p.directoryListing, '/directoryListing') } : {}),
    };
    return { state, events: [event(state, 'registered')] };
  },

  commands: {
    // PATCH. The operator changes anything but the role; the organization's admins its name and partnering policy (not its directory listing: curated).
    update(o: Organization, command: Command<Partial<CreatePayload>, OrganizationContext>, now: string): Transition<Organization> {
      requireLive(o, 'be changed');
      const p = command.payload ?? {};
      const operator = isBroker(command.actor) || command.actor.kind === 'operator';
      if (!operator && command.actor.organizationId !== o.organizationId) refuse('ACTOR_NOT_PERMITTED', 'only the organization and the operator change it');
      const operatorOnly = (['legalIdentifier', 'adherence', 'scopeCeiling', 'directoryListing'] as const).filter((f) => p[f] !== undefined);
      if (!operator && operatorOnly.length) refuse('ACTOR_NOT_PERMITTED', `only the operator changes ${operatorOnly.join(', ')}`);
      const context = command.context!;
      const changes: Partial<Organization> = {};
      if (p.name !== undefined) {
        if (typeof p.name !== 'string' || !p.name.trim()) refuse('VALIDATION_FAILED', 'name must not be empty', { errors: [{ pointer: '/name', message: 'must not be empty' }] });
        changes.name = p.name.trim();
      }
      if (p.partneringPolicy !== undefined) changes.partneringPolicy = { grantedScopes: checkScopes(p.partneringPolicy?.grantedScopes, context.relationshipScopes, '/partneringPolicy/grantedScopes', 'grantedScopes') };
      if (p.scopeCeiling !== undefined) changes.scopeCeiling = checkScopes(p.scopeCeiling, context.connectorScopes.filter((s) => o.role === 'operator' || s !== 'exchange:admin'), '/scopeCeiling', 'scopeCeiling');
      if (p.adherence !== undefined) changes.adherence = { ...o.adherence, ...checkAdherence(p.adherence, now, '/adherence') };
      // The directory is curated: only the operator lists an organization (or takes it out).
      if (p.directoryListing !== undefined) changes.directoryListing = checkDirectoryListing(p.directoryListing, '/directoryListing');
      // A new legal identifier is a new party to verify: its verification starts again.
      if (p.legalIdentifier !== undefined && (p.legalIdentifier.scheme !== o.legalIdentifier?.scheme || p.legalIdentifier.value !== o.legalIdentifier?.value)) {
        changes.legalIdentifier = p.legalIdentifier;
        changes.verification = { status: 'pending' };
        if (o.status === 'active') changes.status = 'pending';
      }
      const next = bump(o, now, changes);
      return { state: next, events: [event(next, 'updated')] };
    },

    verify(o: Organization, command: Command<{ evidenceReference: string }>, now: string): Transition<Organization> {
      requireOperator(command);
      if (o.status !== 'pending') refuse('INVALID_STATE_TRANSITION', `a ${o.status} organization is not waiting for verification`, { currentState: o.status });
      if (!o.legalIdentifier) refuse('INVALID_STATE_TRANSITION', 'an organization without a legal identifier cannot be verified: set one first', { currentState: o.status });
      const evidenceReference = command.payload?.evidenceReference;
      if (typeof evidenceReference !== 'string' || !evidenceReference.trim()) refuse('VALIDATION_FAILED', 'evidenceReference is required: where the evidence is kept', { errors: [{ pointer: '/evidenceReference', message: 'is required' }] });
      const next = bump(o, now, {
        status: 'active',
        verification: { status: 'verified', decidedAt: now, decidedBy: actorRef(command), evidenceReference },
        adherence: { ...o.adherence, from: o.adherence.from ?? now },
      });
      return { state: next, events: [event(next, 'verified')] };
    },

    reject(o: Organization, command: Command<{ reason: string; evidenceReference?: string }>, now: string): Transition<Organization> {
      requireOperator(command);
      if (o.status !== 'pending') refuse('INVALID_STATE_TRANSITION', `a ${o.status} organization is not waiting for verification`, { currentState: o.status });
      const reason = requiredReason(command.payload);
      const evidenceReference = typeof command.payload?.evidenceReference === 'string' ? command.payload.evidenceReference : undefined;
      const next = bump(o, now, { verification: { status: 'rejected', decidedAt: now, decidedBy: actorRef(command), reason, ...(evidenceReference ? { evidenceReference } : {}) } });
      return { state: next, events: [event(next, 'rejected')] };
    },

    suspend(o: Organization, command: Command<{ reason: string }>, now: string): Transition<Organization> {
      requireOperator(command);
      if (o.status !== 'active') refuse('INVALID_STATE_TRANSITION', `a ${o.status} organization cannot be suspended`, { currentState: o.status });
      if (o.role === 'operator') refuse('ACTOR_NOT_PERMITTED', 'the operator organization cannot be suspended');
      const next = bump(o, now, { status: 'suspended', suspendedAt: now, statusReason: { reason: requiredReason(command.payload), ...actorRef(command), at: now } });
      return { state: next, events: [event(next, 'suspended')] };
    },

    reinstate(o: Organization, command: Command<{ reason: string }>, now: string): Transition<Organization> {
      requireOperator(command);
      if (o.status !== 'suspended') refuse('INVALID_STATE_TRANSITION', `a ${o.status} organization cannot be reinstated`, { currentState: o.status });
      const next = bump(o, now, { status: 'active', statusReason: { reason: requiredReason(command.payload), ...actorRef(command), at: now } });
      return { state: next, events: [event(next, 'reinstated')] };
    },

    end(o: Organization, command: Command<{ reason: string }>, now: string): Transition<Organization> {
      requireOperator(command);
      requireLive(o, 'end');
      if (o.role === 'operator') refuse('ACTOR_NOT_PERMITTED', 'the operator organization cannot be ended');
      const reason = requiredReason(command.payload);
      const next = bump(o, now, { status: 'ended', endedAt: now, statusReason: { reason, ...actorRef(command), at: now } });
      return { state: next, events: [event(next, 'ended')], effects: listingsEnd(o, reason) };
    },

    // The timer at the adherence period's end.
    endAdherence(o: Organization, command: Command, now: string): Transition<Organization> {
      if (o.status === 'ended' || !o.adherence.until || Date.parse(o.adherence.until) > Date.parse(now)) return { state: o, events: [] };
      const next = bump(o, now, { status: 'ended', endedAt: now, statusReason: { reason: 'the adherence period ended', ...actorRef(command), at: now } });
      return { state: next, events: [event(next, 'ended')], effects: listingsEnd(o, 'the adherence period ended') };
    },
  },

  deadline(o: Organization) {
    return o.status !== 'ended' && o.adherence.until ? { at: o.adherence.until, command: 'endAdherence' } : undefined;
  },
} satisfies Machine<Organization>;

/**
 * Where an organization stands now, for gate 3: its status, and `ended` outside its adherence
 * period (at its second, before the timer has fired; `pending` before it starts).
 */
export function standingOf(o: Pick<Organization, 'status' | 'adherence'>, now = Date.now()): OrganizationStatus {
  if (o.status !== 'active') return o.status;
  if (o.adherence.until && Date.parse(o.adherence.until) <= now) return 'ended';
  if (o.adherence.from && Date.parse(o.adherence.from) > now) return 'pending';
  return 'active';
}

const ENVELOPE = ['id', 'resourceVersion', 'ownerOrganizationId', 'createdAt', 'updatedAt', 'externalReferences', 'extensions', 'status', 'organizationId', 'name', 'role'];
const FIELDS = [...ENVELOPE, 'legalIdentifier', 'verification', 'adherence', 'partneringPolicy', 'scopeCeiling', 'directoryListing', 'suspendedAt', 'endedAt', 'statusReason'];

/** An organization id's record id: UUID (version 8) of its SHA-256, the same everywhere (api/organizations.ts). */
export const organization = defineResource({
  kind: KIND,
  retention: { kept: 'the registry\'s record of a participant: the records of its relationships name it, and an operator removes it by a command' },
  collection: 'organizations',
  workflowType: 'organizationWorkflow',
  table: 'organizations',
  indexedFields: ['organizationId'],
  statuses: ['pending', 'active', 'suspended', 'ended'],
  terminalStatuses: ['ended'],
  // Its own admins read it (connectors:manage); the operator (exchange:admin) reads and manages every one.
  scopes: { read: 'connectors:manage', write: 'exchange:admin' },
  operatorFeed: true,
  fields: Object.fromEntries(FIELDS.map((f) => [f, 'envelope' as const])),
  searchAttributes: (o) => ({ owner: o.organizationId, status: o.status }),
  machine: organizationMachine,
  events: {
    'pcx.organization.registered.v1': { emittedBy: 'create' },
    'pcx.organization.updated.v1': { emittedBy: 'update' },
    'pcx.organization.verified.v1': { emittedBy: 'verify' },
    'pcx.organization.rejected.v1': { emittedBy: 'reject' },
    'pcx.organization.suspended.v1': { emittedBy: 'suspend' },
    'pcx.organization.reinstated.v1': { emittedBy: 'reinstate' },
    'pcx.organization.ended.v1': { emittedBy: 'end; the timer at the adherence period\u2019s end' },
  },
});
