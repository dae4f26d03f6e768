/**
 * Fills a journal with the synthetic log for the RSS benchmark, in its own process, so the
 * filling's garbage is in no measured figure (the drainer is `punchgate flush`, started apart).
 */
import { announceReady, serve } from './lib/child-rpc.js';
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
});
announceReady({ pid: process.pid });
