// Recurring corridors, the calendar (issue 33 part 2; docs/decisions.md, "Recurring corridors: the
// calendar"): from a series' recurrence (an RFC 5545 RRULE over local dates in an IANA time zone)
// and its occurrence template (each window as a local time of day plus a duration or an end), the
// occurrences with their windows as UTC instants, the ones due within a horizon, the next one after
// a key, and revisions that apply from a date on.
//
// Pure and deterministic: "now" is a parameter, no timers, no I/O, no Node API and no global state
// of our own, so workflow code may call it (it is bundled into Temporal's sandbox like the rest of
// domain/). The days come from `rrule` run on floating dates (UTC midnights standing for local
// dates: no time zone, so none of its DST pitfalls), the zone's offsets from `luxon` (the
// runtime's ICU data). The one rule of our own is how a local time becomes an instant
// (`instantOf`): a time the clocks skip is shifted forward by the gap, a time that happens twice is
// the earlier instant (RFC 5545's and Temporal's "compatible").
import { DateTime, Duration, IANAZone } from 'luxon';
import { RRule, Weekday, type Options as RRuleOptions } from 'rrule';
import { EXECUTION_LEAD_MS } from './listing';

/** When a series recurs: its rule over local dates, in its time zone. */
export interface Recurrence {
  /** An RFC 5545 RRULE (the subset in `RRULE_PARTS`), e.g. "FREQ=WEEKLY;BYDAY=TU,TH"; an "RRULE:" prefix is allowed. */
  rrule: string;
  /** IANA time zone in which the dates and the template's times are read, e.g. "Europe/Berlin". */
  timeZone: string;
  /** Local date (YYYY-MM-DD) of the first occurrence: it must be a day of the rule (RFC 5545's DTSTART). */
  startDate: string;
  /** Last local date (inclusive) an occurrence may fall on. Not with COUNT or the rule's own UNTIL. */
  until?: string;
  /** Local dates of the rule that are skipped (RFC 5545's EXDATE: they still count towards COUNT). */
  exceptions?: string[];
}

/** "HH:MM", 24-hour local wall-clock time. */
export type LocalTime = string;

/**
 * One window of an occurrence, in local terms. It opens `day` days after the occurrence's date at
 * `time`, and closes either after `duration` or at `end`.
 */
export interface WindowTemplate {
  /** Days after the occurrence's date on which the window opens (0, the default: that date). */
  day?: number;
  /** Local time it opens. */
  time: LocalTime;
  /**
   * How long it stays open, ISO 8601 (PT4H, P2D, P1DT6H): weeks and days move the local date and keep
   * the local time (06:00 for P2D closes at 06:00 two days later whatever the clocks did), hours and
   * minutes are elapsed time after that. No years or months.
   */
  duration?: string;
  /** Or where it closes: `day` days after the occurrence's date (default: the day it opens) at `time`. */
  end?: { day?: number; time: LocalTime };
}

/** When an occurrence's listing expires: `before` ahead of one edge of one of its windows. */
export interface ExpiryTemplate {
  /** The window (a key of `windows`); default the first: the one that opens earliest. */
  window?: string;
  /** Its start (the default) or its end. */
  edge?: 'start' | 'end';
  /** How long before that edge, ISO 8601 (days keep the local time, hours elapse); default PT0S. */
  before?: string;
}

/** One occurrence's terms in time: its windows by their listing names, and its listing's expiry. */
export interface OccurrenceTemplate {
  /** e.g. { availabilityWindow } for an offer, { pickupWindow, deliveryWindow } for a request. */
  windows: Record<string, WindowTemplate>;
  expiresAt: ExpiryTemplate;
}

/** How far ahead occurrences are listed: days, or an ISO 8601 duration (P14D, P2W, PT36H); elapsed time. */
export type Horizon = number | string;

/** A window as a listing carries it: UTC instants, and the zone its local times were read in. */
export interface ZonedWindow {
  start: string;
  end: string;
  timeZone: string;
}

export interface Occurrence {
  /** The local date the rule fell on, e.g. "2026-12-01": stable across revisions, one listing per key. */
  key: string;
  /** The revision of the series that defines it. */
  revision: number;
  windows: Record<string, ZonedWindow>;
  /** The earliest window start: the occurrence is due once it is within the horizon. */
  startsAt: string;
  expiresAt: string;
}

/** A series' calendar as it was revised: each revision governs the keys from its `from` on, but those it keeps. */
export interface CalendarRevision {
  revision: number;
  /** First local date (key) it governs. */
  from: string;
  recurrence: Recurrence;
  template: OccurrenceTemplate;
  /** Keys on or after `from` already materialized when it was made: they keep the revision they were made under. */
  kept: string[];
}

export interface SeriesCalendar {
  revisions: CalendarRevision[];
}

/** What the functions take: a calendar, or a series' one recurrence and template. */
export type CalendarInput = SeriesCalendar | { recurrence: Recurrence; template: OccurrenceTemplate };

export interface RecurrenceProblem {
  pointer: string;
  message: string;
}

/** Thrown by the computing functions for an input `recurrenceProblems` would refuse. */
export class RecurrenceError extends Error {
  constructor(public readonly problems: RecurrenceProblem[]) {
    super(`invalid recurrence: ${problems.map((p) => `${p.pointer} ${p.message}`).join('; ')}`);
    this.name = 'RecurrenceError';
  }
}

export const MAX_HORIZON_DAYS = 90;
/** The furthest a window may open or close from its occurrence's date, and its longest duration. */
export const MAX_WINDOW_DAYS = 31;
export const MAX_COUNT = 1000;
export const MAX_INTERVAL = 99;

/** The RRULE parts supported; every other part (BYHOUR, BYMINUTE, BYSECOND, BYSETPOS, BYMONTH, BYYEARDAY, BYWEEKNO, ...) is refused. */
export const RRULE_PARTS = ['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'COUNT', 'UNTIL', 'WKST'] as const;
const FREQUENCIES = { DAILY: RRule.DAILY, WEEKLY: RRule.WEEKLY, MONTHLY: RRule.MONTHLY } as const;
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const REFUSED_PARTS: Record<string, string> = {
  BYHOUR: 'is not supported: the times of day are in the occurrence template',
  BYMINUTE: 'is not supported: the times of day are in the occurrence template',
  BYSECOND: 'is not supported: the times of day are in the occurrence template',
  DTSTART: 'is not part of an RRULE here: the first date is recurrence.startDate',
  TZID: 'is not part of an RRULE here: the time zone is recurrence.timeZone',
};

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

// ---------------------------------------------------------------------------------------------
// Local dates and times

function isDate(value: unknown): value is string {
  return typeof value === 'string' && DATE.test(value) && DateTime.fromISO(value, { zone: 'utc' }).isValid;
}

/** Midnight UTC standing for a local date (rrule's floating dates). */
function floating(date: string): Date {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d));
}

const dateOf = (floatingDate: Date): string => floatingDate.toISOString().slice(0, 10);

function plusDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'utc' }).plus({ days }).toISODate() as string;
}

function minutesOf(time: string): number {
  const m = TIME.exec(time) as RegExpExecArray;
  return Number(m[1]) * 60 + Number(m[2]);
}

/** The local date at an instant, in a zone. */
function localDate(zone: IANAZone, ms: number): string {
  return DateTime.fromMillis(ms, { zone }).toISODate() as string;
}

/**
 * The instant of a local date and time in a zone. A local time the clocks skip (spring forward) is
 * read with the offset before the change, i.e. shifted forward by the gap (02:30 becomes 03:30); a
 * local time that happens twice (fall back) is the earlier of the two instants. RFC 5545 and
 * Temporal's "compatible" disambiguation; luxon alone would take the later one.
 */
export function instantOf(timeZone: string, date: string, time: LocalTime): number {
  return instantIn(IANAZone.create(timeZone), date, minutesOf(time));
}

function instantIn(zone: IANAZone, date: string, minutes: number): number {
  const wall = floating(date).getTime() + minutes * 60_000;
  // The offsets a day either side: no zone changes its offset twice within a day.
  const offsets = [...new Set([zone.offset(wall - DAY_MS), zone.offset(wall + DAY_MS)])];
  const instants = offsets.map((o) => wall - o * 60_000).filter((t) => zone.offset(t) * 60_000 === wall - t);
  if (instants.length) return Math.min(...instants);
  return wall - zone.offset(wall - DAY_MS) * 60_000;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

// ---------------------------------------------------------------------------------------------
// Durations

interface Span {
  /** Local days moved, keeping the local time. */
  days: number;
  /** Elapsed milliseconds after that. */
  ms: number;
}

/** An ISO 8601 duration as days (weeks and days) and elapsed time (hours, minutes, seconds); a message when it is not one. */
function spanOf(text: unknown): Span | string {
  if (typeof text !== 'string' || !/^P/.test(text)) return 'must be an ISO 8601 duration such as PT4H or P2D';
  const duration = Duration.fromISO(text);
  if (!duration.isValid) return 'must be an ISO 8601 duration such as PT4H or P2D';
  const { years = 0, quarters = 0, months = 0, weeks = 0, days = 0, hours = 0, minutes = 0, seconds = 0, milliseconds = 0 } = duration.toObject();
  if (years || quarters || months) return 'may not count years or months (their length varies): use weeks or days';
  if ([weeks, days, hours, minutes, seconds, milliseconds].some((n) => n < 0)) return 'may not be negative';
  if (!Number.isInteger(weeks) || !Number.isInteger(days)) return 'counts whole weeks and days';
  return { days: weeks * 7 + days, ms: ((hours * 60 + minutes) * 60 + seconds) * 1000 + milliseconds };
}

/** A horizon in milliseconds (days are 24 hours here: the horizon is elapsed time), or a message. */
function horizonOf(horizon: unknown): number | string {
  let ms: number;
  if (typeof horizon === 'number') {
    if (!Number.isFinite(horizon)) return 'must be a number of days or an ISO 8601 duration';
    ms = horizon * DAY_MS;
  } else {
    const span = spanOf(horizon);
    if (typeof span === 'string') return span;
    ms = span.days * DAY_MS + span.ms;
  }
  if (ms <= 0) return 'must be positive';
  if (ms > MAX_HORIZON_DAYS * DAY_MS) return `may be at most ${MAX_HORIZON_DAYS} days`;
  return ms;
}

/** The horizon in milliseconds; throws RecurrenceError for one `recurrenceProblems` refuses. */
export function horizonMs(horizon: Horizon): number {
  const ms = horizonOf(horizon);
  if (typeof ms === 'string') throw new RecurrenceError([{ pointer: '/horizon', message: ms }]);
  return ms;
}

// ---------------------------------------------------------------------------------------------
// The rule

interface Rule {
  options: Partial<RRuleOptions>;
  hasCount: boolean;
  hasUntil: boolean;
}

/** The RRULE text as rrule's options, or the messages saying why not (all at /rrule). */
function parseRule(text: unknown): Rule | string[] {
  if (typeof text !== 'string' || text.trim() === '') return ['is required: an RFC 5545 RRULE such as FREQ=WEEKLY;BYDAY=TU,TH'];
  const body = text.trim().toUpperCase().replace(/^RRULE:/, '');
  const problems: string[] = [];
  const parts = new Map<string, string>();
  for (const part of body.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0 || eq === part.length - 1) {
      problems.push(`"${part}" is not a NAME=VALUE part`);
      continue;
    }
    const name = part.slice(0, eq);
    if (parts.has(name)) problems.push(`${name} is given twice`);
    parts.set(name, part.slice(eq + 1));
  }
  for (const name of parts.keys()) {
    if ((RRULE_PARTS as readonly string[]).includes(name)) continue;
    problems.push(`${name} ${REFUSED_PARTS[name] ?? `is not supported (supported: ${RRULE_PARTS.join(', ')})`}`);
  }
  const options: Partial<RRuleOptions> = {};
  const freq = parts.get('FREQ');
  if (freq === undefined) problems.push('FREQ is required');
  else if (!(freq in FREQUENCIES)) problems.push(`FREQ=${freq} is not supported (supported: ${Object.keys(FREQUENCIES).join(', ')})`);
  else options.freq = FREQUENCIES[freq as keyof typeof FREQUENCIES];

  const interval = parts.get('INTERVAL');
  if (interval !== undefined) {
    if (!/^\d+$/.test(interval) || Number(interval) < 1 || Number(interval) > MAX_INTERVAL) problems.push(`INTERVAL must be a whole number from 1 to ${MAX_INTERVAL}`);
    else options.interval = Number(interval);
  }
  const byday = parts.get('BYDAY');
  if (byday !== undefined) {
    const days: Weekday[] = [];
    for (const item of byday.split(',')) {
      const m = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(item);
      if (!m) {
        problems.push(`BYDAY has "${item}": a weekday (MO..SU), with an ordinal (1FR, -1FR) under FREQ=MONTHLY only`);
        continue;
      }
      const nth = m[1] === undefined ? undefined : Number(m[1]);
      if (nth !== undefined && (freq !== 'MONTHLY' || nth === 0 || Math.abs(nth) > 5)) {
        problems.push(`BYDAY has "${item}": an ordinal weekday needs FREQ=MONTHLY and an ordinal from 1 to 5 or -1 to -5`);
        continue;
      }
      days.push(new Weekday(WEEKDAYS.indexOf(m[2]), nth));
    }
    options.byweekday = days;
  }
  const bymonthday = parts.get('BYMONTHDAY');
  if (bymonthday !== undefined) {
    if (freq === 'WEEKLY') problems.push('BYMONTHDAY does not go with FREQ=WEEKLY (RFC 5545)');
    const days: number[] = [];
    for (const item of bymonthday.split(',')) {
      const n = /^[+-]?\d{1,2}$/.test(item) ? Number(item) : NaN;
      if (!Number.isInteger(n) || n === 0 || Math.abs(n) > 31) problems.push(`BYMONTHDAY has "${item}": a day of the month from 1 to 31, or -1 (the last) to -31`);
      else days.push(n);
    }
    options.bymonthday = days;
  }
  const count = parts.get('COUNT');
  if (count !== undefined) {
    if (!/^\d+$/.test(count) || Number(count) < 1 || Number(count) > MAX_COUNT) problems.push(`COUNT must be a whole number from 1 to ${MAX_COUNT}`);
    else options.count = Number(count);
  }
  const until = parts.get('UNTIL');
  if (until !== undefined) {
    const date = /^(\d{4})(\d{2})(\d{2})$/.exec(until);
    if (!date || !isDate(`${date[1]}-${date[2]}-${date[3]}`)) problems.push(`UNTIL must be a date (YYYYMMDD), the last local date of the series, not "${until}"`);
    else options.until = floating(`${date[1]}-${date[2]}-${date[3]}`);
  }
  if (count !== undefined && until !== undefined) problems.push('COUNT and UNTIL do not go together (RFC 5545)');
  const wkst = parts.get('WKST');
  if (wkst !== undefined) {
    if (!WEEKDAYS.includes(wkst)) problems.push(`WKST must be a weekday (MO..SU), not "${wkst}"`);
    else options.wkst = WEEKDAYS.indexOf(wkst);
  }
  return problems.length ? problems : { options, hasCount: count !== undefined, hasUntil: until !== undefined };
}

/** A recurrence made ready to expand. */
interface Compiled {
  zone: IANAZone;
  rule: RRule;
  exceptions: Set<string>;
}

function isZone(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && IANAZone.isValidZone(value);
}

/** The recurrence's own problems (not its exceptions'), and the compiled recurrence when there are none. */
function compile(recurrence: Recurrence, base: string): { problems: RecurrenceProblem[]; compiled?: Compiled } {
  const problems: RecurrenceProblem[] = [];
  if (typeof recurrence !== 'object' || recurrence === null) return { problems: [{ pointer: base, message: 'is required' }] };
  const rule = parseRule(recurrence.rrule);
  if (Array.isArray(rule)) problems.push(...rule.map((message) => ({ pointer: `${base}/rrule`, message })));
  if (!isZone(recurrence.timeZone)) problems.push({ pointer: `${base}/timeZone`, message: `must be an IANA time zone such as Europe/Berlin, not ${JSON.stringify(recurrence.timeZone ?? null)}` });
  if (!isDate(recurrence.startDate)) problems.push({ pointer: `${base}/startDate`, message: 'must be a local date, YYYY-MM-DD' });
  if (recurrence.until !== undefined) {
    if (!isDate(recurrence.until)) problems.push({ pointer: `${base}/until`, message: 'must be a local date, YYYY-MM-DD' });
    else if (isDate(recurrence.startDate) && recurrence.until < recurrence.startDate) problems.push({ pointer: `${base}/until`, message: 'is before startDate' });
    if (!Array.isArray(rule) && (rule.hasCount || rule.hasUntil)) problems.push({ pointer: `${base}/until`, message: `does not go with the rule's ${rule.hasCount ? 'COUNT' : 'UNTIL'}: give one end` });
  }
  if (recurrence.exceptions !== undefined && (!Array.isArray(recurrence.exceptions) || recurrence.exceptions.some((d) => !isDate(d)))) {
    problems.push({ pointer: `${base}/exceptions`, message: 'must be a list of local dates, YYYY-MM-DD' });
  }
  if (problems.length || Array.isArray(rule)) return { problems };
  const options = { ...rule.options, dtstart: floating(recurrence.startDate), ...(recurrence.until ? { until: floating(recurrence.until) } : {}) };
  const compiled: Compiled = { zone: IANAZone.create(recurrence.timeZone), rule: new RRule(options, true), exceptions: new Set(recurrence.exceptions ?? []) };
  // RFC 5545 leaves a DTSTART off the rule undefined (and COUNT counts it): it must be a day of the rule.
  const first = compiled.rule.after(floating(recurrence.startDate), true);
  if (!first || dateOf(first) !== recurrence.startDate) {
    problems.push({ pointer: `${base}/startDate`, message: `is not a day of the rule ${recurrence.rrule}${first ? `: its first day from then is ${dateOf(first)}` : ': the rule has no day from then'}` });
    return { problems };
  }
  return { problems, compiled };
}

/** The rule's days in [from, to] (local dates, inclusive), exceptions left out. */
function daysBetween(compiled: Compiled, from: string, to: string): string[] {
  if (to < from) return [];
  return compiled.rule.between(floating(from), floating(to), true).map(dateOf).filter((d) => !compiled.exceptions.has(d));
}

function isDay(compiled: Compiled, date: string): boolean {
  return compiled.rule.between(floating(date), floating(date), true).length === 1;
}

// ---------------------------------------------------------------------------------------------
// The template

/** A JSON pointer's reference token (RFC 6901). */
const token = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

function windowProblems(name: string, w: WindowTemplate, base: string): RecurrenceProblem[] {
  const at = `${base}/windows/${token(name)}`;
  if (typeof w !== 'object' || w === null) return [{ pointer: at, message: 'must be a window: { day?, time, duration | end }' }];
  const problems: RecurrenceProblem[] = [];
  const day = w.day ?? 0;
  const dayOk = Number.isInteger(day) && day >= 0 && day <= MAX_WINDOW_DAYS;
  if (!dayOk) problems.push({ pointer: `${at}/day`, message: `must be a whole number of days from 0 to ${MAX_WINDOW_DAYS} after the occurrence's date` });
  const timeOk = typeof w.time === 'string' && TIME.test(w.time);
  if (!timeOk) problems.push({ pointer: `${at}/time`, message: 'must be a local time, HH:MM (00:00 to 23:59)' });
  if ((w.duration === undefined) === (w.end === undefined)) {
    problems.push({ pointer: at, message: 'needs either a duration or an end' });
    return problems;
  }
  if (w.duration !== undefined) {
    const span = spanOf(w.duration);
    if (typeof span === 'string') problems.push({ pointer: `${at}/duration`, message: span });
    else if (span.days === 0 && span.ms === 0) problems.push({ pointer: `${at}/duration`, message: 'must be positive' });
    else if (span.days * DAY_MS + span.ms > MAX_WINDOW_DAYS * DAY_MS) problems.push({ pointer: `${at}/duration`, message: `may be at most ${MAX_WINDOW_DAYS} days` });
  } else {
    const end = w.end as { day?: number; time: string };
    const endDay = end?.day ?? day;
    const endDayOk = Number.isInteger(endDay) && endDay >= 0 && endDay <= MAX_WINDOW_DAYS;
    if (!endDayOk) problems.push({ pointer: `${at}/end/day`, message: `must be a whole number of days from 0 to ${MAX_WINDOW_DAYS} after the occurrence's date` });
    const endTimeOk = typeof end?.time === 'string' && TIME.test(end.time);
    if (!endTimeOk) problems.push({ pointer: `${at}/end/time`, message: 'must be a local time, HH:MM (00:00 to 23:59)' });
    if (dayOk && timeOk && endDayOk && endTimeOk && endDay * 1440 + minutesOf(end.time) <= day * 1440 + minutesOf(w.time)) {
      problems.push({ pointer: `${at}/end`, message: 'must be after the window opens: its duration is not positive' });
    }
  }
  return problems;
}

function templateProblems(template: OccurrenceTemplate, base: string): RecurrenceProblem[] {
  if (typeof template !== 'object' || template === null) return [{ pointer: base, message: 'is required' }];
  const problems: RecurrenceProblem[] = [];
  const names = typeof template.windows === 'object' && template.windows !== null ? Object.keys(template.windows) : [];
  if (names.length === 0) problems.push({ pointer: `${base}/windows`, message: 'needs at least one window' });
  for (const name of names) problems.push(...windowProblems(name, template.windows[name], base));
  const expiry = template.expiresAt;
  if (typeof expiry !== 'object' || expiry === null) {
    problems.push({ pointer: `${base}/expiresAt`, message: 'is required: { window?, edge?, before? }' });
  } else {
    if (expiry.window !== undefined && !names.includes(expiry.window)) problems.push({ pointer: `${base}/expiresAt/window`, message: `must name one of the windows (${names.join(', ')})` });
    if (expiry.edge !== undefined && expiry.edge !== 'start' && expiry.edge !== 'end') problems.push({ pointer: `${base}/expiresAt/edge`, message: 'must be start or end' });
    if (expiry.before !== undefined) {
      const span = spanOf(expiry.before);
      if (typeof span === 'string') problems.push({ pointer: `${base}/expiresAt/before`, message: span });
    }
  }
  return problems;
}

/** Where a window opens in local terms: minutes after the occurrence date's midnight (wall clock). */
const opensAt = (w: WindowTemplate) => (w.day ?? 0) * 1440 + minutesOf(w.time);

/** The window that opens first (the earliest in local terms; the first named on a tie). */
function firstWindow(template: OccurrenceTemplate): string {
  return Object.keys(template.windows).reduce((a, b) => (opensAt(template.windows[b]) < opensAt(template.windows[a]) ? b : a));
}

/** How many days after an occurrence's date its last window may close, at most (a day of margin for the clocks). */
function lastDay(template: OccurrenceTemplate): number {
  let last = 0;
  for (const w of Object.values(template.windows)) {
    if (w.end) last = Math.max(last, w.end.day ?? w.day ?? 0);
    else {
      const span = spanOf(w.duration) as Span;
      last = Math.max(last, (w.day ?? 0) + span.days + Math.ceil((minutesOf(w.time) * 60_000 + span.ms) / DAY_MS));
    }
  }
  return last + 1;
}

// ---------------------------------------------------------------------------------------------
// Validation

export interface ProblemOptions {
  /** The pointers' bases in the document that carries them; defaults "/recurrence", "/template", "/horizon". */
  pointers?: { recurrence?: string; template?: string; horizon?: string };
}

/**
 * Everything wrong with a recurrence, its template and (if given) its horizon, each with a JSON
 * pointer: an unknown time zone, an RRULE outside the supported subset, a startDate off the rule, a
 * window of no positive duration, an exception that is not a day of the series, a horizon over
 * MAX_HORIZON_DAYS. Empty when the computing functions will accept them.
 */
export function recurrenceProblems(recurrence: Recurrence, template: OccurrenceTemplate, horizon?: Horizon, options: ProblemOptions = {}): RecurrenceProblem[] {
  const base = { recurrence: '/recurrence', template: '/template', horizon: '/horizon', ...options.pointers };
  const { problems, compiled } = compile(recurrence, base.recurrence);
  if (compiled) {
    const seen = new Set<string>();
    (recurrence.exceptions ?? []).forEach((date, i) => {
      if (seen.has(date)) problems.push({ pointer: `${base.recurrence}/exceptions/${i}`, message: `${date} is given twice` });
      else if (!isDay(compiled, date)) problems.push({ pointer: `${base.recurrence}/exceptions/${i}`, message: `${date} is not a day of the series` });
      seen.add(date);
    });
  }
  problems.push(...templateProblems(template, base.template));
  if (horizon !== undefined) {
    const ms = horizonOf(horizon);
    if (typeof ms === 'string') problems.push({ pointer: base.horizon, message: ms });
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Occurrences

interface ReadyRevision extends CalendarRevision {
  compiled: Compiled;
  kept: string[];
}

function ready(input: CalendarInput): ReadyRevision[] {
  const revisions: CalendarRevision[] = 'revisions' in input ? input.revisions : [{ revision: 1, from: input.recurrence?.startDate, recurrence: input.recurrence, template: input.template, kept: [] }];
  if (!Array.isArray(revisions) || revisions.length === 0) throw new RecurrenceError([{ pointer: '/revisions', message: 'needs at least one revision' }]);
  return revisions.map((r, i) => {
    const base = `/revisions/${i}`;
    const { problems, compiled } = compile(r.recurrence, `${base}/recurrence`);
    problems.push(...templateProblems(r.template, `${base}/template`));
    if (!isDate(r.from)) problems.push({ pointer: `${base}/from`, message: 'must be a local date, YYYY-MM-DD' });
    if (problems.length || !compiled) throw new RecurrenceError(problems);
    return { ...r, kept: r.kept ?? [], compiled };
  });
}

/** Which revision governs a key: the newest whose `from` it has reached and that did not keep it for an older one. */
function ownerOf(revisions: ReadyRevision[], key: string): number {
  for (let i = revisions.length - 1; i >= 0; i--) {
    if (key >= revisions[i].from && !revisions[i].kept.includes(key)) return i;
  }
  return -1;
}

/** The occurrence on a day of the rule, as a revision's template and zone make it. */
function occurrenceOn(r: ReadyRevision, key: string): Occurrence {
  const { zone } = r.compiled;
  const timeZone = r.recurrence.timeZone;
  const spans: Record<string, { start: number; end: number }> = {};
  for (const [name, w] of Object.entries(r.template.windows)) {
    const opens = plusDays(key, w.day ?? 0);
    const start = instantIn(zone, opens, minutesOf(w.time));
    let end: number;
    if (w.end) end = instantIn(zone, plusDays(key, w.end.day ?? w.day ?? 0), minutesOf(w.end.time));
    else {
      const span = spanOf(w.duration) as Span;
      end = instantIn(zone, plusDays(opens, span.days), minutesOf(w.time)) + span.ms;
    }
    spans[name] = { start, end };
  }
  const startsAt = Math.min(...Object.values(spans).map((s) => s.start));
  const expiry = r.template.expiresAt;
  const edge = spans[expiry.window ?? firstWindow(r.template)][expiry.edge ?? 'start'];
  const before = expiry.before === undefined ? { days: 0, ms: 0 } : (spanOf(expiry.before) as Span);
  // Days before keep the edge's local time; hours before are elapsed.
  const wall = DateTime.fromMillis(edge, { zone });
  const expiresAt = (before.days ? instantIn(zone, plusDays(wall.toISODate() as string, -before.days), wall.hour * 60 + wall.minute) + wall.second * 1000 : edge) - before.ms;
  const windows: Record<string, ZonedWindow> = {};
  for (const [name, s] of Object.entries(spans)) windows[name] = { start: iso(s.start), end: iso(s.end), timeZone };
  return { key, revision: r.revision, windows, startsAt: iso(startsAt), expiresAt: iso(expiresAt) };
}

/** Whether each window opens before it closes (a window lying wholly in a skipped hour does not). */
const nonEmpty = (o: Occurrence) => Object.values(o.windows).every((w) => Date.parse(w.start) < Date.parse(w.end));

function parseNow(now: string): number {
  const ms = typeof now === 'string' ? Date.parse(now) : NaN;
  if (!Number.isFinite(ms)) throw new RecurrenceError([{ pointer: '/now', message: 'must be an ISO 8601 instant' }]);
  return ms;
}

/** A series' calendar at its first revision. Throws RecurrenceError for what `recurrenceProblems` refuses. */
export function seriesCalendar(recurrence: Recurrence, template: OccurrenceTemplate): SeriesCalendar {
  const problems = recurrenceProblems(recurrence, template);
  if (problems.length) throw new RecurrenceError(problems);
  return { revisions: [{ revision: 1, from: recurrence.startDate, recurrence, template, kept: [] }] };
}

/** The occurrence of a key (a local date), or undefined when the series has none that day. */
export function occurrenceAt(calendar: CalendarInput, key: string): Occurrence | undefined {
  const revisions = ready(calendar);
  const owner = isDate(key) ? ownerOf(revisions, key) : -1;
  if (owner < 0) return undefined;
  const r = revisions[owner];
  if (r.compiled.exceptions.has(key) || !isDay(r.compiled, key)) return undefined;
  return occurrenceOn(r, key);
}

/**
 * The occurrences to list at `now`: those whose first window starts at or before now + horizon
 * (one starting exactly then included) that can still be published, i.e. every window ends more
 * than the execution lead (EXECUTION_LEAD_MINUTES) after now, expiresAt is after now, and no window
 * is empty. One already under way is listed while it can still be met, as a one-off listing whose
 * window started this morning is. Ordered by start, then key.
 */
export function dueOccurrences(calendar: CalendarInput, at: { now: string; horizon: Horizon }): Occurrence[] {
  const revisions = ready(calendar);
  const nowMs = parseNow(at.now);
  const untilMs = nowMs + horizonMs(at.horizon);
  const due: Occurrence[] = [];
  revisions.forEach((r, i) => {
    const lowest = plusDays(localDate(r.compiled.zone, nowMs), -lastDay(r.template));
    const from = lowest > r.from ? lowest : r.from;
    for (const key of daysBetween(r.compiled, from, localDate(r.compiled.zone, untilMs))) {
      if (ownerOf(revisions, key) !== i) continue;
      const o = occurrenceOn(r, key);
      if (Date.parse(o.startsAt) > untilMs || Date.parse(o.expiresAt) <= nowMs || !nonEmpty(o)) continue;
      if (Object.values(o.windows).some((w) => Date.parse(w.end) - EXECUTION_LEAD_MS <= nowMs)) continue;
      due.push(o);
    }
  });
  return due.sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The first occurrence whose key comes after `afterKey` (the first of all without it), whatever
 * now is: what a series' clock waits for (it wakes at `dueAt`). Undefined when the series ends
 * before. An occurrence whose windows a skipped hour empties is passed over.
 */
export function nextOccurrence(calendar: CalendarInput, afterKey?: string): Occurrence | undefined {
  const revisions = ready(calendar);
  if (afterKey !== undefined && !isDate(afterKey)) throw new RecurrenceError([{ pointer: '/after', message: 'must be an occurrence key, a local date YYYY-MM-DD' }]);
  let best: Occurrence | undefined;
  revisions.forEach((r, i) => {
    const newer = revisions.slice(i + 1);
    // Past both of these every key belongs to a newer revision: stop looking in this one.
    const shadowFrom = newer.length ? newer.map((n) => n.from).reduce((a, b) => (a < b ? a : b)) : undefined;
    const lastKept = newer.flatMap((n) => n.kept).reduce((a, b) => (a > b ? a : b), '');
    let cursor: Date | null = afterKey !== undefined && afterKey >= r.from ? floating(afterKey) : floating(r.from);
    let inclusive = !(afterKey !== undefined && afterKey >= r.from);
    for (let guard = 0; cursor && guard < 10_000; guard++) {
      const next: Date | null = r.compiled.rule.after(cursor, inclusive);
      inclusive = false;
      cursor = next;
      if (!next) break;
      const key = dateOf(next);
      if (best && key >= best.key) break;
      if (shadowFrom !== undefined && key >= shadowFrom && key > lastKept) break;
      if (r.compiled.exceptions.has(key) || ownerOf(revisions, key) !== i) continue;
      const o = occurrenceOn(r, key);
      if (!nonEmpty(o)) continue;
      best = o;
      break;
    }
  });
  return best;
}

/** When an occurrence is due: its first window's start less the horizon (the clock's wake-up). */
export function dueAt(occurrence: Occurrence, horizon: Horizon): string {
  return iso(Date.parse(occurrence.startsAt) - horizonMs(horizon));
}

/** A change of the series from a date on: the recurrence and template that govern from then. */
export interface CalendarChange {
  /** First local date (key) the change governs; default today (the local date of now in the new zone). Not before today. */
  from?: string;
  recurrence: Recurrence;
  template: OccurrenceTemplate;
}

/**
 * The calendar with a new revision from `change.from` on. Future occurrences only: keys before
 * `from` keep their revision, and so does every key already materialized (published as a listing)
 * on or after it (`kept`), whatever the new rule and times say; the others follow the new revision.
 * A key keeps its meaning (the local date) across revisions. Throws RecurrenceError with the
 * problems (pointers under /recurrence, /template, /from).
 */
export function reviseCalendar(calendar: SeriesCalendar, change: CalendarChange, at: { now: string; materialized: readonly string[] }): SeriesCalendar {
  const revisions = ready(calendar);
  const nowMs = parseNow(at.now);
  const problems = recurrenceProblems(change.recurrence, change.template);
  if (problems.length) throw new RecurrenceError(problems);
  const today = localDate(IANAZone.create(change.recurrence.timeZone), nowMs);
  const from = change.from ?? today;
  if (!isDate(from)) throw new RecurrenceError([{ pointer: '/from', message: 'must be a local date, YYYY-MM-DD' }]);
  if (from < today) throw new RecurrenceError([{ pointer: '/from', message: `is before today (${today} in ${change.recurrence.timeZone}): a change applies to future occurrences only` }]);
  const kept = [...new Set(at.materialized.filter((k) => k >= from))].sort();
  const revision = Math.max(...revisions.map((r) => r.revision)) + 1;
  return { revisions: [...calendar.revisions, { revision, from, recurrence: change.recurrence, template: change.template, kept }] };
}
