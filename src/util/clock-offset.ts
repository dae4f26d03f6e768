/**
 * Clock offsets the size of a time zone's: a terminal's clock a whole number of hours (or half
 * hours, zones such as +05:30 against +05:00) off is more likely set in another zone, or for
 * daylight saving time, than drifted. Within a minute, to allow for the drift beside it.
 */

/** A skew within a minute of a whole number of hours (not 0): the hours, else null. */
export function wholeHours(seconds: number): number | null {
  const h = Math.round(seconds / 3600);
  return h !== 0 && Math.abs(seconds - h * 3600) <= 60 ? h : null;
}

/** The same for half hours: the half hours, else null. */
export function wholeHalfHours(seconds: number): number | null {
  const h = Math.round(seconds / 1800);
  return h !== 0 && Math.abs(seconds - h * 1800) <= 60 ? h : null;
}

/** A clock's difference: "45 s", "10 min", "2 h", "1 h 30 min" (to the nearest minute from 2 min). */
export function clockSpan(seconds: number): string {
  const abs = Math.abs(Math.round(seconds));
  if (abs < 120) return `${abs} s`;
  const m = Math.round(abs / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}
