import type { DeliveryQueue } from '../journal/types.js';

/** Up to this many due punches are counted exactly after every batch (a bounded count: well under a millisecond). */
const EXACT_UP_TO = 1000;
/** A longer queue is counted in full at most this often; in between, the count follows this process's claims. */
const RECOUNT_MS = 5000;
/**
 * ... and at most once per this many times what its last full count took: a backlog of 300,000
 * takes about half a second to count, and counted every 5 s for each sink it took a fifth of the
 * event loop from the catch-up it reports on (the figure is "about" meanwhile, so nothing is lost).
 */
const RECOUNT_COST_SHARE = 50;
/** Never longer apart than this (a clock step during a count must not freeze the figure for hours). */
const RECOUNT_MAX_MS = 300_000;

/** How many punches still wait for delivery, for the line logged after each batch. */
export interface PendingFigure {
  n: number;
  /** False: counted a moment ago and followed since (new punches from terminals show at the next count). */
  exact: boolean;
}

/**
 * Counts the punches still waiting after each batch without slowing a drain down: counting a
 * queue of 50,000 costs about as much as sending a batch of 200. A short queue is counted
 * exactly each time; a long one in full every few seconds, and in between by what this process
 * claimed and returned since (the figure is then "about").
 */
export class PendingCount {
  private base: { n: number; at: number; moved: number; tookMs: number } | undefined;
  /** Punches this process took out of the queue (claims) minus those it put back (releases). */
  private moved = 0;

  constructor(
    private readonly queue: Pick<DeliveryQueue, 'dueCount'>,
    private readonly now: () => number,
  ) {}

  claimed(n: number): void {
    this.moved += n;
  }

  released(n: number): void {
    this.moved -= n;
  }

  /** The punches due now (not counting those this process holds claimed). */
  read(): PendingFigure {
    const t = this.now();
    if (
      this.base &&
      t - this.base.at < Math.min(RECOUNT_MAX_MS, Math.max(RECOUNT_MS, this.base.tookMs * RECOUNT_COST_SHARE))
    ) {
      const n = this.base.n - (this.moved - this.base.moved);
      if (n > EXACT_UP_TO) return { n, exact: false };
    }
    const bounded = this.queue.dueCount({ atMost: EXACT_UP_TO + 1 });
    if (bounded <= EXACT_UP_TO) {
      this.base = undefined;
      return { n: bounded, exact: true };
    }
    const n = this.queue.dueCount();
    const at = this.now();
    this.base = { n, at, moved: this.moved, tookMs: Math.max(0, at - t) };
    return { n, exact: true };
  }
}

/** The queue, with the punches claimed from it and returned to it told to `count`. */
export function countingQueue(queue: DeliveryQueue, count: PendingCount): DeliveryQueue {
  return {
    claim: (limit, opts) => {
      const got = queue.claim(limit, opts);
      count.claimed(got.length);
      return got;
    },
    settle: (outcomes) => {
      queue.settle(outcomes);
      // An answer that left a punch unknown puts it back in the queue.
      count.released(outcomes.filter((o) => o.kind === 'unknown').length);
    },
    release: (ids) => {
      queue.release(ids);
      count.released(ids.length);
    },
    // One transaction for a settle and the next claim (the deliverer), where the queue has it.
    ...(queue.together ? { together: queue.together.bind(queue) } : {}),
    // A sink's backlog taken in a step at a time by the deliverer, where the queue has steps.
    ...(queue.takeInStep ? { takeInStep: queue.takeInStep.bind(queue) } : {}),
    nextDueAt: () => queue.nextDueAt(),
    dueCount: (opts) => queue.dueCount(opts),
  };
}
