/**
 * The daemon's delivery, draining a journal to the HRMS simulator as `punchgate run` does (a
 * Deliverer on the journal, owned as the daemon owns it), with every journal write of the
 * delivery timed: a claim, the settling of an answer, a release. The backup benchmark asks it
 * for the longest write of a window (with and without a backup running beside it).
 */
import { Deliverer } from '../src/delivery/index.js';
import { Journal, type DeliveryQueue } from '../src/journal/index.js';
import { systemClock } from '../src/util/clock.js';
import { silentLogger } from '../src/util/logger.js';
import { announceFailure, announceReady, childArgs, serve } from './lib/child-rpc.js';
import { BENCH_SITE, BENCH_TOKEN, deliverySettings } from './lib/setup.js';

export interface DrainWindow {
  /** Journal writes of the delivery in the window, and the longest one (ms). */
  writes: number;
  longestWriteMs: number;
  /** Punches the HRMS answered for in the window. */
  delivered: number;
  ms: number;
}

const args = childArgs<{ path: string; url: string; batchSize: number }>();

try {
  const journal = Journal.open({ path: args.path, site: BENCH_SITE, mode: 'owner' });
  let window = { writes: 0, longest: 0, delivered: 0, since: performance.now() };
  const timed =
    <A extends unknown[], R>(f: (...a: A) => R) =>
    (...a: A): R => {
      const t0 = performance.now();
      try {
        return f(...a);
      } finally {
        window.writes++;
        window.longest = Math.max(window.longest, performance.now() - t0);
      }
    };
  const queue: DeliveryQueue = {
    claim: timed((limit: number, o?: Parameters<DeliveryQueue['claim']>[1]) => journal.claim(limit, o)),
    settle: timed((outcomes: Parameters<DeliveryQueue['settle']>[0]) => {
      window.delivered += outcomes.length;
      journal.settle(outcomes);
    }),
    release: timed((ids: readonly number[]) => journal.release(ids)),
    // The settle of a batch with the claim of the next (one transaction): one write, timed as one.
    together: <T>(fn: () => T): T => timed(() => journal.together(fn))(),
    nextDueAt: () => journal.nextDueAt(),
    dueCount: (o) => journal.dueCount(o),
  };
  const { hrms, delivery } = deliverySettings(args.url, args.batchSize);
  const deliverer = new Deliverer({
    queue,
    state: journal.deliveryState,
    tokens: { get: () => BENCH_TOKEN },
    hrms,
    delivery,
    logger: silentLogger(),
    clock: systemClock,
  });
  const stop = new AbortController();
  const running = deliverer.run(stop.signal);
  serve(
    {
      /** The window since the last call; a new one starts. */
      window: (): DrainWindow => {
        const w = window;
        window = { writes: 0, longest: 0, delivered: 0, since: performance.now() };
        return { writes: w.writes, longestWriteMs: w.longest, delivered: w.delivered, ms: performance.now() - w.since };
      },
      pending: () => journal.dueCount(),
    },
    async () => {
      stop.abort();
      await running.catch(() => undefined);
      await deliverer.close();
      journal.close();
    },
  );
  announceReady({ pid: process.pid });
} catch (e) {
  announceFailure(e);
  process.exit(1);
}
