/**
 * Benchmark 3 (issue 2): peak RSS while draining 1,000,000 punches with batch 1000.
 *
 * The journal is filled by a child process; then the real `punchgate flush` (the shipped
 * bundle, dist/punchgate.js, with the systemd unit's NODE_OPTIONS, as the daemon runs) drains
 * it to the HRMS simulator (another process), and this process samples the drainer's RSS from
 * /proc/PID/status every 100 ms. The kernel's high-water mark (VmHWM) is read too, so a peak
 * between two samples is not missed. BENCH_RSS_NODE_FLAGS="..." replaces the unit's options
 * (for experiments with V8 flags).
 */
import { join } from 'node:path';
import { BenchChild } from './lib/child.js';
import { flushInChild } from './lib/flush.js';
import { CLI, unitEnvironment, unitNodeArgs, unitNodeOptions } from './lib/daemon.js';
import { hrmsStats, startHrmsChild } from './lib/hrms.js';
import { mb, procMemory, RssSampler } from './lib/rss.js';
import { scaled } from './lib/scale.js';
import { scratchDir } from './lib/setup.js';
import { fmt, log, type BenchRow } from './lib/table.js';
import { rate } from './lib/timing.js';

const BATCH = 1000;
/** The budget of issue 12: at most 128 MB while draining a million punches. */
const LIMIT_MB = 128;

export async function benchDrainRss(): Promise<BenchRow[]> {
  const total = scaled(1_000_000, { step: BATCH });
  const scratch = scratchDir('rss');
  const path = join(scratch.dir, 'journal.db');
  const sim = await startHrmsChild();
  try {
    const filler = await BenchChild.start('child-fill');
    const filled = await filler.call<{ added: number; ms: number }>('ingest', { path, total });
    await filler.stop();
    if (filled.added !== total) throw new Error(`journal holds ${filled.added} new punches, expected ${total}`);
    log(
      `rss: journal filled with ${fmt(total)} pending punches in ${fmt(filled.ms / 1000, 1)} s (${fmt(rate(total, filled.ms))}/s, batches of 5000)`,
    );

    const nodeOptions = process.env.BENCH_RSS_NODE_FLAGS ?? unitNodeOptions();
    const arenas = unitEnvironment().MALLOC_ARENA_MAX;
    log(
      `rss: drainer is \`node ${unitNodeArgs().join(' ')} ${CLI} flush\` with NODE_OPTIONS=${nodeOptions || '(none)'}` +
        (arenas ? ` and the unit's MALLOC_ARENA_MAX=${arenas}` : ''),
    );
    let sampler: RssSampler | undefined;
    // The size of the process as it starts draining (node + the bundle loaded, journal open).
    let atStart: ReturnType<typeof procMemory> = null;
    const drained = await flushInChild(path, sim.ready.url, BATCH, nodeOptions, (pid) => {
      sampler = new RssSampler(pid, 100).start();
      setTimeout(() => (atStart = procMemory(pid)), 300).unref();
    });
    const rss = sampler!.stop();
    const stats = await hrmsStats(sim);
    if (drained.delivered !== total || stats.added !== total) {
      throw new Error(
        `drain delivered ${drained.delivered}, the simulator recorded ${stats.added} new punches, expected ${total}`,
      );
    }
    const started = atStart as ReturnType<typeof procMemory>;
    log(
      `rss: drained ${fmt(total)} punches in ${drained.requests} requests, ${fmt(drained.ms / 1000, 1)} s including start and exit (${fmt(rate(total, drained.ms))}/s); ` +
        `drainer RSS 0.3 s after start ${fmt(mb(started?.rss ?? NaN), 1)} MB, median ${fmt(mb(rss.median), 1)} MB, ` +
        `peak sampled ${fmt(mb(rss.peak), 1)} MB over ${rss.samples} samples, VmHWM ${fmt(mb(rss.hwm), 1)} MB; ` +
        `peak RssAnon ${fmt(mb(rss.peakAnon), 1)} MB, RssFile ${fmt(mb(rss.peakFile), 1)} MB`,
    );
    const peak = Math.max(rss.peak, Number.isNaN(rss.hwm) ? 0 : rss.hwm);
    return [
      {
        bench: 'rss',
        metric: `peak RSS draining ${fmt(total)} punches`,
        unit: 'MB',
        ours: mb(peak),
        target: `<= ${LIMIT_MB} MB`,
        pass: mb(peak) <= LIMIT_MB,
        note:
          `max of 100 ms samples (${fmt(mb(rss.peak), 1)} MB) and VmHWM (${fmt(mb(rss.hwm), 1)} MB) of the drainer process; ` +
          `${fmt(mb(started?.rss ?? NaN), 1)} MB 0.3 s after start; of the peak, private ${fmt(mb(rss.peakAnon), 1)} MB, ` +
          `file-backed ${fmt(mb(rss.peakFile), 1)} MB (node binary, shared); ${fmt(rate(total, drained.ms))} punches/s`,
      },
      {
        bench: 'rss',
        metric: `drain throughput, \`punchgate flush\` of ${fmt(total)}, NODE_OPTIONS=${nodeOptions || '(none)'}`,
        unit: 'punches/s',
        ours: rate(total, drained.ms),
        target: 'info',
        note: 'the service as shipped: bundle, unit flags, batch 1000; includes start and exit',
      },
    ];
  } finally {
    await sim.stop();
    scratch.remove();
  }
}
