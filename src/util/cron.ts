// Cron without node-cron at run time: its Intl.DateTimeFormat use keeps ~8.5 MB of ICU data resident. This uses Date
// getters in the local zone only, and mirrors node-cron 4 (the oracle of test/util/cron.test.ts) in syntax and runs.

/** Allowed values, inserted in ascending order (nextRun walks them so); day of week 0-6, 0 = Sunday. */
export interface CronSchedule {
  readonly seconds: ReadonlySet<number>;
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  readonly daysOfWeek: ReadonlySet<number>;
}

const FIELDS = [
  ['second', 0, 59],
  ['minute', 0, 59],
  ['hour', 0, 23],
  ['day of month', 1, 31],
  ['month', 1, 12],
  ['day of week', 0, 6],
] as const;
const NICKNAMES = new Map(
  Object.entries({
    '@yearly': '0 0 1 1 *',
    '@annually': '0 0 1 1 *',
    '@monthly': '0 0 1 * *',
    '@weekly': '0 0 * * 0',
    '@daily': '0 0 * * *',
    '@midnight': '0 0 * * *',
    '@hourly': '0 * * * *',
  }),
);
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MAX_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const [HORIZON_YEARS, MAX_SLEEP_MS] = [100, 60_000]; // nextRun's search (node-cron: 36,600 days) covers all parseCron accepts

/** Names become numbers by substring replacement, full names first, as in node-cron ("JAN-Mar" is "1-3"). */
function replaceNames(field: string, names: string[], first: number): string {
  const byName = (m: string) => String(names.findIndex((n) => n.startsWith(m.toLowerCase())) + first);
  for (const len of [99, 3])
    field = field.replace(new RegExp(names.map((n) => n.slice(0, len)).join('|'), 'gi'), byName);
  return field;
}

/** One field, after node-cron's textual steps: the first `*` of a token becomes `min-max`, then ranges expand. */
function parseField(text: string, index: number): Set<number> | string {
  const [name, min, max] = FIELDS[index]!;
  const [top, size, values] = [index === 5 ? 7 : max, max - min + 1, [] as number[]];
  for (const raw of text.split(',')) {
    const token = raw.replace('*', `${min}-${max}`);
    const range = /^(\d+)-(\d+)(?:\/(\d+))?$/.exec(token);
    if (range) {
      const [first, last, step] = [Number(range[1]), Number(range[2]), range[3] === undefined ? 1 : Number(range[3])];
      if (step < 1) return `${name} "${raw}": the step must be at least 1`;
      // `a-b` with a > b wraps around, as in node-cron: minutes "50-10" are 50..59 and 0..10.
      const span = first <= last ? last - first : (((last - first) % size) + size) % size;
      for (let o = 0; o <= span; o += step) {
        values.push(first <= last || first + o <= max ? first + o : first + o - size);
        if (values.at(-1)! > top) break; // reported below; stops "0-99999999" early
      }
    } else if (/^\d+$/.test(token)) values.push(Number(token));
    else if (/^(l(-\d+|w)?|\d+w|\d[l#]\d*)$/i.test(token)) return `${name} "${raw}": L, W and # are not supported`;
    else return `${name} "${raw}" is not a number, range (a-b), step (*/n, a-b/n) or name`;
  }
  for (const v of values) if (!(v >= min && v <= top)) return `${name} "${text}": ${v} is out of range ${min}-${top}`;
  return new Set(values.map((v) => (v === 7 && index === 5 ? 0 : v)).sort((a, b) => a - b));
}

/** Parses a 5-field (minute first) or 6-field (second first) expression, with node-cron 4's rules. */
export function parseCron(expression: string): CronSchedule | { error: string } {
  const resolved = NICKNAMES.get(expression.trim().toLowerCase()) ?? expression;
  if (!/^[a-zA-Z0-9-*/,#? ]*$/.test(resolved))
    return { error: `cron expression "${expression}" has characters other than letters, digits, spaces and * / , - ?` };
  const fields = resolved.split(' ').filter(Boolean);
  if (fields.length !== 5 && fields.length !== 6)
    return {
      error: `cron expression "${expression}" has ${fields.length} fields; expected 5 (minute hour day month weekday) or 6 (second first)`,
    };
  if (fields.length === 5) fields.unshift('0');
  for (const i of [3, 5]) if (fields[i] === '?') fields[i] = '*'; // "?" alone: any day
  [fields[4], fields[5]] = [replaceNames(fields[4]!, MONTHS, 1), replaceNames(fields[5]!, DAYS, 0)];
  const sets = fields.map(parseField);
  const error = sets.find((set) => typeof set === 'string');
  if (error !== undefined) return { error: `cron expression "${expression}": ${error}` };
  const [seconds, minutes, hours, daysOfMonth, months, daysOfWeek] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  // Like node-cron, refuse a day that no allowed month has ("31 2"); "29 2" is fine (leap years).
  if (![...months].some((m) => [...daysOfMonth].some((d) => d <= MAX_DAYS[m]!)))
    return {
      error: `cron expression "${expression}": day of month "${fields[3]}" never occurs in month "${fields[4]}"`,
    };
  return { seconds, minutes, hours, daysOfMonth, months, daysOfWeek };
}

/** True when parseCron accepts the expression (so when node-cron 4 does, bar L, W and #). */
export function validCron(expression: string): boolean {
  return !('error' in parseCron(expression));
}

function matches(s: CronSchedule, ms: number, t = new Date(ms)): boolean {
  return (
    s.seconds.has(t.getSeconds()) &&
    s.minutes.has(t.getMinutes()) &&
    s.hours.has(t.getHours()) &&
    s.daysOfMonth.has(t.getDate()) &&
    s.months.has(t.getMonth() + 1) &&
    s.daysOfWeek.has(t.getDay())
  );
}

/**
 * Local wall time to an instant by node-cron's method (kept for identical DST results): the offset at the wall time
 * read as UTC, corrected once. A time in a spring-forward gap lands after the gap (then fails to match: skipped). A
 * repeated fall-back time gets ONE instant: the first west of UTC (New York), the second east of it (Berlin, Sydney).
 */
function wallToMs(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  const offset = (ms: number) => -new Date(ms).getTimezoneOffset() * 60_000;
  const readsBack = (ms: number, t = new Date(ms)) =>
    t.getDate() === d && t.getHours() === h && t.getMinutes() === mi && t.getSeconds() === s;
  const guess = Date.UTC(y, mo - 1, d, h, mi, s);
  const c1 = guess - offset(guess),
    c2 = guess - offset(c1);
  return c1 === c2 || readsBack(c1) ? c1 : readsBack(c2) ? c2 : Math.max(c1, c2);
}

/**
 * The first whole second strictly after `afterMs` that matches in local time; Infinity if none within HORIZON_YEARS.
 * Day of month AND day of week must both match (node-cron; classic cron ORs them). Skips whole months and days, then
 * walks a matching day's times in wall-clock order as node-cron does: on the first day only times after the start's
 * wall time count, so from inside a fall-back hour the rest of its second pass may be skipped.
 */
export function nextRun(s: CronSchedule, afterMs: number): number {
  const base = Math.floor(afterMs / 1000) * 1000,
    start = new Date(base);
  // `floor`: the start's time of day, in seconds; -1 from the second day on.
  let [y, mo, d, floor] = [
    start.getFullYear(),
    start.getMonth() + 1,
    start.getDate(),
    start.getHours() * 3600 + start.getMinutes() * 60 + start.getSeconds(),
  ];
  for (
    ;
    y <= start.getFullYear() + HORIZON_YEARS;
    [y, mo, d, floor] = mo === 12 ? [y + 1, 1, 1, -1] : [y, mo + 1, 1, -1]
  ) {
    if (!s.months.has(mo)) continue;
    const last = new Date(Date.UTC(y, mo, 0)).getUTCDate();
    for (; d <= last; d++, floor = -1) {
      if (!s.daysOfMonth.has(d) || !s.daysOfWeek.has(new Date(Date.UTC(y, mo - 1, d)).getUTCDay())) continue;
      for (const h of s.hours) {
        if (h * 3600 + 3599 <= floor) continue;
        for (const mi of s.minutes) {
          for (const sec of s.seconds) {
            if (h * 3600 + mi * 60 + sec <= floor) continue;
            const ms = wallToMs(y, mo, d, h, mi, sec);
            if (ms > base && matches(s, ms)) return ms;
          }
        }
      }
    }
  }
  return Infinity;
}

/** Wall clock and timers of cronTimer; tests pass a fake. The default's timers stay ref'd: the daemon lives on them. */
export interface CronClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
const systemClock: CronClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * Calls `tick` at each matching second until the returned function stops it. Timers run on a monotonic clock but
 * matches are wall-clock times, so it sleeps at most 60 s and re-plans from the current time at each wake: a clock
 * stepped forward or back is followed within a minute. A due second fires even if late (one catch-up, not one per
 * missed match; node-cron skips a run over 1 s late). The same second never fires twice in a row, so neither an
 * early wake nor a clock stepped back over the last fired second repeats it.
 */
export function cronTimer(schedule: CronSchedule, tick: () => void, clock: CronClock = systemClock): () => void {
  let [due, lastFired, stopped, handle] = [nextRun(schedule, clock.now()), NaN, false, undefined as unknown];
  const wake = (): void => {
    const now = clock.now();
    const fire = due <= now && due !== lastFired;
    if (fire) lastFired = due;
    due = nextRun(schedule, now);
    arm(now);
    if (fire) tick(); // after re-arming, so a throwing tick does not end the schedule
  };
  const arm = (now: number): void => {
    if (!stopped) handle = clock.setTimeout(wake, Math.min(Math.max(due - now, 0), MAX_SLEEP_MS));
  };
  arm(clock.now());
  return () => void ((stopped = true), clock.clearTimeout(handle));
}
