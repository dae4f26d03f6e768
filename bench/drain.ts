/**
 * Benchmark 2 (issue 2): drain rate from the journal to the HRMS simulator at batch sizes
 * 200 and 1000, next to a bare undici POST loop of the same batches to the same server.
 *
 * The simulator runs in a child process (bench/child-hrms.ts, startHrmsSim), so its work
 * (multipart parsing, per-punch bookkeeping) does not share this process's event loop;
 * on a 2-core box both sides still share the CPUs. It is reset before every run, so each
 * run's punches are new to it ("added", not "duplicate") and both sides get the same answers.
 * Ours includes everything `punchgate flush` does per batch: claim, POST (on undici, like the
 * baseline), classify, settle every punch and record the delivery state; the settle, the state
 * and the claim of the batch after the next are one transaction (one fsync), written while the
 * next request is on the wire. Ours and the baseline run in this process with the bench's
 * Node flags; info rows add `punchgate flush` itself (the bundle, in its own process) with the
 * service's NODE_OPTIONS and with none.
 */
import { unitNodeArgs, unitNodeOptions } from './lib/daemon.js';
import { flushInChild } from './lib/flush.js';
import { scaled } from './lib/scale.js';
import {
  drainJournal,
  hrmsStats,
  journalOnlyDrain,
  outboundPunch,
  preparedJournal,
  inBatches,
  warmUpDrain,
  timedRawPostLoop,
  startHrmsChild,
  type HrmsChild,
} from './lib/hrms.js';
import { scratchDir } from './lib/setup.js';
import { fmt, log, ratioRow, type BenchRow } from './lib/table.js';
import { collectGarbage, median, rate } from './lib/timing.js';

const ROUNDS = 3;
/** Issue 35: at least half the bare loop (issue 2 asked 0.3). */
const MIN_RATIO = 0.5;
const SIZES = [200, 1000] as const;

async function expectAdded(sim: HrmsChild, total: number, who: string): Promise<void> {
  const s = await hrmsStats(sim);
  if (s.added !== total || s.received !== total)
    throw new Error(`${who}: the simulator recorded ${s.added} added of ${s.received} received, expected ${total}`);
}

export async function benchDrain(): Promise<BenchRow[]> {
  const total = scaled(50_000, { step: 1000 });
  log(
    `drain: ${fmt(total)} punches per run, batch sizes ${SIZES.join(' and ')}, ${ROUNDS} rounds each (baseline and ours alternate), ` +
      'median; HRMS simulator in a child process',
  );
  const sim = await startHrmsChild();
  const scratch = scratchDir('drain');
  const rows: BenchRow[] = [];
  try {
    const url = sim.ready.url;
    const all = Array.from({ length: total }, (_, i) => outboundPunch(i));
    await warmUpDrain(sim, scratch.dir, all);
    for (const size of SIZES) {
      const batches = inBatches(all, size);
      const raw: number[] = [];
      const ours: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const path = preparedJournal(scratch.dir, `journal-${size}-${round}.db`, total);

        raw.push(await timedRawPostLoop(sim, batches));
        await expectAdded(sim, total, 'baseline');

        await sim.call('reset');
        collectGarbage();
        const { report, ms } = await drainJournal(path, url, size);
        ours.push(ms);
        if (report.delivered !== total) throw new Error(`drain delivered ${report.delivered} of ${total}`);
        await expectAdded(sim, total, 'drain');
        log(
          `  batch ${size}, round ${round}: raw POST ${fmt(rate(total, raw.at(-1)!))}/s (${batches.length} requests), ` +
            `drain ${fmt(rate(total, ours.at(-1)!))}/s (${report.requests} requests)`,
        );
      }
      rows.push(
        ratioRow({
          bench: 'drain',
          metric: `drain, batch ${size}`,
          unit: 'punches/s',
          ours: rate(total, median(ours)),
          baseline: rate(total, median(raw)),
          minRatio: MIN_RATIO,
        }),
      );
      // The journal's share alone (no request): its rate against the bare loop shows how much of
      // the wire's pace one thread has left for the HTTP client once the journal has written.
      const journalMs: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const path = preparedJournal(scratch.dir, `journal-only-${size}-${round}.db`, total);
        collectGarbage();
        const run = journalOnlyDrain(path, size);
        if (run.delivered !== total) throw new Error(`journal-only drain settled ${run.delivered} of ${total}`);
        journalMs.push(run.ms);
      }
      const journalRate = rate(total, median(journalMs));
      log(`  batch ${size}: the journal's claim and settle alone, no request: ${fmt(journalRate)}/s`);
      rows.push({
        bench: 'drain',
        metric: `the journal's claim + settle alone (no request), batch ${size}`,
        unit: 'punches/s',
        ours: journalRate,
        baseline: rate(total, median(raw)),
        ratio: journalRate / rate(total, median(raw)),
        target: 'info',
        note: 'what the journal work costs on its own; the drain does it and the HTTP client on one thread',
      });
      // The same drain as the service runs it: the bundle in its own process, with the unit's
      // NODE_OPTIONS (and, to show what they do, without any).
      for (const nodeOptions of [unitNodeOptions(), '']) {
        // The service's flags are its NODE_OPTIONS and the node flags of its ExecStart=; "(none)" has neither.
        const nodeArgs = nodeOptions ? unitNodeArgs() : [];
        const path = preparedJournal(scratch.dir, `flush-${size}-${nodeOptions ? 'unit' : 'bare'}.db`, total);
        await sim.call('reset');
        const run = await flushInChild(path, url, size, nodeOptions, undefined, nodeArgs);
        if (run.delivered !== total) throw new Error(`punchgate flush delivered ${run.delivered} of ${total}`);
        await expectAdded(sim, total, 'flush');
        const flags = nodeOptions ? [...nodeArgs, nodeOptions].join(' ') : '(none)';
        log(
          `  batch ${size}: punchgate flush, node flags ${flags}: ${fmt(rate(total, run.ms))}/s including start and exit`,
        );
        rows.push({
          bench: 'drain',
          metric: `punchgate flush, batch ${size}, node flags ${flags}`,
          unit: 'punches/s',
          ours: rate(total, run.ms),
          target: 'info',
          note: 'the shipped bundle in its own process; includes start and exit',
        });
      }
    }
  } finally {
    await sim.stop();
    scratch.remove();
  }
  return rows;
}
