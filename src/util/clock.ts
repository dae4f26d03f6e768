/** Time source passed through contexts so that tests can use fake clocks. */
export interface Clock {
  /** Milliseconds since the epoch: the box's wall clock, which an admin or NTP may step. */
  now(): number;
  /**
   * Milliseconds on a clock that never steps (CLOCK_MONOTONIC): for intervals, waits and
   * deadlines, which a step of the wall clock must not stretch or cut. A fake clock without it
   * has one clock for both (now()).
   */
  elapsed?(): number;
}

export const systemClock: Clock = { now: () => Date.now(), elapsed: () => performance.now() };

/** `clock`'s monotonic reading (its wall clock when it has none: a fake clock). */
export function elapsedMs(clock: Clock): number {
  return clock.elapsed ? clock.elapsed() : clock.now();
}
