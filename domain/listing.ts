// What CapacityOffer and LoadRequest share: a draft that its owner edits, publishes and
// withdraws, that expires at expiresAt and that a protocol operator can cancel. Both are
// "listings": published to partners, never re-published after they end. Each resource adds its
// own fields and its broker-only matching commands (domain/capacity-offer.ts,
// domain/load-request.ts).
import { bump, Command, Deadline, Effect, Envelope, EventDraft, invalidTransition, isBroker, refuse, Transition, type SearchAttributeValues, firstVersion } from './machine';

export interface ReasonRecord {
  reason: string;
  reasonCode?: string;
  at: string;
}

/**
 * The least time a match needs before a listing's window ends: both decisions, a tender, dispatch
 * and the drive to the pickup (docs/decisions.md, "Listings in time"). A listing whose window ends
 * sooner is not published, lapses when it gets there, and is never proposed.
 */
export const EXECUTION_LEAD_MINUTES = 60;
export const EXECUTION_LEAD_MS = EXECUTION_LEAD_MINUTES * 60_000;

/** Why a listing ended by the clock: its expiresAt, or a window that can no longer be met. */
export interface ExpiryRecord {
  reasonCode: 'EXPIRES_AT_REACHED' | 'WINDOW_PASSED';
  /** WINDOW_PASSED: the window that can no longer be met ("availabilityWindow", "pickupWindow", ...). */
  window?: string;
  reason: string;
}

export interface Listing extends Envelope {
  expiresAt?: string;
  visibility?: { mode: 'partners' | 'groups' | 'open'; organizationIds?: string[]; groups?: string[] };
  publishedAt?: string;
  matchedAt?: string;
  withdrawnAt?: string;
  expiredAt?: string;
  cancelledAt?: string;
  withdrawal?: ReasonRecord;
  cancellation?: ReasonRecord;
  cancelledBy?: { kind: string; organizationId?: string; clientId?: string };
  expiry?: ExpiryRecord;
  /** An occurrence of a recurring series (domain/listing-series.ts): the series, and the local date it falls on. */
  seriesId?: string;
  occurrenceKey?: string;
}

/** Facts the series' flow gives a listing's create: which occurrence of which series it is (never from the API). */
export interface ListingCreateContext {
  occurrence?: { seriesId: string; key: string };
}

/** Facts the API looked up for a listing command. */
export interface ListingContext {
  /** Publish: whether the owner has at least one active relationship in force now. */
  ownerHasActiveRelationship?: boolean;
}

export interface ListingSpec<S extends Listing> {
  kind: string;
  /** Draft fields the owner may set and patch. */
  fields: readonly string[];
  /** Fields that must be present to publish (specification, publish row). */
  requiredToPublish: readonly string[];
  /** Capacity-like fields that need at least one dimension to publish. */
  nonEmptyToPublish: readonly string[];
  /** Time-window fields whose start must precede their end. */
  windows: readonly string[];
  /** The windows a match must still be able to meet: the listing lapses when the first cannot be. */
  lapseWindows: readonly string[];
  /** Statuses in which the listing is live: withdraw and expiry apply. */
  live: readonly string[];
  /** Statuses an operator may cancel from. */
  cancellable: readonly string[];
  /** Resource-specific publish checks (pointer, message). */
  publishChecks?: (state: S) => Array<{ pointer: string; message: string }>;
  /** Initial values of resource-specific bookkeeping fields. */
  initial: Partial<S>;
  /** Effects of publication on other resources (matching runs). */
  onPublished?: (state: S) => Effect[];
  /** Effects of the listing ending (withdrawn, expired, cancelled): its open proposals end too. */
  onEnded?: (state: S) => Effect[];
  /** Its own fields as the listing ends (an offer's tentative reservations are released). */
  ending?: (state: S) => Partial<S>;
}

function reasonOf(command: Command<Partial<ReasonPayload>>, now: string): ReasonRecord {
  const { reason, reasonCode } = command.payload ?? {};
  if (typeof reason !== 'string' || reason.trim() === '') {
    refuse('VALIDATION_FAILED', `a reason is required to ${command.name}`, { errors: [{ pointer: '/reason', message: 'is required' }] });
  }
  return { reason, ...(reasonCode ? { reasonCode } : {}), at: now };
}

export function requireOwner(state: Listing, command: Command) {
  if (command.actor.kind !== 'connector' || command.actor.organizationId !== state.ownerOrganizationId) {
    refuse('ACTOR_NOT_PERMITTED', `only the owner may ${command.name} this resource`);
  }
}

export function requireStatus(kind: string, state: Listing, command: Command, allowed: readonly string[]) {
  if (!allowed.includes(state.status)) invalidTransition(kind, command.name, state.status);
}

/** The payload of commands that need a reason (withdraw, cancel). */
export interface ReasonPayload {
  reason: string;
  reasonCode?: string;
}

/** Statuses a listing ends in: terminal, no command accepted, never re-published (rules 5, 6). */
export const LISTING_TERMINAL = ['withdrawn', 'expired', 'cancelled'] as const;

/** Disclosure classes of the fields every listing has (domain/resource.ts). */
export const LISTING_FIELDS = {
  id: 'envelope', resourceVersion: 'envelope', ownerOrganizationId: 'envelope', createdAt: 'envelope', updatedAt: 'envelope', status: 'envelope',
  expiresAt: 'lifecycle', expiry: 'lifecycle', publishedAt: 'lifecycle', matchedAt: 'lifecycle', withdrawnAt: 'lifecycle', expiredAt: 'lifecycle', cancelledAt: 'lifecycle',
  restrictedDetails: 'restricted',
  externalReferences: 'references',
  withdrawal: 'audit', cancellation: 'audit', cancelledBy: 'audit',
  extensions: 'private', visibility: 'private',
  // Partners see which occurrence of which series a listing is, as its explanation says.
  seriesId: 'terms', occurrenceKey: 'terms',
} as const;

/**
 * What the definitions of the listing kinds (capacity offers, load requests) share beside their
 * fields: records purged under the listing class, a read model of their own, the terminal
 * statuses, and the search attributes every listing has (its owner, its status).
 */
export const LISTING_DEFINITION = {
  retention: { purged: 'listing' },
  readModel: 'own',
  terminalStatuses: LISTING_TERMINAL,
  searchAttributes: (state: Listing): SearchAttributeValues => ({ owner: state.ownerOrganizationId, status: state.status }),
} as const;

/** The fields of a create's payload the owner may set. */
function pick<S>(editable: readonly string[], payload: Record<string, unknown>): Partial<S> {
  const out: Record<string, unknown> = {};
  for (const field of editable) if (payload[field] !== undefined) out[field] = payload[field];
  return out as Partial<S>;
}

/** What keeps a draft from being published: each missing or invalid field, with its pointer. */
function publishProblems<S extends Listing>(spec: ListingSpec<S>, state: S, now: string) {
  const errors: Array<{ pointer: string; message: string }> = [];
  const record = state as unknown as Record<string, any>;
  for (const field of spec.requiredToPublish) if (record[field] === undefined) errors.push({ pointer: `/${field}`, message: 'is required to publish' });
  for (const field of spec.nonEmptyToPublish) {
    if (record[field] !== undefined && Object.keys(record[field]).length === 0) errors.push({ pointer: `/${field}`, message: 'needs at least one dimension to publish' });
  }
  for (const field of spec.windows) {
    const w = record[field];
    if (w && Date.parse(w.start) >= Date.parse(w.end)) errors.push({ pointer: `/${field}/end`, message: 'must be after start' });
  }
  if (state.expiresAt && Date.parse(state.expiresAt) <= Date.parse(now)) errors.push({ pointer: '/expiresAt', message: 'must be in the future' });
  errors.push(...(spec.publishChecks?.(state) ?? []));
  return errors;
}

/** When the listing can no longer be matched in time: the earliest of its lapse windows' ends, less the lead. */
export function lapseOf(spec: Pick<ListingSpec<Listing>, 'lapseWindows'>, state: Listing): { at: number; window: string; end: string } | undefined {
  const record = state as unknown as Record<string, { end?: string } | undefined>;
  let first: { at: number; window: string; end: string } | undefined;
  for (const window of spec.lapseWindows) {
    const end = record[window]?.end;
    const at = typeof end === 'string' ? Date.parse(end) - EXECUTION_LEAD_MS : NaN;
    if (Number.isFinite(at) && (!first || at < first.at)) first = { at, window, end: end as string };
  }
  return first;
}

const WINDOW_WORDS: Record<string, string> = { availabilityWindow: 'availability window', pickupWindow: 'pickup window', deliveryWindow: 'delivery window' };

/** "the pickup window ends at 2026-11-28T10:00:00Z, less than 60 minutes from now": why it is too late. */
function tooLate(lapse: { window: string; end: string }): string {
  return `the ${WINDOW_WORDS[lapse.window] ?? lapse.window} ends at ${lapse.end}, less than ${EXECUTION_LEAD_MINUTES} minutes from now: no match could be executed in it`;
}

export function listingMachine<S extends Listing>(spec: ListingSpec<S>) {
  // Events of a listing go to its owner and to the partners it is shared with at that moment.
  const event = (state: S, name: string): EventDraft => ({
    type: `pcx.${spec.kind}.${name}.v1`,
    audience: [state.ownerOrganizationId],
    shareWithPartners: true,
  });

  // What the owner may set on a draft: the resource's fields plus the envelope's free parts.
  const editable: readonly string[] = [...spec.fields, 'externalReferences', 'extensions'];

  return {
    kind: spec.kind,

    create(command: Command<Record<string, unknown>, ListingCreateContext>, id: string, now: string): Transition<S> {
      if (command.actor.kind !== 'connector' || !command.actor.organizationId) refuse('ACTOR_NOT_PERMITTED', 'only a connector can create a resource');
      const occurrence = command.context?.occurrence;
      const state = {
        ...spec.initial,
        ...pick<S>(editable, command.payload ?? {}),
        ...(occurrence ? { seriesId: occurrence.seriesId, occurrenceKey: occurrence.key } : {}),
        ...firstVersion(id, command.actor.organizationId, now),
        status: 'draft',
      } as S;
      return { state, events: [] };
    },

    commands: {
      // PATCH of draft data (JSON merge patch; null removes). Refused once published.
      update(state: S, command: Command<Record<string, unknown>>, now: string): Transition<S> {
        requireOwner(state, command);
        requireStatus(spec.kind, state, command, ['draft']);
        const next = bump(state, now, {});
        const record = next as unknown as Record<string, unknown>;
        for (const [field, value] of Object.entries(command.payload ?? {})) {
          if (!editable.includes(field)) continue;
          if (value === null) delete record[field];
          else record[field] = value;
        }
        return { state: next, events: [] };
      },

      publish(state: S, command: Command<Record<string, never>, ListingContext>, now: string): Transition<S> {
        requireOwner(state, command);
        requireStatus(spec.kind, state, command, ['draft']);
        const errors = publishProblems(spec, state, now);
        if (errors.length) refuse('RESOURCE_NOT_PUBLISHABLE', 'the resource cannot be published yet', { errors });
        const lapse = lapseOf(spec, state);
        if (lapse && lapse.at <= Date.parse(now)) {
          refuse('WINDOW_PASSED', `too late to publish: ${tooLate(lapse)}`, { errors: [{ pointer: `/${lapse.window}/end`, message: `ends less than ${EXECUTION_LEAD_MINUTES} minutes from now` }] });
        }
        const context: ListingContext = command.context ?? {};
        if (state.visibility?.mode !== 'open' && !context.ownerHasActiveRelationship) {
          refuse('RELATIONSHIP_INACTIVE', 'publishing to partners needs at least one active partner relationship (or visibility open)');
        }
        const next = bump(state, now, { status: 'published', publishedAt: now } as Partial<S>);
        return { state: next, events: [event(next, 'published')], effects: spec.onPublished?.(next) ?? [] };
      },

      // From a live state, or from draft (the owner discards it; partners never saw it).
      withdraw(state: S, command: Command<ReasonPayload>, now: string): Transition<S> {
        requireOwner(state, command);
        requireStatus(spec.kind, state, command, ['draft', ...spec.live]);
        const next = bump(state, now, { ...spec.ending?.(state), status: 'withdrawn', withdrawnAt: now, withdrawal: reasonOf(command, now) } as Partial<S>);
        return { state: next, events: [event(next, 'withdrawn')], effects: spec.onEnded?.(state) ?? [] };
      },

      expire(state: S, command: Command, now: string): Transition<S> {
        requireStatus(spec.kind, state, command, spec.live);
        if (!state.expiresAt || Date.parse(state.expiresAt) > Date.parse(now)) invalidTransition(spec.kind, 'expire', state.status);
        const next = bump(state, now, { ...spec.ending?.(state), status: 'expired', expiredAt: now, expiry: { reasonCode: 'EXPIRES_AT_REACHED', reason: `listed until ${state.expiresAt}` } } as Partial<S>);
        return { state: next, events: [event(next, 'expired')], effects: spec.onEnded?.(state) ?? [] };
      },

      // The broker ends a live listing whose window can no longer be met (before its expiresAt):
      // expired, with the window named, its own event; its open proposals end with it.
      lapse(state: S, command: Command, now: string): Transition<S> {
        requireStatus(spec.kind, state, command, spec.live);
        const lapse = lapseOf(spec, state);
        if (!lapse || lapse.at > Date.parse(now)) invalidTransition(spec.kind, 'lapse', state.status);
        const expiry: ExpiryRecord = { reasonCode: 'WINDOW_PASSED', window: lapse.window, reason: tooLate(lapse) };
        const next = bump(state, now, { ...spec.ending?.(state), status: 'expired', expiredAt: now, expiry } as Partial<S>);
        return { state: next, events: [event(next, 'lapsed')], effects: spec.onEnded?.(state) ?? [] };
      },

      // Administrative cancel by a protocol operator (the API only sends it for an operator), or by the broker.
      cancel(state: S, command: Command<ReasonPayload>, now: string): Transition<S> {
        // The broker cancels the open listings of an organization that ended (workflows/flows/organizations.ts).
        if (command.actor.kind !== 'operator' && !isBroker(command.actor)) refuse('ACTOR_NOT_PERMITTED', 'only a protocol operator may cancel');
        requireStatus(spec.kind, state, command, spec.cancellable);
        const next = bump(state, now, {
          ...spec.ending?.(state),
          status: 'cancelled',
          cancelledAt: now,
          cancellation: reasonOf(command, now),
          cancelledBy: { kind: 'operator', organizationId: command.actor.organizationId, clientId: command.actor.clientId },
        } as Partial<S>);
        return { state: next, events: [event(next, 'cancelled')], effects: spec.onEnded?.(state) ?? [] };
      },
    },

    // expiresAt, or sooner the moment its window can no longer be met (a lapse).
    deadline(state: S): Deadline | undefined {
      if (!spec.live.includes(state.status)) return undefined;
      const expiry: Deadline | undefined = state.expiresAt ? { at: state.expiresAt, command: 'expire' } : undefined;
      const lapse = lapseOf(spec, state);
      if (lapse && (!expiry || lapse.at < Date.parse(expiry.at))) return { at: new Date(lapse.at).toISOString(), command: 'lapse' };
      return expiry;
    },
  };
}
