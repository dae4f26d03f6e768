/**
 * The simulated terminal's wall clock: zone-less `YYYY-MM-DD HH:mm:ss` text that runs
 * with real time from whatever it was last set to (at start or by SET_TIME).
 */
import { isLogTime, utcWallClock, wallClockAt } from '../../punch.js';

const LOG_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Adds whole seconds to a wall-clock string (calendar arithmetic only, no zone). */
export function addSeconds(logTime: string, seconds: number): string {
  const m = LOG_TIME.exec(logTime);
  if (!m) throw new RangeError(`not a log time: ${logTime}`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return utcWallClock(Date.UTC(y, mo - 1, d, h, mi, s) + Math.trunc(seconds) * 1000);
}

export class TerminalClock {
  /** Set value and the real instant it was set at; null = follow `source`. */
  private setPoint: { value: string; atMs: number } | null = null;
  private readonly source: () => string;

  constructor(
    clock: string | (() => string) | undefined,
    private readonly nowMs: () => number = Date.now,
  ) {
    if (typeof clock === 'string') {
      if (!isLogTime(clock)) throw new RangeError(`terminal clock must be YYYY-MM-DD HH:mm:ss: ${clock}`);
      this.setPoint = { value: clock, atMs: nowMs() };
    }
    this.source = typeof clock === 'function' ? clock : () => wallClockAt(this.nowMs());
  }

  read(): string {
    if (!this.setPoint) return this.source();
    const elapsed = Math.floor((this.nowMs() - this.setPoint.atMs) / 1000);
    return addSeconds(this.setPoint.value, elapsed);
  }

  /** SET_TIME: from now on the clock runs from `value`. */
  set(value: string): void {
    this.setPoint = { value, atMs: this.nowMs() };
  }
}
