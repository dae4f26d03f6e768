/**
 * Benchmark 5b (issue 4): time from a real-time punch on a simulated terminal to its arrival
 * at the HRMS simulator, through `punchgate run`. The punch is made in the terminal
 * simulator's process (stamped with Date.now() there); the HRMS simulator stamps each punch
 * when it processes it; both clocks are this box's, so the difference is the latency, with
 * no polling granularity in it. Punches are 1.5 s apart. Target: p99 <= 1 s.
 * Skipped when this build has no `punchgate run`.
 */
import type { MadePunch } from './child-terminal.js';
import type { ReceivedPunch } from '../src/sim/hrms/index.js';
import { daemonAvailable, startDaemonRig } from './lib/daemon.js';
import { scaled } from './lib/scale.js';
import { fmt, log, type BenchRow } from './lib/table.js';
import { median, percentile, sleep } from './lib/timing.js';

const LIMIT_MS = 1000;
const EVERY_MS = 1500;
/** A punch not at the HRMS after this long counts as lost for the benchmark. */
const GIVE_UP_MS = 90_000;

export async function benchDaemonLatency(): Promise<BenchRow[]> {
  if (!daemonAvailable()) {
    log('daemon-latency: skipped: this build has no `punchgate run` (node dist/punchgate.js run --help fails)');
    return [];
  }
  const samples = scaled(40, { min: 5 });
  const rig = await startDaemonRig({ terminals: 10, punchesPerTerminal: 200, usersPerTerminal: 50 }, 180_000);
  try {
    log(`daemon-latency: warm-up done; ${samples} real-time punches on t1, ${EVERY_MS} ms apart`);
    await sleep(2000);
    const made: MadePunch[] = [];
    for (let i = 0; i < samples; i++) {
      made.push(await rig.terminals.call<MadePunch>('punch', { index: 0 }));
      await sleep(EVERY_MS);
    }
    const key = (code: string, time: string) => `${code}|${time}`;
    const arrived = new Map<string, number>();
    const deadline = Date.now() + GIVE_UP_MS;
    while (arrived.size < made.length && Date.now() < deadline) {
      const got = await rig.hrms.call<ReceivedPunch[]>('receivedFrom', { from: rig.initialPunches });
      for (const p of got)
        if (!arrived.has(key(p.biometriccode, p.logDate))) arrived.set(key(p.biometriccode, p.logDate), p.at);
      if (arrived.size < made.length) await sleep(250);
    }
    const latencies = made.map((m) => (arrived.get(key(m.userId, m.logTime)) ?? NaN) - m.at);
    const lost = latencies.filter(Number.isNaN).length;
    const seen = latencies.filter((l) => !Number.isNaN(l));
    const p50 = median(seen);
    const p99 = lost ? Infinity : percentile(seen, 99);
    log(
      `daemon-latency: ${seen.length} of ${made.length} arrived; median ${fmt(p50)} ms, p99 ${fmt(p99)} ms, max ${fmt(Math.max(...seen))} ms`,
    );
    return [
      { bench: 'daemon-latency', metric: 'real-time punch -> HRMS, median', unit: 'ms', ours: p50, target: 'info' },
      {
        bench: 'daemon-latency',
        metric: 'real-time punch -> HRMS, p99',
        unit: 'ms',
        ours: p99,
        target: `<= ${fmt(LIMIT_MS)} ms`,
        pass: p99 <= LIMIT_MS,
        note: `${made.length} punches${lost ? `, ${lost} not arrived within ${GIVE_UP_MS / 1000} s` : ''}`,
      },
    ];
  } finally {
    await rig.stop();
  }
}
