// HTTP API of ListingSeries (domain/listing-series.ts): an owner's recurring offer or request.
// Create, list, read, revise (from a date on), skip a date, pause, resume, end. Only its owner
// sees a series (404 for everyone else); partners see its occurrences as listings.
//
// The series' terms are checked here exactly as the listing API checks a create (api/listings.ts
// `checked`): the terms with the first occurrence's windows and expiry, so that no occurrence is
// refused later for a field its owner could have been told about now. They are kept normalized
// (a load request's alternative input forms in the resource form).
import { Hono } from 'hono';
import { Problem, type FieldError } from '../domain/problems';
import { listingSeries, type ListingSeries, type SeriesListingKind } from '../domain/listing-series';
import { nextOccurrence, RecurrenceError, reviseCalendar, seriesCalendar, type SeriesCalendar } from '../domain/recurrence';
import { precheckCreate, runCommand } from './commands';
import type { AppEnv, Principal } from './context';
import { requireScope } from './gates';
import { checked, type ListingApi } from './listings';
import { CAPACITY_OFFER_API } from './capacity-offers';
import { LOAD_REQUEST_API } from './load-requests';
import { operation } from './operations';
import type { Ctx } from './http';
import { commandRoute, getRoute, listRoute, participantAccess, viewFor } from './resource-routes';

const resource = listingSeries;
const READ_SCOPES = resource.readScopes!;

const LISTINGS: Record<SeriesListingKind, { api: ListingApi; scope: string; windows: string[] }> = {
  capacityOffer: { api: CAPACITY_OFFER_API, scope: 'capacity:publish', windows: ['availabilityWindow'] },
  loadRequest: { api: LOAD_REQUEST_API, scope: 'loads:publish', windows: ['pickupWindow', 'deliveryWindow'] },
};

/** Gate 4: the owner alone; gate 6: either publish scope (the kind's own is checked by writes). */
const ownerAccess = participantAccess<ListingSeries>(resource, '', { anyScope: READ_SCOPES });

/** Gate 6 for a write: the publish scope of the series' listing kind. */
const requireKindScope = (principal: Principal, kind: SeriesListingKind) => requireScope(principal, LISTINGS[kind].scope);

/** Where a refusal of an occurrence's listing body points in the series' body. */
function seriesPointer(kind: SeriesListingKind, pointer: string): string {
  const field = pointer.split('/')[1] ?? '';
  if (LISTINGS[kind].windows.includes(field)) return `/template/windows${pointer}`;
  if (field === 'expiresAt') return '/template/expiresAt';
  return `/terms${pointer}`;
}

/**
 * The terms checked as the listing API checks a create, with the first occurrence (from `from`
 * on) of the calendar's windows and expiry: their normalized form, without those times.
 */
function checkedTerms(c: Ctx, kind: SeriesListingKind, terms: Record<string, unknown>, calendar: SeriesCalendar, from?: string): Record<string, unknown> {
  let first;
  try {
    first = nextOccurrence(calendar, from ? dayBefore(from) : undefined);
  } catch (err) {
    if (err instanceof RecurrenceError) throw new Problem('VALIDATION_FAILED', 'the series is not valid', { errors: err.problems });
    throw err;
  }
  // A calendar without another occurrence: the terms are checked with windows of no consequence.
  const times = first ? { ...first.windows, expiresAt: first.expiresAt } : {};
  const { api, windows } = LISTINGS[kind];
  let normalized: Record<string, unknown>;
  try {
    normalized = checked(c, api, 'CreateRequest', { ...terms, ...times });
  } catch (err) {
    if (err instanceof Problem && Array.isArray(err.extensions?.errors)) {
      const errors = (err.extensions.errors as FieldError[]).map((e) => ({ ...e, pointer: seriesPointer(kind, e.pointer) }));
      throw new Problem(err.code, 'the series\u2019 terms are not valid for its listings', { errors });
    }
    throw err;
  }
  const out = { ...normalized };
  for (const field of [...windows, 'expiresAt']) delete out[field];
  return out;
}

/** A command's body, once gate 6 holds for the series' listing kind. */
const kindScoped = <B>(c: Ctx, body: B, series: ListingSeries): B => (requireKindScope(c.get('principal'), series.listingKind), body);

const dayBefore = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

export const listingSeriesRouter = new Hono<AppEnv>();

operation(listingSeriesRouter, {
  method: 'POST', path: '/', access: { scope: [], anyScope: READ_SCOPES }, body: 'ListingSeriesCreateRequest', answers: [201],
  idempotent: true,
  returns: 'ListingSeries',
  doc: {
    id: 'createListingSeries',
    summary: 'Create a recurring offer or request',
    description:
      'A series of capacity offers (`listingKind: capacityOffer`, scope `capacity:publish`) or load requests ' +
      '(`loadRequest`, scope `loads:publish`): the `terms` of one occurrence (the listing\u2019s create fields but its ' +
      'windows and `expiresAt`), a `recurrence` (an RFC 5545 RRULE over local dates in an IANA time zone), a ' +
      '`template` (each window\u2019s local times; when the listing expires) and a `horizon` (how far ahead each ' +
      'occurrence is published). It is active at once: each occurrence is created and published as an ordinary listing ' +
      'of the caller\u2019s, `horizon` before its first window opens, with `seriesId` and `occurrenceKey` (its local date). ' +
      'The terms are checked as the listing\u2019s create checks them, with the first occurrence\u2019s windows: a problem ' +
      'points into `/terms`, `/recurrence`, `/template` or `/horizon` (400 `VALIDATION_FAILED`). Only the caller\u2019s ' +
      'organization ever sees the series; partners see its occurrences as they see any listing.',
    responses: { '201': 'The series, active.' },
  },
}, async ({ c, principal, body }) => {
  requireKindScope(principal, body.listingKind);
  // The machine's own rules first (the recurrence, the template's windows, the terms' fields), then the listing's.
  precheckCreate(c, resource, body);
  const terms = checkedTerms(c, body.listingKind, body.terms as Record<string, unknown>, seriesCalendar(body.recurrence, body.template));
  return runCommand(c, { resource, name: 'create', payload: { ...body, terms }, view: viewFor(resource, principal) });
});

listRoute(listingSeriesRouter, resource, {
  anyScope: READ_SCOPES,
  doc: {
    summary: "List the caller's recurring offers and requests",
    description: 'The series of the caller\u2019s organization, by `status` (one or more). Ordered by id; repeat with `cursor`. Needs scope `capacity:publish` or `loads:publish`.',
    client: { name: 'series', columns: ['id', 'status', 'listingKind', 'recurrence.rrule', 'recurrence.timeZone', 'resourceVersion'] },
  },
});

getRoute(listingSeriesRouter, resource, ownerAccess, {
  summary: 'Read a recurring offer or request',
  description:
    'The series with its revisions, the dates it skips and `occurrences`: the listing each published date became ' +
    '(read it at /capacity-offers/{listingId} or /load-requests/{listingId}). Its owner\u2019s alone (404 for anyone else). ' +
    'Needs scope `capacity:publish` or `loads:publish`.',
});

commandRoute(listingSeriesRouter, resource, 'revise', {
  path: 'revisions',
  body: 'ListingSeriesReviseRequest',
  access: ownerAccess,
  payload: (c, body, series) => {
    requireKindScope(c.get('principal'), series.listingKind);
    if (!body.terms) return body;
    // The new terms checked against the first occurrence the revision governs (the calendar as revised).
    let calendar: SeriesCalendar;
    try {
      calendar = reviseCalendar(series.calendar, { ...(body.from ? { from: body.from } : {}), recurrence: body.recurrence ?? series.recurrence, template: body.template ?? series.template }, { now: new Date().toISOString(), materialized: Object.keys(series.occurrences) });
    } catch (err) {
      if (err instanceof RecurrenceError) throw new Problem('VALIDATION_FAILED', 'the revision is not valid', { errors: err.problems });
      throw err;
    }
    const from = calendar.revisions[calendar.revisions.length - 1].from;
    return { ...body, terms: checkedTerms(c, series.listingKind, body.terms as Record<string, unknown>, calendar, from) as typeof body.terms };
  },
  doc: {
    summary: 'Change a series from a date on',
    description:
      'A new revision of the series (`pcx.listing-series.revised.v1`): a new `recurrence`, `template` or `terms` applies ' +
      'to the occurrences from `from` on (default today in the series\u2019 time zone; a date before today is 400) that are ' +
      'not published yet; published occurrences never change (withdraw one to take it back). A new `horizon` applies ' +
      'at once. What is not given stays. Needs the publish scope of its listing kind.',
  },
});

commandRoute(listingSeriesRouter, resource, 'skip', {
  path: 'skips',
  body: 'ListingSeriesSkipRequest',
  access: ownerAccess,
  payload: kindScoped,
  doc: {
    summary: 'Leave one date of a series out',
    description:
      'The occurrence of that local date is not published (`pcx.listing-series.revised.v1`). A date the series does not ' +
      'recur on is 400 at `/key`; a date already published is 422 `INVALID_STATE_TRANSITION` naming its listing ' +
      '(withdraw that listing instead). Skipping a skipped date changes nothing. Needs the publish scope of its listing kind.',
  },
});

commandRoute(listingSeriesRouter, resource, 'pause', {
  body: 'CommonCommand',
  access: ownerAccess,
  payload: kindScoped,
  doc: {
    summary: 'Pause a series',
    description: 'active \u2192 paused (`pcx.listing-series.paused.v1`): no occurrence is published until it resumes; those published stay. Needs the publish scope of its listing kind.',
  },
});

commandRoute(listingSeriesRouter, resource, 'resume', {
  body: 'CommonCommand',
  access: ownerAccess,
  payload: kindScoped,
  doc: {
    summary: 'Resume a paused series',
    description:
      'paused \u2192 active (`pcx.listing-series.resumed.v1`): the occurrences that fell due meanwhile and can still be met ' +
      'are published at once; the others are passed over, never published late. Needs the publish scope of its listing kind.',
  },
});

commandRoute(listingSeriesRouter, resource, 'end', {
  body: 'CommonReasonedCommand',
  access: ownerAccess,
  payload: kindScoped,
  doc: {
    summary: 'End a series',
    description:
      'active or paused \u2192 ended, for good, with a reason (`pcx.listing-series.ended.v1`). Its published occurrences whose ' +
      'first window has not begun are withdrawn with the reason and reasonCode `SERIES_ENDED`; those matched or committed ' +
      'never change, and those under way stay. Needs the publish scope of its listing kind.',
  },
});
