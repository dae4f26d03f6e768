/**
 * Benchmark 3 (issue 2): peak RSS while draining 1,000,000 punches with batch 1000.
 *
 * The journal is filled by one child process; a second, fresh child then drains it to the
 * HRMS simulator (a third process), and this process samples the drainer's RSS from
 * /proc/PID/status every 100 ms. The kernel's high-water mark (VmHWM) is read too, so a
 * peak between two samples is not missed. The drainer runs with the systemd unit's NODE_OPTIONS, as the
 * daemon would run (BENCH_RSS_NODE_FLAGS="--max-semi-space-size=2" tries V8 flags on it).
 */
import { join } from 'node:path';
import { BenchChild } from './lib/child.js';
import { hrmsStats, startHrmsChild } from './lib/hrms.js';
import { mb, procMemory, RssSampler } from './lib/rss.js';
import { scaled } from './lib/scale.js';
import { scratchDir } from './lib/setup.js';
import { fmt, log, type BenchRow } from './lib/table.js';
import { rate } from './lib/timing.js';
import { unitNodeOptions } from './lib/daemon.js';

const BATCH = 1000;
const LIMIT_MB = 100;

export async function benchDrainRss(): Promise<BenchRow[]> {
  const total = scaled(1_000_000, { step: BATCH });
  const scratch = scratchDir('rss');
  const path = join(scratch.dir, 'journal.db');
  const sim = await startHrmsChild();
  try {
    const filler = await BenchChild.start('child-drain');
    const filled = await filler.call<{ added: number; ms: number }>('ingest', { path, total });
    await filler.stop();
    if (filled.added !== total) throw new Error(`journal holds ${filled.added} new punches, expected ${total}`);
    log(`rss: journal filled with ${fmt(total)} pending punches in ${fmt(filled.ms / 1000, 1)} s (${fmt(rate(total, filled.ms))}/s, batches of 5000)`);

    // The drainer runs with the node options the systemd unit gives the daemon, unless
    // BENCH_RSS_NODE_FLAGS says otherwise.
    const flags = (process.env.BENCH_RSS_NODE_FLAGS ?? unitNodeOptions()).split(/\s+/).filter(Boolean);
    if (flags.length) log(`rss: drainer runs with node ${flags.join(' ')}`);
    const drainer = await BenchChild.start('child-drain', { execArgv: flags });
    const atStart = procMemory(drainer.pid);
    const sampler = new RssSampler(drainer.pid, 100).start();
    const drained = await drainer.call<{ delivered: number; requests: number; ms: number; peak: Record<string, number> }>(
      'drain', { path, url: sim.ready.url, batchSize: BATCH },
    );
    const rss = sampler.stop();
    await drainer.stop();
    const stats = await hrmsStats(sim);
    if (drained.delivered !== total || stats.added !== total) {
      throw new Error(`drain delivered ${drained.delivered}, the simulator recorded ${stats.added} new punches, expected ${total}`);
    }
    log(`rss: drained ${fmt(total)} punches in ${drained.requests} requests, ${fmt(drained.ms / 1000, 1)} s (${fmt(rate(total, drained.ms))}/s); ` +
      `drainer RSS at start ${fmt(mb(atStart?.rss ?? NaN), 1)} MB, median ${fmt(mb(rss.median), 1)} MB, ` +
      `peak sampled ${fmt(mb(rss.peak), 1)} MB over ${rss.samples} samples, VmHWM ${fmt(mb(rss.hwm), 1)} MB; ` +
      `peak RssAnon ${fmt(mb(rss.peakAnon), 1)} MB, RssFile ${fmt(mb(rss.peakFile), 1)} MB; ` +
      `drainer's own peaks (MB): ${Object.entries(drained.peak).map(([k, v]) => `${k} ${fmt(mb(v), 1)}`).join(', ')}`);
    const peak = Math.max(rss.peak, Number.isNaN(rss.hwm) ? 0 : rss.hwm);
    return [{
      bench: 'rss', metric: `peak RSS draining ${fmt(total)} punches`, unit: 'MB', ours: mb(peak), target: `<= ${LIMIT_MB} MB`,
      pass: mb(peak) <= LIMIT_MB,
      note: `max of 100 ms samples (${fmt(mb(rss.peak), 1)} MB) and VmHWM (${fmt(mb(rss.hwm), 1)} MB) of the drainer process; ` +
        `${fmt(mb(atStart?.rss ?? NaN), 1)} MB before the drain (node + modules loaded); of the peak, private ${fmt(mb(rss.peakAnon), 1)} MB, ` +
        `file-backed ${fmt(mb(rss.peakFile), 1)} MB (node binary, shared); ${fmt(rate(total, drained.ms))} punches/s`,
    }];
  } finally {
    await sim.stop();
    scratch.remove();
  }
}
