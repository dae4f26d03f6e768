import type { BatchResult } from './counters.js';
import type { SendTally } from './send-claimed.js';

/** Options of one deliverBatch call. */
export interface BatchOptions {
  /** Also take rejected punches before their retry time (`flush --all`). */
  ignoreBackoff?: boolean;
  /** Aborts an in-flight request; its punches go back to the queue. */
  signal?: AbortSignal;
  /** Punches not to send in this call (already answered during a drain); released if claimed. */
  skipIds?: ReadonlySet<number>;
}

/** What one deliverBatch call did. */
export interface BatchReport extends SendTally {
  result: BatchResult;
  /** Punches claimed and worked on (after skipIds). */
  claimed: number;
  /** How long to wait before the next batch (backoff, Retry-After, auth retry); 0 = go on. */
  waitMs: number;
  message?: string;
}
