/**
 * Benchmark (issue 14): push terminals through the ADMS receiver.
 *
 * 1. Throughput: 50 simulated push terminals (in a child process), each posting ATTLOG batches
 *    of 100 and waiting for its OK, against the receiver in this process with a real journal.
 *    Punches acknowledged per second, next to bare journal ingest (Journal.ingest of the same
 *    batches of 100, one transaction each) measured in the same run. Target >= 50 %.
 * 2. Latency: 20 terminals posting batches of 100 with a pause between a terminal's OK and its
 *    next POST; p99 time from POST to OK, measured by the terminals. Target <= 50 ms.
 * 3. Both again for Security PUSH terminals (issue 22): registered, posting rtlog batches of 100
 *    access events with their cookie; the same baseline, the same targets.
 */
import { join } from 'node:path';
import { admsSchema } from '../src/config/adms.js';
import { Journal } from '../src/journal/index.js';
import { PushStore } from '../src/journal/push-store.js';
import type { Punch } from '../src/punch.js';
import { AdmsReceiver } from '../src/sources/adms/index.js';
import { systemClock } from '../src/util/clock.js';
import { silentLogger } from '../src/util/logger.js';
import type { PushLoadResult } from './child-push.js';
import { BenchChild } from './lib/child.js';
import { logTimeAt, pushSerialOf } from './lib/punches.js';
import { scaled } from './lib/scale.js';
import { BENCH_SITE, scratchDir } from './lib/setup.js';
import { fmt, log, ratioRow, type BenchRow } from './lib/table.js';
import { collectGarbage, median, nowMs, percentile, rate } from './lib/timing.js';

const BATCH = 100;
const TERMINALS = 50;
const LATENCY_TERMINALS = 20;
const LATENCY_PAUSE_MS = 500;
const ROUNDS = 3;
const MIN_RATIO = 0.5;
const P99_LIMIT_MS = 50;
const START_MS = Date.UTC(2024, 0, 2, 6, 0, 0);

/** The same punches the terminals post, as a source would hand them to the journal. */
function batchesOf(terminals: number, batches: number, round: number): Punch[][] {
  const out: Punch[][] = [];
  for (let i = 0; i < terminals; i++) {
    for (let b = 0; b < batches; b++) {
      const batch: Punch[] = [];
      for (let k = 0; k < BATCH; k++) {
        const n = (round * batches + b) * BATCH + k;
        batch.push({
          terminal: `t${i}`,
          device: pushSerialOf(i),
          biometricCode: String(1000 + (n % 500)),
          logTime: logTimeAt(START_MS + n * 7000),
          verifyType: 1,
          punchState: n % 2,
        });
      }
      out.push(batch);
    }
  }
  return out;
}

function bareIngest(path: string, batches: readonly Punch[][]): number {
  const journal = Journal.open({ path, site: BENCH_SITE, mode: 'owner' });
  try {
    const t0 = nowMs();
    for (const b of batches) journal.ingest(b, { timezone: undefined });
    return nowMs() - t0;
  } finally {
    journal.close();
  }
}

async function withReceiver<T>(path: string, terminals: number, fn: (url: string) => Promise<T>): Promise<T> {
  const journal = Journal.open({ path, site: BENCH_SITE, mode: 'owner' });
  const receiver = new AdmsReceiver({
    settings: admsSchema.parse({ listen: '127.0.0.1:0', maxConnectionsPerAddress: 1000 }),
    journal: new PushStore(journal.db, journal, systemClock),
    logger: silentLogger(),
    clock: systemClock,
  });
  for (let i = 0; i < terminals; i++)
    receiver.register({ name: `t${i}`, kind: 'adms', serial: pushSerialOf(i), enabled: true });
  const where = await receiver.start();
  try {
    return await fn(`http://127.0.0.1:${where!.port}`);
  } finally {
    await receiver.stop();
    journal.close();
  }
}

export async function benchAdms(): Promise<BenchRow[]> {
  return [...(await benchProtocol('attendance')), ...(await benchProtocol('security'))];
}

async function benchProtocol(protocol: 'attendance' | 'security'): Promise<BenchRow[]> {
  const name = protocol === 'security' ? 'adms (Security PUSH rtlog)' : 'adms';
  const batches = scaled(40, { min: 4 });
  const total = TERMINALS * batches * BATCH;
  const latencyBatches = scaled(50, { min: 5 });
  log(
    `${name}: ${TERMINALS} terminals x ${batches} batches of ${BATCH} (${fmt(total)} punches), ${ROUNDS} rounds alternating with bare ingest; ` +
      `then ${LATENCY_TERMINALS} terminals x ${latencyBatches} batches, ${LATENCY_PAUSE_MS} ms apart, for the time to OK`,
  );
  const load = await BenchChild.start('child-push');
  const scratch = scratchDir('adms');
  const bare: number[] = [];
  const ours: number[] = [];
  let latencies: number[] = [];
  let failed = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const punches = batchesOf(TERMINALS, batches, round);
      collectGarbage();
      bare.push(bareIngest(join(scratch.dir, `bare-${round}.db`), punches));
      collectGarbage();
      const r = await withReceiver(join(scratch.dir, `ours-${round}.db`), TERMINALS, (url) =>
        load.call<PushLoadResult>('run', {
          url,
          terminals: TERMINALS,
          batches,
          batchSize: BATCH,
          pauseMs: 0,
          round,
          protocol,
        }),
      );
      failed += r.failed;
      if (r.acked !== total)
        throw new Error(`${name}: ${r.acked} of ${total} punches acknowledged (${r.failed} failed posts)`);
      ours.push(r.ms);
      log(
        `  round ${round + 1}: bare ingest ${fmt(rate(total, bare.at(-1)!))}/s, acknowledged through the receiver ${fmt(rate(total, r.ms))}/s ` +
          `(time to OK: median ${fmt(median(r.latencies), 1)} ms, p99 ${fmt(percentile(r.latencies, 99), 1)} ms)`,
      );
    }
    collectGarbage();
    const lat = await withReceiver(join(scratch.dir, 'latency.db'), LATENCY_TERMINALS, (url) =>
      load.call<PushLoadResult>('run', {
        url,
        terminals: LATENCY_TERMINALS,
        batches: latencyBatches,
        batchSize: BATCH,
        pauseMs: LATENCY_PAUSE_MS,
        round: 0,
        protocol,
      }),
    );
    latencies = lat.latencies;
    failed += lat.failed;
    log(
      `  latency: ${latencies.length} posts, median ${fmt(median(latencies), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms, max ${fmt(Math.max(...latencies), 1)} ms`,
    );
  } finally {
    await load.stop();
    scratch.remove();
  }
  const p99 = percentile(latencies, 99);
  return [
    ratioRow({
      bench: 'adms',
      metric: `${protocol === 'security' ? 'Security PUSH passes' : 'punches'} acknowledged, ${TERMINALS} terminals x ${protocol === 'security' ? 'rtlog ' : ''}batches of ${BATCH}`,
      unit: 'punches/s',
      ours: rate(total, median(ours)),
      baseline: rate(total, median(bare)),
      minRatio: MIN_RATIO,
      note: `baseline: Journal.ingest of the same batches of ${BATCH} (one transaction each), no HTTP${failed ? `; ${failed} posts failed` : ''}`,
    }),
    {
      bench: 'adms',
      metric: `${protocol === 'security' ? 'Security PUSH rtlog ' : ''}POST -> OK p99, ${LATENCY_TERMINALS} terminals`,
      unit: 'ms',
      ours: p99,
      target: `<= ${P99_LIMIT_MS} ms`,
      pass: p99 <= P99_LIMIT_MS,
      note: `batches of ${BATCH}, each terminal ${LATENCY_PAUSE_MS} ms between its OK and its next POST; median ${fmt(median(latencies), 1)} ms`,
    },
  ];
}
