/**
 * When a polled terminal is polled: its cron `schedule` (node-cron) in its own time zone, one
 * poll at a time, fewer polls while it stays unreachable. Shared by every polled source (ZK now,
 * Hikvision next): a source gives its schedule and its poll function; this does the rest.
 */
import { createTask } from 'node-cron';
import { backoffDelay } from '../util/backoff.js';
import type { Logger } from '../util/logger.js';
import type { ClockSteps, SourceDeps } from './types.js';

/** A cron expression (node-cron's syntax; a 6th leading field is seconds) and the zone it runs in. */
export interface ScheduleSpec {
  expression: string;
  /** IANA zone the expression is read in (the terminal's `timezone`); undefined: the box's zone. */
  timezone?: string;
  /** Each tick runs this long after the time the expression names (spreadOffsetMs); default 0. */
  offsetMs?: number;
}

/** Polls of terminals that share a schedule of whole minutes are spread over this long. */
export const POLL_SPREAD_MS = 10_000;

/**
 * A terminal's fixed place in the spread of polls that share a schedule: 200 terminals on
 * `* * * * *` all polled in the same second made one burst of 200 connections and journal
 * writes every minute, the daemon's event loop (and the push terminals' OKs, the scrapes)
 * waiting behind it. Each terminal keeps its own offset (from its name), so it is still
 * polled once per tick, at the same second each time. Schedules with a seconds field (6
 * fields) tick too often to be spread: none.
 */
export function spreadOffsetMs(name: string, expression: string): number {
  if (expression.trim().split(/\s+/).length !== 5) return 0;
  // FNV-1a: stable across runs and Node versions, spread evenly enough over a few hundred names.
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return h % POLL_SPREAD_MS;
}

/** Starts calling `tick` at each time the spec names; returns the function that stops it. Tests pass their own. */
export type Scheduler = (spec: ScheduleSpec, tick: () => void) => () => void;

/** A timer is never set further ahead than this: a longer wait is made of several (Node caps a timer at 24.8 days). */
const MAX_TIMER_MS = 86_400_000;

/**
 * The real scheduler: the expression's slots as node-cron reads them (its syntax, in the spec's
 * time zone), waited for on a timer of our own. node-cron's own timer is not used: after the box
 * clock stepped forward (NTP after a boot at 2000, a VM restored, a box asleep) it walks every
 * slot it jumped, one by one, before the next tick, and that walk held the event loop 77 s for a
 * step of 30 days on a 10 s schedule (years for a clock reset to 2000), while the push terminals,
 * the polls and the delivery waited. Here a tick that comes late runs once (a daily poll is not
 * skipped), and the next slot is the first after the clock as it reads then: no slot is walked.
 *
 * The slots are planned on the wall clock and waited for on a timer (the monotonic clock): after
 * a step (`steps`) the wait is planned again from the clock as it reads now, so a step back of an
 * hour does not hold the polls for an hour; a slot that a step forward passed runs at once.
 */
export function cronScheduler(logger?: Logger, steps?: ClockSteps): Scheduler {
  const log = logger?.child({ component: 'schedule' });
  return ({ expression, timezone, offsetMs = 0 }, tick) => {
    // Never started: only its reading of the expression (its next slots) is used.
    const slots = createTask(expression, () => undefined, { timezone });
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    /** The slot waited for (epoch ms). */
    let slot = 0;
    const nextSlot = (after: number): number => {
      const [first, second] = slots.getNextRuns(2).map((d) => d.getTime());
      return first! > after ? first! : second!;
    };
    const wait = () => {
      clearTimeout(timer);
      const ms = Math.min(Math.max(0, slot + offsetMs - Date.now()), MAX_TIMER_MS);
      timer = setTimeout(due, ms);
    };
    // The timer ran: the slot's time (plus its offset) has come, or a long wait goes on.
    const due = () => {
      if (stopped) return;
      if (Date.now() < slot + offsetMs) return wait();
      const ran = slot;
      slot = nextSlot(ran);
      wait();
      tick();
    };
    slot = nextSlot(Date.now());
    wait();
    const unsubscribe = steps?.onStep(() => {
      if (stopped) return;
      // Forward past the slot waited for: it runs now (late, once); back: the wait is planned anew.
      if (Date.now() >= slot + offsetMs) return due();
      slot = nextSlot(Date.now());
      wait();
      log?.debug({ expression }, 'schedule planned again after a step of the box clock');
    });
    return () => {
      stopped = true;
      unsubscribe?.();
      clearTimeout(timer);
      timer = undefined;
      // node-cron keeps every task it made in a list of its own until destroyed.
      void slots.destroy();
    };
  };
}

/** Ticks skipped after the n-th consecutive failed poll: 0, 1, 3, 7, then every 16th tick. */
export function ticksToSkip(failures: number): number {
  return failures <= 1 ? 0 : backoffDelay(failures - 1, { baseMs: 1, maxMs: 16 }) - 1;
}

/**
 * A cap on the ticks skipped, for the tests only: PUNCHGATE_TEST_MAX_SKIPPED_TICKS (a whole number)
 * in the environment of a `punchgate run` whose test proves something else than the backoff (what a
 * hostile terminal's answers do), so that it does not wait out gaps of 16 s. The backoff itself is
 * proven in test/sources/schedule.test.ts. Unset (as everywhere but those tests): no cap.
 */
export function maxSkippedTicks(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.PUNCHGATE_TEST_MAX_SKIPPED_TICKS;
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : Infinity;
}

/** What a poll reports back: whether it reached the terminal and finished. */
export interface PollOutcome {
  ok: boolean;
  /**
   * The poll failed, but not because the terminal is unreachable (the journal was busy; a refused
   * password has its own, longer wait): no ticks are skipped for it.
   */
  noBackoff?: boolean;
}

export interface PollLoopOptions<R extends PollOutcome> {
  spec: ScheduleSpec;
  /** One poll. Must not throw (trouble is in its outcome); it is never called twice at once. */
  poll: () => Promise<R>;
  scheduler: Scheduler;
  /** A poll that threw all the same (a journal that could not record its outcome): told here, never a crash. */
  onError: (err: unknown) => void;
  /** At most this many ticks skipped (default: maxSkippedTicks(), no cap unless a test sets it). */
  maxSkippedTicks?: number;
}

/**
 * Polls on a schedule with two rules. One poll at a time: a tick that comes while a poll runs is
 * skipped, not queued (a slow terminal is not polled twice over, and the next tick polls again).
 * Backoff: after consecutive failed polls, ticks are skipped (ticksToSkip), so an unreachable
 * terminal is tried every 2nd, 4th, 8th and then every 16th tick until it answers.
 */
export class PollLoop<R extends PollOutcome> {
  private stopSchedule: (() => void) | undefined;
  private running: Promise<R> | undefined;
  private consecutiveFailures = 0;
  private skip = 0;
  private stopped = false;
  /** A poll asked for while one ran (pollAgain): it runs right after. */
  private again = false;

  private readonly maxSkip: number;

  constructor(private readonly opts: PollLoopOptions<R>) {
    this.maxSkip = opts.maxSkippedTicks ?? maxSkippedTicks();
  }

  /** Consecutive polls that failed (0 after a good one). */
  get failures(): number {
    return this.consecutiveFailures;
  }

  /** Arms the schedule and polls at once. */
  start(): void {
    this.stopped = false;
    this.stopSchedule = this.opts.scheduler(this.opts.spec, () => void this.tick());
    void this.tick();
  }

  /** Polls now unless a poll is running (then returns that one); its outcome counts for the backoff too. */
  pollNow(): Promise<R> {
    this.running ??= this.opts
      .poll()
      .then((r) => {
        if (!r.noBackoff) this.consecutiveFailures = r.ok ? 0 : this.consecutiveFailures + 1;
        this.skip = Math.min(ticksToSkip(this.consecutiveFailures), this.maxSkip);
        return r;
      })
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          void this.tick(true);
        }
      });
    return this.running;
  }

  /**
   * Polls now, or once more right after the running poll (a tick would skip it): for a poll that
   * must not be lost, such as the backfill after a real-time link reconnected.
   */
  pollAgain(): void {
    if (this.running) this.again = true;
    else void this.tick(true);
  }

  /** A running poll: `polling` is true from a pollAgain until its poll has run. */
  get polling(): boolean {
    return this.running !== undefined || this.again;
  }

  private async tick(asked = false): Promise<void> {
    if (this.running || this.stopped) return;
    if (this.skip > 0 && !asked) {
      this.skip--;
      return;
    }
    try {
      await this.pollNow();
    } catch (e) {
      this.consecutiveFailures++;
      this.skip = Math.min(ticksToSkip(this.consecutiveFailures), this.maxSkip);
      this.opts.onError(e);
    }
  }

  /** Disarms the schedule; resolves once a running poll has ended (the caller cuts it short). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopSchedule?.();
    this.stopSchedule = undefined;
    await this.running?.catch(() => undefined);
  }
}

/**
 * The poll loop of one polled terminal, as every source sets it up: its `schedule` in its
 * `timezone`, the cron scheduler unless a test gives its own, and a poll that threw all the same
 * told in the log, never a crash.
 */
export function terminalPollLoop<R extends PollOutcome>(
  cfg: { name: string; schedule: string; timezone?: string },
  deps: Pick<SourceDeps, 'logger' | 'clockSteps'>,
  scheduler: Scheduler | undefined,
  poll: () => Promise<R>,
): PollLoop<R> {
  return new PollLoop({
    // Spread over the minute as ZK terminals are (spreadOffsetMs): many Dahua or Hikvision
    // terminals on `* * * * *` would otherwise all be polled in the same second.
    spec: { expression: cfg.schedule, timezone: cfg.timezone, offsetMs: spreadOffsetMs(cfg.name, cfg.schedule) },
    scheduler: scheduler ?? cronScheduler(deps.logger, deps.clockSteps),
    poll,
    onError: (e) => deps.logger.error({ terminal: cfg.name, err: String(e) }, 'poll ended with an error'),
  });
}
