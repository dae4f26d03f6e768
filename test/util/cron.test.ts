import fc from 'fast-check';
import cron from 'node-cron';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cronTimer, nextRun, parseCron, validCron, type CronClock, type CronSchedule } from '../../src/util/cron.js';

/**
 * src/util/cron.ts replaces node-cron at run time; node-cron 4 stays as the oracle here.
 *
 * node-cron caches its Intl formatters for "the local zone" at first use, so after
 * `process.env.TZ` changes it would keep computing in the first zone. The oracle therefore
 * gets the zone explicitly (`{ timezone }`), which runs the same code path; in a fresh process
 * per zone both give identical results (checked by hand over 2000-2040 for the four zones).
 */

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata'];
const FROM = Date.UTC(2000, 0, 1);
const TO = Date.UTC(2041, 0, 1) - 1;
const DAY = 86_400_000;

function schedule(expression: string): CronSchedule {
  const parsed = parseCron(expression);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

/** node-cron's next run after `afterMs` in `zone` (getNextRuns starts from `new Date()`, faked here). */
function oracleNext(expression: string, afterMs: number, zone: string): number {
  const task = cron.createTask(expression, () => undefined, { timezone: zone });
  try {
    vi.setSystemTime(afterMs);
    return task.getNextRuns(1)[0]!.getTime();
  } finally {
    void task.destroy();
  }
}

/** Sets the process zone for a describe block (Node re-reads TZ on assignment) and restores it. */
function inZone(zone: string): void {
  const saved = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = zone;
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterAll(() => {
    vi.useRealTimers();
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });
}

/** UTC offset changes of the current zone in 2000-2040, to the second. */
function transitions(): number[] {
  const offset = (ms: number) => new Date(ms).getTimezoneOffset();
  const out: number[] = [];
  for (let ms = FROM; ms < TO; ms += DAY) {
    if (offset(ms) === offset(ms + DAY)) continue;
    let [lo, hi] = [ms, ms + DAY];
    while (hi - lo > 1000) {
      const mid = Math.floor((lo + hi) / 2);
      if (offset(mid) === offset(lo)) lo = mid;
      else hi = mid;
    }
    out.push(hi);
  }
  return out;
}

// --- expression generator: node-cron's grammar, plus some invalid tokens ---------------------

const MONTHS = [
  'jan',
  'feb',
  'mar',
  'apr',
  'may',
  'jun',
  'jul',
  'aug',
  'sep',
  'oct',
  'nov',
  'dec',
  'january',
  'june',
  'september',
  'december',
];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sunday', 'wednesday', 'saturday'];
const FIELD_SPECS = [
  { min: 0, max: 59, names: [] },
  { min: 0, max: 59, names: [] },
  { min: 0, max: 23, names: [] },
  { min: 1, max: 31, names: [] },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 7, names: DAYS },
];

function fieldArb(i: number, invalid: boolean): fc.Arbitrary<string> {
  const { min, max, names } = FIELD_SPECS[i]!;
  const values: fc.Arbitrary<string>[] = [fc.integer({ min, max }).map(String)];
  if (names.length)
    values.push(
      fc.constantFrom(...names).chain((s) => fc.constantFrom(s, s.toUpperCase(), s[0]!.toUpperCase() + s.slice(1))),
    );
  if (invalid) values.push(fc.integer({ min: 0, max: 99 }).map(String));
  const value = fc.oneof(...values);
  const step = fc.integer({ min: invalid ? 0 : 1, max: max + 3 });
  const atom = fc.oneof(
    fc.constant('*'),
    value,
    fc.tuple(value, value).map(([a, b]) => `${a}-${b}`),
    fc.tuple(value, value, step).map(([a, b, n]) => `${a}-${b}/${n}`),
    step.map((n) => `*/${n}`),
    ...(invalid ? [fc.constantFrom('', '5/5', '1-', '-1', '**', '*-5', '?', 'foo', '1/', '*/', '5*')] : []),
  );
  return fc.array(atom, { minLength: 1, maxLength: 3 }).map((atoms) => atoms.join(','));
}

/** Expressions of 5 or 6 fields; with `invalid`, also bad tokens and 3, 4 or 7 fields. */
function expressionArb(invalid = false): fc.Arbitrary<string> {
  const six = fc.tuple(...FIELD_SPECS.map((_, i) => fieldArb(i, invalid)));
  const count = invalid ? fc.constantFrom(3, 4, 5, 5, 6, 6, 7) : fc.constantFrom(5, 6);
  return fc
    .tuple(six, count, fc.constantFrom(' ', '  ', '   '), fc.boolean())
    .map(([f, n, sep]) => (n === 7 ? ['*', ...f] : f.slice(6 - n)).join(sep))
    .chain((e) => fc.constantFrom(e, ` ${e} `));
}

// --- differential tests -------------------------------------------------------------------

describe.each(ZONES)('cron vs node-cron in %s', (zone) => {
  inZone(zone);

  it('accepts exactly the expressions node-cron accepts, and agrees on the next run from random instants', () => {
    fc.assert(
      fc.property(
        fc.oneof(expressionArb(false), expressionArb(true)),
        fc.integer({ min: FROM, max: TO }),
        (expression, at) => {
          const ours = parseCron(expression);
          expect('error' in ours, expression).toBe(!cron.validate(expression));
          if ('error' in ours) return;
          expect(nextRun(ours, at), `${expression} after ${new Date(at).toISOString()}`).toBe(
            oracleNext(expression, at, zone),
          );
        },
      ),
      { numRuns: 600 },
    );
  });

  it('agrees on the next run from instants within 3 hours of a DST change', () => {
    const changes = transitions();
    if (zone === 'Asia/Kolkata') return void expect(changes).toEqual([]); // no DST since 1945
    expect(changes.length).toBeGreaterThan(70);
    // Schedules that land in the small hours, where the changes happen.
    const nightly = fc
      .tuple(
        fc.constantFrom('0', '*/20', '0,30', '59'),
        fc.constantFrom('*', '*/15', '0,30', '59', '0-5'),
        fc.constantFrom('*', '1-3', '2', '0,2,3', '23,0-4'),
      )
      .map(([s, m, h]) => `${s} ${m} ${h} * * *`);
    fc.assert(
      fc.property(
        fc.oneof(nightly, expressionArb(false)),
        fc.constantFrom(...changes),
        fc.integer({ min: -3 * 3600_000, max: 3 * 3600_000 }),
        (expression, change, delta) => {
          const parsed = parseCron(expression);
          fc.pre(!('error' in parsed));
          const at = change + delta;
          expect(nextRun(parsed as CronSchedule, at), `${expression} after ${new Date(at).toISOString()}`).toBe(
            oracleNext(expression, at, zone),
          );
        },
      ),
      { numRuns: 400 },
    );
  });
});

/**
 * node-cron's DST behaviour, pinned (each also checked against node-cron). A time in the
 * spring-forward gap is skipped. In the fall-back hour each wall time runs once, but WHICH
 * instant depends on the zone: the first in New York, the second in Berlin and Sydney (an
 * artefact of node-cron's wall-time-to-UTC guess; a "sensible" reading would pick the first
 * everywhere). From inside the repeated hour the rest of it may be skipped.
 */
describe.each([
  ['Europe/Berlin', '*/15 * * * *', '2024-10-26T23:50:00Z', '2024-10-27T01:00:00Z'], // 02:00 CET: the CEST pass is skipped
  ['Europe/Berlin', '*/15 * * * *', '2024-10-27T00:20:00Z', '2024-10-27T01:30:00Z'], // from 02:20 CEST to 02:30 CET
  ['Europe/Berlin', '*/15 * * * *', '2024-10-27T00:15:00Z', '2024-10-27T01:30:00Z'], // from 02:15 CEST: not 02:15 CET
  ['Europe/Berlin', '30 2 * * *', '2024-03-30T12:00:00Z', '2024-04-01T00:30:00Z'], // 02:30 does not exist on Mar 31
  ['Europe/Berlin', '*/15 * * * *', '2024-03-31T00:50:00Z', '2024-03-31T01:00:00Z'], // 01:50 CET, then 03:00 CEST
  ['America/New_York', '*/15 * * * *', '2024-11-03T05:20:00Z', '2024-11-03T05:30:00Z'], // 01:30 EDT, the first pass
  ['America/New_York', '*/15 * * * *', '2024-11-03T05:50:00Z', '2024-11-03T07:00:00Z'], // 02:00 EST: the EST pass is skipped
  ['America/New_York', '30 2 * * *', '2024-03-09T12:00:00Z', '2024-03-11T06:30:00Z'], // 02:30 does not exist on Mar 10
  ['Australia/Sydney', '*/15 * * * *', '2024-04-06T15:20:00Z', '2024-04-06T16:30:00Z'], // from 02:20 AEDT to 02:30 AEST
])('DST in %s: "%s" after %s', (zone, expression, after, expected) => {
  inZone(zone);
  it(`runs at ${expected}, as node-cron does`, () => {
    const at = Date.parse(after);
    expect(new Date(nextRun(schedule(expression), at)).toISOString()).toBe(new Date(expected).toISOString());
    expect(oracleNext(expression, at, zone)).toBe(Date.parse(expected));
  });
});

// --- parsing ----------------------------------------------------------------------------------

describe('parseCron', () => {
  it.each([
    ['60 * * * *', /minute "60": 60 is out of range 0-59/],
    ['* * *', /has 3 fields; expected 5/],
    ['* * * * * * *', /has 7 fields/],
    ['*/0 * * * *', /minute "\*\/0": the step must be at least 1/],
    ['1-5/0 * * * *', /step must be at least 1/],
    ['every minute', /has 2 fields/],
    ['', /has 0 fields; expected 5/],
    ['   ', /has 0 fields/],
    ['*\t* * * *', /characters other than/],
    ['* * * * * !', /characters other than/],
    ['* 24 * * *', /hour "24": 24 is out of range 0-23/],
    ['* * 0 * *', /day of month "0": 0 is out of range 1-31/],
    ['* * * 13 *', /month "13": 13 is out of range 1-12/],
    ['* * * * 8', /day of week "8": 8 is out of range 0-7/],
    ['5/5 * * * *', /minute "5\/5" is not a number, range/],
    ['0-99 * * * *', /minute "0-99": 60 is out of range 0-59/],
    ['* * * foo *', /month "foo" is not a number/],
    ['0 0 31 2 *', /day of month "31" never occurs in month "2"/],
    ['0 0 31 2,4,6 *', /never occurs in month "2,4,6"/],
  ])('rejects %j like node-cron, with a readable error', (expression, message) => {
    const parsed = parseCron(expression);
    expect(parsed).toEqual({ error: expect.stringMatching(message) });
    expect(validCron(expression)).toBe(false);
    expect(cron.validate(expression)).toBe(false);
  });

  it('accepts a random string of cron characters iff node-cron does (but for L, W and #)', () => {
    const piece = fc.constantFrom(
      ...'0123456789*/,-?  ',
      'jan',
      'JUNE',
      'mon',
      'Sun',
      'sat',
      'l',
      'w',
      '#',
      'x',
      '7',
      '59',
      '60',
      '12',
      '31',
      '@daily',
    );
    const text = fc.array(piece, { maxLength: 30 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, (expression) => {
        fc.pre(!/\d{5}/.test(expression)); // node-cron expands "0-99999999" value by value
        const ours = parseCron(expression);
        if ('error' in ours && /not supported/.test(ours.error)) return;
        expect(!('error' in ours), expression).toBe(cron.validate(expression));
      }),
      { numRuns: 5000 },
    );
  });

  it('stops expanding a huge range at its first value out of range', () => {
    const t0 = performance.now();
    expect(parseCron('0-99999999 * * * *')).toEqual({ error: expect.stringMatching(/60 is out of range 0-59/) });
    expect(performance.now() - t0).toBeLessThan(100); // node-cron expands all 10^8 values (and hangs)
  });

  it.each(['0 0 L * *', '0 0 15W * *', '0 0 L-2 * *', '0 0 * * 5L', '0 0 * * 1#2'])(
    'rejects node-cron extra %j as not supported',
    (expression) => {
      expect(parseCron(expression)).toEqual({ error: expect.stringMatching(/L, W and # are not supported/) });
      expect(cron.validate(expression)).toBe(true); // node-cron has them; no punchgate config needs them
    },
  );

  it('reads names, 7 as Sunday, spaces, steps, wrap-around ranges, ? and nicknames as node-cron does', () => {
    const sorted = (set: ReadonlySet<number>) => [...set];
    const s = schedule('  */20  5-1  1,15  JAN-Mar,dec  Sat-sun  ');
    expect(sorted(s.seconds)).toEqual([0]);
    expect(sorted(s.minutes)).toEqual([0, 20, 40]);
    expect(sorted(s.hours)).toEqual([0, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]);
    expect(sorted(s.daysOfMonth)).toEqual([1, 15]);
    expect(sorted(s.months)).toEqual([1, 2, 3, 12]);
    expect(sorted(s.daysOfWeek)).toEqual([0, 6]);
    expect(sorted(schedule('* * * * * 7').daysOfWeek)).toEqual([0]);
    expect(sorted(schedule('* * * * * 5-7').daysOfWeek)).toEqual([0, 5, 6]);
    expect(sorted(schedule('50-10/5 * * * *').minutes)).toEqual([0, 5, 10, 50, 55]);
    // node-cron reads a reversed range as wrapping around, so '5-1 * * * *' is valid: minutes 5..59, 0, 1.
    expect(sorted(schedule('5-1 * * * *').minutes)).toEqual([0, 1, ...Array.from({ length: 55 }, (_, i) => i + 5)]);
    expect(sorted(schedule('0 0 ? * Monday').daysOfWeek)).toEqual([1]);
    expect(schedule(' @Daily ')).toEqual(schedule('0 0 * * *'));
    for (const e of [
      '  */20  5-1  1,15  JAN-Mar,dec  Sat-sun  ',
      '50-10/5 * * * *',
      '5-1 * * * *',
      '0 0 ? * Monday',
      ' @Daily ',
      '*/100 * * * *',
    ]) {
      expect(cron.validate(e), e).toBe(true);
      expect(validCron(e), e).toBe(true);
    }
  });
});

describe('nextRun', () => {
  inZone('Europe/Berlin');

  it('needs day of month AND day of week to match (node-cron), e.g. Friday the 13th', () => {
    const after = new Date(2024, 0, 1).getTime();
    expect(nextRun(schedule('0 0 13 * fri'), after)).toBe(new Date(2024, 8, 13).getTime());
    expect(oracleNext('0 0 13 * fri', after, 'Europe/Berlin')).toBe(new Date(2024, 8, 13).getTime());
  });

  it('is strictly after the given instant, at a whole second', () => {
    const at = new Date(2024, 5, 1, 10, 0, 0).getTime();
    expect(nextRun(schedule('* * * * * *'), at)).toBe(at + 1000);
    expect(nextRun(schedule('* * * * * *'), at + 999)).toBe(at + 1000);
    expect(nextRun(schedule('* * * * *'), at)).toBe(at + 60_000);
  });

  it('finds a rare date quickly and gives Infinity for a schedule that never runs', () => {
    const t0 = performance.now();
    const after = new Date(2024, 2, 1).getTime();
    expect(nextRun(schedule('0 0 29 2 mon'), after)).toBe(new Date(2044, 1, 29).getTime());
    const never: CronSchedule = { ...schedule('0 0 30 * *'), months: new Set([2]) };
    expect(nextRun(never, after)).toBe(Infinity);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

// --- the timer ----------------------------------------------------------------------------------

/** Timers run on a monotonic clock; `jump` moves only the wall clock, as a clock step does. */
function fakeClock(wallStart: number, opts: { earlyWake?: boolean } = {}) {
  let mono = 0;
  let wallOffset = wallStart;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const delays: number[] = [];
  const clock: CronClock = {
    now: () => mono + wallOffset,
    setTimeout(fn, ms) {
      delays.push(ms);
      timers.set(++seq, { at: mono + (opts.earlyWake && ms > 1 ? ms - 1 : ms), fn });
      return seq;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  const advance = (ms: number) => {
    const end = mono + ms;
    for (;;) {
      const next = [...timers].filter(([, t]) => t.at <= end).sort(([a, x], [b, y]) => x.at - y.at || a - b)[0];
      if (!next) break;
      timers.delete(next[0]);
      mono = next[1].at;
      next[1].fn();
    }
    mono = end;
  };
  return { clock, delays, advance, jump: (ms: number) => void (wallOffset += ms), pending: () => timers.size };
}

describe('cronTimer', () => {
  inZone('UTC');
  const at = (h: number, m: number, s = 0, ms = 0) => Date.UTC(2024, 0, 10, h, m, s, ms);
  const iso = (ms: number) => new Date(ms).toISOString().slice(11, 23);

  it.each([false, true])('fires once per matching minute, on the second (timers waking early: %s)', (earlyWake) => {
    const f = fakeClock(at(10, 0, 30, 250), { earlyWake });
    const fired: number[] = [];
    cronTimer(schedule('* * * * *'), () => fired.push(f.clock.now()), f.clock);
    f.advance(10 * 60_000);
    expect(fired.map(iso)).toEqual(Array.from({ length: 10 }, (_, i) => iso(at(10, i + 1))));
  });

  it('never sleeps more than 60 s, and a daily schedule fires once a day', () => {
    const f = fakeClock(at(10, 0));
    const fired: number[] = [];
    cronTimer(schedule('0 3 * * *'), () => fired.push(f.clock.now()), f.clock);
    f.advance(3 * DAY);
    expect(fired.map((ms) => new Date(ms).toISOString())).toEqual([
      '2024-01-11T03:00:00.000Z',
      '2024-01-12T03:00:00.000Z',
      '2024-01-13T03:00:00.000Z',
    ]);
    expect(Math.max(...f.delays)).toBe(60_000);
    expect(Math.min(...f.delays)).toBeGreaterThan(0);
  });

  it('follows a clock stepped forward: one catch-up fire within a minute, then on schedule', () => {
    const f = fakeClock(at(10, 10));
    const fired: number[] = [];
    cronTimer(schedule('0 * * * *'), () => fired.push(f.clock.now()), f.clock);
    f.advance(30 * 60_000); // 10:40, nothing due yet
    f.jump(2 * 3600_000); // 12:40: 11:00 and 12:00 were skipped over
    f.advance(60_000);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThan(at(12, 40));
    expect(fired[0]).toBeLessThanOrEqual(at(12, 41));
    f.advance(2 * 3600_000);
    expect(fired.slice(1).map(iso)).toEqual([iso(at(13, 0)), iso(at(14, 0))]);
  });

  it('follows a clock stepped back an hour, noticing it within a minute', () => {
    const f = fakeClock(at(10, 0, 30));
    const fired: number[] = [];
    cronTimer(schedule('* * * * *'), () => fired.push(f.clock.now()), f.clock);
    f.advance(5 * 60_000); // 10:05:30; fired 10:01 .. 10:05
    f.jump(-3600_000); // 09:05:30
    f.advance(4 * 60_000); // to 09:09:30
    expect(fired.map(iso)).toEqual([
      ...[1, 2, 3, 4, 5].map((m) => iso(at(10, m))),
      ...[7, 8, 9].map((m) => iso(at(9, m))),
    ]);
  });

  it('never fires the same second twice when the clock steps back over it', () => {
    const f = fakeClock(at(10, 0, 30));
    const fired: number[] = [];
    cronTimer(schedule('* * * * *'), () => fired.push(f.clock.now()), f.clock);
    f.advance(30_000); // fires 10:01:00
    f.jump(-90_000); // 09:59:30; the wake at 10:00:30 plans 10:01:00 again
    f.advance(4 * 60_000); // to 10:03:30
    expect(fired.map(iso)).toEqual([iso(at(10, 1)), iso(at(10, 2)), iso(at(10, 3))]);
    expect(new Set(fired.map((ms) => Math.floor(ms / 1000))).size).toBe(fired.length);
  });

  it('stops: no timer left, no more fires, also when stopped from inside tick', () => {
    const f = fakeClock(at(10, 0, 30));
    let fired = 0;
    const stop = cronTimer(schedule('*/10 * * * * *'), () => fired++, f.clock);
    f.advance(25_000);
    expect(fired).toBe(2);
    stop();
    expect(f.pending()).toBe(0);
    f.advance(600_000);
    expect(fired).toBe(2);

    let inner = 0;
    const stopInner: () => void = cronTimer(schedule('*/10 * * * * *'), () => (inner++, stopInner()), f.clock);
    f.advance(600_000);
    expect(inner).toBe(1);
    expect(f.pending()).toBe(0);
  });

  it('keeps its schedule when a tick throws', () => {
    const f = fakeClock(at(10, 0, 30));
    const fired: number[] = [];
    cronTimer(
      schedule('* * * * *'),
      () => {
        fired.push(f.clock.now());
        if (fired.length === 1) throw new Error('tick failed');
      },
      f.clock,
    );
    expect(() => f.advance(60_000)).toThrow('tick failed'); // from the timer callback, as in Node
    f.advance(3 * 60_000);
    expect(fired.map(iso)).toEqual([1, 2, 3, 4].map((m) => iso(at(10, m))));
  });

  it('uses Date.now and the global timers by default', () => {
    vi.useFakeTimers({ now: at(10, 0, 0, 500) });
    try {
      let fired = 0;
      const stop = cronTimer(schedule('*/10 * * * * *'), () => fired++);
      vi.advanceTimersByTime(60_000);
      expect(fired).toBe(6);
      stop();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useFakeTimers({ toFake: ['Date'] }); // as inZone set it
    }
  });
});
