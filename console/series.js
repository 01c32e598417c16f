// Recurring trucks and loads (GET /listing-series; docs/console.md, "Recurring trucks and loads"):
// the organization's series in a planner's words — the lane by place names, truck or load, the rule
// ("every Tuesday and Thursday, 08:00–18:00 Berlin time"), how far ahead each date is listed, the
// status — and its next dates, each with what became of its listing (published, matched, withdrawn,
// expired) or skipped. Its planner pauses, resumes, skips a date (with a reason if any) and ends it
// (with a reason); each command carries the series' version (If-Match) and a label (kept for after a
// new sign-in like every command), and a refusal is shown on the series (a version that moved on:
// read again, and said so). Refreshed by the console on the organization's events. Drawn as
// components (./ui.js), redrawn by difference: each card keeps the reasons typed into it, the date
// chosen to skip, the problem its last command met and the focus through those refreshes.
//
// The rule in words and the series' dates are pure functions of the series' document (the RRULE
// subset the broker accepts: FREQ=DAILY|WEEKLY|MONTHLY, INTERVAL, BYDAY with ordinals under MONTHLY,
// BYMONTHDAY, COUNT, UNTIL, WKST; domain/recurrence.ts), tested in test/unit/console-series.test.ts
// against the broker's own calendar.
import { html, render, useState } from './ui.js';
import { capacityOf, laneOf, settings, statusOf, t, windowOf } from './format.js';
import { el } from './views.js';
import { Lane } from './lane.js';
import { loadPlaces } from './places.js';

const DAY_MS = 86_400_000;
const WEEKDAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];
/** The order a week is said in (Monday first, as the broker's RRULE reads WKST by default). */
const WEEK_ORDER = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
/** How many of a series' next dates are shown, and offered to skip. */
const SHOWN = 6;
const SKIPPABLE = 12;
/** How far ahead the dates are looked for (a monthly rule on the 31st may wait two months). */
const LOOK_AHEAD_DAYS = 400;

// ---------------------------------------------------------------------------------------------
// Local dates (YYYY-MM-DD) as UTC midnights: calendar arithmetic, no zone involved.

const msOf = (key) => Date.parse(`${key}T00:00:00Z`);
const keyOf = (ms) => new Date(ms).toISOString().slice(0, 10);
const plusDays = (key, days) => keyOf(msOf(key) + days * DAY_MS);
const weekdayOf = (key) => WEEKDAYS[new Date(msOf(key)).getUTCDay()];
const daysInMonth = (y, m) => new Date(Date.UTC(y, m + 1, 0)).getUTCDate();

/** Today's local date in a time zone (the series' dates are that zone's). */
export function todayIn(timeZone, now = Date.now()) {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date(now)).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

// ---------------------------------------------------------------------------------------------
// The rule

/**
 * An RRULE of the broker's subset as data: { freq, interval, byday: [{ day, nth? }], bymonthday,
 * count, until, wkst }. The broker checked it; anything else in it is ignored.
 */
export function parseRule(text) {
  const parts = Object.fromEntries(
    String(text ?? '')
      .trim()
      .toUpperCase()
      .replace(/^RRULE:/, '')
      .split(';')
      .map((p) => p.split('='))
      .filter((p) => p.length === 2),
  );
  const until = /^(\d{4})(\d{2})(\d{2})/.exec(parts.UNTIL ?? '');
  return {
    freq: parts.FREQ,
    interval: Number(parts.INTERVAL ?? 1) || 1,
    byday: parts.BYDAY ? parts.BYDAY.split(',').map((item) => /^([+-]?\d{1,2})?([A-Z]{2})$/.exec(item)).filter(Boolean).map((m) => ({ day: m[2], ...(m[1] ? { nth: Number(m[1]) } : {}) })) : [],
    bymonthday: parts.BYMONTHDAY ? parts.BYMONTHDAY.split(',').map(Number).filter((n) => Number.isInteger(n) && n !== 0) : [],
    count: parts.COUNT ? Number(parts.COUNT) : undefined,
    until: until ? `${until[1]}-${until[2]}-${until[3]}` : undefined,
    wkst: WEEKDAYS.includes(parts.WKST) ? parts.WKST : 'MO',
  };
}

/** Whether a weekday of a month is its nth (1..5 from the start, -1..-5 from the end). */
function isNth(key, nth) {
  const [y, m, d] = key.split('-').map(Number);
  return nth > 0 ? Math.ceil(d / 7) === nth : Math.ceil((daysInMonth(y, m - 1) - d + 1) / 7) === -nth;
}

function isMonthDay(key, days) {
  const [y, m, d] = key.split('-').map(Number);
  const last = daysInMonth(y, m - 1);
  return days.some((n) => (n > 0 ? n === d : last + n + 1 === d));
}

/** The start of the week a date lies in, the week starting on `wkst`. */
function weekStart(key, wkst) {
  const back = (WEEKDAYS.indexOf(weekdayOf(key)) - WEEKDAYS.indexOf(wkst) + 7) % 7;
  return msOf(key) - back * DAY_MS;
}

/** Whether the rule (started on `start`) falls on a date, before COUNT and UNTIL. */
function fallsOn(rule, start, key) {
  const weekday = weekdayOf(key);
  const [y, m, d] = key.split('-').map(Number);
  const [sy, sm, sd] = start.split('-').map(Number);
  const days = rule.byday;
  switch (rule.freq) {
    case 'DAILY':
      return Math.round((msOf(key) - msOf(start)) / DAY_MS) % rule.interval === 0 && (!days.length || days.some((b) => b.day === weekday)) && (!rule.bymonthday.length || isMonthDay(key, rule.bymonthday));
    case 'WEEKLY': {
      const weeks = Math.round((weekStart(key, rule.wkst) - weekStart(start, rule.wkst)) / (7 * DAY_MS));
      return weeks % rule.interval === 0 && (days.length ? days.some((b) => b.day === weekday) : weekday === weekdayOf(start));
    }
    case 'MONTHLY': {
      if (((y - sy) * 12 + (m - sm)) % rule.interval !== 0) return false;
      const onDay = (b) => b.day === weekday && (b.nth === undefined || isNth(key, b.nth));
      if (rule.bymonthday.length) return isMonthDay(key, rule.bymonthday) && (!days.length || days.some(onDay));
      if (days.length) return days.some(onDay);
      return d === sd;
    }
    default:
      return false;
  }
}

/**
 * The dates of a recurrence in [from, to] (local dates, inclusive): the rule's days from its
 * startDate, at most COUNT of them (exceptions counted, as RFC 5545 counts EXDATEs), up to UNTIL
 * or `until`, the exceptions left out.
 */
export function recurrenceDates(recurrence, from, to) {
  const rule = parseRule(recurrence.rrule);
  const start = recurrence.startDate;
  const last = [to, rule.until, recurrence.until].filter(Boolean).reduce((a, b) => (a < b ? a : b));
  const exceptions = new Set(recurrence.exceptions ?? []);
  const dates = [];
  let counted = 0;
  for (let key = start; key <= last; key = plusDays(key, 1)) {
    if (!fallsOn(rule, start, key)) continue;
    counted++;
    if (rule.count !== undefined && counted > rule.count) break;
    if (key >= from && !exceptions.has(key)) dates.push(key);
  }
  return dates;
}

/** A series' calendar revisions: its own, or one made of its recurrence and template. */
const revisionsOf = (series) => series.calendar?.revisions ?? [{ revision: 1, from: series.recurrence.startDate, recurrence: series.recurrence, template: series.template, kept: [] }];

/** The revision a date belongs to: the newest whose `from` it reached that did not keep it for an older one. */
function ownerOf(revisions, key) {
  for (let i = revisions.length - 1; i >= 0; i--) {
    if (key >= revisions[i].from && !(revisions[i].kept ?? []).includes(key)) return i;
  }
  return -1;
}

/** A series' dates in [from, to], each under the revision it belongs to. */
export function seriesDates(series, from, to) {
  const revisions = revisionsOf(series);
  const dates = new Set();
  revisions.forEach((r, i) => {
    for (const key of recurrenceDates(r.recurrence, from > r.from ? from : r.from, to)) if (ownerOf(revisions, key) === i) dates.add(key);
  });
  return [...dates].sort();
}

// ---------------------------------------------------------------------------------------------
// The rule in words

const list = (items) => new Intl.ListFormat(settings.locale, { type: 'conjunction' }).format(items);
const dayName = (code) => t(`series.day.${code}`);

/** "1st", "15th" (English), "1." (German, Polish): the locale's ordinal rules choose the form. */
function ordinal(n) {
  const form = new Intl.PluralRules(settings.locale, { type: 'ordinal' }).select(n);
  return t(`series.ordinal.${['one', 'two', 'few'].includes(form) ? form : 'other'}`, { n: String(n) });
}

/** The weekdays of a rule: "Tuesday and Thursday", "weekday (Monday to Friday)". */
function weekdaysText(codes) {
  const days = WEEK_ORDER.filter((d) => codes.includes(d));
  if (days.length === 5 && !days.includes('SA') && !days.includes('SU')) return t('series.days.workdays');
  return list(days.map(dayName));
}

/** How often: "every Tuesday and Thursday", "every 2 weeks on Monday", "on the first Monday of every month". */
export function frequencyText(recurrence) {
  const rule = parseRule(recurrence.rrule);
  const count = rule.interval;
  const plainDays = [...new Set(rule.byday.map((b) => b.day))];
  const monthDays = (days) => list(days.map((n) => (n === -1 ? t('series.monthday.last') : n > 0 ? ordinal(n) : t('series.monthday.fromEnd', { ordinal: ordinal(-n) }))));
  if (rule.freq === 'MONTHLY' || rule.bymonthday.length) {
    const interval = rule.freq === 'MONTHLY' ? count : 1;
    if (rule.bymonthday.length) return t('series.rule.monthlyDays', { count: interval, days: monthDays(rule.bymonthday) });
    if (rule.byday.length) {
      const sorted = [...rule.byday].sort((a, b) => WEEK_ORDER.indexOf(a.day) - WEEK_ORDER.indexOf(b.day));
      return t('series.rule.monthlyWeekdays', { count: interval, days: list(sorted.map((b) => t(`series.nth.${b.nth ?? 0}`, { day: dayName(b.day) }))) });
    }
    return t('series.rule.monthlyDays', { count: interval, days: monthDays([Number(recurrence.startDate.slice(8, 10))]) });
  }
  if (rule.freq === 'WEEKLY' || plainDays.length) {
    const days = plainDays.length ? plainDays : [weekdayOf(recurrence.startDate)];
    if (days.length === 7 && (rule.freq !== 'WEEKLY' || count === 1)) return t('series.rule.daily', { count: rule.freq === 'WEEKLY' ? 1 : count });
    return t('series.rule.weekly', { count: rule.freq === 'WEEKLY' ? count : 1, days: weekdaysText(days) });
  }
  return t('series.rule.daily', { count });
}

/** A local time "HH:MM" as the locale writes it. */
function timeText(hhmm) {
  const [h, m] = hhmm.split(':').map(Number);
  return new Intl.DateTimeFormat(settings.locale, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }).format(Date.UTC(2000, 0, 1, h, m));
}

/** An ISO 8601 duration's days (weeks and days) and minutes (hours and minutes). */
function spanOf(text) {
  const m = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(String(text ?? ''));
  if (!m) return { days: 0, minutes: 0 };
  return { days: Number(m[1] ?? 0) * 7 + Number(m[2] ?? 0), minutes: Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0) };
}

/** A window of the template: "08:00–18:00", "22:00 to 06:00 the next day", "the next day 08:00–12:00". */
export function windowText(w) {
  const [h, m] = String(w.time).split(':').map(Number);
  const startDay = w.day ?? 0;
  let endDay;
  let endMinutes;
  if (w.end) {
    endDay = w.end.day ?? startDay;
    endMinutes = Number(w.end.time.slice(0, 2)) * 60 + Number(w.end.time.slice(3, 5));
  } else {
    const span = spanOf(w.duration);
    const total = h * 60 + m + span.minutes;
    endDay = startDay + span.days + Math.floor(total / 1440);
    endMinutes = total % 1440;
  }
  const end = timeText(`${String(Math.floor(endMinutes / 60)).padStart(2, '0')}:${String(endMinutes % 60).padStart(2, '0')}`);
  const span = endDay === startDay ? `${timeText(w.time)}–${end}` : t('series.window.overnight', { count: endDay - startDay, start: timeText(w.time), end });
  return startDay ? t('series.window.later', { count: startDay, window: span }) : span;
}

/** The template's windows with the zone: "08:00–18:00 Berlin time", "pickup 06:00–10:00, delivery the next day 08:00–12:00 Amsterdam time". */
export function timesText(template, timeZone) {
  const windows = Object.entries(template?.windows ?? {});
  const times = windows.length === 1 ? windowText(windows[0][1]) : windows.map(([name, w]) => t(`series.window.${name}`, { window: windowText(w) })).join(', ');
  return t('series.zone', { times, city: String(timeZone).split('/').pop().replace(/_/g, ' ') });
}

/** A local date in the planner's words: "Tue, Dec 1, 2026" ("Di., 1. Dez. 2026"). */
export function dateText(key) {
  return new Intl.DateTimeFormat(settings.locale, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(msOf(key));
}

/**
 * The whole rule in words: "every Tuesday and Thursday, 08:00–18:00 Berlin time", with where it
 * starts (when that is still ahead) and ends ("until Dec 31, 2026", "10 times in all").
 */
export function ruleText(recurrence, template, { today } = {}) {
  const rule = parseRule(recurrence.rrule);
  const parts = [frequencyText(recurrence), timesText(template, recurrence.timeZone)];
  if (today && recurrence.startDate > today) parts.push(t('series.from', { date: dateText(recurrence.startDate) }));
  const until = rule.until ?? recurrence.until;
  if (until) parts.push(t('series.until', { date: dateText(until) }));
  if (rule.count !== undefined) parts.push(t('series.count', { count: rule.count }));
  return parts.join(', ');
}

/** How far ahead each date is listed: "listed 7 days ahead", "listed 2 weeks ahead", "listed 36 hours ahead". */
export function horizonText(horizon) {
  if (typeof horizon === 'number') return t('series.horizon.days', { count: horizon });
  const m = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?)?$/.exec(String(horizon ?? ''));
  if (!m) return '';
  const [weeks, days, hours, minutes] = [m[1], m[2], m[3], m[4]].map((v) => Number(v ?? 0));
  if (weeks && !days && !hours && !minutes) return t('series.horizon.weeks', { count: weeks });
  const total = (weeks * 7 + days) * 24 + hours + minutes / 60;
  return total % 24 === 0 ? t('series.horizon.days', { count: total / 24 }) : t('series.horizon.hours', { count: Math.round(total * 10) / 10 });
}

// ---------------------------------------------------------------------------------------------
// The next dates

/** Open listing statuses: a listing one can still show on the board. */
const OPEN = ['published', 'partiallyMatched', 'proposed', 'draft'];

/**
 * A series' next dates from `today` (its zone's): each { key, state, listingId?, listing?,
 * reason? } where state is the listing's status ("published", "matched", "withdrawn", ...),
 * "listed" (published, its listing not read), "skipped", "notListed" (ahead of the horizon) or
 * "paused" (not listed while paused). An ended series shows what it published only.
 */
export function nextDates(series, { today, listings = new Map(), count = SHOWN } = {}) {
  const rows = new Map();
  for (const [key, o] of Object.entries(series.occurrences ?? {})) {
    if (key < today) continue;
    const listing = listings.get(o.listingId);
    rows.set(key, { key, state: listing?.status ?? 'listed', listingId: o.listingId, ...(listing ? { listing } : {}) });
  }
  for (const s of series.skipped ?? []) if (s.key >= today && !rows.has(s.key)) rows.set(s.key, { key: s.key, state: 'skipped', ...(s.reason ? { reason: s.reason } : {}) });
  if (series.status !== 'ended') {
    // The recurrence's own exceptions are skipped dates too.
    for (const key of revisionsOf(series).at(-1).recurrence.exceptions ?? []) if (key >= today && !rows.has(key)) rows.set(key, { key, state: 'skipped' });
    for (const key of seriesDates(series, today, plusDays(today, LOOK_AHEAD_DAYS))) {
      if (rows.size >= count * 3 && key > [...rows.keys()].sort()[count - 1]) break;
      if (!rows.has(key)) rows.set(key, { key, state: series.status === 'paused' ? 'paused' : 'notListed' });
    }
  }
  return [...rows.values()].sort((a, b) => (a.key < b.key ? -1 : 1)).slice(0, count);
}

/** The dates a planner may still skip: of the series, ahead, neither listed nor skipped. */
export function skippableDates(series, { today, count = SKIPPABLE } = {}) {
  if (series.status === 'ended') return [];
  const taken = new Set([...Object.keys(series.occurrences ?? {}), ...(series.skipped ?? []).map((s) => s.key)]);
  return seriesDates(series, today, plusDays(today, LOOK_AHEAD_DAYS)).filter((key) => !taken.has(key)).slice(0, count);
}

/** An occurrence's state in words: its listing's status, "skipped", "not listed yet", ... */
export function dateStateText(row) {
  if (row.state === 'skipped') return row.reason ? t('series.state.skippedBecause', { reason: row.reason }) : statusOf('skipped');
  if (['listed', 'notListed', 'paused'].includes(row.state)) return t(`series.state.${row.state}`);
  return statusOf(row.state);
}

/** Truck or load, the lane and what it carries: the series' terms as a listing's. */
const asListing = (series) => ({ ...series.terms, kind: series.listingKind === 'capacityOffer' ? 'offer' : 'request' });

/** What a series is, in a line: "24 t, 33 pallets · curtainsider". */
export function whatText(series) {
  const terms = series.terms ?? {};
  const capacity = capacityOf(series.listingKind === 'capacityOffer' ? terms.availableCapacity : terms.requiredCapacity);
  const bodies = series.listingKind === 'capacityOffer' ? [terms.vehicleProfile?.bodyType] : (terms.vehicleRequirements?.bodyTypes ?? []);
  return [capacity, list(bodies.filter(Boolean).map(statusOf))].filter(Boolean).join(' · ');
}

/** A series by name, for labels: "the recurring truck Hamburg → Rotterdam". */
export const seriesName = (series, places) => t(`series.name.${series.listingKind}`, { lane: laneOf(asListing(series), places) });

/** Whether an event of the feed concerns the series view: a series' own, or an occurrence's (a listing naming its series). */
export function concernsSeries(event) {
  return String(event?.type ?? '').startsWith('pcx.listing-series.') || typeof event?.data?.seriesId === 'string';
}

// ---------------------------------------------------------------------------------------------
// The view: components (./ui.js). A card keeps what its planner typed (a reason, the date chosen to
// skip) and the problem its last command met through the redraws that follow events; the module
// reads the series (refresh) and draws them.

const STATUS_ORDER = { active: 0, paused: 1, ended: 2 };
const LISTING_PATH = { capacityOffer: 'capacity-offers', loadRequest: 'load-requests' };

/** A refusal in words; a version that moved on says that the series is shown as it is now. */
function problemText(err) {
  const problem = err?.problem ?? { title: String(err?.message ?? err) };
  const stale = problem.code === 'STALE_RESOURCE_VERSION' || err?.status === 409;
  return `${stale ? `${t('series.stale')} ` : ''}${problem.title ?? t('problem.refused')}${problem.detail ? `: ${problem.detail}` : ''}`;
}

/** One of the next dates: what became of it, its listing's window, and the way to its row in the list. */
function DateRow({ row, onShow }) {
  const show = row.listing && OPEN.includes(row.listing.status) && onShow;
  return html`<li class=${`series-date state-${row.state}`} data-date=${row.key}>
    <span class="date">${dateText(row.key)}</span> <span class="state">${dateStateText(row)}</span>${row.listing ? html`<span class="window muted">${` · ${windowOf(row.listing.availabilityWindow ?? row.listing.pickupWindow)}`}</span>` : ''}${show ? html`<button type="button" class="show" aria-label=${t('series.showLabel', { date: dateText(row.key) })} onClick=${() => onShow(row.listingId)}>${t('series.show')}</button>` : ''}
  </li>`;
}

/**
 * One series: in words, its next dates and its commands. What was typed (the reasons, the date
 * chosen to skip) and the problem its last command met are its own state: kept through the redraws
 * the organization's events bring, the problem until its next command.
 */
function SeriesCard({ series, state, onCommand, onRefused, onShow }) {
  const [problem, setProblem] = useState('');
  const [skipKey, setSkipKey] = useState('');
  const [skipReason, setSkipReason] = useState('');
  const [endReason, setEndReason] = useState('');
  const id = series.id;
  const places = state.places;
  const today = todayIn(series.recurrence.timeZone);
  const name = seriesName(series, places);
  const rows = nextDates(series, { today, listings: state.byId });
  const acting = state.scopes.has(series.listingKind === 'capacityOffer' ? 'capacity:publish' : 'loads:publish') && series.status !== 'ended';
  const skippable = acting ? skippableDates(series, { today }) : [];
  // A date chosen and since skipped (or listed) is no longer offered: the list's first takes its place.
  const skipping = skippable.includes(skipKey) ? skipKey : skippable[0];

  const act = async (path, body, label) => {
    setProblem('');
    try {
      await onCommand(series, path, body, label);
      // What was typed for it (a reason) is done with.
      setSkipReason('');
      setEndReason('');
    } catch (err) {
      if (err?.sessionEnded) return;
      setProblem(problemText(err));
      // A version that moved on: the series as it is now, with the problem said on it.
      await onRefused();
    }
  };
  const skip = (e) => {
    e.preventDefault();
    act('skips', { key: skipping, ...(skipReason.trim() ? { reason: skipReason.trim() } : {}) }, t('series.action.skip', { date: dateText(skipping), series: name }));
  };
  const end = (e) => (e.preventDefault(), act('end', { reason: endReason.trim() }, t('series.action.end', { series: name })));

  const since =
    series.status === 'paused' && series.pausedAt
      ? t('series.pausedSince', { date: windowlessWhen(series.pausedAt) })
      : series.status === 'ended'
        ? t(series.ending?.reason ? 'series.endedBecause' : 'series.ended', { date: windowlessWhen(series.endedAt ?? series.updatedAt), reason: series.ending?.reason ?? '' })
        : '';
  return html`<article class=${`series-card status-${series.status}`} data-series=${id} aria-labelledby=${`series-title-${id}`}>
    <h3 id=${`series-title-${id}`}><span class=${`series-kind ${series.listingKind}`}>${t(`series.kind.${series.listingKind}`)}</span> <${Lane} listing=${asListing(series)} places=${places} /> <span class=${`badge series-status ${series.status}`}>${statusOf(series.status)}</span></h3>
    <p class="series-what">${whatText(series)}</p>
    <p class="series-rule">${ruleText(series.recurrence, series.template, { today })}<br /><span class="muted">${horizonText(series.horizon)}</span>${since ? html`<span class="muted">${` · ${since}`}</span>` : ''}</p>
    <h4 class="series-next">${t('series.next')}</h4>
    <ol class="series-dates">
      ${rows.length ? rows.map((row) => html`<${DateRow} key=${row.key} row=${row} onShow=${onShow} />`) : html`<li class="muted">${t('series.noDates')}</li>`}
    </ol>
    ${acting
      ? html`<div class="series-actions">
          ${series.status === 'active'
            ? html`<button type="button" id=${`series-pause-${id}`} onClick=${() => act('pause', {}, t('series.action.pause', { series: name }))}>${t('series.pause')}</button>`
            : series.status === 'paused'
              ? html`<button type="button" id=${`series-resume-${id}`} onClick=${() => act('resume', {}, t('series.action.resume', { series: name }))}>${t('series.resume')}</button>`
              : ''}
          ${skippable.length
            ? html`<form class="action series-skip" onSubmit=${skip}>
                <label for=${`series-skip-${id}`}>${t('series.skipDate')}</label>
                <select id=${`series-skip-${id}`} required value=${skipping} onChange=${(e) => setSkipKey(e.currentTarget.value)}>
                  ${skippable.map((key) => html`<option key=${key} value=${key}>${dateText(key)}</option>`)}
                </select>
                <label for=${`series-skip-reason-${id}`}>${t('series.skipReason')}</label>
                <input id=${`series-skip-reason-${id}`} maxlength="500" value=${skipReason} onInput=${(e) => setSkipReason(e.currentTarget.value)} />
                <button type="submit">${t('series.skip')}</button>
              </form>`
            : ''}
          <form class="action series-end" onSubmit=${end}>
            <label for=${`series-end-reason-${id}`}>${t('series.endReason')}</label>
            <input id=${`series-end-reason-${id}`} required maxlength="500" value=${endReason} onInput=${(e) => setEndReason(e.currentTarget.value)} />
            <button type="submit" class="reject">${t('series.end')}</button>
          </form>
        </div>`
      : ''}
    <p class="field-error" role="alert" id=${`series-problem-${id}`}>${problem}</p>
  </article>`;
}

/** The section's content: its title, how many series (or why they could not be read), a card each: active first, then paused, then ended. */
function SeriesList({ items, failed, state, onCommand, onRefused, onShow }) {
  const shown = [...(items ?? [])].sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status] || a.createdAt.localeCompare(b.createdAt));
  const status = failed || (items === undefined ? '' : shown.length ? t('series.count.shown', { count: shown.length }) : t('series.empty'));
  return html`<h2 id="series-title">${t('series.title')}</h2>
    <p class="muted" id="series-status" aria-live="polite">${status}</p>
    <div id="series-list" class="series-list">
      ${shown.map((s) => html`<${SeriesCard} key=${s.id} series=${s} state=${state} onCommand=${onCommand} onRefused=${onRefused} onShow=${onShow} />`)}
    </div>`;
}

/**
 * The section "Recurring trucks and loads", below the grid, for a planner who may publish.
 * @param ctx { api, state, notice, onChanged, onShow(listingId) }
 */
export function createSeriesView({ api, state, notice, onChanged, onShow }) {
  const section = el('section', { id: 'series', class: 'wide', 'aria-labelledby': 'series-title' });
  const main = document.getElementById('main');
  main.insertBefore(section, document.getElementById('delivered') ?? document.getElementById('partners'));
  /** The series as last read (undefined until read), and why the last reading failed. */
  let items;
  let failed = '';
  let loading = null;

  /** A command on a series, with its version and label; a refusal is thrown to the card, which shows it. */
  async function onCommand(series, path, body, label) {
    await api.post(`/listing-series/${series.id}/${path}`, body, series.resourceVersion, label);
    notice(t('notice.done'), `${label}.`);
    await onChanged();
  }

  const draw = () => render(html`<${SeriesList} items=${items} failed=${failed} state=${state} onCommand=${onCommand} onRefused=${refresh} onShow=${onShow} />`, section);
  draw();

  /** Reads the series and the listings of their dates that the console does not have yet, then shows them. */
  async function read() {
    const series = await api.all('/listing-series');
    // Each series' listings the market lists did not bring (beyond its page, or withdrawn long ago).
    const missing = series.filter((s) => Object.values(s.occurrences ?? {}).some((o) => !state.byId.has(o.listingId)));
    for (const s of missing) {
      for (const l of await api.all(`/${LISTING_PATH[s.listingKind]}?series=${s.id}`).catch(() => [])) state.byId.set(l.id, { ...l, kind: s.listingKind === 'capacityOffer' ? 'offer' : 'request' });
    }
    await loadPlaces(api, series.map(asListing), state.places);
    items = series;
    failed = '';
    draw();
  }

  /** One reading at a time; a request meanwhile reads once more after it. */
  async function refresh() {
    if (loading) {
      loading.again = true;
      return loading.done;
    }
    loading = { again: false };
    loading.done = (async () => {
      try {
        do {
          loading.again = false;
          await read();
        } while (loading.again);
      } catch (err) {
        if (!err?.sessionEnded) {
          // Said where the count was; the series as last read stay shown.
          failed = `${err?.problem?.title ?? t('console.error')}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`;
          draw();
        }
      } finally {
        loading = null;
      }
    })();
    return loading.done;
  }

  return { refresh, section };
}

/** A moment as a date in the planner's zone and words. */
function windowlessWhen(iso) {
  return new Intl.DateTimeFormat(settings.locale, { dateStyle: 'medium', ...(settings.timeZone ? { timeZone: settings.timeZone } : {}) }).format(new Date(iso));
}
