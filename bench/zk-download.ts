/**
 * Benchmark 4 (issue 3): time to download and journal 100,000 punches from the terminal
 * simulator, our client (pollTerminal, the real poll) next to node-zklib 1.3.0 on the same
 * simulator in the same run. The simulator is paced (3 ms after every packet, as
 * zk-protocol.md A1 says node-zklib needs) and both sides pay the same pacing. Each download
 * runs in a fresh child process with a fresh journal, and both sides journal what they got in
 * one ingest call, so the figures compare whole polls.
 *
 * node-zklib's paced download is not reliable (its chunk parser handles one packet per 'data'
 * event, so a late read that coalesces two packets loses a chunk, B1.2): it gets up to
 * ATTEMPTS tries per round, failed tries are reported (records, and journalled punches that
 * are not on the terminal at all) and not timed. When it never completes, the speed target
 * cannot be evaluated at that size and says so (n/a). A smaller log (10,000) is measured
 * too, as a size where node-zklib usually completes.
 */
import { join } from 'node:path';
import { scaled } from './lib/scale.js';
import { scratchDir } from './lib/setup.js';
import { fmt, log, ratioRow, type BenchRow } from './lib/table.js';
import { median, rate } from './lib/timing.js';
import { CLIENT_LABEL, describeRun, downloadOnce, startTerminalChild, type ZkClientName } from './lib/zk.js';

const ROUNDS = 3;
const ATTEMPTS = 2;
const PACING_MS = 3;
const USERS = 300;
const MIN_SPEEDUP = 2;

interface SizeResult {
  total: number;
  /** Complete runs: whole-poll and journal-only milliseconds. */
  ms: Record<ZkClientName, number[]>;
  journalMs: Record<ZkClientName, number[]>;
  failed: Record<ZkClientName, number>;
  /** node-zklib's failed tries: worst records journalled and most bogus punches. */
  worst: { journalled: number; bogus: number };
}

async function measure(total: number, parent: string): Promise<SizeResult> {
  const dir = join(parent, String(total));
  const terminal = await startTerminalChild([{ users: USERS, punches: total, faults: { pacingMs: PACING_MS } }]);
  const res: SizeResult = {
    total,
    ms: { ours: [], zklib: [] },
    journalMs: { ours: [], zklib: [] },
    failed: { ours: 0, zklib: 0 },
    worst: { journalled: total, bogus: 0 },
  };
  let run = 0;
  try {
    const target = { port: terminal.ready.ports[0]!, users: USERS, punches: total };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const client of ['zklib', 'ours'] as const) {
        for (let attempt = 1; attempt <= (client === 'zklib' ? ATTEMPTS : 1); attempt++) {
          const r = await downloadOnce(client, target, dir, ++run);
          log(
            `  ${fmt(total)}, round ${round}, ${CLIENT_LABEL[client]}${attempt > 1 ? ` (attempt ${attempt})` : ''}: ${describeRun(r)}`,
          );
          if (!r.crashed && !r.error && r.journalled === total && r.bogus === 0) {
            res.ms[client].push(r.ms);
            res.journalMs[client].push(r.journalMs);
            break;
          }
          res.failed[client]++;
          if (client === 'ours')
            throw new Error(`our client did not download all ${total} punches in paced mode: ${describeRun(r)}`);
          res.worst = {
            journalled: Math.min(res.worst.journalled, r.journalled - r.bogus),
            bogus: Math.max(res.worst.bogus, r.bogus),
          };
        }
      }
    }
  } finally {
    await terminal.stop();
  }
  return res;
}

function rows(r: SizeResult, withTarget: boolean): BenchRow[] {
  const metric = `download + journal ${fmt(r.total)} (paced ${PACING_MS} ms)`;
  const ours = median(r.ms.ours);
  const tries = r.failed.zklib + r.ms.zklib.length;
  const failures = r.failed.zklib
    ? `node-zklib failed ${r.failed.zklib} of ${tries} tries (worst: ${fmt(r.worst.journalled)} right punches journalled, ` +
      `most punches NOT on the terminal journalled: ${fmt(r.worst.bogus)})`
    : `node-zklib completed all ${tries} tries`;
  const split = (c: ZkClientName) =>
    `${fmt(median(r.ms[c]) / 1000, 2)} s (journal ${fmt(median(r.journalMs[c]) / 1000, 2)} s)`;
  if (r.ms.zklib.length === 0) {
    return [
      {
        bench: 'zk-download',
        metric,
        unit: 'punches/s',
        ours: rate(r.total, ours),
        target: `>= ${MIN_SPEEDUP}x baseline`,
        ...(withTarget ? { pass: null } : {}),
        note: `not measurable: no complete node-zklib download to time. Ours ${split('ours')}. ${failures}`,
      },
    ];
  }
  const row = ratioRow({
    bench: 'zk-download',
    metric,
    unit: 'punches/s',
    ours: rate(r.total, ours),
    baseline: rate(r.total, median(r.ms.zklib)),
    minRatio: MIN_SPEEDUP,
    ratioAs: 'times',
    note: `median ours ${split('ours')}, node-zklib ${split('zklib')}. ${failures}`,
  });
  return [
    withTarget
      ? row
      : { ...row, pass: undefined, target: `info (target is for ${fmt(scaled(100_000, { step: 1000 }))})` },
  ];
}

export async function benchZkDownload(): Promise<BenchRow[]> {
  const total = scaled(100_000, { step: 1000 });
  const small = scaled(10_000, { step: 1000 });
  log(
    `zk-download: ${fmt(total)} and ${fmt(small)} punches of ${USERS} users, TCP, simulator paced ${PACING_MS} ms per packet ` +
      `(child process), ${ROUNDS} rounds (node-zklib, up to ${ATTEMPTS} tries, then ours), median of complete runs`,
  );
  const scratch = scratchDir('zk');
  try {
    const big = await measure(total, scratch.dir);
    const little = small < total ? await measure(small, scratch.dir) : undefined;
    return [...rows(big, true), ...(little ? rows(little, false) : [])];
  } finally {
    scratch.remove();
  }
}
