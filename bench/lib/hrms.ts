import { join } from 'node:path';
import { Agent, FormData, request, type Dispatcher } from 'undici';
import { DEFAULT_ATTENDANCE_PATH } from '../../src/config/schema.js';
import { Deliverer, type DrainReport } from '../../src/delivery/index.js';
import { Journal } from '../../src/journal/index.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import type { HrmsChildReady, HrmsStats } from '../child-hrms.js';
import { BenchChild } from './child.js';
import { syntheticBatches, syntheticPunch } from './punches.js';
import { collectGarbage, nowMs } from './timing.js';
import { BENCH_SITE, BENCH_TOKEN, deliverySettings } from './setup.js';

export type HrmsChild = BenchChild<HrmsChildReady>;

export function startHrmsChild(opts: { latencyMs?: number } = {}): Promise<HrmsChild> {
  return BenchChild.start<HrmsChildReady>('child-hrms', { args: [JSON.stringify(opts)] });
}

export const hrmsStats = (child: HrmsChild) => child.call<HrmsStats>('stats');

/** A fresh journal at `dir/name` holding punches 0..total-1 of the synthetic log, all pending. */
export function preparedJournal(dir: string, name: string, total: number, ingestBatch = 5000): string {
  const path = join(dir, name);
  const journal = Journal.open({ path, site: BENCH_SITE, mode: 'owner' });
  try {
    for (const b of syntheticBatches(total, ingestBatch)) journal.ingest(b);
  } finally {
    journal.close();
  }
  return path;
}

/**
 * The journal's share of a drain alone: each batch's answers settled (all delivered, with the
 * delivery state, as a success writes it) and the next batch claimed in one transaction, as the
 * deliverer does while a request is out, but with no request. What a drain could reach if the
 * HRMS and the HTTP client cost nothing; on one thread, the journal work and the client's work add up.
 */
export function journalOnlyDrain(path: string, batchSize: number): { delivered: number; ms: number } {
  const journal = Journal.open({ path, site: BENCH_SITE, mode: 'owner' });
  try {
    const t0 = nowMs();
    let delivered = 0;
    let batch = journal.claim(batchSize);
    while (batch.length > 0) {
      const answers = batch.map((p) => ({ id: p.id, kind: 'delivered' as const }));
      batch = journal.together(() => {
        journal.settle(answers);
        journal.deliveryState.update({ lastSuccessAt: Date.now() });
        return journal.claim(batchSize);
      });
      delivered += answers.length;
    }
    return { delivered, ms: nowMs() - t0 };
  } finally {
    journal.close();
  }
}

/** What the journal sends for punch `i` of the synthetic log (ids follow insertion order). */
export function outboundPunch(i: number): { biometriccode: string; logDate: string; devicelogId: string } {
  const p = syntheticPunch(i);
  return { biometriccode: p.biometricCode, logDate: p.logTime, devicelogId: `${BENCH_SITE}-${i + 1}` };
}

/** One POST of `batch` to the simulator's bulk endpoint, as the baseline sends it; throws unless each punch got an answer. */
export async function postBatch(
  url: string,
  batch: ReadonlyArray<ReturnType<typeof outboundPunch>>,
  dispatcher: Dispatcher,
): Promise<void> {
  const form = new FormData();
  form.set('punches_data', JSON.stringify(batch));
  const res = await request(url.replace(/\/+$/, '') + DEFAULT_ATTENDANCE_PATH, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${BENCH_TOKEN}` },
    dispatcher,
  });
  const body = (await res.body.json()) as { Status?: boolean; Payload?: unknown[] };
  if (res.statusCode !== 200 || body.Payload?.length !== batch.length) {
    throw new Error(
      `baseline POST: HTTP ${res.statusCode}, ${body.Payload?.length ?? 'no'} results for ${batch.length} punches`,
    );
  }
}

/**
 * The baseline: the same batches POSTed with bare undici, one after another, multipart
 * `punches_data`, bearer token, reading each JSON answer. Returns the requests made.
 */
export async function rawPostLoop(
  url: string,
  batches: ReadonlyArray<ReadonlyArray<ReturnType<typeof outboundPunch>>>,
  dispatcher: Dispatcher,
): Promise<number> {
  for (const batch of batches) await postBatch(url, batch, dispatcher);
  return batches.length;
}

/** The punches in batches of `size`, in order. */
export function inBatches<T>(all: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < all.length; i += size) batches.push(all.slice(i, i + size));
  return batches;
}

/**
 * The baseline, timed: the simulator reset (every punch new to it), garbage collected, then every
 * batch POSTed in turn on a fresh undici agent. Returns the ms of the loop alone.
 */
export async function timedRawPostLoop(
  sim: HrmsChild,
  batches: ReadonlyArray<ReadonlyArray<ReturnType<typeof outboundPunch>>>,
): Promise<number> {
  await sim.call('reset');
  collectGarbage();
  const agent = new Agent();
  const t0 = nowMs();
  await rawPostLoop(sim.ready.url, batches, agent);
  const ms = nowMs() - t0;
  await agent.close();
  return ms;
}

/**
 * Ours: a Deliverer on the journal at `path` drains everything to the simulator (like
 * `punchgate flush`). `ms` times the drain only, not opening and closing the journal.
 */
export async function drainJournal(
  path: string,
  url: string,
  batchSize: number,
): Promise<{ report: DrainReport; ms: number }> {
  const journal = Journal.open({ path, site: BENCH_SITE, mode: 'owner' });
  const { hrms, delivery } = deliverySettings(url, batchSize);
  const deliverer = new Deliverer({
    queue: journal,
    state: journal.deliveryState,
    tokens: { get: () => BENCH_TOKEN },
    hrms,
    delivery,
    logger: silentLogger(),
    clock: systemClock,
  });
  try {
    const t0 = nowMs();
    const report = await deliverer.drain({ maxWaitMs: 60_000 });
    const ms = nowMs() - t0;
    if (report.stoppedBy !== 'done' || report.remainingPending !== 0) {
      throw new Error(
        `drain stopped by ${report.stoppedBy} with ${report.remainingPending} pending: ${report.message ?? ''}`,
      );
    }
    return { report, ms };
  } finally {
    await deliverer.close();
    journal.close();
  }
}

/** One untimed pass of each side, so that neither pays the JIT and the simulator's first requests. */
export async function warmUpDrain(sim: HrmsChild, dir: string, all: ReturnType<typeof outboundPunch>[]): Promise<void> {
  const n = Math.min(2000, all.length);
  await timedRawPostLoop(sim, [all.slice(0, n / 2), all.slice(n / 2, n)]);
  await sim.call('reset');
  await drainJournal(preparedJournal(dir, 'warm-up.db', n), sim.ready.url, 200);
  await sim.call('reset');
}
