// The calendar of recurring corridors (domain/recurrence.ts): daylight-saving weeks, month ends,
// exceptions, horizon boundaries, UNTIL and COUNT, zones with other rules, determinism, keys across
// a revision, validation. Expected instants are written out by hand from the zones' published
// rules (Europe/Berlin: CET +01:00, CEST +02:00 from 2026-03-29 02:00 to 2026-10-25 03:00;
// America/New_York: EST -05:00, EDT -04:00 from 2026-03-08 to 2026-11-01; Asia/Kolkata +05:30).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { EXECUTION_LEAD_MINUTES } from '../../domain/listing';
import {
  dueAt,
  dueOccurrences,
  instantOf,
  MAX_HORIZON_DAYS,
  nextOccurrence,
  occurrenceAt,
  RecurrenceError,
  recurrenceProblems,
  reviseCalendar,
  seriesCalendar,
  type CalendarInput,
  type OccurrenceTemplate,
  type Recurrence,
} from '../../domain/recurrence';

const BERLIN = 'Europe/Berlin';
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
/** The local wall-clock time of an instant in a zone, "yyyy-MM-dd HH:mm". */
const wall = (instant: string, zone: string) => DateTime.fromISO(instant, { zone }).toFormat('yyyy-MM-dd HH:mm');

/** A load request's windows: pickup 08:00 for 4 h on the occurrence day, delivery 14:00 the next day for 6 h; listed until 2 h before pickup. */
const REQUEST: OccurrenceTemplate = {
  windows: { pickupWindow: { time: '08:00', duration: 'PT4H' }, deliveryWindow: { day: 1, time: '14:00', duration: 'PT6H' } },
  expiresAt: { window: 'pickupWindow', edge: 'start', before: 'PT2H' },
};
/** An offer's availability: 06:00 for 2 days, listed until it ends. */
const OFFER: OccurrenceTemplate = { windows: { availabilityWindow: { time: '06:00', duration: 'P2D' } }, expiresAt: { edge: 'end' } };
const TU_TH: Recurrence = { rrule: 'FREQ=WEEKLY;BYDAY=TU,TH', timeZone: BERLIN, startDate: '2026-03-03' };

const series = (recurrence: Partial<Recurrence>, template: OccurrenceTemplate = REQUEST): CalendarInput => ({ recurrence: { ...TU_TH, ...recurrence }, template });

/** The first n occurrences from the start (or after a key), by nextOccurrence. */
function firstKeys(calendar: CalendarInput, n: number, after?: string): string[] {
  const keys: string[] = [];
  for (let o = nextOccurrence(calendar, after); o && keys.length < n; o = nextOccurrence(calendar, o.key)) keys.push(o.key);
  return keys;
}

describe('local times to instants', () => {
  it('a skipped local time is shifted forward by the gap; a repeated one is the earlier instant', () => {
    // 2026-03-29 02:30 does not exist in Berlin: 03:30 CEST.
    expect(iso(instantOf(BERLIN, '2026-03-29', '02:30'))).toBe('2026-03-29T01:30:00Z');
    // 2026-10-25 02:30 happens twice: first at CEST (00:30Z), then at CET (01:30Z).
    expect(iso(instantOf(BERLIN, '2026-10-25', '02:30'))).toBe('2026-10-25T00:30:00Z');
    expect(iso(instantOf('America/New_York', '2026-03-08', '02:30'))).toBe('2026-03-08T07:30:00Z');
    expect(iso(instantOf('America/New_York', '2026-11-01', '01:30'))).toBe('2026-11-01T05:30:00Z');
    // Either side of the changes, the plain offsets.
    expect(iso(instantOf(BERLIN, '2026-03-29', '01:59'))).toBe('2026-03-29T00:59:00Z');
    expect(iso(instantOf(BERLIN, '2026-03-29', '03:00'))).toBe('2026-03-29T01:00:00Z');
    expect(iso(instantOf(BERLIN, '2026-10-25', '03:00'))).toBe('2026-10-25T02:00:00Z');
    expect(iso(instantOf('Asia/Kolkata', '2026-03-29', '08:00'))).toBe('2026-03-29T02:30:00Z');
  });
});

describe('daylight-saving weeks', () => {
  it('spring (Europe/Berlin, 2026-03-29): Tuesday and Thursday 08:00 stay 08:00 local, the instant moves an hour earlier', () => {
    const due = dueOccurrences(series({}), { now: '2026-03-23T00:00:00Z', horizon: 14 });
    expect(due.map((o) => [o.key, o.windows.pickupWindow.start])).toEqual([
      ['2026-03-24', '2026-03-24T07:00:00Z'],
      ['2026-03-26', '2026-03-26T07:00:00Z'],
      ['2026-03-31', '2026-03-31T06:00:00Z'],
      ['2026-04-02', '2026-04-02T06:00:00Z'],
    ]);
    for (const o of due) {
      expect(wall(o.windows.pickupWindow.start, BERLIN)).toBe(`${o.key} 08:00`);
      expect(wall(o.windows.pickupWindow.end, BERLIN)).toBe(`${o.key} 12:00`);
      expect(wall(o.windows.deliveryWindow.start, BERLIN).slice(11)).toBe('14:00');
      expect(o.windows.pickupWindow.timeZone).toBe(BERLIN);
      expect(Date.parse(o.startsAt) - Date.parse(o.expiresAt)).toBe(2 * 3_600_000);
    }
  });

  it('autumn (Europe/Berlin, 2026-10-25): 08:00 local stays, the instant moves an hour later', () => {
    const due = dueOccurrences(series({}), { now: '2026-10-19T00:00:00Z', horizon: 14 });
    expect(due.map((o) => [o.key, o.windows.pickupWindow.start])).toEqual([
      ['2026-10-20', '2026-10-20T06:00:00Z'],
      ['2026-10-22', '2026-10-22T06:00:00Z'],
      ['2026-10-27', '2026-10-27T07:00:00Z'],
      ['2026-10-29', '2026-10-29T07:00:00Z'],
    ]);
  });

  it('a window across the change keeps its local end: 06:00 for two days closes at 06:00, 47 hours later in spring', () => {
    const offer = { recurrence: { ...TU_TH, rrule: 'FREQ=WEEKLY;BYDAY=FR', startDate: '2026-03-27' }, template: OFFER };
    const o = occurrenceAt(offer, '2026-03-27')!;
    expect(o.windows.availabilityWindow).toEqual({ start: '2026-03-27T05:00:00Z', end: '2026-03-29T04:00:00Z', timeZone: BERLIN });
    expect(o.expiresAt).toBe('2026-03-29T04:00:00Z');
  });

  it('a daily 02:30 on the spring-forward day starts at 03:30 (the gap), and on the autumn day at the first 02:30', () => {
    const daily = series({ rrule: 'FREQ=DAILY', startDate: '2026-03-01' }, { windows: { pickupWindow: { time: '02:30', duration: 'PT1H' } }, expiresAt: {} });
    expect(['2026-03-28', '2026-03-29', '2026-03-30'].map((k) => occurrenceAt(daily, k)!.windows.pickupWindow)).toEqual([
      { start: '2026-03-28T01:30:00Z', end: '2026-03-28T02:30:00Z', timeZone: BERLIN },
      { start: '2026-03-29T01:30:00Z', end: '2026-03-29T02:30:00Z', timeZone: BERLIN },
      { start: '2026-03-30T00:30:00Z', end: '2026-03-30T01:30:00Z', timeZone: BERLIN },
    ]);
    expect(wall('2026-03-29T01:30:00Z', BERLIN)).toBe('2026-03-29 03:30');
    expect(['2026-10-24', '2026-10-25', '2026-10-26'].map((k) => occurrenceAt(daily, k)!.windows.pickupWindow.start)).toEqual([
      '2026-10-24T00:30:00Z',
      '2026-10-25T00:30:00Z',
      '2026-10-26T01:30:00Z',
    ]);
    // An end given as a local time in the repeated hour is its first instance too: 02:30 to 02:45 is 15 minutes.
    const short = series({ rrule: 'FREQ=DAILY', startDate: '2026-10-01' }, { windows: { pickupWindow: { time: '02:30', end: { time: '02:45' } } }, expiresAt: {} });
    expect(occurrenceAt(short, '2026-10-25')!.windows.pickupWindow).toEqual({ start: '2026-10-25T00:30:00Z', end: '2026-10-25T00:45:00Z', timeZone: BERLIN });
  });

  it('a window lying wholly in the skipped hour is empty that day and passed over', () => {
    const gap = series({ rrule: 'FREQ=DAILY', startDate: '2026-03-20' }, { windows: { pickupWindow: { time: '02:00', end: { time: '03:00' } } }, expiresAt: {} });
    expect(nextOccurrence(gap, '2026-03-28')!.key).toBe('2026-03-30');
    expect(dueOccurrences(gap, { now: '2026-03-27T12:00:00Z', horizon: 4 }).map((o) => o.key)).toEqual(['2026-03-28', '2026-03-30', '2026-03-31']);
  });
});

describe('other zones', () => {
  it('America/New_York: Monday 09:00 across both changes of 2026', () => {
    const monday = series({ rrule: 'FREQ=WEEKLY;BYDAY=MO', timeZone: 'America/New_York', startDate: '2026-03-02' }, { windows: { pickupWindow: { time: '09:00', duration: 'PT8H' } }, expiresAt: {} });
    expect(['2026-03-02', '2026-03-09', '2026-10-26', '2026-11-02'].map((k) => occurrenceAt(monday, k)!.windows.pickupWindow.start)).toEqual([
      '2026-03-02T14:00:00Z',
      '2026-03-09T13:00:00Z',
      '2026-10-26T13:00:00Z',
      '2026-11-02T14:00:00Z',
    ]);
  });

  it('Asia/Kolkata (+05:30): local dates and the horizon follow the zone, not UTC', () => {
    const daily = series({ rrule: 'FREQ=DAILY', timeZone: 'Asia/Kolkata', startDate: '2026-06-01' }, OFFER);
    expect(occurrenceAt(daily, '2026-06-01')!.windows.availabilityWindow).toEqual({ start: '2026-06-01T00:30:00Z', end: '2026-06-03T00:30:00Z', timeZone: 'Asia/Kolkata' });
    // 20:00Z on 2 June is 01:30 on 3 June in Kolkata; a day ahead reaches 01:30 on 4 June: the 4 June
    // occurrence (06:00 local) is not yet due, the 1st and 2nd still run, and the 3rd is due.
    const due = dueOccurrences(daily, { now: '2026-06-02T20:00:00Z', horizon: 'P1D' });
    expect(due.map((o) => o.key)).toEqual(['2026-06-01', '2026-06-02', '2026-06-03']);
    expect(due[2].startsAt).toBe('2026-06-03T00:30:00Z');
  });
});

describe('month ends', () => {
  it('BYMONTHDAY=31 skips the months without a 31st', () => {
    expect(firstKeys(series({ rrule: 'FREQ=MONTHLY;BYMONTHDAY=31', startDate: '2026-01-31' }), 6)).toEqual(['2026-01-31', '2026-03-31', '2026-05-31', '2026-07-31', '2026-08-31', '2026-10-31']);
  });

  it('BYMONTHDAY=-1 is the last day of every month, February included', () => {
    expect(firstKeys(series({ rrule: 'FREQ=MONTHLY;BYMONTHDAY=-1', startDate: '2026-01-31' }), 5)).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31']);
    expect(firstKeys(series({ rrule: 'FREQ=MONTHLY;BYMONTHDAY=-1', startDate: '2028-01-31' }), 2)).toEqual(['2028-01-31', '2028-02-29']);
  });

  it('the last Friday of the month, and every other week from the start', () => {
    expect(firstKeys(series({ rrule: 'FREQ=MONTHLY;BYDAY=-1FR', startDate: '2026-01-30' }), 3)).toEqual(['2026-01-30', '2026-02-27', '2026-03-27']);
    expect(firstKeys(series({ rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', startDate: '2026-03-03' }), 3)).toEqual(['2026-03-03', '2026-03-17', '2026-03-31']);
  });
});

describe('exceptions, UNTIL and COUNT', () => {
  it('an exception skips its date in the due list and for the clock', () => {
    const s = series({ exceptions: ['2026-03-26'] });
    expect(dueOccurrences(s, { now: '2026-03-23T00:00:00Z', horizon: 7 }).map((o) => o.key)).toEqual(['2026-03-24']);
    expect(nextOccurrence(s, '2026-03-24')!.key).toBe('2026-03-31');
    expect(occurrenceAt(s, '2026-03-26')).toBeUndefined();
  });

  it('until (a local date) and the rule\'s UNTIL end the series inclusively', () => {
    expect(firstKeys(series({ until: '2026-03-10' }), 10)).toEqual(['2026-03-03', '2026-03-05', '2026-03-10']);
    expect(firstKeys(series({ rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20260310' }), 10)).toEqual(['2026-03-03', '2026-03-05', '2026-03-10']);
    expect(dueOccurrences(series({ until: '2026-03-10' }), { now: '2026-03-09T00:00:00Z', horizon: 30 }).map((o) => o.key)).toEqual(['2026-03-10']);
  });

  it('COUNT counts the rule\'s days, an exception among them (RFC 5545 EXDATE)', () => {
    expect(firstKeys(series({ rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=3' }), 10)).toEqual(['2026-03-03', '2026-03-05', '2026-03-10']);
    expect(firstKeys(series({ rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=3', exceptions: ['2026-03-05'] }), 10)).toEqual(['2026-03-03', '2026-03-10']);
    expect(nextOccurrence(series({ rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=3' }), '2026-03-10')).toBeUndefined();
  });
});

describe('the horizon', () => {
  const s = series({ rrule: 'FREQ=DAILY', startDate: '2026-12-01' });
  // 2026-12-10 pickup 08:00 CET = 07:00Z.
  const start = Date.parse('2026-12-10T07:00:00Z');

  it('includes an occurrence starting exactly at now + horizon, not one starting a millisecond after', () => {
    const at = (now: number) => dueOccurrences(s, { now: new Date(now).toISOString(), horizon: 'P14D' }).map((o) => o.key);
    expect(at(start - 14 * 86_400_000)).toContain('2026-12-10');
    expect(at(start - 14 * 86_400_000 - 1)).not.toContain('2026-12-10');
    expect(at(start - 14 * 86_400_000 - 1).at(-1)).toBe('2026-12-09');
  });

  it('leaves out an occurrence whose window ends within the execution lead, and one whose expiresAt has come', () => {
    const untilEnd = series({ rrule: 'FREQ=DAILY', startDate: '2026-12-01' }, { windows: { availabilityWindow: { time: '08:00', duration: 'PT4H' } }, expiresAt: { edge: 'end' } });
    const end = Date.parse('2026-12-10T11:00:00Z');
    const keysAt = (now: number) => dueOccurrences(untilEnd, { now: new Date(now).toISOString(), horizon: 1 }).map((o) => o.key);
    // Under way since 08:00 and still more than the lead to run: listed, as a one-off listing would be.
    expect(keysAt(end - (EXECUTION_LEAD_MINUTES + 1) * 60_000)).toEqual(['2026-12-10', '2026-12-11']);
    expect(keysAt(end - EXECUTION_LEAD_MINUTES * 60_000)).toEqual(['2026-12-11']);
    // The default expiry (the first window's start, 2 h before it here): gone at its expiresAt.
    expect(dueOccurrences(s, { now: '2026-12-10T05:00:00Z', horizon: 2 }).map((o) => o.key)).toEqual(['2026-12-11']);
    expect(dueOccurrences(s, { now: '2026-12-10T04:59:59Z', horizon: 2 }).map((o) => o.key)).toEqual(['2026-12-10', '2026-12-11']);
  });

  it('dueAt is the first window\'s start less the horizon: when the clock wakes for it', () => {
    const o = occurrenceAt(s, '2026-12-10')!;
    expect(dueAt(o, 14)).toBe('2026-11-26T07:00:00Z');
    expect(dueAt(o, 'PT36H')).toBe('2026-12-08T19:00:00Z');
    expect(dueOccurrences(s, { now: dueAt(o, 14), horizon: 14 }).at(-1)!.key).toBe('2026-12-10');
  });

  it('refuses a horizon beyond the maximum or of no length', () => {
    expect(() => dueOccurrences(s, { now: '2026-12-01T00:00:00Z', horizon: MAX_HORIZON_DAYS + 1 })).toThrow(RecurrenceError);
    expect(() => dueOccurrences(s, { now: '2026-12-01T00:00:00Z', horizon: 0 })).toThrow(RecurrenceError);
    expect(() => dueOccurrences(s, { now: 'yesterday', horizon: 1 })).toThrow(RecurrenceError);
    expect(dueOccurrences(s, { now: '2026-12-01T00:00:00Z', horizon: MAX_HORIZON_DAYS })).toHaveLength(MAX_HORIZON_DAYS);
  });
});

describe('determinism', () => {
  const freeze = <T>(value: T): T => {
    if (value && typeof value === 'object') {
      for (const v of Object.values(value)) freeze(v);
      Object.freeze(value);
    }
    return value;
  };

  it('the same input gives the same output, whatever the process\'s own time zone, and the input is left as it was', () => {
    const input = freeze({ recurrence: { ...TU_TH, exceptions: ['2026-03-26'] }, template: REQUEST });
    const at = { now: '2026-03-20T10:00:00Z', horizon: 'P21D' };
    const first = dueOccurrences(input, at);
    expect(dueOccurrences(input, at)).toEqual(first);
    const saved = process.env.TZ;
    try {
      for (const tz of ['Pacific/Kiritimati', 'America/Los_Angeles', 'Asia/Kolkata']) {
        process.env.TZ = tz;
        expect(dueOccurrences(input, at)).toEqual(first);
        expect(nextOccurrence(input, '2026-03-24')).toEqual(first[1]);
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
    expect(first.map((o) => o.key)).toEqual(['2026-03-24', '2026-03-31', '2026-04-02', '2026-04-07', '2026-04-09']);
  });

  it('uses no clock, timer, randomness, Node API or global setting (it runs in workflow code)', () => {
    const source = readFileSync(join(__dirname, '..', '..', 'domain', 'recurrence.ts'), 'utf8').replace(/^\s*(\/\/|\*|\/\*\*).*$/gm, '');
    for (const forbidden of [/Date\.now/, /new Date\(\)/, /DateTime\.(now|local)\(/, /setTimeout|setInterval|setImmediate/, /Math\.random/, /process\./, /require\(/, /Settings\./, /from 'node:/]) {
      expect({ forbidden: String(forbidden), found: forbidden.test(source) }).toEqual({ forbidden: String(forbidden), found: false });
    }
    const imports = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports.sort()).toEqual(['./listing', 'luxon', 'rrule']);
  });
});

describe('revisions from a date on', () => {
  const calendar = seriesCalendar({ ...TU_TH, startDate: '2026-11-03' }, REQUEST);
  const later: OccurrenceTemplate = { ...REQUEST, windows: { ...REQUEST.windows, pickupWindow: { time: '09:00', duration: 'PT4H' } } };
  const revised = reviseCalendar(
    calendar,
    { from: '2026-12-01', recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=MO,TH', timeZone: BERLIN, startDate: '2026-11-30' }, template: later },
    { now: '2026-11-28T16:00:00Z', materialized: ['2026-11-24', '2026-11-26', '2026-12-01', '2026-12-03'] },
  );

  it('keeps what came before the date and every occurrence already materialized, with its key and windows', () => {
    expect(revised.revisions.map((r) => [r.revision, r.from, r.kept])).toEqual([
      [1, '2026-11-03', []],
      [2, '2026-12-01', ['2026-12-01', '2026-12-03']],
    ]);
    for (const key of ['2026-11-26', '2026-12-01', '2026-12-03']) expect(occurrenceAt(revised, key)).toEqual(occurrenceAt(calendar, key));
    expect(occurrenceAt(revised, '2026-12-01')!.windows.pickupWindow.start).toBe('2026-12-01T07:00:00Z');
  });

  it('applies the change to the occurrences not yet materialized: new days, new times, the same key form', () => {
    expect(occurrenceAt(revised, '2026-12-08')).toBeUndefined(); // a Tuesday: no longer a day of the series
    const thursday = occurrenceAt(revised, '2026-12-10')!;
    expect([thursday.key, thursday.revision, wall(thursday.windows.pickupWindow.start, BERLIN)]).toEqual(['2026-12-10', 2, '2026-12-10 09:00']);
    expect(occurrenceAt(calendar, '2026-12-10')!.key).toBe('2026-12-10');
    expect(firstKeys(revised, 5, '2026-11-26')).toEqual(['2026-12-01', '2026-12-03', '2026-12-07', '2026-12-10', '2026-12-14']);
    // 2026-11-30 is a Monday of the new rule, but before its date: not an occurrence.
    expect(occurrenceAt(revised, '2026-11-30')).toBeUndefined();
    expect(dueOccurrences(revised, { now: '2026-11-30T00:00:00Z', horizon: 8 }).map((o) => [o.key, o.revision])).toEqual([
      ['2026-12-01', 1],
      ['2026-12-03', 1],
      ['2026-12-07', 2],
    ]);
  });

  it('an older revision shadowed from a date on ends there for the clock', () => {
    const ended = reviseCalendar(calendar, { from: '2026-12-01', recurrence: { ...TU_TH, startDate: '2026-11-03', until: '2026-11-30' }, template: REQUEST }, { now: '2026-11-28T16:00:00Z', materialized: [] });
    expect(nextOccurrence(ended, '2026-11-26')).toBeUndefined();
    expect(dueOccurrences(ended, { now: '2026-11-28T16:00:00Z', horizon: 30 })).toEqual([]);
  });

  it('refuses a change from a date already past, and an invalid one, with pointers', () => {
    const change = { from: '2026-11-27', recurrence: TU_TH, template: REQUEST };
    expect(() => reviseCalendar(calendar, change, { now: '2026-11-28T16:00:00Z', materialized: [] })).toThrow(RecurrenceError);
    try {
      reviseCalendar(calendar, { ...change, from: undefined, template: { ...REQUEST, windows: {} } }, { now: '2026-11-28T16:00:00Z', materialized: [] });
      throw new Error('not refused');
    } catch (e) {
      expect((e as RecurrenceError).problems).toContainEqual({ pointer: '/template/windows', message: 'needs at least one window' });
    }
    // Without a date, from today (the local date of now) on.
    expect(reviseCalendar(calendar, { recurrence: TU_TH, template: later }, { now: '2026-11-28T23:30:00Z', materialized: [] }).revisions[1].from).toBe('2026-11-29');
  });
});

describe('recurrenceProblems', () => {
  const problems = (recurrence: Partial<Recurrence>, template: OccurrenceTemplate = REQUEST, horizon?: number | string) => recurrenceProblems({ ...TU_TH, ...recurrence } as Recurrence, template, horizon);
  const pointers = (found: Array<{ pointer: string }>) => found.map((p) => p.pointer);

  it('accepts a valid series', () => {
    expect(problems({ exceptions: ['2026-03-05'], until: '2026-12-31' }, REQUEST, 14)).toEqual([]);
    expect(problems({ rrule: 'RRULE:freq=monthly;bymonthday=-1;interval=2', startDate: '2026-01-31' }, OFFER, 'P2W')).toEqual([]);
  });

  it.each([
    ['an unknown time zone', { timeZone: 'Europe/Atlantis' }, '/recurrence/timeZone', /IANA time zone/],
    ['no time zone', { timeZone: '' }, '/recurrence/timeZone', /IANA/],
    ['a startDate that is no date', { startDate: '2026-02-30' }, '/recurrence/startDate', /YYYY-MM-DD/],
    ['a startDate off the rule', { startDate: '2026-03-04' }, '/recurrence/startDate', /first day from then is 2026-03-05/],
    ['an RRULE that is not one', { rrule: 'every tuesday' }, '/recurrence/rrule', /NAME=VALUE/],
    ['no FREQ', { rrule: 'BYDAY=TU' }, '/recurrence/rrule', /FREQ is required/],
    ['FREQ=HOURLY', { rrule: 'FREQ=HOURLY' }, '/recurrence/rrule', /FREQ=HOURLY is not supported/],
    ['FREQ=SECONDLY', { rrule: 'FREQ=SECONDLY' }, '/recurrence/rrule', /not supported/],
    ['FREQ=YEARLY', { rrule: 'FREQ=YEARLY' }, '/recurrence/rrule', /not supported/],
    ['BYHOUR', { rrule: 'FREQ=WEEKLY;BYDAY=TU;BYHOUR=8' }, '/recurrence/rrule', /BYHOUR is not supported: the times of day are in the occurrence template/],
    ['BYMINUTE', { rrule: 'FREQ=WEEKLY;BYDAY=TU;BYMINUTE=30' }, '/recurrence/rrule', /BYMINUTE is not supported/],
    ['BYSETPOS', { rrule: 'FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=-1', startDate: '2026-03-31' }, '/recurrence/rrule', /BYSETPOS is not supported/],
    ['BYMONTH', { rrule: 'FREQ=WEEKLY;BYDAY=TU;BYMONTH=6' }, '/recurrence/rrule', /BYMONTH is not supported/],
    ['a part given twice', { rrule: 'FREQ=WEEKLY;FREQ=DAILY' }, '/recurrence/rrule', /given twice/],
    ['an ordinal weekday under WEEKLY', { rrule: 'FREQ=WEEKLY;BYDAY=1TU' }, '/recurrence/rrule', /ordinal weekday needs FREQ=MONTHLY/],
    ['BYMONTHDAY under WEEKLY', { rrule: 'FREQ=WEEKLY;BYMONTHDAY=3' }, '/recurrence/rrule', /does not go with FREQ=WEEKLY/],
    ['BYMONTHDAY=0', { rrule: 'FREQ=MONTHLY;BYMONTHDAY=0' }, '/recurrence/rrule', /day of the month/],
    ['INTERVAL=0', { rrule: 'FREQ=WEEKLY;INTERVAL=0;BYDAY=TU' }, '/recurrence/rrule', /INTERVAL/],
    ['COUNT=0', { rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=0' }, '/recurrence/rrule', /COUNT/],
    ['UNTIL as a UTC date-time', { rrule: 'FREQ=WEEKLY;BYDAY=TU;UNTIL=20261231T235959Z' }, '/recurrence/rrule', /UNTIL must be a date \(YYYYMMDD\)/],
    ['COUNT with UNTIL', { rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=3;UNTIL=20261231' }, '/recurrence/rrule', /COUNT and UNTIL/],
    ['until with COUNT', { rrule: 'FREQ=WEEKLY;BYDAY=TU;COUNT=3', until: '2026-12-31' }, '/recurrence/until', /COUNT/],
    ['until before startDate', { until: '2026-03-01' }, '/recurrence/until', /before startDate/],
    ['an exception off the rule', { exceptions: ['2026-03-04'] }, '/recurrence/exceptions/0', /2026-03-04 is not a day of the series/],
    ['an exception before the start', { exceptions: ['2026-03-05', '2026-02-26'] }, '/recurrence/exceptions/1', /not a day of the series/],
    ['an exception after COUNT ran out', { rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;COUNT=2', exceptions: ['2026-03-10'] }, '/recurrence/exceptions/0', /not a day of the series/],
    ['an exception twice', { exceptions: ['2026-03-05', '2026-03-05'] }, '/recurrence/exceptions/1', /given twice/],
    ['an exception that is no date', { exceptions: ['5 March'] }, '/recurrence/exceptions', /local dates/],
  ])('finds %s', (_name, recurrence, pointer, message) => {
    const found = problems(recurrence as Partial<Recurrence>);
    expect(pointers(found)).toContain(pointer);
    expect(found.find((p) => p.pointer === pointer)!.message).toMatch(message);
  });

  const window = (w: object): OccurrenceTemplate => ({ windows: { pickupWindow: w as never }, expiresAt: {} });
  it.each([
    ['no window', { windows: {}, expiresAt: {} }, '/template/windows', /at least one window/],
    ['a window of no duration', window({ time: '08:00', duration: 'PT0S' }), '/template/windows/pickupWindow/duration', /positive/],
    ['a window ending before it opens', window({ time: '08:00', end: { time: '07:00' } }), '/template/windows/pickupWindow/end', /not positive/],
    ['a window ending as it opens', window({ day: 1, time: '08:00', end: { day: 1, time: '08:00' } }), '/template/windows/pickupWindow/end', /not positive/],
    ['a duration in months', window({ time: '08:00', duration: 'P1M' }), '/template/windows/pickupWindow/duration', /years or months/],
    ['a duration that is none', window({ time: '08:00', duration: '4 hours' }), '/template/windows/pickupWindow/duration', /ISO 8601/],
    ['a window too long', window({ time: '08:00', duration: 'P32D' }), '/template/windows/pickupWindow/duration', /at most 31 days/],
    ['both a duration and an end', window({ time: '08:00', duration: 'PT1H', end: { time: '10:00' } }), '/template/windows/pickupWindow', /either a duration or an end/],
    ['a time that is none', window({ time: '8am', duration: 'PT1H' }), '/template/windows/pickupWindow/time', /HH:MM/],
    ['24:00', window({ time: '24:00', duration: 'PT1H' }), '/template/windows/pickupWindow/time', /HH:MM/],
    ['a negative day', window({ day: -1, time: '08:00', duration: 'PT1H' }), '/template/windows/pickupWindow/day', /from 0/],
    ['an expiry naming no window', { ...REQUEST, expiresAt: { window: 'loadingWindow' } }, '/template/expiresAt/window', /pickupWindow, deliveryWindow/],
    ['an expiry at no edge', { ...REQUEST, expiresAt: { edge: 'middle' as never } }, '/template/expiresAt/edge', /start or end/],
    ['an expiry before by a negative time', { ...REQUEST, expiresAt: { before: 'PT-2H' } }, '/template/expiresAt/before', /negative/],
    ['no expiry', { windows: REQUEST.windows } as OccurrenceTemplate, '/template/expiresAt', /required/],
  ])('finds %s', (_name, template, pointer, message) => {
    const found = problems({}, template as OccurrenceTemplate);
    expect(pointers(found)).toContain(pointer);
    expect(found.find((p) => p.pointer === pointer)!.message).toMatch(message);
  });

  it.each([
    [MAX_HORIZON_DAYS + 1, /at most 90 days/],
    ['P13W', /at most 90 days/],
    ['P3M', /years or months/],
    [0, /positive/],
    [-1, /positive/],
    ['fortnight', /ISO 8601/],
  ])('finds the horizon %p refused', (horizon, message) => {
    expect(problems({}, REQUEST, horizon)).toEqual([{ pointer: '/horizon', message: expect.stringMatching(message) }]);
  });

  it('puts its pointers where the caller says the fields are', () => {
    const found = recurrenceProblems({ ...TU_TH, timeZone: 'Nowhere' }, { ...REQUEST, windows: { 'a/b': { time: '08:00', duration: 'PT0S' } } }, 100, { pointers: { recurrence: '/series/recurrence', template: '/series/occurrence', horizon: '/series/horizon' } });
    expect(pointers(found)).toEqual(['/series/recurrence/timeZone', '/series/occurrence/windows/a~1b/duration', '/series/occurrence/expiresAt/window', '/series/horizon']);
  });

  it('the computing functions refuse what it finds', () => {
    expect(() => seriesCalendar({ ...TU_TH, rrule: 'FREQ=HOURLY' }, REQUEST)).toThrow(/FREQ=HOURLY is not supported/);
    expect(() => dueOccurrences(series({ timeZone: 'Nowhere' }), { now: '2026-03-01T00:00:00Z', horizon: 1 })).toThrow(RecurrenceError);
    expect(() => nextOccurrence(series({}), '3 March')).toThrow(RecurrenceError);
  });
});
