/**
 * How many "stopped calling" and "calls again" lines one push terminal may write. A terminal that
 * polls less often than the offline limit (its Delay set by hand, a flaky radio link) goes silent
 * and comes back every minute or two, forever: two log lines a minute, ~2,900 a day, enough to
 * hit journald's rate limit, which then drops other lines silently. At most `max` such lines per
 * `windowMs` per terminal; the changes not logged are counted and told with the next line. A
 * silence left unsaid is said by the caller once the window has room again (flush), so a real
 * outage after a flapping hour still reaches the log.
 */
export class FlapLog {
  private readonly terminals = new Map<string, { windowStart: number; used: number; held: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Undefined: do not log now. A number: log, saying that many changes went unlogged before. */
  take(terminal: string, now: number): number | undefined {
    let t = this.terminals.get(terminal);
    if (!t) this.terminals.set(terminal, (t = { windowStart: now, used: 0, held: 0 }));
    if (now - t.windowStart >= this.windowMs) {
      t.windowStart = now;
      t.used = 0;
    }
    if (t.used >= this.max) return undefined;
    t.used++;
    const held = t.held;
    t.held = 0;
    return held;
  }

  /** A change of the terminal not logged (counted for the next line). */
  held(terminal: string): void {
    const t = this.terminals.get(terminal);
    if (t) t.held++;
  }
}
