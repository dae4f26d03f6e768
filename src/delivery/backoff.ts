/**
 * Exponential backoff with full jitter: the n-th consecutive failure waits a uniformly random
 * time in [0, min(maxMs, baseMs * 2^n)). Full jitter spreads the retries of many gateways
 * that lost the HRMS at the same moment, so they do not come back in lockstep.
 */
export class Backoff {
  private n = 0;

  constructor(
    private readonly cfg: { baseMs: number; maxMs: number },
    private readonly random: () => number = Math.random,
  ) {}

  /** Consecutive failures so far. */
  get failures(): number {
    return this.n;
  }

  /** The ceiling of the next delay (before jitter). */
  ceiling(): number {
    return Math.min(this.cfg.maxMs, this.cfg.baseMs * 2 ** Math.min(this.n, 40));
  }

  /** Records a failure and returns how long to wait before the next try. */
  next(): number {
    const delay = Math.floor(this.random() * this.ceiling());
    this.n++;
    return delay;
  }

  reset(): void {
    this.n = 0;
  }
}
