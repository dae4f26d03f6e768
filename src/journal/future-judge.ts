import { wallClockAt, wallClockDiffSeconds } from '../punch.js';
import { latestWallClockUpTo } from './latest-wall-clock.js';
import { PushedClocks } from './pushed-clocks.js';
import type { IngestOptions } from './types.js';

/**
 * The one judge of "in the future", for every source: a punch is quarantined as in the future only
 * when it is later than the clock of the terminal that recorded it could have been, plus the
 * tolerance (journal.futureToleranceMinutes):
 * - a terminal whose clock the source read just now (ZK, Hikvision: `currentSkewSeconds`): its
 *   own clock, so a terminal running 2 h ahead (a zone never set, DST not applied) delivers its
 *   punches with the times it recorded, and the status says its clock is off;
 * - a push terminal (no clock to read: `pushed`): the box's clock, until several of its punches
 *   show the same offset (PushedClocks): then that offset is its clock's, its punches are judged
 *   against it, and those held for it so far are released;
 * - any other source (serial lines, imports): the box's clock.
 * A clock taken as the terminal's is at most MAX_CLOCK_AHEAD_SECONDS ahead (any zone, DST).
 * A box clock stepped back lets terminals be ahead by that much. A punch past all of this (a year
 * off while the rest are fine) is quarantined as before, its offset in the message.
 */
/**
 * The furthest ahead a terminal's clock is taken as its own: zones lie within 26 h of each other,
 * plus an hour of DST. A clock further off (set to the wrong year) is not a zone: its punches are
 * quarantined as before.
 */
export const MAX_CLOCK_AHEAD_SECONDS = 27 * 3600;

export class FutureJudge {
  readonly pushed: PushedClocks;

  constructor(
    private readonly toleranceMs: number,
    knownOffset: (terminal: string) => number | null,
  ) {
    this.pushed = new PushedClocks(knownOffset);
  }

  /** The judge for one ingest call (one `now`, one set of options). */
  begin(now: number, opts: IngestOptions, stepMs: number): FutureCall {
    return new FutureCall(this, now, opts, stepMs);
  }

  get tolerance(): number {
    return this.toleranceMs;
  }
}

export interface SteadyOffset {
  terminal: string;
  offsetSeconds: number;
  /** Quarantined punches of the terminal dated up to this are now plausible (released). */
  latest: string;
}

export class FutureCall {
  private readonly boxNow: string;
  /** Ahead of the box the box's own step allows (ms). */
  private readonly stepAheadMs: number;
  private readonly latestBy = new Map<string, string>();
  /** Push terminals whose offset became steady in this call. */
  readonly steady: SteadyOffset[] = [];
  /** Per push terminal, the time of its last punch in this call (uploads come in record order). */
  private readonly lastPushed = new Map<string, string>();

  constructor(
    private readonly judge: FutureJudge,
    private readonly now: number,
    private readonly opts: IngestOptions,
    stepMs: number,
  ) {
    this.boxNow = wallClockAt(now, opts.timezone);
    this.stepAheadMs = Math.max(0, -stepMs);
  }

  /** Why the punch is in the future, or undefined when it is not. */
  reason(terminal: string, logTime: string): string | undefined {
    if (this.opts.pushed) this.lastPushed.set(terminal, logTime);
    let latest = this.latest(terminal);
    if (logTime <= latest) return undefined;
    const offset = wallClockDiffSeconds(logTime, this.boxNow);
    if (this.opts.pushed) {
      const steady = this.judge.pushed.note(terminal, offset);
      if (steady !== undefined) {
        this.latestBy.delete(terminal);
        latest = this.latest(terminal);
        this.steady.push({ terminal, offsetSeconds: steady, latest });
        if (logTime <= latest) return undefined;
      }
    }
    const skew = this.opts.currentSkewSeconds;
    const basis =
      skew !== undefined && skew > MAX_CLOCK_AHEAD_SECONDS
        ? `; the terminal's clock read ${signed(skew)} against the box: further off than any time zone, so not taken as its own`
        : skew !== undefined && skew > 0
          ? `; the terminal's clock read ${signed(skew)} against the box, so later than its own clock too`
          : '';
    return `in the future: ${signed(offset)} after it was received (punch time minus box time; box clock ${this.boxNow.slice(0, 16)}, limit ${latest.slice(0, 16)} incl. tolerance${basis})`;
  }

  private latest(terminal: string): string {
    let l = this.latestBy.get(terminal);
    if (l === undefined) {
      const skew = this.opts.currentSkewSeconds;
      const ahead =
        skew !== undefined
          ? Math.max(0, skew) * 1000
          : this.opts.pushed
            ? (this.judge.pushed.offset(terminal) ?? 0) * 1000
            : 0;
      const taken = ahead <= MAX_CLOCK_AHEAD_SECONDS * 1000 ? ahead : 0;
      // The latest wall clock up to then, not the one at then: in the hour after the clocks fall
      // back, punches of the hour before the change are dated later than the wall clock now.
      l = latestWallClockUpTo(this.now + this.judge.tolerance + Math.max(this.stepAheadMs, taken), this.opts.timezone);
      this.latestBy.set(terminal, l);
    }
    return l;
  }

  /**
   * Push terminals whose clock is right again, once the call's punches are judged: those with an
   * offset whose last punch of the call is dated within the tolerance of now. The last one, not
   * any one: a terminal 2 h ahead that uploads what it recorded during a two-hour outage sends a
   * punch dated about now (recorded 2 h ago) followed by the ones up to its own now; its clock is
   * as wrong as before, and taking that punch as "right again" held all the later ones.
   */
  settled(): string[] {
    const out: string[] = [];
    for (const [terminal, last] of this.lastPushed) {
      if (this.judge.pushed.offset(terminal) === undefined) continue;
      if (Math.abs(wallClockDiffSeconds(last, this.boxNow)) * 1000 > this.judge.tolerance) continue;
      if (this.judge.pushed.settle(terminal)) out.push(terminal);
    }
    return out;
  }
}

/** "+7196 s (2 h 0 min)", "-3600 s (1 h 0 min)". */
export function signed(seconds: number): string {
  const s = Math.round(seconds);
  const abs = Math.abs(s);
  const hm = abs >= 60 ? ` (${Math.floor(abs / 3600)} h ${Math.floor((abs % 3600) / 60)} min)` : '';
  return `${s >= 0 ? '+' : '-'}${abs} s${hm}`;
}
