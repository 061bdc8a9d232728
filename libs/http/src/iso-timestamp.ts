// The one reading of a date-time the API takes as input (a query value such as `created_after`, a
// timestamp inside a cursor): ISO 8601, a real calendar day and clock time. `Date` alone would roll
// 2026-02-30 over to March 2 and read `99999-01-01` or `""` as an invalid date that reaches
// PostgreSQL as "0NaN-NaN-..." (a 500); a caller's mistake is its own 422 instead.

/** `YYYY-MM-DD`, or that with `THH:MM[:SS[.fraction]]` and a zone (`Z` or `±HH:MM`). */
const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/**
 * The instant `text` names, or undefined when it is not an ISO 8601 date or date-time with a zone
 * naming a real day and time of the years 1 to 9999 (PostgreSQL has no year 0). A date alone is
 * midnight UTC; fractions beyond milliseconds are cut (a JavaScript Date holds milliseconds).
 */
export function parseIsoTimestamp(text: string): Date | undefined {
  const m = ISO_TIMESTAMP.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0, zoneHour = 0, zoneMinute = 0] = m
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  if (month === undefined || month < 1 || month > 12) return undefined;
  if (year === undefined || day === undefined || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || zoneHour > 23 || zoneMinute > 59) return undefined;
  const date = new Date(text);
  const utcYear = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || utcYear < 1 || utcYear > 9999) return undefined;
  return date;
}
