// A date and time as a planner reads and types it, in the locale's own order and separators
// ("07.12.2026, 08:00" in German, "07/12/2026, 08:00" in British English, "12/07/2026, 08:00 AM"
// in American English), and as the console's forms hold it: the browser's local time to the minute,
// "2026-12-07T08:00" (what a datetime-local input held). Pure: no DOM (console/datetime.js draws
// the field); tested in test/unit/console-datetime.test.ts.

/** The form's value: local date and time to the minute. */
export const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

const OPTIONS = { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' };

/** "2026-12-07T08:00" in the locale's words: "07.12.2026, 08:00"; '' for anything else. */
export function formatLocal(local, locale) {
  const m = LOCAL.exec(local ?? '');
  if (!m) return '';
  return new Intl.DateTimeFormat(locale, OPTIONS).format(new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5])));
}

/** The order of the fields in the locale's writing, and its day-period words (AM/PM) if it uses a 12-hour clock. */
function layoutOf(locale) {
  const format = new Intl.DateTimeFormat(locale, OPTIONS);
  const order = format.formatToParts(new Date(2026, 10, 23, 15, 45)).map((p) => p.type).filter((t) => ['day', 'month', 'year', 'hour', 'minute'].includes(t));
  const twelve = format.resolvedOptions().hourCycle === 'h12' || format.resolvedOptions().hourCycle === 'h11';
  const period = (hour) => format.formatToParts(new Date(2026, 0, 1, hour)).find((p) => p.type === 'dayPeriod')?.value ?? '';
  return { order, twelve, am: period(9), pm: period(21) };
}

/** The letters of a pattern, by field (a language's own: "TT.MM.JJJJ" in German). */
const LETTERS = { year: 'YYYY', month: 'MM', day: 'DD', hour: 'hh', minute: 'mm' };

/** What the field shows while empty: the locale's writing of a date as a pattern ("DD.MM.YYYY, hh:mm"). */
export function patternOf(locale, letters = LETTERS) {
  return formatLocal('2026-11-23T15:45', locale).replace('2026', letters.year).replace('23', letters.day).replace('11', letters.month).replace(/15|03/, letters.hour).replace('45', letters.minute);
}

const pad = (n) => String(n).padStart(2, '0');

/**
 * What a planner typed, as the form's value: the locale's order (any separators; a two-digit year
 * is this century; AM/PM where the locale has them), or the form's own "2026-12-07T08:00" as it is.
 * '' for nothing typed; undefined for text that is no date and time (a 31 February, a 25th hour).
 */
export function parseLocal(text, locale) {
  const typed = String(text ?? '').trim();
  if (!typed) return '';
  const iso = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?$/.exec(typed);
  const { order, twelve, am, pm } = layoutOf(locale);
  let fields;
  if (iso) fields = { year: +iso[1], month: +iso[2], day: +iso[3], hour: +iso[4], minute: +iso[5] };
  else {
    const numbers = typed.match(/\d+/g) ?? [];
    if (numbers.length !== 5) return undefined;
    fields = Object.fromEntries(order.map((name, i) => [name, Number(numbers[i])]));
    if (numbers[order.indexOf('year')].length === 2) fields.year += 2000;
    const lower = typed.toLowerCase();
    if (twelve) {
      const isPm = pm && lower.includes(pm.toLowerCase());
      const isAm = am && lower.includes(am.toLowerCase());
      if (fields.hour < 1 || fields.hour > 12) {
        if (isPm || isAm) return undefined;
      } else if (isPm && fields.hour !== 12) fields.hour += 12;
      else if (isAm && fields.hour === 12) fields.hour = 0;
    }
  }
  const { year, month, day, hour, minute } = fields;
  if (year < 1000 || year > 9999 || hour > 23 || minute > 59) return undefined;
  const date = new Date(year, month - 1, day, hour, minute);
  // A 31 February would roll over into March: not a date.
  if (date.getFullYear() !== year || date.getMonth() !== month - 1 || date.getDate() !== day) return undefined;
  return `${year}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}`;
}
