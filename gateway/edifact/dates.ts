// EDIFACT dates and periods (DTM, data element 2379) as UTC instants. EDIFACT times carry no
// zone: they are read in the organization's IANA time zone (its adapter setting), with the
// zone's own offset on that date (so 08:00 in Europe/Berlin is 07:00Z in winter, 06:00Z in summer).

export interface Period {
  start: string;
  end: string;
  /** A date (102, 718) covers whole local days; a date and time (203, 204, 719) is exact. */
  precision: 'day' | 'minute';
}

/** The UTC instant of a local wall-clock time in `timeZone` (two passes: the offset can differ either side of a change). */
export function zonedTime(parts: { y: number; m: number; d: number; h?: number; mi?: number; s?: number }, timeZone: string): Date {
  const asUtc = Date.UTC(parts.y, parts.m - 1, parts.d, parts.h ?? 0, parts.mi ?? 0, parts.s ?? 0);
  const offset = (at: number) => {
    const fields = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
        .formatToParts(new Date(at))
        .map((p) => [p.type, Number(p.value)]),
    );
    return Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second) - at;
  };
  const first = asUtc - offset(asUtc);
  return new Date(asUtc - offset(first));
}

const FORMATS: Readonly<Record<string, RegExp>> = {
  '102': /^(\d{4})(\d{2})(\d{2})$/,
  '203': /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/,
  '204': /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/,
};

function instant(text: string, format: '102' | '203' | '204', timeZone: string, endOfDay = false): Date | undefined {
  const m = FORMATS[format].exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || (h ?? 0) > 23 || (mi ?? 0) > 59 || (s ?? 0) > 59) return undefined;
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (check.getUTCMonth() !== mo - 1) return undefined; // 30 February
  return zonedTime(endOfDay ? { y, m: mo, d: d + 1 } : { y, m: mo, d, h, mi, s }, timeZone);
}

/** The formats a DTM may use for a window, and what each means. */
export const PERIOD_FORMATS = ['102', '203', '204', '718', '719'] as const;

/**
 * A DTM value as a period: a date is that whole local day, a range its span, a date and time
 * that minute alone (`precision: 'minute'` with start equal to end: a point, not a window).
 * Undefined for a value its format does not describe.
 */
export function periodOf(text: string, format: string, timeZone: string): Period | undefined {
  const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');
  if (format === '102') {
    const start = instant(text, '102', timeZone);
    const end = instant(text, '102', timeZone, true);
    return start && end ? { start: iso(start), end: iso(end), precision: 'day' } : undefined;
  }
  if (format === '203' || format === '204') {
    const at = instant(text, format, timeZone);
    return at ? { start: iso(at), end: iso(at), precision: 'minute' } : undefined;
  }
  if (format === '718' || format === '719') {
    const [from, to] = text.split('-');
    const single = format === '718' ? '102' : '203';
    const start = from && instant(from, single, timeZone);
    const end = to && instant(to, single, timeZone, format === '718');
    return start && end && start < end ? { start: iso(start), end: iso(end), precision: format === '718' ? 'day' : 'minute' } : undefined;
  }
  return undefined;
}
