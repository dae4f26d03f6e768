/**
 * At most `max` log lines of one kind per `windowMs`: whoever reaches the port (a broken
 * firmware, an attacker inventing serials) cannot flood the log. What was held back is
 * counted and reported with the next line let through.
 */
export class LogBudget {
  private windowStart = 0;
  private used = 0;
  private held = 0;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Undefined: do not log. A number: log, and say that many lines were held back before. */
  take(now: number): number | undefined {
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.used = 0;
    }
    if (this.used >= this.max) {
      this.held++;
      return undefined;
    }
    this.used++;
    const held = this.held;
    this.held = 0;
    return held;
  }
}
