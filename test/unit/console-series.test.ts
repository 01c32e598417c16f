// The console's recurring trucks and loads (console/series.js), its pure parts: the rule in words in
// English, German and Polish, how far ahead the dates are listed, the series' dates (checked against
// the broker's own calendar, domain/recurrence.ts, rule by rule and across a revision), the next
// dates with what became of each, and which events of the feed concern the view.
// The console's files are plain browser modules without type declarations (served as they are).
// @ts-ignore
import { settings } from '../../console/format.js';
// @ts-ignore
import { concernsSeries, dateStateText, frequencyText, horizonText, nextDates, recurrenceDates, ruleText, seriesDates, skippableDates, timesText, todayIn, whatText, windowText } from '../../console/series.js';
import { nextOccurrence, reviseCalendar, seriesCalendar, type OccurrenceTemplate, type Recurrence, type SeriesCalendar } from '../../domain/recurrence';

const speak = (locale: string) => Object.assign(settings, { locale, timeZone: 'Europe/Berlin' });
afterAll(() => speak('en-GB'));

const OFFER_TEMPLATE: OccurrenceTemplate = { windows: { availabilityWindow: { time: '08:00', duration: 'PT10H' } }, expiresAt: { before: 'PT2H' } };
const REQUEST_TEMPLATE: OccurrenceTemplate = {
  windows: { pickupWindow: { time: '06:00', duration: 'PT4H' }, deliveryWindow: { day: 1, time: '08:00', end: { day: 1, time: '12:00' } } },
  expiresAt: { window: 'pickupWindow', before: 'PT1H' },
};
const weekly = (rrule: string, startDate = '2026-12-01', more: Partial<Recurrence> = {}): Recurrence => ({ rrule, timeZone: 'Europe/Berlin', startDate, ...more });

describe('the rule in words', () => {
  beforeEach(() => speak('en-GB'));

  test('English: weekdays, days, months, nth weekdays, the times in the series\u2019 zone, its end', () => {
    expect(ruleText(weekly('FREQ=WEEKLY;BYDAY=TU,TH'), OFFER_TEMPLATE)).toBe('every Tuesday and Thursday, 08:00–18:00 Berlin time');
    expect(ruleText(weekly('FREQ=WEEKLY;BYDAY=TH,TU'), OFFER_TEMPLATE)).toBe('every Tuesday and Thursday, 08:00–18:00 Berlin time');
    expect(frequencyText(weekly('FREQ=DAILY'))).toBe('every day');
    expect(frequencyText(weekly('FREQ=DAILY;INTERVAL=3'))).toBe('every 3 days');
    expect(frequencyText(weekly('FREQ=WEEKLY'))).toBe('every Tuesday');
    expect(frequencyText(weekly('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR'))).toBe('every 2 weeks on Monday and Friday');
    expect(frequencyText(weekly('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR'))).toBe('every weekday (Monday to Friday)');
    expect(frequencyText(weekly('FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR'))).toBe('every weekday (Monday to Friday)');
    expect(frequencyText(weekly('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU'))).toBe('every day');
    expect(frequencyText(weekly('FREQ=MONTHLY;BYMONTHDAY=1,15,-1'))).toBe('on the 1st, 15th and last day of every month');
    expect(frequencyText(weekly('FREQ=MONTHLY;BYMONTHDAY=2,3,22'))).toBe('on the 2nd, 3rd and 22nd day of every month');
    expect(frequencyText(weekly('FREQ=MONTHLY;INTERVAL=3', '2026-12-01'))).toBe('on the 1st day of every 3 months');
    expect(frequencyText(weekly('FREQ=MONTHLY;BYDAY=1MO,-1FR'))).toBe('on the first Monday and on the last Friday of every month');
    expect(ruleText(weekly('FREQ=WEEKLY;BYDAY=TU;COUNT=10'), OFFER_TEMPLATE)).toBe('every Tuesday, 08:00–18:00 Berlin time, 10 times in all');
    expect(ruleText(weekly('FREQ=WEEKLY;BYDAY=TU;UNTIL=20261231'), OFFER_TEMPLATE)).toBe('every Tuesday, 08:00–18:00 Berlin time, until Thu, 31 Dec 2026');
    expect(ruleText(weekly('FREQ=WEEKLY;BYDAY=TU', '2026-12-01', { until: '2027-03-30' }), OFFER_TEMPLATE, { today: '2026-11-28' })).toBe('every Tuesday, 08:00–18:00 Berlin time, from Tue, 1 Dec 2026, until Tue, 30 Mar 2027');
    // A load: both windows, the delivery the next day; the zone's city as the IANA name has it.
    expect(timesText(REQUEST_TEMPLATE, 'Europe/Amsterdam')).toBe('pickup 06:00–10:00, delivery the next day 08:00–12:00 Amsterdam time');
    expect(timesText(OFFER_TEMPLATE, 'America/New_York')).toBe('08:00–18:00 New York time');
    // Across midnight, and over days.
    expect(windowText({ time: '22:00', duration: 'PT8H' })).toBe('22:00 to 06:00 the next day');
    expect(windowText({ time: '06:00', duration: 'P2D' })).toBe('06:00 to 06:00, 2 days later');
    expect(windowText({ day: 2, time: '09:00', end: { time: '11:30' } })).toBe('2 days later 09:00–11:30');
  });

  test('German and Polish from the same catalogue, with the language\u2019s plural forms', () => {
    speak('de-DE');
    expect(ruleText(weekly('FREQ=WEEKLY;BYDAY=TU,TH'), OFFER_TEMPLATE)).toBe('jeden Dienstag und Donnerstag, 08:00–18:00 Ortszeit Berlin');
    expect(frequencyText(weekly('FREQ=DAILY;INTERVAL=2'))).toBe('alle 2 Tage');
    expect(frequencyText(weekly('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR'))).toBe('alle 2 Wochen am Montag und Freitag');
    expect(frequencyText(weekly('FREQ=MONTHLY;BYMONTHDAY=1,-1'))).toBe('am 1. und letzten Tag jedes Monats');
    expect(frequencyText(weekly('FREQ=MONTHLY;BYDAY=1MO'))).toBe('am ersten Montag jedes Monats');
    expect(timesText(REQUEST_TEMPLATE, 'Europe/Amsterdam')).toBe('Abholung 06:00–10:00, Zustellung am nächsten Tag 08:00–12:00 Ortszeit Amsterdam');
    expect(ruleText(weekly('FREQ=WEEKLY;BYDAY=TU;COUNT=10'), OFFER_TEMPLATE)).toBe('jeden Dienstag, 08:00–18:00 Ortszeit Berlin, 10-mal insgesamt');
    expect(horizonText('P7D')).toBe('7 Tage im Voraus gelistet');
    speak('pl-PL');
    expect(ruleText(weekly('FREQ=WEEKLY;BYDAY=TU,TH'), OFFER_TEMPLATE)).toBe('co wtorek i czwartek, 08:00–18:00 (czas lokalny: Berlin)');
    expect(frequencyText(weekly('FREQ=WEEKLY;BYDAY=WE,SA'))).toBe('co środę i sobotę');
    expect(frequencyText(weekly('FREQ=DAILY'))).toBe('codziennie');
    expect(frequencyText(weekly('FREQ=DAILY;INTERVAL=5'))).toBe('co 5 dni');
    expect(frequencyText(weekly('FREQ=MONTHLY;BYMONTHDAY=-1'))).toBe('ostatniego dnia każdego miesiąca');
    expect(frequencyText(weekly('FREQ=MONTHLY;BYDAY=-1FR'))).toBe('co piątek w ostatnim tygodniu każdego miesiąca');
    expect(horizonText('P7D')).toBe('wystawiane 7 dni wcześniej');
    expect(horizonText(1)).toBe('wystawiane 1 dzień wcześniej');
    expect(horizonText('P2W')).toBe('wystawiane 2 tygodnie wcześniej');
  });

  test('the horizon: days, weeks as given, hours', () => {
    expect(horizonText('P7D')).toBe('listed 7 days ahead');
    expect(horizonText(3)).toBe('listed 3 days ahead');
    expect(horizonText(1)).toBe('listed 1 day ahead');
    expect(horizonText('P2W')).toBe('listed 2 weeks ahead');
    expect(horizonText('PT36H')).toBe('listed 36 hours ahead');
    expect(horizonText('PT48H')).toBe('listed 2 days ahead');
    expect(horizonText('P1DT12H')).toBe('listed 36 hours ahead');
  });
});

describe("the series' dates, as the broker's calendar has them", () => {
  /** The first `n` keys of a calendar by the broker's nextOccurrence. */
  function brokerKeys(calendar: SeriesCalendar | { recurrence: Recurrence; template: OccurrenceTemplate }, n: number): string[] {
    const keys: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < n; i++) {
      const o = nextOccurrence(calendar, after);
      if (!o) break;
      keys.push(o.key);
      after = o.key;
    }
    return keys;
  }

  const rules: Recurrence[] = [
    weekly('FREQ=WEEKLY;BYDAY=TU,TH'),
    weekly('FREQ=DAILY;INTERVAL=3;COUNT=10'),
    weekly('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR;WKST=SU', '2026-12-04'),
    weekly('FREQ=WEEKLY;INTERVAL=3;BYDAY=SU', '2026-12-06'),
    weekly('FREQ=WEEKLY;INTERVAL=2;BYDAY=SU,MO;WKST=MO', '2026-12-06'),
    weekly('FREQ=WEEKLY;INTERVAL=2;BYDAY=SU,MO;WKST=SU', '2026-12-06'),
    weekly('FREQ=MONTHLY;BYMONTHDAY=1,15,-1'),
    weekly('FREQ=MONTHLY;BYDAY=1MO,-1FR', '2026-12-07'),
    weekly('FREQ=MONTHLY;BYDAY=TU'),
    weekly('FREQ=MONTHLY;INTERVAL=2', '2027-01-31'),
    weekly('FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20270115'),
    weekly('FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=12', '2026-12-02', { exceptions: ['2026-12-09', '2026-12-14'] }),
    weekly('FREQ=WEEKLY;BYDAY=MO,WE,FR', '2026-12-02', { until: '2027-02-01', exceptions: ['2026-12-25'] }),
    weekly('FREQ=WEEKLY', '2026-12-03'),
    weekly('RRULE:freq=monthly;bymonthday=-2;interval=1', '2026-12-30'),
  ];

  test.each(rules.map((r) => [r.rrule + (r.exceptions ? ` except ${r.exceptions.join(',')}` : '') + (r.until ? ` until ${r.until}` : ''), r] as const))('%s', (_name, recurrence) => {
    const expected = brokerKeys({ recurrence, template: OFFER_TEMPLATE }, 60);
    expect(expected.length).toBeGreaterThan(3);
    expect(recurrenceDates(recurrence, recurrence.startDate, '2045-12-31').slice(0, 60)).toEqual(expected);
    // From a later date on: the same days, and COUNT still counted from the start.
    const later = expected[Math.min(4, expected.length - 1)];
    expect(recurrenceDates(recurrence, later, '2045-12-31').slice(0, 30)).toEqual(expected.filter((k) => k >= later).slice(0, 30));
  });

  test('across a revision: the days before it under the old rule, after it under the new, the published ones kept', () => {
    const first = seriesCalendar(weekly('FREQ=WEEKLY;BYDAY=TU,TH'), OFFER_TEMPLATE);
    const calendar = reviseCalendar(first, { from: '2026-12-15', recurrence: weekly('FREQ=WEEKLY;BYDAY=MO,WE', '2026-12-14'), template: OFFER_TEMPLATE }, { now: '2026-11-28T12:00:00Z', materialized: ['2026-12-17'] });
    const expected = brokerKeys(calendar, 20);
    expect(expected.slice(0, 6)).toEqual(['2026-12-01', '2026-12-03', '2026-12-08', '2026-12-10', '2026-12-16', '2026-12-17']);
    expect(seriesDates({ calendar, recurrence: calendar.revisions[1].recurrence, template: OFFER_TEMPLATE }, '2026-11-28', '2027-12-31').slice(0, 20)).toEqual(expected);
  });
});

describe('the next dates of a series', () => {
  beforeEach(() => speak('en-GB'));
  const listing = (id: string, status: string) => [id, { id, status, kind: 'offer', availabilityWindow: { start: '2026-12-01T07:00:00Z', end: '2026-12-01T17:00:00Z' } }] as const;
  const series = (over: Record<string, unknown> = {}) => ({
    id: 's-1',
    status: 'active',
    listingKind: 'capacityOffer',
    terms: { originArea: { kind: 'unlocode', code: 'DEHAM' }, destinationArea: { kind: 'unlocode', code: 'NLRTM' }, vehicleProfile: { bodyType: 'curtainsider' }, availableCapacity: { weight: { value: 24, unitCode: 'TNE' }, palletSpaces: 33 } },
    recurrence: weekly('FREQ=WEEKLY;BYDAY=TU,TH', '2026-11-24', { exceptions: ['2026-12-24'] }),
    template: OFFER_TEMPLATE,
    horizon: 'P7D',
    occurrences: {
      '2026-11-26': { listingId: 'l-past', revision: 1, startsAt: '2026-11-26T07:00:00Z', at: '2026-11-19T07:00:00Z' },
      '2026-12-01': { listingId: 'l-1', revision: 1, startsAt: '2026-12-01T07:00:00Z', at: '2026-11-24T07:00:00Z' },
      '2026-12-03': { listingId: 'l-3', revision: 1, startsAt: '2026-12-03T07:00:00Z', at: '2026-11-26T07:00:00Z' },
    },
    skipped: [{ key: '2026-12-08', reason: 'public holiday', at: '2026-11-28T10:00:00Z' }],
    ...over,
  });
  const listings = new Map([listing('l-1', 'matched'), listing('l-3', 'published')]);

  test("each date from today on with its listing's status, skipped ones with their reason, the rest not listed yet", () => {
    const rows = nextDates(series(), { today: '2026-11-28', listings, count: 6 });
    expect(rows.map((r: any) => [r.key, r.state])).toEqual([
      ['2026-12-01', 'matched'],
      ['2026-12-03', 'published'],
      ['2026-12-08', 'skipped'],
      ['2026-12-10', 'notListed'],
      ['2026-12-15', 'notListed'],
      ['2026-12-17', 'notListed'],
    ]);
    expect(rows.map(dateStateText)).toEqual(['matched', 'published', 'skipped: public holiday', 'not listed yet', 'not listed yet', 'not listed yet']);
    // The exceptions of the recurrence are skipped dates too; a listing not read yet is "listed".
    const later = nextDates(series(), { today: '2026-12-22', listings: new Map(), count: 3 });
    expect(later.map((r: any) => [r.key, r.state])).toEqual([['2026-12-22', 'notListed'], ['2026-12-24', 'skipped'], ['2026-12-29', 'notListed']]);
    expect(nextDates(series(), { today: '2026-11-28', count: 1 }).map(dateStateText)).toEqual(['listed']);
    // Paused: what is not listed is not listed while paused; ended: what it published, nothing more.
    expect(nextDates(series({ status: 'paused' }), { today: '2026-11-28', listings, count: 4 }).map(dateStateText)).toEqual(['matched', 'published', 'skipped: public holiday', 'not listed while paused']);
    expect(nextDates(series({ status: 'ended' }), { today: '2026-11-28', listings: new Map([listing('l-1', 'matched'), listing('l-3', 'withdrawn')]) }).map(dateStateText)).toEqual(['matched', 'withdrawn', 'skipped: public holiday']);
  });

  test('the dates a planner may skip: ahead, neither listed nor skipped; none once ended', () => {
    expect(skippableDates(series(), { today: '2026-11-28', count: 4 })).toEqual(['2026-12-10', '2026-12-15', '2026-12-17', '2026-12-22']);
    expect(skippableDates(series({ status: 'ended' }), { today: '2026-11-28' })).toEqual([]);
  });

  test("what it is, and today's date in the series' zone", () => {
    expect(whatText(series())).toBe('24 t, 33 pallets · curtainsider');
    expect(whatText({ listingKind: 'loadRequest', terms: { requiredCapacity: { weight: { value: 8, unitCode: 'TNE' } }, vehicleRequirements: { bodyTypes: ['box', 'curtainsider'] } } })).toBe('8 t · box and curtainsider');
    // 23:30 UTC on the 28th is already the 29th in Berlin.
    expect(todayIn('Europe/Berlin', Date.parse('2026-11-28T23:30:00Z'))).toBe('2026-11-29');
    expect(todayIn('America/New_York', Date.parse('2026-11-28T23:30:00Z'))).toBe('2026-11-28');
  });

  test("the events that concern the view: a series' own, an occurrence's listing's", () => {
    expect(concernsSeries({ type: 'pcx.listing-series.paused.v1', data: {} })).toBe(true);
    expect(concernsSeries({ type: 'pcx.capacity-offer.published.v1', data: { seriesId: 's-1', occurrenceKey: '2026-12-01' } })).toBe(true);
    expect(concernsSeries({ type: 'pcx.capacity-offer.published.v1', data: { id: 'l-9' } })).toBe(false);
    expect(concernsSeries({ type: 'pcx.match-proposal.created.v1', data: {} })).toBe(false);
    expect(concernsSeries(null)).toBe(false);
  });
});
