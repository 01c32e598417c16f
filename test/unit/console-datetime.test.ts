// Dates and times as a planner types and reads them (console/datetime-text.js): the locale's order
// both ways, the form's value untouched, impossible dates refused.
// @ts-ignore
import { formatLocal, parseLocal, patternOf } from '../../console/datetime-text.js';

test('shown in the locale\'s own writing', () => {
  expect(formatLocal('2026-12-07T08:05', 'de-DE')).toBe('07.12.2026, 08:05');
  expect(formatLocal('2026-12-07T08:05', 'en-GB')).toBe('07/12/2026, 08:05');
  expect(formatLocal('2026-12-07T08:05', 'pl-PL')).toBe('07.12.2026, 08:05');
  expect(formatLocal('2026-12-07T20:05', 'en-US')).toBe('12/07/2026, 08:05 PM');
  expect(formatLocal('', 'de-DE')).toBe('');
  expect(patternOf('en-GB')).toBe('DD/MM/YYYY, hh:mm');
  expect(patternOf('de-DE', { year: 'JJJJ', month: 'MM', day: 'TT', hour: 'hh', minute: 'mm' })).toBe('TT.MM.JJJJ, hh:mm');
  expect(patternOf('en-US')).toBe('MM/DD/YYYY, hh:mm PM');
});

test('read back as typed: the locale\'s order, any separators, a short year, AM and PM; the form\'s own value as it is', () => {
  expect(parseLocal('07.12.2026, 08:05', 'de-DE')).toBe('2026-12-07T08:05');
  expect(parseLocal('7.12.26 8:05', 'de-DE')).toBe('2026-12-07T08:05');
  expect(parseLocal('07/12/2026 08:05', 'en-GB')).toBe('2026-12-07T08:05');
  expect(parseLocal('12/07/2026, 08:05 PM', 'en-US')).toBe('2026-12-07T20:05');
  expect(parseLocal('12/07/2026, 12:30 AM', 'en-US')).toBe('2026-12-07T00:30');
  expect(parseLocal('2026-12-07T08:05', 'pl-PL')).toBe('2026-12-07T08:05');
  expect(parseLocal('', 'pl-PL')).toBe('');
  // Round trip in every language the console speaks.
  for (const locale of ['en-GB', 'en-US', 'de-DE', 'de-AT', 'pl-PL']) expect(parseLocal(formatLocal('2026-02-28T23:59', locale), locale)).toBe('2026-02-28T23:59');
});

test('text that is no date and time is refused, not guessed', () => {
  expect(parseLocal('31.02.2026, 08:00', 'de-DE')).toBeUndefined();
  expect(parseLocal('07.12.2026, 25:00', 'de-DE')).toBeUndefined();
  expect(parseLocal('tomorrow morning', 'en-GB')).toBeUndefined();
  expect(parseLocal('07.12.2026', 'de-DE')).toBeUndefined();
  expect(parseLocal('12/07/2026, 13:05 PM', 'en-US')).toBeUndefined();
});
