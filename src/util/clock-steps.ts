import { elapsedMs, type Clock } from './clock.js';
import { localTime } from './local-time.js';

/** A step of the box's wall clock, found by comparing it with the monotonic clock. */
export interface ClockStep {
  /** The wall clock just after the step (epoch ms). */
  at: number;
  /** How far the wall clock jumped beyond the time that passed: negative back, positive forward. */
  deltaMs: number;
}

/**
 * A jump of less than this between two looks is not a step: NTP slews the clock by at most
 * 0.5 ms a second, and both clocks go on while the event loop is held, so a real step is the
 * only way to get there.
 */
export const STEP_THRESHOLD_MS = 2000;
/** Steps are remembered (and named in the status) this long. */
export const STEPS_KEPT_MS = 86_400_000;
/** At most this many steps are remembered. */
const MAX_STEPS = 20;

/**
 * Watches the box clock for steps (an admin's `date -s`, NTP after a long time without network, a
 * wrong RTC at boot, a VM restored). Timers run on the monotonic clock; whatever reads the wall
 * clock to plan (cron schedules, retry times kept in the journal, the plausibility of punch
 * times) is told here when it stepped, and by how much. `check` is called every second or so.
 */
export class ClockStepWatch {
  private last: { wall: number; mono: number };
  /** With the monotonic time each was found at. */
  private readonly kept: (ClockStep & { mono: number })[] = [];
  private readonly listeners = new Set<(s: ClockStep) => void>();
  /** Terminal name: the monotonic time punchgate last set its clock to the box's (terminalClockSet). */
  private readonly setFromBox = new Map<string, number>();

  constructor(private readonly clock: Clock) {
    this.last = { wall: clock.now(), mono: elapsedMs(clock) };
  }

  /** Compares the wall clock with the monotonic clock since the last look; a step is told to every listener. */
  check(): ClockStep | undefined {
    const wall = this.clock.now();
    const mono = elapsedMs(this.clock);
    const deltaMs = wall - this.last.wall - (mono - this.last.mono);
    this.last = { wall, mono };
    if (Math.abs(deltaMs) < STEP_THRESHOLD_MS) return undefined;
    const step = { at: wall, deltaMs };
    this.kept.push({ ...step, mono });
    if (this.kept.length > MAX_STEPS) this.kept.shift();
    for (const l of this.listeners) l(step);
    return step;
  }

  /** Calls `listener` after each step; returns the function that stops it. */
  onStep(listener: (s: ClockStep) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The steps of the last STEPS_KEPT_MS (by the monotonic clock: a step back does not keep them
   * longer). Looks at the clocks first: whatever asks (a poll about to judge punch times, about to
   * set a terminal's clock) knows of a step made since the last regular look.
   */
  recent(): ClockStep[] {
    this.check();
    const wall = this.clock.now();
    // Time passed since a step: the wall clock's advance, less the steps after it.
    let later = 0;
    const out: ClockStep[] = [];
    for (let i = this.kept.length - 1; i >= 0; i--) {
      const s = this.kept[i]!;
      const age = wall - later - s.at;
      later += s.deltaMs;
      if (age <= STEPS_KEPT_MS) out.unshift({ at: s.at, deltaMs: s.deltaMs });
    }
    return out;
  }

  /** punchgate set terminal `name`'s clock to the box's now (syncClock). */
  terminalClockSet(name: string): void {
    this.setFromBox.set(name, elapsedMs(this.clock));
  }

  /**
   * Whether punchgate set terminal `name`'s clock from the box's before one of the recent steps:
   * then that terminal agreeing with the box's clock of before the step is punchgate's own doing,
   * no sign that the box stepped wrong. Found by a trial under faketime: started on a box clock 3
   * days behind (a box without a real-time clock, before NTP), syncClock set the terminal 3 days
   * back; once NTP set the box right, the terminal was never set right again for a day ("it agrees
   * with the box's clock from before the box clock stepped"), and every punch went to the HRMS
   * dated 3 days back.
   */
  terminalSetBeforeStep(name: string): boolean {
    const at = this.setFromBox.get(name);
    if (at === undefined) return false;
    this.check();
    const since = elapsedMs(this.clock) - STEPS_KEPT_MS;
    return this.kept.some((s) => s.mono > at && s.mono >= since);
  }

  /**
   * How far the box clock is behind where it ran before the recent steps (0 when it is not): a
   * terminal's time that far ahead of the box is not the terminal's fault. A step back and the
   * step forward that restores it add up to nothing.
   */
  behindMs(): number {
    const net = this.netStepMs();
    return net < 0 ? -net : 0;
  }

  /** The net step of the recent steps (ms; negative: back); 0 when they undo each other (within STEP_THRESHOLD_MS). */
  netStepMs(): number {
    const net = this.recent().reduce((n, s) => n + s.deltaMs, 0);
    return Math.abs(net) < STEP_THRESHOLD_MS ? 0 : net;
  }
}

/** `1 h`, `3 min 20 s`, `45 s`: the size of a step in plain words. */
export function stepSize(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s >= 2 * 86_400) return `${Math.round(s / 86_400)} days`;
  if (s >= 3600) {
    const m = Math.round((s % 3600) / 60);
    return `${Math.floor(s / 3600)} h${m ? ` ${m} min` : ''}`;
  }
  if (s >= 60) {
    const r = s % 60;
    return `${Math.floor(s / 60)} min${r ? ` ${r} s` : ''}`;
  }
  return `${s} s`;
}

/** `the box clock stepped back 1 h at 2026-11-22 09:12:03` (local time, as the box now reads it). */
export function describeStep(s: ClockStep): string {
  return `the box clock stepped ${s.deltaMs < 0 ? 'back' : 'forward'} ${stepSize(s.deltaMs)} at ${localTime(s.at)}`;
}
