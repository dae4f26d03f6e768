/**
 * Benchmark 5a (issue 4): idle RSS of `punchgate run` with 10 simulated terminals polled
 * every minute (one also real-time). After warm-up (every terminal's log delivered), the
 * daemon's RSS is sampled from /proc/PID/status every 100 ms for ~75 s, so the window holds
 * at least one scheduled poll of all 10 terminals (each connects, reads its counts and clock,
 * and finds its 1,000-record log unchanged, so does not download it again; the hourly full
 * re-read is not in the window). Target (issue 12): <= 100 MB, judged on the median of the window (the
 * resident size while idling); the peak is printed next to it.
 * Skipped when this build has no `punchgate run`.
 */
import { daemonAvailable, startDaemonRig, unitNodeOptions } from './lib/daemon.js';
import { bareNodeRss } from './lib/floor.js';
import { mb, RssSampler } from './lib/rss.js';
import { scaled } from './lib/scale.js';
import { fmt, log, type BenchRow } from './lib/table.js';
import { sleep } from './lib/timing.js';

const LIMIT_MB = 100;

export async function benchDaemonIdle(): Promise<BenchRow[]> {
  if (!daemonAvailable()) {
    log('daemon-idle: skipped: this build has no `punchgate run` (node dist/punchgate.js run --help fails)');
    return [];
  }
  const windowMs = scaled(75_000, { min: 10_000, step: 1000 });
  const bare = await bareNodeRss();
  const bareUnit = await bareNodeRss(unitNodeOptions());
  log(
    `daemon-idle: floors (median RSS): idle bare node ${fmt(mb(bare.median), 1)} MB, ` +
      `with the unit's NODE_OPTIONS (${unitNodeOptions()}) ${fmt(mb(bareUnit.median), 1)} MB`,
  );
  const rig = await startDaemonRig({ terminals: 10, punchesPerTerminal: 1000, usersPerTerminal: 50 }, 180_000);
  try {
    log(
      `daemon-idle: warm-up done (${fmt(rig.initialPunches)} punches delivered); sampling RSS for ${fmt(windowMs / 1000)} s`,
    );
    await sleep(2000);
    const sampler = new RssSampler(rig.daemon.pid!, 100).start();
    await sleep(windowMs);
    const rss = sampler.stop();
    if (rig.daemon.exitCode !== null) throw new Error(`punchgate run exited: ${rig.stderrTail().slice(-800)}`);
    log(
      `daemon-idle: RSS median ${fmt(mb(rss.median), 1)} MB, peak ${fmt(mb(rss.peak), 1)} MB, last ${fmt(mb(rss.last), 1)} MB ` +
        `(${rss.samples} samples); VmHWM since start ${fmt(mb(rss.hwm), 1)} MB (includes the warm-up download); ` +
        `peak RssAnon ${fmt(mb(rss.peakAnon), 1)} MB, RssFile ${fmt(mb(rss.peakFile), 1)} MB`,
    );
    return [
      {
        bench: 'daemon-idle',
        metric: 'idle RSS, 10 terminals (median)',
        unit: 'MB',
        ours: mb(rss.median),
        target: `<= ${LIMIT_MB} MB`,
        pass: mb(rss.median) <= LIMIT_MB,
        note: `${rss.samples} samples over ${fmt(windowMs / 1000)} s after warm-up`,
      },
      { bench: 'daemon-idle', metric: 'idle RSS, 10 terminals (peak)', unit: 'MB', ours: mb(rss.peak), target: 'info' },
      { bench: 'daemon-idle', metric: 'floor: idle bare node', unit: 'MB', ours: mb(bare.median), target: 'info' },
      {
        bench: 'daemon-idle',
        metric: "floor: idle bare node, unit's NODE_OPTIONS",
        unit: 'MB',
        ours: mb(bareUnit.median),
        target: 'info',
      },
    ];
  } finally {
    await rig.stop();
  }
}
