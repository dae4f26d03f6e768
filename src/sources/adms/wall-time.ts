/**
 * A push terminal's wall-clock time in the form punchgate keeps (`YYYY-MM-DD HH:MM:SS`), from the
 * forms firmware writes it in: the document's own; ISO 8601's `2024-05-06T08:01:02` (the same
 * wall clock, no zone); the date written with slashes or dots, year first (`2024/05/06`, the
 * terminal's own date display and the USB stick export of some firmware write it so: a 4-digit
 * year first has one reading, year, month, day); month, day and hour with one digit
 * (`2024-5-6 8:01:02`); and either without seconds (`2024-05-06 08:01`: firmware that records the
 * minute only; its seconds are 00, as the terminal's own display shows them) or with a fraction
 * of a second (`08:01:02.250`: the terminal's second is 02, as its display shows it). Anything
 * else is returned as it came, for the caller to refuse: a time with a zone (`Z`, `+08:00`)
 * names another instant than the terminal's wall clock and is never read as one, and a date
 * with its year last (`06/05/2024`) is month first in one country and day first in another.
 */
const WALL = /^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?:T| +)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?$/;

const two = (s: string) => s.padStart(2, '0');

export function wallTimeOf(text: string): string {
  const m = WALL.exec(text);
  if (!m) return text;
  const [, year, , month, day, hour, minute, second] = m as unknown as string[];
  return `${year}-${two(month!)}-${two(day!)} ${two(hour!)}:${minute}:${second ?? '00'}`;
}

/**
 * Whether a line holds a whole date and time, its seconds included, in any form `wallTimeOf`
 * reads: what tells a whole last line of an upload from one cut short (attlog.ts `cutLastLine`).
 */
const WHOLE_TIME = /\d{4}([-/.])\d{1,2}\1\d{1,2}(?:T| +)\d{1,2}:\d{2}:\d{2}/;
export const hasWholeTime = (line: string): boolean => WHOLE_TIME.test(line);
