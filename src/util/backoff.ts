/**
 * The one backoff rule of punchgate: the delay before retry n (n = 0 for the first retry) is
 * `baseMs` doubling up to `maxMs`. Everything that retries uses it: delivery to the HRMS (with
 * full jitter), refused punches, serial devices reopening, terminal links reconnecting, polls
 * of an unreachable terminal.
 */
export interface BackoffBounds {
  baseMs: number;
  maxMs: number;
}

/** The delay before retry `n` (0-based): `baseMs * 2^n`, at most `maxMs` (never below `baseMs`). */
export function backoffDelay(n: number, { baseMs, maxMs }: BackoffBounds): number {
  // 2^n overflows to Infinity for a large n; min() brings it back.
  return Math.min(Math.max(baseMs, maxMs), baseMs * 2 ** Math.min(Math.max(0, n), 52));
}

/**
 * A run of consecutive failures with full jitter: the n-th waits a uniformly random time in
 * [0, backoffDelay(n)). Full jitter spreads the retries of many gateways that lost the HRMS at
 * the same moment, so they do not come back in lockstep. Without a random source (`jitter:
 * false`), the wait is the ceiling itself: one gateway reopening one local device has no crowd
 * to spread.
 */
export class Backoff {
  private n = 0;

  constructor(
    private readonly bounds: BackoffBounds,
    private readonly random: (() => number) | false = Math.random,
  ) {}

  /** Consecutive failures so far. */
  get failures(): number {
    return this.n;
  }

  /** The ceiling of the next delay (before jitter). */
  ceiling(): number {
    return backoffDelay(this.n, this.bounds);
  }

  /** Records a failure and returns how long to wait before the next try. */
  next(): number {
    const ceiling = this.ceiling();
    this.n++;
    return this.random ? Math.floor(this.random() * ceiling) : ceiling;
  }

  reset(): void {
    this.n = 0;
  }
}
