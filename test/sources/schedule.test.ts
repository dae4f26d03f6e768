import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  cronScheduler,
  maxSkippedTicks,
  POLL_SPREAD_MS,
  PollLoop,
  spreadOffsetMs,
  ticksToSkip,
  type Scheduler,
} from '../../src/sources/schedule.js';
import type { ClockStep } from '../../src/util/clock-steps.js';

/** The real monotonic clock, taken before any test fakes the timers (they fake process.hrtime too). */
const realHrtime = process.hrtime.bigint.bind(process.hrtime);

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + 'Z';

describe('cronScheduler (node-cron) runs a schedule in the terminal time zone', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** The instants (UTC) at which a schedule ticks during `hours` hours of fake time from `from`. */
  async function ticks(
    expression: string,
    timezone: string | undefined,
    hours: number,
    from = Date.UTC(2026, 0, 5, 0, 0, 0), // a Monday in winter
  ): Promise<string[]> {
    vi.setSystemTime(from);
    const seen: string[] = [];
    const stop = cronScheduler()({ expression, timezone }, () => seen.push(iso(Date.now())));
    // Async: node-cron calls the task after a few awaits of its own.
    await vi.advanceTimersByTimeAsync(hours * 3_600_000);
    stop();
    return seen;
  }

  it('runs each tick its offset after the time the expression names, and a stop cancels a tick waiting out its offset', async () => {
    vi.setSystemTime(Date.UTC(2026, 0, 5, 8, 0, 30));
    const seen: string[] = [];
    const stop = cronScheduler()({ expression: '* * * * *', offsetMs: 7000 }, () => seen.push(iso(Date.now())));
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    expect(seen).toEqual(['2026-01-05T08:01:07Z', '2026-01-05T08:02:07Z', '2026-01-05T08:03:07Z']);
    // 08:03:30 now: the next tick is at 08:04:00, waiting until 08:04:07 when stopped.
    await vi.advanceTimersByTimeAsync(33_000);
    stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(seen).toHaveLength(3);
  });

  it('reads the expression in the terminal zone, not the box zone (tests run in UTC)', async () => {
    expect(await ticks('0 9 * * *', 'America/New_York', 48)).toEqual(['2026-01-05T14:00:00Z', '2026-01-06T14:00:00Z']);
    expect(await ticks('30 8 * * *', 'Asia/Kolkata', 24)).toEqual(['2026-01-05T03:00:00Z']);
    expect(await ticks('0 9 * * *', undefined, 24)).toEqual(['2026-01-05T09:00:00Z']);
  });

  it('follows the zone across a DST change: 09:00 Berlin is 08:00 UTC in winter, 07:00 UTC in summer', async () => {
    // From the Friday before the last Sunday of March.
    expect(await ticks('0 9 * * *', 'Europe/Berlin', 72, Date.UTC(2026, 2, 27, 12, 0, 0))).toEqual([
      '2026-03-28T08:00:00Z',
      '2026-03-29T07:00:00Z',
      '2026-03-30T07:00:00Z',
    ]);
  });

  it('a tick that comes late (the box asleep, the clock stepped) runs once, not never', async () => {
    vi.setSystemTime(Date.UTC(2026, 0, 5, 8, 59, 59));
    const seen: string[] = [];
    const stop = cronScheduler()({ expression: '0 9 * * *', timezone: 'UTC' }, () => seen.push(iso(Date.now())));
    vi.setSystemTime(Date.UTC(2026, 0, 5, 9, 30, 0)); // 31 minutes pass without the timer running
    await vi.advanceTimersByTimeAsync(1_000);
    expect(seen).toEqual(['2026-01-05T09:30:01Z']);
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(seen).toHaveLength(1);
    stop();
  });

  it('a step of the box clock forward (days, or years after a boot at 2000) ticks once, without walking every slot it jumped', async () => {
    vi.setSystemTime(Date.UTC(2026, 0, 5, 8, 0, 0));
    const seen: string[] = [];
    // No step watch told yet: the schedule's own timer comes first (it does, one time in ten, on a 10 s schedule).
    const stop = cronScheduler()({ expression: '* * * * * *', timezone: 'Europe/Berlin' }, () =>
      seen.push(iso(Date.now())),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(seen).toEqual(['2026-01-05T08:00:01Z']);
    vi.setSystemTime(Date.UTC(2026, 0, 5, 14, 0, 0)); // 6 h forward: 21,600 slots of this schedule
    const started = realHrtime();
    await vi.advanceTimersByTimeAsync(1_000);
    const tookMs = Number(realHrtime() - started) / 1e6;
    expect(seen).toEqual(['2026-01-05T08:00:01Z', '2026-01-05T14:00:01Z']);
    // Walking the slots one by one held the event loop 77 s after a step of 30 days (a 10 s schedule).
    expect(tookMs).toBeLessThan(1_500);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(seen.slice(2)).toEqual(['2026-01-05T14:00:02Z', '2026-01-05T14:00:03Z']);
    stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('told of a step: back, the wait is planned anew; forward past the slot, it runs at once and once', async () => {
    const listeners = new Set<(s: ClockStep) => void>();
    const steps = {
      onStep: (l: (s: ClockStep) => void) => (listeners.add(l), () => void listeners.delete(l)),
      netStepMs: () => 0,
      terminalClockSet: () => undefined,
      terminalSetBeforeStep: () => false,
    };
    const step = (to: number) => {
      vi.setSystemTime(to);
      for (const l of [...listeners]) l({ at: to, deltaMs: 0 });
    };
    vi.setSystemTime(Date.UTC(2026, 0, 5, 9, 0, 0));
    const seen: string[] = [];
    const stop = cronScheduler(undefined, steps)({ expression: '30 9 * * *', timezone: 'UTC' }, () =>
      seen.push(iso(Date.now())),
    );
    step(Date.UTC(2026, 0, 5, 8, 0, 0)); // back 1 h: 09:30 is 90 min away, not 30
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    expect(seen).toEqual([]);
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(seen).toEqual(['2026-01-05T09:30:00Z']);
    step(Date.UTC(2026, 0, 9, 12, 0, 0)); // forward past four slots: one tick, now
    expect(seen).toEqual(['2026-01-05T09:30:00Z', '2026-01-09T12:00:00Z']);
    await vi.advanceTimersByTimeAsync(22 * 3_600_000);
    expect(seen.slice(2)).toEqual(['2026-01-10T09:30:00Z']);
    stop();
    expect(listeners.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops: no tick and no timer left', async () => {
    let n = 0;
    const stop = cronScheduler()({ expression: '* * * * * *' }, () => n++);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(n).toBe(3);
    stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(n).toBe(3);
    expect(vi.getTimerCount()).toBe(0);
  });
});

/** A poll the test finishes by hand. */
function manualPolls() {
  const pending: ((ok: boolean) => void)[] = [];
  let started = 0;
  return {
    poll: () =>
      new Promise<{ ok: boolean }>((resolve) => {
        started++;
        pending.push((ok) => resolve({ ok }));
      }),
    started: () => started,
    finish: async (ok: boolean) => {
      pending.shift()!(ok);
      await vi.advanceTimersByTimeAsync(0); // let the loop see the outcome
    },
  };
}

describe('PollLoop: one poll at a time, fewer polls while a terminal fails', () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.UTC(2026, 0, 5, 0, 0, 0) }));
  afterEach(() => vi.useRealTimers());

  it('on node-cron with a fake clock: a tick while a poll runs is skipped, not queued', async () => {
    const polls = manualPolls();
    const loop = new PollLoop({
      spec: { expression: '* * * * * *' },
      scheduler: cronScheduler(),
      poll: polls.poll,
      onError: (e) => expect.fail(String(e)),
    });
    loop.start(); // polls at once
    expect(polls.started()).toBe(1);
    await vi.advanceTimersByTimeAsync(3_000); // three ticks while the first poll runs
    expect(polls.started()).toBe(1);
    await polls.finish(true);
    await vi.advanceTimersByTimeAsync(1_000); // the next tick polls again
    expect(polls.started()).toBe(2);
    await polls.finish(true);
    const stopped = loop.stop();
    await stopped;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(polls.started()).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('after consecutive failures polls on the 2nd, 4th, 8th, then every 16th tick; a success resets it', async () => {
    const polls = manualPolls();
    let tick: () => void = () => {};
    const scheduler: Scheduler = (_spec, t) => ((tick = t), () => {});
    const loop = new PollLoop({
      spec: { expression: '* * * * *' },
      scheduler,
      poll: polls.poll,
      onError: (e) => expect.fail(String(e)),
    });
    loop.start();
    await polls.finish(false); // failure 1: no tick skipped
    const polledAt: number[] = [];
    for (let n = 1; n <= 60; n++) {
      const before = polls.started();
      tick();
      await vi.advanceTimersByTimeAsync(0);
      if (polls.started() > before) {
        polledAt.push(n);
        await polls.finish(polledAt.length >= 6);
      }
    }
    // Failures 2..5 skip 1, 3, 7 and 15 ticks; the 6th poll succeeds and polling is every tick again.
    expect(polledAt.slice(0, 6)).toEqual([1, 3, 7, 15, 31, 47]);
    expect(polledAt.slice(6, 9)).toEqual([48, 49, 50]);
    expect(loop.failures).toBe(0);
    await loop.stop();
  });

  it('capped (a test of something else than the backoff): never more than that many ticks skipped', async () => {
    expect(maxSkippedTicks({})).toBe(Infinity);
    expect(maxSkippedTicks({ PUNCHGATE_TEST_MAX_SKIPPED_TICKS: 'x' })).toBe(Infinity);
    expect(maxSkippedTicks({ PUNCHGATE_TEST_MAX_SKIPPED_TICKS: '1' })).toBe(1);
    const polls = manualPolls();
    let tick: () => void = () => {};
    const scheduler: Scheduler = (_spec, t) => ((tick = t), () => {});
    const loop = new PollLoop({
      spec: { expression: '* * * * *' },
      scheduler,
      poll: polls.poll,
      onError: (e) => expect.fail(String(e)),
      maxSkippedTicks: 1,
    });
    loop.start();
    await polls.finish(false);
    const polledAt: number[] = [];
    for (let n = 1; n <= 12; n++) {
      const before = polls.started();
      tick();
      await vi.advanceTimersByTimeAsync(0);
      if (polls.started() > before) {
        polledAt.push(n);
        await polls.finish(false);
      }
    }
    expect(polledAt).toEqual([1, 3, 5, 7, 9, 11]);
    expect(loop.failures).toBe(7);
    await loop.stop();
  });

  it('a poll that throws all the same is told to onError and counted as a failure, never an unhandled rejection', async () => {
    let tick: () => void = () => {};
    const scheduler: Scheduler = (_spec, t) => ((tick = t), () => {});
    const errors: unknown[] = [];
    let calls = 0;
    const loop = new PollLoop<{ ok: boolean }>({
      spec: { expression: '* * * * *' },
      scheduler,
      poll: () => (calls++, Promise.reject(new Error('SQLITE_BUSY: database is locked'))),
      onError: (e) => errors.push(e),
    });
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    tick();
    await vi.advanceTimersByTimeAsync(0);
    expect(errors.map(String)).toEqual([
      'Error: SQLITE_BUSY: database is locked',
      'Error: SQLITE_BUSY: database is locked',
    ]);
    expect([calls, loop.failures]).toEqual([2, 2]);
    await loop.stop();
  });

  it('a poll that failed only because the journal was busy is not the terminal failing: no backoff', async () => {
    const polls = manualPolls();
    let tick: () => void = () => {};
    const scheduler: Scheduler = (_spec, t) => ((tick = t), () => {});
    let busy = true;
    const loop = new PollLoop<{ ok: boolean; noBackoff?: boolean }>({
      spec: { expression: '* * * * *' },
      scheduler,
      poll: () => polls.poll().then((r) => (busy ? { ok: false, noBackoff: true } : r)),
      onError: (e) => expect.fail(String(e)),
    });
    loop.start();
    for (let n = 0; n < 5; n++) {
      await polls.finish(false);
      tick();
      await vi.advanceTimersByTimeAsync(0);
    }
    expect([polls.started(), loop.failures]).toEqual([6, 0]); // every tick polled: nothing skipped
    busy = false;
    await polls.finish(true);
    await loop.stop();
  });

  it('ticksToSkip', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 9].map(ticksToSkip)).toEqual([0, 0, 1, 3, 7, 15, 15, 15]);
  });
});

describe('spreadOffsetMs: terminals sharing a schedule of whole minutes are not polled in the same second', () => {
  it('gives each name a fixed offset within the spread, 200 terminals spread over it, none for a seconds schedule', () => {
    const names = Array.from({ length: 200 }, (_, i) => `t${i + 1}`);
    const offsets = names.map((n) => spreadOffsetMs(n, '* * * * *'));
    expect(offsets.every((o) => Number.isInteger(o) && o >= 0 && o < POLL_SPREAD_MS)).toBe(true);
    // The same name, the same place, each time (and in any zone or schedule of whole minutes).
    expect(names.map((n) => spreadOffsetMs(n, '*/5 8-18 * * 1-5'))).toEqual(offsets);
    // Spread: at most a tenth of them in any one second of the spread (all 200 in one before).
    const perSecond = new Map<number, number>();
    for (const o of offsets) perSecond.set(Math.floor(o / 1000), (perSecond.get(Math.floor(o / 1000)) ?? 0) + 1);
    expect(perSecond.size).toBe(POLL_SPREAD_MS / 1000);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(names.length / 10 + 15);
    // A schedule with seconds ticks too often to wait out an offset.
    expect(spreadOffsetMs('t1', '*/30 * * * * *')).toBe(0);
  });
});
