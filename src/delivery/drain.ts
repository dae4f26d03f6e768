import type { DeliveryQueue } from '../journal/types.js';
import { elapsedMs, type Clock } from '../util/clock.js';
import type { BatchOptions, BatchReport } from './types.js';
import type { Sleep } from './sleep.js';

export interface DrainOptions {
  /** How long to keep retrying temporary failures (backoff waits included). */
  maxWaitMs: number;
  /** Also send rejected punches now, ignoring their retry time (`flush --all`). */
  includeRejected?: boolean;
  signal?: AbortSignal;
}

export interface DrainReport {
  delivered: number;
  duplicates: number;
  rejected: number;
  /** Punches whose outcome stayed unknown in some answer (they went back to the queue). */
  unknown: number;
  requests: number;
  /** Punches still due for delivery when the drain stopped. */
  remainingPending: number;
  /** Why it stopped: nothing left, out of time, the token, a request that cannot go through as it is, or aborted. */
  stoppedBy: 'done' | 'max-wait' | 'auth' | 'request-failed' | 'aborted';
  /** The last failure message, if the drain stopped on one. */
  message?: string;
}

interface BatchSender {
  deliverBatch(opts: BatchOptions): Promise<BatchReport>;
}

/**
 * Delivers what is deliverable now. Keeps going while batches make progress; waits out the
 * backoff of a temporary failure only while the wait ends before the deadline. A punch the
 * HRMS rejected during this drain is not sent again by it (with --all it would be due again
 * at once, and each send would charge it another attempt).
 */
export async function drainQueue(
  deliverer: BatchSender,
  queue: DeliveryQueue,
  clock: Clock,
  sleep: Sleep,
  opts: DrainOptions,
): Promise<DrainReport> {
  // A duration: on the monotonic clock, so a step of the box clock neither stretches the wait
  // (a step back held a flush for the length of the step) nor cuts it.
  const deadline = elapsedMs(clock) + opts.maxWaitMs;
  const answered = new Set<number>();
  const out: DrainReport = {
    delivered: 0,
    duplicates: 0,
    rejected: 0,
    unknown: 0,
    requests: 0,
    remainingPending: 0,
    stoppedBy: 'done',
  };
  while (true) {
    if (opts.signal?.aborted) {
      out.stoppedBy = 'aborted';
      break;
    }
    const r = await deliverer.deliverBatch({
      ignoreBackoff: opts.includeRejected ?? false,
      skipIds: answered,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    out.delivered += r.delivered;
    out.duplicates += r.duplicates;
    out.rejected += r.rejected;
    out.unknown += r.unknown;
    out.requests += r.requests;
    for (const id of r.rejectedIds) answered.add(id);
    if (r.result === 'idle') break;
    // Waiting does not cure these within a flush: stop and say so.
    if (r.result === 'auth' || r.result === 'request-failed' || r.result === 'refused' || r.result === 'aborted') {
      out.stoppedBy = r.result === 'refused' ? 'request-failed' : r.result;
      if (r.message) out.message = r.message;
      break;
    }
    if (r.waitMs > 0 || r.result === 'transient') {
      if (elapsedMs(clock) + r.waitMs >= deadline) {
        out.stoppedBy = 'max-wait';
        if (r.message) out.message = r.message;
        break;
      }
      if (r.waitMs > 0) await sleep(r.waitMs, opts.signal);
    }
  }
  out.remainingPending = queue.dueCount();
  return out;
}
