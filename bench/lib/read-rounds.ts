import { RssSampler } from './rss.js';
import { fmt, log } from './table.js';
import { collectGarbage, median } from './timing.js';

/** One timed read: how long it took and how many requests it made. */
export interface ReadRun {
  ms: number;
  requests: number;
}

/**
 * The rounds of a read benchmark (hik-download, dahua, biotime): the bare page loop and our poll
 * alternate, bare first, each after a garbage collection and each checked to have read everything
 * (`checkBare`, `checkOurs` throw); this process's RSS is sampled while ours runs. Returns the
 * median run of each side and the peak RSS (bytes) during our polls.
 */
export async function readRounds<B extends ReadRun, O extends ReadRun & { journalled: number }>(o: {
  rounds: number;
  bare: () => Promise<B>;
  ours: (round: number) => Promise<O>;
  checkBare: (b: B) => void;
  checkOurs: (o: O) => void;
}): Promise<{ bare: B; ours: O; peakRss: number }> {
  const bare: B[] = [];
  const ours: O[] = [];
  let peakRss = 0;
  for (let round = 1; round <= o.rounds; round++) {
    collectGarbage();
    const b = await o.bare();
    o.checkBare(b);
    bare.push(b);
    log(`  round ${round}, bare page loop: ${fmt(b.ms / 1000, 2)} s, ${fmt(b.requests)} requests`);
    collectGarbage();
    const rss = new RssSampler().start();
    const r = await o.ours(round).finally(() => (peakRss = Math.max(peakRss, rss.stop().peak)));
    o.checkOurs(r);
    ours.push(r);
    log(
      `  round ${round}, ours (poll + journal): ${fmt(r.ms / 1000, 2)} s, ${fmt(r.requests)} requests, ${fmt(r.journalled)} journalled`,
    );
  }
  return { bare: medianRun(bare), ours: medianRun(ours), peakRss };
}

function medianRun<R extends ReadRun>(runs: readonly R[]): R {
  const m = median(runs.map((x) => x.ms));
  return runs.find((r) => r.ms === m) ?? runs[0]!;
}
