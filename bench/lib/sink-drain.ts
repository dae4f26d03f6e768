import { join } from 'node:path';
import { Deliverer } from '../../src/delivery/index.js';
import { Journal } from '../../src/journal/index.js';
import type { SinkSender } from '../../src/sinks/types.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { syntheticPunches } from './punches.js';
import { BENCH_SITE, deliverySettings } from './setup.js';
import { nowMs, rate } from './timing.js';

/**
 * A fresh journal at `dir/name` holding punches [from, from + count) of the synthetic log, all
 * pending. Each run takes a range of its own, so that no punch is a duplicate at the server.
 */
export function sinkJournal(dir: string, name: string, from: number, count: number): string {
  const path = join(dir, name);
  const journal = Journal.open({ path, site: BENCH_SITE, mode: 'owner' });
  try {
    for (let i = 0; i < count; i += 5000) journal.ingest(syntheticPunches(from + i, Math.min(5000, count - i)));
  } finally {
    journal.close();
  }
  return path;
}

/**
 * Ours: a Deliverer on the journal at `path` drains everything through `sender` (as `punchgate
 * flush` does for a sink: claim, send, classify, settle each punch, record the delivery state).
 * Terminals are in UTC. Returns punches delivered per second; throws unless every punch was.
 */
export async function drainThroughSink(
  path: string,
  sender: SinkSender,
  token: string,
  batchSize: number,
): Promise<number> {
  const journal = Journal.open({ path, site: BENCH_SITE, mode: 'owner' });
  const { delivery } = deliverySettings('http://127.0.0.1:1', batchSize);
  const deliverer = new Deliverer({
    queue: journal,
    state: journal.deliveryState,
    tokens: { get: () => token },
    delivery,
    logger: silentLogger(),
    clock: systemClock,
    sinkSender: sender,
    sink: 'bench',
    timezoneOf: () => 'UTC',
  });
  try {
    const total = journal.queries.counts().pending;
    const t0 = nowMs();
    const report = await deliverer.drain({ maxWaitMs: 60_000 });
    const ms = nowMs() - t0;
    if (report.stoppedBy !== 'done' || report.delivered !== total)
      throw new Error(
        `drain stopped by ${report.stoppedBy}: ${report.delivered} of ${total} delivered, ${report.duplicates} duplicates, ` +
          `${report.rejected} rejected: ${report.message ?? ''}`,
      );
    return rate(total, ms);
  } finally {
    await deliverer.close();
    await sender.close?.();
    journal.close();
  }
}
