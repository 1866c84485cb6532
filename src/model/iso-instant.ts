// Repository layer: strict ISO 8601 date-times, as callers give instants (a publication date, `--at`).
// Date.parse is lenient where a caller's mistake matters: it rolls 2030-02-30 over to March 2 and
// reads a text without an offset in the reader's time zone. Here the calendar is checked and the offset
// (or Z) is required; lower-case `t` and `z` are accepted, as RFC 3339 allows.

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Days of each month (February of a common year): a constant, not an array per call (imports check millions of dates). */
const MONTH_DAYS: readonly number[] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True when year-month-day names a day of the (proleptic Gregorian) calendar. */
export function isCalendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  if (month === 2 && day === 29) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return day <= MONTH_DAYS[month - 1]!;
}

/**
 * The instant of `text`, an ISO 8601 date-time with its offset or Z (`2030-01-01T11:10:00.000+01:00`,
 * seconds and fraction optional); undefined for anything else, an impossible day or clock included.
 */
export function parseIsoInstant(text: string): Date | undefined {
  const m = INSTANT.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = Number(m[6] ?? '0');
  if (!isCalendarDay(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (m[8] === undefined) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const millis = Number(((m[7] ?? '') + '000').slice(0, 3));
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offset, second, millis);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
