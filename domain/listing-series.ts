// ListingSeries: an owner's recurring capacity offer or load request (issue 33 part 2;
// docs/decisions.md, "Recurring corridors: the series"). The terms of one occurrence (a listing's
// fields but its windows and expiresAt), a calendar (domain/recurrence.ts: an RRULE over local dates
// in an IANA zone, and the windows as local times), a horizon, and the occurrences it has published
// so far, each an ordinary listing whose id derives from the series id and the occurrence's key.
//
// Its clock is its entity workflow's deadline: the moment the next occurrence becomes due
// (`dueAt`). Then the broker sends `publishDue`, which records the due occurrences as materialized
// and starts the flow that creates and publishes their listings with the owner's commands
// (workflows/flows/series.ts). A change (revise) applies to future occurrences only, as a new
// revision of the calendar; pause stops the clock, resume restarts it, end withdraws the occurrences
// not yet begun (published, not matched) with the reason. Pure, like every machine.
import { bump, Command, Deadline, Effect, Envelope, Machine, refuse, type Actor, firstVersion } from './machine';
import { derivedId, DERIVED } from './ids';
import { ReasonRecord, requireOwner, requireStatus } from './listing';
import { OFFER_FIELDS } from './capacity-offer';
import { REQUEST_FIELDS } from './load-request';
import {
  dueAt,
  dueOccurrences,
  nextOccurrence,
  occurrenceAt,
  RecurrenceError,
  recurrenceProblems,
  reviseCalendar,
  seriesCalendar,
  type Horizon,
  type Occurrence,
  type OccurrenceTemplate,
  type Recurrence,
  type RecurrenceProblem,
  type SeriesCalendar,
  type ZonedWindow,
} from './recurrence';
import { defineResource } from './resource';
import { FLOWS } from './flows';

export const KIND = 'listing-series';

export type SeriesStatus = 'active' | 'paused' | 'ended';
export type SeriesListingKind = 'capacityOffer' | 'loadRequest';

/** What the series knows of each listing it published: by occurrence key. */
export interface MaterializedOccurrence {
  listingId: string;
  /** The calendar revision the occurrence was made under. */
  revision: number;
  /** Its first window's start: occurrences not yet begun are withdrawn when the series ends. */
  startsAt: string;
  at: string;
}

/** A date of the series its owner skipped (RFC 5545's EXDATE, after the fact). */
export interface SkippedOccurrence {
  key: string;
  reason?: string;
  at: string;
}

/** One revision of the series as its owner sees it: what changed and from which date on. */
export interface SeriesRevision {
  revision: number;
  /** First occurrence key (local date) it governs. */
  from: string;
  /** The occurrences' terms under this revision. */
  terms: Record<string, unknown>;
  at: string;
  by?: { organizationId?: string; clientId?: string; userId?: string };
}

export interface ListingSeries extends Envelope {
  status: SeriesStatus;
  listingKind: SeriesListingKind;
  /** The terms of the newest revision (each occurrence carries its own revision's). */
  terms: Record<string, unknown>;
  /** The newest revision's recurrence and template. */
  recurrence: Recurrence;
  template: OccurrenceTemplate;
  horizon: Horizon;
  /** Every revision of the calendar (domain/recurrence.ts). */
  calendar: SeriesCalendar;
  revisions: SeriesRevision[];
  /** Occurrence key -> the listing it became. */
  occurrences: Record<string, MaterializedOccurrence>;
  skipped: SkippedOccurrence[];
  /**
   * Every occurrence key up to this one has been dealt with: published, skipped, or passed (due
   * while the series was paused, or no longer publishable). The clock looks for the next after it.
   */
  cursor?: string;
  /** Who created the series: the occurrences are created and published in its name. */
  createdBy: { organizationId: string; clientId?: string; userId?: string };
  pausedAt?: string;
  resumedAt?: string;
  endedAt?: string;
  ending?: ReasonRecord;
}

/** Flow names of the series (domain/flows.ts; their code in workflows/flows/series.ts). */
export const SERIES_FLOWS = {
  publish: FLOWS.publishOccurrences,
  withdraw: FLOWS.withdrawOccurrences,
} as const;

/** One occurrence for the flow to create and publish. */
export interface OccurrenceOrder {
  key: string;
  listingId: string;
  /** The listing's create payload: the revision's terms, the occurrence's windows and expiresAt. */
  payload: Record<string, unknown>;
}

export interface PublishOccurrencesInput {
  seriesId: string;
  /** The listing resource kind. */
  kind: 'capacity-offer' | 'load-request';
  ownerOrganizationId: string;
  /** The actor the owner's commands carry: the connector (and user) that created the series. */
  actor: Actor;
  occurrences: OccurrenceOrder[];
}

export interface WithdrawOccurrencesInput {
  seriesId: string;
  kind: 'capacity-offer' | 'load-request';
  actor: Actor;
  occurrences: Array<{ key: string; listingId: string }>;
  reason: string;
  reasonCode: string;
}

const LISTING_KINDS: Record<SeriesListingKind, { kind: 'capacity-offer' | 'load-request'; fields: readonly string[]; windows: string[]; required: string[] }> = {
  capacityOffer: {
    kind: 'capacity-offer',
    fields: OFFER_FIELDS,
    windows: ['availabilityWindow'],
    required: ['originArea', 'destinationArea', 'vehicleProfile', 'availableCapacity', 'visibility'],
  },
  loadRequest: {
    kind: 'load-request',
    fields: REQUEST_FIELDS,
    windows: ['pickupWindow', 'deliveryWindow'],
    required: ['pickupArea', 'deliveryArea', 'requiredCapacity', 'vehicleRequirements', 'goodsProfile', 'visibility'],
  },
};

/** The listing resource kind of a series. */
export const listingKindOf = (series: Pick<ListingSeries, 'listingKind'>) => LISTING_KINDS[series.listingKind].kind;

/**
 * The listing id of an occurrence: the series id as a UUIDv8 (derivedId, salt `seriesOccurrence`)
 * whose last five hex digits are the key's day number since 1970-01-01. One listing per key, the
 * same id whoever asks and however often (a restart in the middle of a horizon creates none twice).
 */
export function occurrenceListingId(seriesId: string, key: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(key);
  if (!m) throw new Error(`not an occurrence key: ${key}`);
  const day = Math.floor(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000);
  if (day < 0 || day > 0xfffff) throw new Error(`occurrence key out of range: ${key}`);
  const base = derivedId(seriesId, DERIVED.seriesOccurrence);
  return `${base.slice(0, 31)}${day.toString(16).padStart(5, '0')}`;
}

/** The date before a local date (YYYY-MM-DD): plain calendar arithmetic, no zone involved. */
function dayBefore(key: string): string {
  const ms = Date.parse(`${key}T00:00:00Z`) - 86_400_000;
  return new Date(ms).toISOString().slice(0, 10);
}

const isRecord = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Problems of a series' terms for its listing kind: only the listing's fields, none of its times, what publishing needs. */
function termsProblems(listingKind: SeriesListingKind, terms: unknown): RecurrenceProblem[] {
  if (!isRecord(terms)) return [{ pointer: '/terms', message: 'is required: the fields of one occurrence' }];
  const spec = LISTING_KINDS[listingKind];
  const problems: RecurrenceProblem[] = [];
  for (const field of Object.keys(terms)) {
    if (spec.windows.includes(field) || field === 'expiresAt') problems.push({ pointer: `/terms/${field}`, message: 'comes from the template: each occurrence has its own' });
    else if (!spec.fields.includes(field) && field !== 'externalReferences' && field !== 'extensions') problems.push({ pointer: `/terms/${field}`, message: `is not a field of a ${spec.kind}` });
  }
  for (const field of spec.required) if (terms[field] === undefined) problems.push({ pointer: `/terms/${field}`, message: 'is required: every occurrence is published with it' });
  return problems;
}

/** The template's windows must be exactly the listing's. */
function templateProblems(listingKind: SeriesListingKind, template: OccurrenceTemplate | undefined): RecurrenceProblem[] {
  if (!isRecord(template) || !isRecord(template.windows)) return [];
  const wanted = LISTING_KINDS[listingKind].windows;
  const problems: RecurrenceProblem[] = [];
  for (const name of wanted) if (!(name in template.windows)) problems.push({ pointer: `/template/windows/${name}`, message: `is required for a ${LISTING_KINDS[listingKind].kind}` });
  for (const name of Object.keys(template.windows)) if (!wanted.includes(name)) problems.push({ pointer: `/template/windows/${name}`, message: `is not a window of a ${LISTING_KINDS[listingKind].kind}` });
  return problems;
}

function invalid(problems: RecurrenceProblem[]): never {
  refuse('VALIDATION_FAILED', `the series is not valid: ${problems.map((p) => `${p.pointer} ${p.message}`).join('; ')}`, { errors: problems });
}

/** A calendar function's refusal as the API's: VALIDATION_FAILED with its pointers. */
function calendarCall<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof RecurrenceError) invalid(err.problems);
    throw err;
  }
}

export interface CreatePayload {
  listingKind: SeriesListingKind;
  terms: Record<string, unknown>;
  recurrence: Recurrence;
  template: OccurrenceTemplate;
  horizon: Horizon;
  externalReferences?: Envelope['externalReferences'];
  extensions?: Record<string, unknown>;
}

export interface RevisePayload {
  /** First occurrence key the change governs; default today in the series' zone. */
  from?: string;
  recurrence?: Recurrence;
  template?: OccurrenceTemplate;
  terms?: Record<string, unknown>;
  /** Applies at once to what is published next. */
  horizon?: Horizon;
}

/**
 * How long the series remembers an occurrence (and a skipped date) after it began: a daily series
 * would otherwise carry every date of its life in its state, its history and its document. Older
 * ones lie behind the cursor, where nothing looks again (a revision applies from today on), and
 * their listings keep `seriesId` and `occurrenceKey` (docs/decisions.md, "Recurring corridors: the series").
 */
export const KEEP_PAST_DAYS = 35;
const KEEP_PAST_MS = KEEP_PAST_DAYS * 86_400_000;

/** The occurrences and skipped dates of the state, less those that began (or fell) before `beforeMs`. */
function prunedBefore(state: ListingSeries, beforeMs: number): Pick<ListingSeries, 'occurrences' | 'skipped'> {
  const occurrences = Object.fromEntries(Object.entries(state.occurrences).filter(([key, o]) => Date.parse(o.startsAt) >= beforeMs || (state.cursor !== undefined && key > state.cursor)));
  const day = new Date(beforeMs).toISOString().slice(0, 10);
  const skipped = state.skipped.filter((s) => s.key >= day || (state.cursor !== undefined && s.key > state.cursor));
  return { occurrences, skipped };
}

const handled = (state: ListingSeries, key: string) => key in state.occurrences || state.skipped.some((s) => s.key === key);

/** Walks at most this many occurrences in one look (a year of a daily series). */
const WALK_LIMIT = 400;

/**
 * The first occurrence after the cursor that is neither published nor skipped, and, with `nowMs`,
 * the last key due by then (the new cursor): the clock's one question, asked the same way by the
 * deadline and by publishDue so that a deadline always moves the cursor.
 */
function walk(state: ListingSeries, nowMs?: number): { next?: Occurrence; through?: string } {
  let through = state.cursor;
  for (let i = 0; i < WALK_LIMIT; i++) {
    const o = nextOccurrence(state.calendar, through);
    if (!o) return { through };
    if (handled(state, o.key) || (nowMs !== undefined && Date.parse(dueAt(o, state.horizon)) <= nowMs)) {
      through = o.key;
      continue;
    }
    return { next: o, through };
  }
  return { through };
}

/** The listing's create payload of an occurrence: its revision's terms, windows and expiresAt. */
function occurrencePayload(state: ListingSeries, o: Occurrence): Record<string, unknown> {
  const terms = state.revisions.find((r) => r.revision === o.revision)?.terms ?? state.terms;
  const windows: Record<string, ZonedWindow> = o.windows;
  return { ...terms, ...windows, expiresAt: o.expiresAt };
}

function event(state: ListingSeries, name: string) {
  return { type: `pcx.${KIND}.${name}.v1`, audience: [state.ownerOrganizationId] };
}

function reasonOf(command: Command<Partial<{ reason: string; reasonCode: string }>>, now: string): ReasonRecord {
  const { reason, reasonCode } = command.payload ?? {};
  if (typeof reason !== 'string' || reason.trim() === '') refuse('VALIDATION_FAILED', `a reason is required to ${command.name}`, { errors: [{ pointer: '/reason', message: 'is required' }] });
  return { reason, ...(reasonCode ? { reasonCode } : {}), at: now };
}

const actorOf = (state: ListingSeries): Actor => ({ kind: 'connector', ...state.createdBy });

export const listingSeriesMachine = {
  kind: KIND,
  brokerCommands: ['publishDue'],

  create(command: Command<CreatePayload>, id: string, now: string) {
    if (command.actor.kind !== 'connector' || !command.actor.organizationId) refuse('ACTOR_NOT_PERMITTED', 'only a connector can create a resource');
    const p = command.payload ?? ({} as CreatePayload);
    if (p.listingKind !== 'capacityOffer' && p.listingKind !== 'loadRequest') invalid([{ pointer: '/listingKind', message: 'must be capacityOffer or loadRequest' }]);
    const problems = [
      ...termsProblems(p.listingKind, p.terms),
      ...recurrenceProblems(p.recurrence, p.template, p.horizon),
      ...templateProblems(p.listingKind, p.template),
    ];
    if (p.horizon === undefined) problems.push({ pointer: '/horizon', message: 'is required: how far ahead occurrences are published' });
    if (problems.length) invalid(problems);
    const calendar = calendarCall(() => seriesCalendar(p.recurrence, p.template));
    const { organizationId, clientId, userId } = command.actor;
    const state: ListingSeries = {
      ...firstVersion(id, organizationId, now),
      status: 'active',
      listingKind: p.listingKind,
      terms: p.terms,
      recurrence: p.recurrence,
      template: p.template,
      horizon: p.horizon,
      calendar,
      revisions: [{ revision: 1, from: p.recurrence.startDate, terms: p.terms, at: now, by: { organizationId, ...(clientId ? { clientId } : {}), ...(userId ? { userId } : {}) } }],
      occurrences: {},
      skipped: [],
      createdBy: { organizationId, ...(clientId ? { clientId } : {}), ...(userId ? { userId } : {}) },
      ...(p.externalReferences ? { externalReferences: p.externalReferences } : {}),
      ...(p.extensions ? { extensions: p.extensions } : {}),
    };
    return { state, events: [event(state, 'created')] };
  },

  commands: {
    // A change from a date on (future occurrences only): a new revision of the calendar; the
    // occurrences already published keep theirs (reviseCalendar's `kept`).
    revise(state: ListingSeries, command: Command<RevisePayload>, now: string) {
      requireOwner(state, command);
      requireStatus(KIND, state, command, ['active', 'paused']);
      const p = command.payload ?? {};
      const recurrence = p.recurrence ?? state.recurrence;
      const template = p.template ?? state.template;
      const terms = p.terms ?? state.terms;
      const horizon = p.horizon ?? state.horizon;
      const problems = [
        ...(p.terms !== undefined ? termsProblems(state.listingKind, terms) : []),
        ...recurrenceProblems(recurrence, template, horizon),
        ...templateProblems(state.listingKind, template),
      ];
      if (problems.length) invalid(problems);
      const calendar = calendarCall(() => reviseCalendar(state.calendar, { ...(p.from ? { from: p.from } : {}), recurrence, template }, { now, materialized: Object.keys(state.occurrences) }));
      const added = calendar.revisions[calendar.revisions.length - 1];
      const { organizationId, clientId, userId } = command.actor;
      const revision: SeriesRevision = { revision: added.revision, from: added.from, terms, at: now, by: { organizationId, ...(clientId ? { clientId } : {}), ...(userId ? { userId } : {}) } };
      // The keys from `from` on are looked at again: those not yet published follow the new revision.
      const cursor = state.cursor !== undefined && state.cursor >= added.from ? dayBefore(added.from) : state.cursor;
      const next = bump(state, now, { calendar, recurrence, template, terms, horizon, revisions: [...state.revisions, revision] });
      if (cursor === undefined) delete next.cursor;
      else next.cursor = cursor;
      return { state: next, events: [event(next, 'revised')] };
    },

    // One date is not published (a holiday). An occurrence already published is its listing's to
    // withdraw; a date that is no occurrence of the series, or lies before today, is refused.
    skip(state: ListingSeries, command: Command<{ key: string; reason?: string }>, now: string) {
      requireOwner(state, command);
      requireStatus(KIND, state, command, ['active', 'paused']);
      const key = command.payload?.key;
      const o = typeof key === 'string' ? calendarCall(() => occurrenceAt(state.calendar, key)) : undefined;
      if (!o) invalid([{ pointer: '/key', message: 'is no occurrence of the series (a local date YYYY-MM-DD on which it recurs)' }]);
      const existing = state.occurrences[o.key];
      if (existing) {
        refuse('INVALID_STATE_TRANSITION', `the occurrence ${o.key} is published already as ${listingKindOf(state)} ${existing.listingId}: withdraw that listing`, {
          currentState: state.status,
          errors: [{ pointer: '/key', message: `is published already as ${existing.listingId}` }],
        });
      }
      if (state.skipped.some((s) => s.key === o.key)) return { state, events: [] };
      const reason = command.payload.reason;
      const skipped = [...state.skipped, { key: o.key, ...(typeof reason === 'string' && reason ? { reason } : {}), at: now }].sort((a, b) => (a.key < b.key ? -1 : 1));
      const next = bump(state, now, { skipped });
      return { state: next, events: [event(next, 'revised')] };
    },

    pause(state: ListingSeries, command: Command, now: string) {
      requireOwner(state, command);
      requireStatus(KIND, state, command, ['active']);
      const next = bump(state, now, { status: 'paused', pausedAt: now });
      return { state: next, events: [event(next, 'paused')] };
    },

    // The clock restarts: occurrences that became due while paused and can still be published are
    // published now; those that can no longer be are passed over.
    resume(state: ListingSeries, command: Command, now: string) {
      requireOwner(state, command);
      requireStatus(KIND, state, command, ['paused']);
      const next = bump(state, now, { status: 'active', resumedAt: now });
      return { state: next, events: [event(next, 'resumed')] };
    },

    // The series ends for good; its occurrences that have not begun are withdrawn with the reason
    // (their listings refuse it where they are matched: those stay as they are).
    end(state: ListingSeries, command: Command<{ reason: string; reasonCode?: string }>, now: string) {
      requireOwner(state, command);
      requireStatus(KIND, state, command, ['active', 'paused']);
      const ending = reasonOf(command, now);
      const next = bump(state, now, { status: 'ended', endedAt: now, ending });
      const future = Object.entries(state.occurrences)
        .filter(([, o]) => Date.parse(o.startsAt) > Date.parse(now))
        .map(([key, o]) => ({ key, listingId: o.listingId }));
      const effects: Effect[] = future.length
        ? [{
            flow: SERIES_FLOWS.withdraw,
            input: {
              seriesId: state.id,
              kind: listingKindOf(state),
              actor: actorOf(state),
              occurrences: future,
              reason: `the series ${state.id} ended: ${ending.reason}`,
              reasonCode: 'SERIES_ENDED',
            } satisfies WithdrawOccurrencesInput,
          }]
        : [];
      return { state: next, events: [event(next, 'ended')], effects };
    },

    // The broker's clock: every occurrence due now (within the horizon) and not yet published is
    // recorded with its listing id and handed to the flow that creates and publishes it.
    publishDue(state: ListingSeries, command: Command, now: string) {
      requireStatus(KIND, state, command, ['active']);
      const nowMs = Date.parse(now);
      const due = dueOccurrences(state.calendar, { now, horizon: state.horizon }).filter((o) => !handled(state, o.key));
      const { through } = walk(state, nowMs);
      if (due.length === 0 && through === state.cursor) return { state, events: [] };
      const occurrences = { ...state.occurrences };
      const orders: OccurrenceOrder[] = [];
      for (const o of due) {
        const listingId = occurrenceListingId(state.id, o.key);
        occurrences[o.key] = { listingId, revision: o.revision, startsAt: o.startsAt, at: now };
        orders.push({ key: o.key, listingId, payload: occurrencePayload(state, o) });
      }
      const next = bump(state, now, prunedBefore({ ...state, occurrences, cursor: through }, nowMs - KEEP_PAST_MS));
      if (through !== undefined) next.cursor = through;
      const effects: Effect[] = orders.length
        ? [{
            flow: SERIES_FLOWS.publish,
            input: { seriesId: state.id, kind: listingKindOf(state), ownerOrganizationId: state.ownerOrganizationId, actor: actorOf(state), occurrences: orders } satisfies PublishOccurrencesInput,
          }]
        : [];
      return { state: next, events: [], effects };
    },
  },

  // The moment the next occurrence not yet published becomes due; none while paused or ended.
  deadline(state: ListingSeries): Deadline | undefined {
    if (state.status !== 'active') return undefined;
    const { next, through } = walk(state);
    if (next) return { at: dueAt(next, state.horizon), command: 'publishDue' };
    // A year of occurrences all handled after the cursor (not reached in practice): move it on now.
    if (through !== state.cursor) return { at: state.updatedAt, command: 'publishDue' };
    return undefined;
  },
} satisfies Machine<ListingSeries>;

export const listingSeries = defineResource({
  kind: KIND,
  retention: { purged: 'listing' },
  collection: 'listing-series',
  workflowType: 'listingSeriesWorkflow',
  table: 'listing_series',
  statuses: ['active', 'paused', 'ended'],
  terminalStatuses: ['ended'],
  // Its owner's publishing bookkeeping: read with either publish scope, written with the one of its listing kind (api/listing-series.ts).
  scopes: { read: 'capacity:publish', write: 'capacity:publish' },
  readScopes: ['capacity:publish', 'loads:publish'],
  // The owner's own: partners see its occurrences as listings, never the series.
  fields: {
    id: 'envelope', resourceVersion: 'envelope', ownerOrganizationId: 'envelope', createdAt: 'envelope', updatedAt: 'envelope', status: 'envelope',
    pausedAt: 'lifecycle', resumedAt: 'lifecycle', endedAt: 'lifecycle',
    listingKind: 'private', terms: 'private', recurrence: 'private', template: 'private', horizon: 'private', calendar: 'private', revisions: 'private',
    occurrences: 'private', skipped: 'private', cursor: 'private', createdBy: 'audit', ending: 'audit',
    externalReferences: 'references', extensions: 'private',
  },
  searchAttributes: (state) => ({ owner: state.ownerOrganizationId, status: state.status }),
  machine: listingSeriesMachine,
  events: {
    'pcx.listing-series.created.v1': { emittedBy: 'create' },
    'pcx.listing-series.revised.v1': { emittedBy: 'revise (a new revision of the calendar or terms), skip (a date left out)' },
    'pcx.listing-series.paused.v1': { emittedBy: 'pause' },
    'pcx.listing-series.resumed.v1': { emittedBy: 'resume' },
    'pcx.listing-series.ended.v1': { emittedBy: 'end (its occurrences not yet begun are withdrawn)' },
  },
});
