import { formatLogTime, isLogTime } from '../../punch.js';
import { impossibleLogTime } from '../../util/impossible-date.js';

/**
 * Reads a terminal's printed time with a small pattern language (`timeFormat`):
 *
 *   YYYY  4-digit year        YY  2-digit year (20YY)
 *   MM    2-digit month       M   1-2 digit month
 *   DD    2-digit day         D   1-2 digit day
 *   HH    2-digit hour 0-23   H   1-2 digit hour 0-23
 *   hh    2-digit hour 1-12   h   1-2 digit hour 1-12 (needs A)
 *   A     AM or PM (any case)
 *   mm    2-digit minute      ss  2-digit second (optional: 00 when absent)
 *
 * Anything else is literal; a space matches one or more blanks (terminals pad with spaces).
 * The result is the terminal's wall clock as `YYYY-MM-DD HH:mm:ss`: no time-zone conversion.
 */

type Field = 'year4' | 'year2' | 'month' | 'day' | 'hour24' | 'hour12' | 'ampm' | 'minute' | 'second';

const TOKENS: readonly [string, Field, string][] = [
  ['YYYY', 'year4', '(\\d{4})'],
  ['YY', 'year2', '(\\d{2})'],
  ['MM', 'month', '(\\d{2})'],
  ['M', 'month', '(\\d{1,2})'],
  ['DD', 'day', '(\\d{2})'],
  ['D', 'day', '(\\d{1,2})'],
  ['HH', 'hour24', '(\\d{2})'],
  ['H', 'hour24', '(\\d{1,2})'],
  ['hh', 'hour12', '(\\d{2})'],
  ['h', 'hour12', '(\\d{1,2})'],
  ['mm', 'minute', '(\\d{2})'],
  ['ss', 'second', '(\\d{2})'],
  ['A', 'ampm', '([AaPp][Mm])'],
];

/** Letters that start a token: a run of them that is no token is a mistake, not a literal. */
const TOKEN_LETTERS = new Set(['Y', 'M', 'D', 'H', 'h', 'm', 's', 'A']);

export interface TimeFormat {
  readonly source: string;
  /**
   * A regular expression (no anchors, no named groups) for the text the format reads: the time
   * group of the default line pattern, so that a clock given only a `timeFormat` is read by it.
   */
  readonly expression: string;
  /** `YYYY-MM-DD HH:mm:ss`, or null when `text` does not fit the format or is no real time. */
  parse(text: string): string | null;
  /**
   * Why `text` fits the format but is no real time (31/11, hour 24, a 12-hour hour of 13), or
   * undefined: for saying so, instead of "does not fit", once `parse` gave null.
   */
  impossible(text: string): string | undefined;
}

export interface CompiledTimeFormat {
  format?: TimeFormat;
  /** Empty when the format is usable. */
  problems: string[];
}

export function compileTimeFormat(source: string): CompiledTimeFormat {
  const problems: string[] = [];
  const fields: Field[] = [];
  let re = '';
  let i = 0;
  while (i < source.length) {
    const token = TOKENS.find(([t]) => source.startsWith(t, i));
    if (token) {
      const [text, field, group] = token;
      if (fields.includes(field) || (field.startsWith('year') && fields.some((f) => f.startsWith('year')))) {
        problems.push(`"${text}" repeats a field already in the format`);
      }
      fields.push(field);
      re += group;
      i += text.length;
      continue;
    }
    const ch = source[i] as string;
    if (TOKEN_LETTERS.has(ch)) {
      problems.push(`unknown token "${ch}" at position ${i + 1} (tokens: YYYY YY MM M DD D HH H hh h mm ss A)`);
    } else if (ch === ' ') {
      re += '\\s+';
      while (source[i + 1] === ' ') i++;
    } else {
      re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
    i++;
  }
  const has = (f: Field) => fields.includes(f);
  if (!has('year4') && !has('year2')) problems.push('needs a year (YYYY or YY)');
  if (!has('month')) problems.push('needs a month (MM or M)');
  if (!has('day')) problems.push('needs a day (DD or D)');
  if (!has('hour24') && !has('hour12')) problems.push('needs an hour (HH, H, hh or h)');
  if (has('hour24') && has('hour12')) problems.push('uses both a 24-hour and a 12-hour hour');
  if (has('hour12') !== has('ampm')) problems.push('a 12-hour hour (hh, h) needs A (AM/PM), and A needs hh or h');
  if (!has('minute')) problems.push('needs minutes (mm)');
  if (problems.length > 0) return { problems };

  const regex = new RegExp(`^${re}$`);
  const read = (text: string): Partial<Record<Field, string>> | null => {
    const m = regex.exec(text.trim());
    if (!m) return null;
    const v: Partial<Record<Field, string>> = {};
    fields.forEach((f, k) => (v[f] = m[k + 1]));
    return v;
  };
  return {
    problems,
    format: {
      source,
      expression: re,
      parse(text: string): string | null {
        const v = read(text);
        return v ? buildLogTime(v) : null;
      },
      impossible(text: string): string | undefined {
        const v = read(text);
        if (!v) return undefined;
        if (v.hour12 !== undefined && (Number(v.hour12) < 1 || Number(v.hour12) > 12))
          return `there is no hour ${v.hour12} on a 12-hour clock`;
        const raw = rawLogTime(v);
        return raw === null ? undefined : impossibleLogTime(raw);
      },
    },
  };
}

function buildLogTime(v: Partial<Record<Field, string>>): string | null {
  const out = rawLogTime(v);
  if (out === null) return null;
  return isLogTime(out) ? out : null;
}

/** The fields as `YYYY-MM-DD HH:mm:ss`, unchecked (null for a 12-hour hour out of 1-12). */
function rawLogTime(v: Partial<Record<Field, string>>): string | null {
  const num = (s: string | undefined) => (s === undefined ? 0 : Number(s));
  const year = v.year4 !== undefined ? num(v.year4) : 2000 + num(v.year2);
  let hour = num(v.hour24);
  if (v.hour12 !== undefined) {
    const h12 = num(v.hour12);
    if (h12 < 1 || h12 > 12) return null;
    const pm = (v.ampm ?? '').toUpperCase() === 'PM';
    hour = (h12 % 12) + (pm ? 12 : 0);
  }
  return formatLogTime(year, num(v.month), num(v.day), hour, num(v.minute), num(v.second));
}
