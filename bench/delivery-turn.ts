/**
 * `delivery-turn`: how long delivery holds the daemon's event loop per batch, where a site's
 * punches come from (issue 35). Delivery settles the batch the HRMS answered and claims the next
 * in one transaction (Journal.together), on the loop: meanwhile no push terminal gets its OK, no
 * real-time punch is read, no scrape is answered.
 *
 * The journal holds 50,000 waiting punches; each loop settles 200 as delivered and claims the
 * next 200, 240 times (after 10 unmeasured), median and p90. Ours: the punches come from 200
 * terminals in turn, as at a shift change. Baseline, in the same run: all from one terminal (the
 * `drain` bench's shape). A second pair: the same spread over a journal of 1,000,000 delivered
 * punches (a year of a large site) against the empty journal. Until the journal's indexes of what
 * is owed were keyed by log time (owed-by-time.ts), the spread cost several times one terminal's
 * (BENCHMARKS.md, section 13).
 */
import { Journal } from '../src/journal/index.js';
import type { OutboundPunch } from '../src/journal/types.js';
import { bigJournal } from './lib/big-journal.js';
import { backlogPunches } from './lib/punches.js';
import { scaled } from './lib/scale.js';
import { BENCH_SITE, scratchDir } from './lib/setup.js';
import { fmt, log, type BenchRow } from './lib/table.js';
import { median, percentile } from './lib/timing.js';

const WAITING = 50_000;
const BATCH = 200;
const TERMINALS = 200;
const DELIVERED = 1_000_000;
/** The spread over 200 terminals and the year of punches may each cost at most this much more. */
const MAX_RATIO = 2;

/** Times of settle-and-claim turns (ms) over a journal at `path` (already holding `delivered`). */
function turns(path: string, terminals: number, batches: number): number[] {
  const j = Journal.open({ path, site: BENCH_SITE, mode: 'owner' });
  try {
    const punches = backlogPunches(WAITING, terminals);
    for (let i = 0; i < punches.length; i += 5000) j.ingest(punches.slice(i, i + 5000));
    const times: number[] = [];
    let held: OutboundPunch[] = [];
    for (let b = 0; b < batches + 10; b++) {
      const t0 = performance.now();
      const settle = held;
      held = j.together(() => {
        if (settle.length > 0) j.settle(settle.map((p) => ({ id: p.id, kind: 'delivered' as const })));
        return j.claim(BATCH);
      });
      if (b >= 10) times.push(performance.now() - t0);
    }
    return times;
  } finally {
    j.close();
  }
}

export async function benchDeliveryTurn(): Promise<BenchRow[]> {
  const batches = Math.min(240, Math.max(40, scaled(240)));
  const scratch = scratchDir('turn');
  try {
    const run = (name: string, terminals: number, delivered: number) => {
      const path = `${scratch.dir}/${name}.db`;
      if (delivered > 0) bigJournal(path, delivered, TERMINALS);
      const t = turns(path, terminals, batches);
      log(
        `delivery-turn: ${name}: settle ${BATCH} + claim ${BATCH}, ${fmt(batches)} turns: median ${fmt(median(t), 2)} ms, ` +
          `p90 ${fmt(percentile(t, 90), 2)} ms, max ${fmt(Math.max(...t), 2)} ms`,
      );
      return t;
    };
    const one = run('one-terminal', 1, 0);
    const spread = run('spread', TERMINALS, 0);
    const year = run('year', TERMINALS, DELIVERED);
    const row = (metric: string, ours: number[], base: number[], note: string): BenchRow => ({
      bench: 'delivery-turn',
      metric,
      unit: 'ms',
      ours: median(ours),
      baseline: median(base),
      ratio: median(ours) / median(base),
      ratioAs: 'times',
      target: `<= ${MAX_RATIO}x baseline`,
      pass: median(ours) <= MAX_RATIO * median(base),
      note,
    });
    return [
      row(
        `settle + claim of ${BATCH}, punches from ${TERMINALS} terminals (median)`,
        spread,
        one,
        `baseline: the same punches from one terminal; over ${fmt(WAITING)} waiting, empty history`,
      ),
      {
        bench: 'delivery-turn',
        metric: `settle + claim of ${BATCH}, from ${TERMINALS} terminals (p90)`,
        unit: 'ms',
        ours: percentile(spread, 90),
        baseline: percentile(one, 90),
        target: 'info',
      },
      row(
        `settle + claim of ${BATCH}, ${fmt(DELIVERED)} delivered (median)`,
        year,
        spread,
        `baseline: the same over an empty history; punches from ${TERMINALS} terminals`,
      ),
    ];
  } finally {
    scratch.remove();
  }
}
