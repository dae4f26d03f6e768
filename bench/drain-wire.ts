/**
 * The drain against an HRMS that is not on loopback: the same journal, drain and bare undici POST
 * loop as `drain` (bench/drain.ts), with the HRMS simulator answering each request after a delay,
 * as a server on the site's LAN (5 ms) or a cloud HRMS (30 ms) does. An info benchmark beside
 * issue 35's target, which is measured with no delay at all: there each side's CPU is the whole
 * of its time, and the journal's SQL a punch is measured against the client alone. With a delay,
 * the journal's work of the next batch is done while a request is on the wire, and what a site
 * sees is how near the wire's own pace the drain comes.
 */
import { scaled } from './lib/scale.js';
import {
  drainJournal,
  hrmsStats,
  outboundPunch,
  preparedJournal,
  inBatches,
  startHrmsChild,
  timedRawPostLoop,
  warmUpDrain,
} from './lib/hrms.js';
import { scratchDir } from './lib/setup.js';
import { fmt, log, type BenchRow } from './lib/table.js';
import { collectGarbage, rate } from './lib/timing.js';

const LATENCIES_MS = [5, 30] as const;
const SIZES = [200, 1000] as const;

export async function benchDrainWire(): Promise<BenchRow[]> {
  const total = scaled(50_000, { step: 1000 });
  log(
    `drain-wire: ${fmt(total)} punches per run, batch sizes ${SIZES.join(' and ')}, HRMS answering after ${LATENCIES_MS.join(' or ')} ms`,
  );
  const rows: BenchRow[] = [];
  const scratch = scratchDir('drain-wire');
  try {
    const all = Array.from({ length: total }, (_, i) => outboundPunch(i));
    for (const latencyMs of LATENCIES_MS) {
      const sim = await startHrmsChild({ latencyMs });
      try {
        const url = sim.ready.url;
        await warmUpDrain(sim, scratch.dir, all);
        for (const size of SIZES) {
          const rawMs = await timedRawPostLoop(sim, inBatches(all, size));

          await sim.call('reset');
          collectGarbage();
          const { report, ms } = await drainJournal(
            preparedJournal(scratch.dir, `wire-${latencyMs}-${size}.db`, total),
            url,
            size,
          );
          if (report.delivered !== total) throw new Error(`drain delivered ${report.delivered} of ${total}`);
          const s = await hrmsStats(sim);
          if (s.added !== total) throw new Error(`the simulator recorded ${s.added} added, expected ${total}`);
          const ours = rate(total, ms);
          const baseline = rate(total, rawMs);
          log(
            `  ${latencyMs} ms, batch ${size}: bare POST loop ${fmt(baseline)}/s, drain ${fmt(ours)}/s (${((100 * ours) / baseline).toFixed(1)} %)`,
          );
          rows.push({
            bench: 'drain-wire',
            metric: `drain, batch ${size}, HRMS answering after ${latencyMs} ms`,
            unit: 'punches/s',
            ours,
            baseline,
            ratio: ours / baseline,
            target: 'info',
            note: 'beside issue 35, whose target is measured with no delay',
          });
        }
      } finally {
        await sim.stop();
      }
    }
  } finally {
    scratch.remove();
  }
  return rows;
}
