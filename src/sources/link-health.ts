import { backoffDelay, type BackoffBounds } from '../util/backoff.js';

/**
 * The reconnect rule of every link punchgate keeps open to a device (a ZK real-time connection,
 * a Hikvision alert stream, a Dahua event stream): the wait before the next try grows (1 s
 * doubling to a minute) while links die young, and starts again from 1 s only once a link has
 * stayed up STREAM_HEALTHY_MS. Opening is not enough: a device (or a proxy in front of it) that
 * cuts every link a second after it opened would otherwise be reconnected to every second, for
 * ever, with nothing in the status.
 */
export const STREAM_HEALTHY_MS = 60_000;

/** Reconnect waits of a device link: 1 s doubling to a minute. */
export const LINK_RECONNECT: BackoffBounds = { baseMs: 1000, maxMs: 60_000 };

export interface LinkHealthOptions {
  reconnect?: BackoffBounds;
  /** How long a link must stay up before its backoff starts again. */
  healthyMs?: number;
  /**
   * Called once each link has stayed up healthyMs, with how many failures it ended (0 for none):
   * to say the trouble is over, clear a status note (one left by a daemon that was restarted too).
   */
  onHealthy?: (failures: number) => void;
}

/** What a link that went down (or a try that failed) means for the next try. */
export interface LinkDown {
  /** How long to wait before the next try. */
  delay: number;
  /** Consecutive failures (tries and links dying young) since the last healthy link, this one included. */
  failures: number;
  /** The link had opened and went down before it was healthy (not a try that failed, nor a healthy link). */
  diedYoung: boolean;
}

export class LinkHealth {
  private failures = 0;
  /** Set while a link is up and not yet healthy: its firing makes it healthy. */
  private timer: NodeJS.Timeout | undefined;
  private readonly reconnect: BackoffBounds;
  private readonly healthyMs: number;

  constructor(private readonly opts: LinkHealthOptions = {}) {
    this.reconnect = opts.reconnect ?? LINK_RECONNECT;
    this.healthyMs = opts.healthyMs ?? STREAM_HEALTHY_MS;
  }

  /** Consecutive failures without a healthy link in between. */
  get failureCount(): number {
    return this.failures;
  }

  /** A link is up: it counts as healthy once it stays up healthyMs (a timer: monotonic). */
  opened(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const failures = this.failures;
      this.failures = 0;
      this.opts.onHealthy?.(failures);
    }, this.healthyMs);
    this.timer.unref?.();
  }

  /** The link went down (or a try failed): counts it, unless the link had become healthy. */
  down(): LinkDown {
    const diedYoung = this.timer !== undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.failures++;
    return { delay: backoffDelay(this.failures - 1, this.reconnect), failures: this.failures, diedYoung };
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
