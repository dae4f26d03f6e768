/**
 * Why a date and time read from a terminal (its clock line, its USB export) cannot exist: 31/11,
 * 29/02 of a year that is not a leap year, hour 24, minute 60. Said as such, so that the admin
 * looks at the terminal's clock (a clock set wrong, a battery gone flat) and not at a `pattern` or
 * `timeFormat` that reads the line well (found by a serial/USB trial: such lines were logged as
 * not fitting the pattern).
 */

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export const CHECK_THE_CLOCK = "check the terminal's date and time";

/** Why this date and time cannot exist, or undefined when it can. */
export function impossibleDateTime(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
): string | undefined {
  if (mo < 1 || mo > 12) return `there is no month ${mo}`;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = mo === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31;
  const month = MONTHS[mo - 1] as string;
  if (d < 1 || d > days)
    return mo === 2 && d === 29
      ? `there is no 29 February in ${y} (not a leap year)`
      : `there is no day ${d} in ${month} (it has ${days} days)`;
  if (h > 23) return `there is no hour ${h} (hours are 00 to 23)`;
  if (mi > 59) return `there is no minute ${mi}`;
  if (s > 59) return `there is no second ${s}`;
  return undefined;
}

/** The same for a `YYYY-MM-DD HH:mm:ss` text; undefined when it can exist or has another form. */
export function impossibleLogTime(text: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return impossibleDateTime(y, mo, d, h, mi, s);
}
