/**
 * The process whose memory the RSS benchmark measures: it only opens the journal and drains
 * it to the HRMS simulator, as `punchgate flush` would. Filling the journal happens in a
 * separate instance of this script, so its garbage is not in the figure.
 */
import { announceReady, serve } from './lib/child-rpc.js';
import { drainJournal } from './lib/hrms.js';
import { syntheticBatches } from './lib/punches.js';
import { BENCH_SITE } from './lib/setup.js';
import { Journal } from '../src/journal/index.js';
import { nowMs } from './lib/timing.js';

serve({
  ingest: (m) => {
    const journal = Journal.open({ path: String(m.path), site: BENCH_SITE, mode: 'owner' });
    const t0 = nowMs();
    let added = 0;
    try {
      for (const b of syntheticBatches(Number(m.total), Number(m.batch ?? 5000))) added += journal.ingest(b).added;
    } finally {
      journal.close();
    }
    return { added, ms: nowMs() - t0 };
  },
  drain: async (m) => {
    // Where the memory is (V8 heap vs buffers vs the rest): the peaks of memoryUsage().
    const peak = { heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
    const timer = setInterval(() => {
      const u = process.memoryUsage();
      for (const k of Object.keys(peak) as (keyof typeof peak)[]) peak[k] = Math.max(peak[k], u[k]);
    }, 100);
    try {
      const { report, ms } = await drainJournal(String(m.path), String(m.url), Number(m.batchSize));
      return { delivered: report.delivered, requests: report.requests, ms, peak };
    } finally {
      clearInterval(timer);
    }
  },
  rss: () => process.memoryUsage(),
});
announceReady({ pid: process.pid });
