/**
 * Issue 35: a year of punches costs the same as a day.
 *
 * `status-size`: the status report (built by the status log every interval, by /metrics when the
 * last is old, by `punchgate status`) over a journal of 1,000,000 delivered punches and a live
 * backlog (pending and in flight), against the same build over an empty journal in the same run.
 * Both sides alternate (3 rounds of 30 builds after 5 unmeasured ones); the median build is
 * reported. The old way of counting (a count of the table by state) is timed once on the same
 * journal, for information.
 *
 * `busy-box`: `punchgate run` as the unit runs it, on a copy of that journal with a backlog of
 * 50,000 pending punches, 200 ZK terminals polled every minute, 20 ATTLOG and 20 Security PUSH
 * terminals, the status log every 10 s and /metrics scraped every 5 s, for BENCH_BUSY_SECONDS
 * (default 300; 30 s at BENCH_SCALE < 1): issue 35's workload. The push terminals post at a large
 * site's worst minute (SITE_PEAK: most of them live, one per protocol uploading a backlog after an
 * outage, about 400 punches/s), and then, for BENCH_FLOOD_SECONDS (default a fifth of that, at
 * least 30 s), all 40 upload at once (FLOOD, about 7,700 punches/s: a stress far beyond any site,
 * shown against the same limits as rows of `busy-box flood`).
 * Measured: the daemon's event-loop delay over the whole span (a histogram the daemon preloads,
 * bench/loop-recorder.ts: the issue's "p99 over 5 minutes") and per 5 s window (prom-client's
 * nodejs_eventloop_lag_* of each scrape; the worst window is held to the same limit, stricter than
 * the issue), each POST's time to OK, each scrape's time. Baseline: the same
 * workload on an empty journal, for a fifth of the time (at least 30 s).
 *
 * Where the time went, printed for each side (info rows): the CPU time of the daemon, of the
 * simulators (HRMS, ZK terminals, push terminals) and of this process (the scraper) over the
 * measured span, from /proc, as shares of one core, and how busy the whole box was (other work
 * on a shared machine included: a box busy near 200 % leaves the daemon waiting for a core, and
 * the delays are then the machine's); the daemon's garbage collection (nodejs_gc_duration_seconds);
 * and its labelled jobs that held the loop 20 ms or more (eventLoop.longTasks of its status.json,
 * window by window). The simulators stay at normal priority: they used 6 to 14 % of one core in
 * the runs of 2026-11-28 (the daemon 38 to 56 %), so they are not what the daemon waits for.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../src/config/load.js';
import { Journal } from '../src/journal/index.js';
import { buildStatus } from '../src/status/index.js';
import type { LongTasks } from '../src/status/types.js';
import { bigJournal } from './lib/big-journal.js';
import { CpuShares } from './lib/box-cpu.js';
import { BenchChild } from './lib/child.js';
import { daemonAvailable, startDaemonRig } from './lib/daemon.js';
import { freePort } from './lib/ports.js';
import { backlogPunches, pushSerialOf } from './lib/punches.js';
import { benchScale, scaled } from './lib/scale.js';
import { BENCH_SITE, scratchDir } from './lib/setup.js';
import { fmt, log, type BenchRow } from './lib/table.js';
import { median, nowMs, percentile, sleep } from './lib/timing.js';
import type { PushLoadResult } from './child-push.js';
import type { LoopRecord } from './loop-recorder.js';

const TERMINALS = 200;
const BUILD_LIMIT_MS = 10;
const BUILD_MAX_RATIO = 2;
const LOOP_P99_LIMIT_MS = 20;
const LOOP_MAX_LIMIT_MS = 100;
const POST_P99_LIMIT_MS = 50;
const SCRAPE_P99_LIMIT_MS = 20;
/** Push terminals per protocol (ATTLOG, Security PUSH): 40 in all, beside the 200 ZK terminals. */
const PUSH_TERMINALS = 20;

/** How some of one protocol's push terminals post: punches per POST, and the pause after each OK. */
interface PushPace {
  terminals: number;
  batchSize: number;
  pauseMs: number;
}

/**
 * A busy-box workload: per protocol, terminals posting live punches and terminals uploading a
 * stored backlog (as push firmware does after an outage, one batch per OK).
 */
interface Workload {
  name: string;
  live: PushPace;
  upload: PushPace;
  /** The HRMS's answer delay: with one, the waiting punches are still being delivered in the measured span. */
  hrmsLatencyMs: number;
}

/**
 * Issue 35's workload at a large site's worst minute, with room to spare: of each protocol's 20
 * push terminals, 19 in use without a pause (a punch every 2 s each: a face or a card takes a
 * second or two, then the next person steps up) and 1 back from an outage uploading its stored
 * punches (batches of 100, 500 ms after each OK, about 190 punches/s), beside the 200 ZK terminals
 * polled every minute and the 50,000 punches already waiting. About 400 punches/s in all: some 35
 * times a large site's shift change (10,000 people punching in within 15 minutes, about 11/s).
 * The HRMS answers in 100 ms, as one in the cloud does: the 50,000 waiting punches are delivered
 * during the measured span (about 2,000/s at batch 200), a live backlog, not one gone in the
 * warm-up.
 */
const SITE_PEAK: Workload = {
  name: 'site peak',
  live: { terminals: PUSH_TERMINALS - 1, batchSize: 1, pauseMs: 2000 },
  upload: { terminals: 1, batchSize: 100, pauseMs: 500 },
  hrmsLatencyMs: 100,
};

/**
 * Stress, beyond the issue's workload: all 40 push terminals upload backlogs at once (about 7,700
 * punches/s on this box, some 700 times that shift change), to an HRMS that answers at once (so
 * that the daemon delivers as fast as it journals). Measured on the same journal and shown against
 * the same limits, so that a site can see where the daemon's one thread runs out.
 */
const FLOOD: Workload = {
  name: 'flood',
  live: { terminals: 0, batchSize: 1, pauseMs: 2000 },
  upload: { terminals: PUSH_TERMINALS, batchSize: 100, pauseMs: 500 },
  hrmsLatencyMs: 0,
};

function statusConfig(dir: string, journalPath: string) {
  return parseConfig(
    {
      site: BENCH_SITE,
      journal: { path: journalPath },
      hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' },
      terminals: Array.from({ length: TERMINALS }, (_, i) => ({
        name: `t${i + 1}`,
        kind: 'zk',
        host: '127.0.0.1',
      })),
    },
    dir,
  );
}

export async function benchStatusSize(): Promise<BenchRow[]> {
  const delivered = scaled(1_000_000, { step: 10_000 });
  const pending = scaled(20_000, { step: 1000 });
  const scratch = scratchDir('status-size');
  try {
    const bigPath = join(scratch.dir, 'big.db');
    const emptyPath = join(scratch.dir, 'empty.db');
    bigJournal(bigPath, delivered, TERMINALS);
    const big = Journal.open({ path: bigPath, site: BENCH_SITE, mode: 'owner' });
    const empty = Journal.open({ path: emptyPath, site: BENCH_SITE, mode: 'owner' });
    try {
      for (let i = 0; i < pending; i += 5000) big.ingest(backlogPunches(Math.min(5000, pending - i), TERMINALS, i));
      big.claim(200); // a batch in flight
      const bigConfig = statusConfig(scratch.dir, bigPath);
      const emptyConfig = statusConfig(scratch.dir, emptyPath);
      const time = (j: Journal, c: typeof bigConfig, n: number) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) {
          const t0 = nowMs();
          buildStatus(j, c, Date.now());
          out.push(nowMs() - t0);
        }
        return out;
      };
      time(big, bigConfig, 5);
      time(empty, emptyConfig, 5);
      const ours: number[] = [];
      const base: number[] = [];
      for (let round = 0; round < 3; round++) {
        ours.push(...time(big, bigConfig, 30));
        base.push(...time(empty, emptyConfig, 30));
      }
      const report = buildStatus(big, bigConfig, Date.now());
      if (report.punches.delivered !== delivered || report.punches.pending !== pending - 200)
        throw new Error(`status-size: the report counts ${JSON.stringify(report.punches)}`);
      // What counting took before the kept counts (issue 35): the table counted by state.
      const t0 = nowMs();
      big.db.prepare(`SELECT state, count(*) AS n FROM punches WHERE state <> 'delivered' GROUP BY state`).all();
      big.db.prepare(`SELECT count(*) AS n FROM punches WHERE state = 'delivered'`).get();
      const oldCount = nowMs() - t0;
      const m = median(ours);
      const b = median(base);
      log(
        `status-size: build over ${fmt(delivered)} delivered + ${fmt(pending)} waiting: median ${fmt(m, 2)} ms ` +
          `(p99 ${fmt(percentile(ours, 99), 2)} ms); empty journal ${fmt(b, 2)} ms (p99 ${fmt(percentile(base, 99), 2)} ms); ` +
          `the table counted by state as before: ${fmt(oldCount, 0)} ms`,
      );
      return [
        {
          bench: 'status-size',
          metric: `status report build, ${fmt(delivered)} delivered + ${fmt(pending)} waiting, ${TERMINALS} terminals (median)`,
          unit: 'ms',
          ours: m,
          baseline: b,
          ratio: m / b,
          ratioAs: 'times',
          target: `<= ${BUILD_LIMIT_MS} ms and <= ${BUILD_MAX_RATIO}x baseline`,
          pass: m <= BUILD_LIMIT_MS && m / b <= BUILD_MAX_RATIO,
          note: 'baseline: the same build over an empty journal, same config, alternating in the same run',
        },
        {
          bench: 'status-size',
          metric: 'status report build (p99)',
          unit: 'ms',
          ours: percentile(ours, 99),
          baseline: percentile(base, 99),
          target: 'info',
        },
        {
          bench: 'status-size',
          metric: 'the same counts as a count of the table by state (before issue 35, info)',
          unit: 'ms',
          ours: oldCount,
          target: 'info',
        },
      ];
    } finally {
      big.close();
      empty.close();
    }
  } finally {
    scratch.remove();
  }
}

interface BusyResult {
  /** The daemon's event-loop delay over the whole measured span (bench/loop-recorder.ts), ms past the 10 ms period. */
  whole: { p99: number; max: number; samples: number } | undefined;
  loopP99: number[];
  loopMax: number[];
  scrapes: number[];
  attlog: PushLoadResult;
  rtlog: PushLoadResult;
  delivered: number;
  /** Who used the CPU over the measured span (shares of one core) and how busy the whole box was. */
  cpu: ReturnType<CpuShares['end']>;
  /** The daemon's garbage collection over the span (ms, prom-client's nodejs_gc_duration_seconds). */
  gcMs: number | undefined;
  /** The daemon's labelled tasks of 20 ms or more over the span, per label (its status.json, window by window). */
  longTasks: LongTasks[];
}

/** The sum of a metric's samples of a Prometheus text exposition (all its label sets), or undefined. */
function sumOf(text: string, name: string): number | undefined {
  let sum: number | undefined;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'gm')))
    sum = (sum ?? 0) + Number(m[1]);
  return sum;
}

/** The event-loop window of the status log's status.json (its `since` says which), if it has one. */
function statusLoop(dir: string): { since: string; longTasks?: LongTasks[] } | undefined {
  return daemonJson<{ eventLoop?: { since: string; longTasks?: LongTasks[] } }>(join(dir, 'status.json'))?.eventLoop;
}

/** A JSON file the running daemon rewrites (status.json, the loop recorder's), or undefined while it has none. */
function daemonJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The long tasks of every window seen, per label: counts and totals added, the longest kept. */
function addUp(windows: Iterable<LongTasks[]>): LongTasks[] {
  const m = new Map<string, LongTasks>();
  for (const w of windows)
    for (const t of w) {
      const a = m.get(t.label);
      if (!a) m.set(t.label, { ...t });
      else {
        a.count += t.count;
        a.totalMs += t.totalMs;
        a.maxMs = Math.max(a.maxMs, t.maxMs);
      }
    }
  return [...m.values()].sort((a, b) => b.totalMs - a.totalMs);
}

/** Reads one gauge of a Prometheus text exposition (seconds), or undefined. */
function gauge(text: string, name: string): number | undefined {
  const m = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

/** The three largest of some times (ms), largest first: with 60 scrapes, p99 is the worst one or two. */
function slowest(times: readonly number[]): string {
  return [...times]
    .sort((x, y) => y - x)
    .slice(0, 3)
    .map((t) => `${fmt(t, 1)} ms`)
    .join(', ');
}

/** The loop recorder the daemon preloads (dist/bench/loop-recorder.js, beside this file's folder). */
const LOOP_RECORDER = fileURLToPath(new URL('./loop-recorder.js', import.meta.url));

const LOOP_FILE = 'bench-loop.json';

async function busyRun(seconds: number, delivered: number, pending: number, work: Workload): Promise<BusyResult> {
  const statusPort = await freePort();
  const admsPort = await freePort();
  const pushTerminals = Array.from({ length: 2 * PUSH_TERMINALS }, (_, i) => ({
    name: `push${i}`,
    kind: 'adms',
    serial: pushSerialOf(i),
    timezone: 'UTC',
  }));
  const rig = await startDaemonRig(
    {
      terminals: TERMINALS,
      punchesPerTerminal: 20,
      usersPerTerminal: 10,
      extraTerminals: pushTerminals,
      config: {
        status: { listen: `127.0.0.1:${statusPort}`, intervalMs: 10_000 },
        adms: { listen: `127.0.0.1:${admsPort}`, maxConnectionsPerAddress: 1000 },
        log: { level: 'warn' },
      },
      nodeArgs: ['--import', LOOP_RECORDER],
      // Relative: the daemon's working folder is the rig's (rig.dir).
      env: { BENCH_LOOP_FILE: LOOP_FILE },
      hrmsLatencyMs: work.hrmsLatencyMs,
      beforeStart: (path) => {
        if (delivered > 0) bigJournal(path, delivered, TERMINALS);
        const j = Journal.open({ path, site: BENCH_SITE, mode: 'owner' });
        try {
          for (let i = 0; i < pending; i += 5000) j.ingest(backlogPunches(Math.min(5000, pending - i), TERMINALS, i));
        } finally {
          j.close();
        }
      },
    },
    600_000,
  );
  const load = await BenchChild.start('child-push');
  const load2 = await BenchChild.start('child-push');
  try {
    const url = `http://127.0.0.1:${statusPort}/metrics`;
    // Each protocol's terminals: the live ones first (serials from `first`), then the uploading ones.
    const push = (protocol: 'attendance' | 'security', first: number, child: typeof load) => {
      const paced = (pace: PushPace, offset: number) =>
        pace.terminals === 0
          ? Promise.resolve<PushLoadResult>({ ms: 0, acked: 0, failed: 0, latencies: [] })
          : child.call<PushLoadResult>('run', {
              url: `http://127.0.0.1:${admsPort}`,
              terminals: pace.terminals,
              batches: Math.max(2, Math.floor((seconds * 1000) / (pace.pauseMs + 20))),
              batchSize: pace.batchSize,
              pauseMs: pace.pauseMs,
              round: 1,
              protocol,
              offset,
            });
      return Promise.all([paced(work.live, first), paced(work.upload, first + work.live.terminals)]).then(
        ([live, upload]): PushLoadResult => ({
          ms: Math.max(live.ms, upload.ms),
          acked: live.acked + upload.acked,
          failed: live.failed + upload.failed,
          latencies: [...live.latencies, ...upload.latencies],
        }),
      );
    };
    const attlog = push('attendance', 0, load);
    const rtlog = push('security', PUSH_TERMINALS, load2);
    const loopP99: number[] = [];
    const loopMax: number[] = [];
    const scrapes: number[] = [];
    const end = nowMs() + seconds * 1000;
    // The first scrape resets the delay figures gathered during the warm-up; so does the recorder's reset file.
    const first = await fetch(url).then((r) => r.text());
    const loopFile = join(rig.dir, LOOP_FILE);
    writeFileSync(`${loopFile}.reset`, '');
    const cpu = new CpuShares({
      daemon: [rig.daemon.pid ?? -1],
      simulators: [rig.hrms.pid, rig.terminals.pid, load.pid, load2.pid],
      scraper: [process.pid],
    });
    // Each window of the status log's event-loop figures, as last seen (a window read again has grown).
    const windows = new Map<string, LongTasks[]>();
    let text = first;
    while (nowMs() < end) {
      await sleep(5000);
      const t0 = nowMs();
      text = await fetch(url).then((r) => r.text());
      scrapes.push(nowMs() - t0);
      const w = statusLoop(rig.dir);
      if (w) windows.set(w.since, w.longTasks ?? []);
      const p99 = gauge(text, 'nodejs_eventloop_lag_p99_seconds');
      const max = gauge(text, 'nodejs_eventloop_lag_max_seconds');
      // prom-client's figures are Node's monitor's intervals between turns of its 10 ms timer:
      // the delay is what is past those 10 ms (as the daemon's status shows it; docs/operate.md).
      if (p99 !== undefined) loopP99.push(Math.max(0, p99 * 1000 - PROM_CLIENT_SAMPLE_MS));
      if (max !== undefined) loopMax.push(Math.max(0, max * 1000 - PROM_CLIENT_SAMPLE_MS));
    }
    const shares = cpu.end();
    const record = daemonJson<LoopRecord>(loopFile);
    const gc0 = sumOf(first, 'nodejs_gc_duration_seconds_sum');
    const gc1 = sumOf(text, 'nodejs_gc_duration_seconds_sum');
    const [a, r] = await Promise.all([attlog, rtlog]);
    const sent0 = sumOf(first, 'punchgate_punches_delivered_total');
    const sent1 = sumOf(text, 'punchgate_punches_delivered_total');
    return {
      // No record, or one from before the reset: the preload did not run; said as missing, not as a figure.
      whole:
        record && record.samples > 0 && !existsSync(`${loopFile}.reset`)
          ? {
              p99: Math.max(0, record.p99 - PROM_CLIENT_SAMPLE_MS),
              max: Math.max(0, record.max - PROM_CLIENT_SAMPLE_MS),
              samples: record.samples,
            }
          : undefined,
      loopP99,
      loopMax,
      scrapes,
      attlog: a,
      rtlog: r,
      delivered: sent0 !== undefined && sent1 !== undefined ? sent1 - sent0 : NaN,
      cpu: shares,
      gcMs: gc0 !== undefined && gc1 !== undefined ? (gc1 - gc0) * 1000 : undefined,
      longTasks: addUp(windows.values()),
    };
  } finally {
    await Promise.all([load.stop(), load2.stop()]);
    await rig.stop();
  }
}

/**
 * prom-client's event-loop monitor period (its `eventLoopMonitoringPrecision`, 10 ms by default,
 * which src/metrics/registry.ts keeps). Node's monitorEventLoopDelay records the whole interval
 * between two turns of that timer, the period included (an idle loop reads 10.1 ms; nodejs/node
 * #34661 and PR #62935, open-telemetry-js-contrib#2794): the delay is the interval less it.
 */
const PROM_CLIENT_SAMPLE_MS = 10;

export async function benchBusyBox(): Promise<BenchRow[]> {
  if (!daemonAvailable()) {
    log('busy-box: skipped: this build has no `punchgate run`');
    return [];
  }
  const seconds = Number(process.env.BENCH_BUSY_SECONDS ?? (benchScale() < 1 ? 30 : 300));
  const floodSeconds = Number(process.env.BENCH_FLOOD_SECONDS ?? Math.max(30, Math.round(seconds / 5)));
  const delivered = scaled(1_000_000, { step: 10_000 });
  const pending = scaled(50_000, { step: 1000 });
  const slow = process.env.BENCH_SLOW_FSYNC_MS;
  if (slow) log(`busy-box: every disk sync of the daemon ${slow} ms slower (BENCH_SLOW_FSYNC_MS, as on an SD card)`);
  return [
    ...(await busyBox(SITE_PEAK, seconds, delivered, pending)),
    ...(await busyBox(FLOOD, floodSeconds, delivered, pending)),
  ];
}

function describe(w: Workload): string {
  const pace = (p: PushPace) =>
    `${p.terminals} ${p.batchSize === 1 ? `posting a punch every ${fmt(p.pauseMs / 1000, 0)} s` : `uploading batches of ${p.batchSize} ${p.pauseMs} ms after each OK`}`;
  return `of each protocol's ${PUSH_TERMINALS} push terminals (ATTLOG, Security PUSH): ${[w.live, w.upload]
    .filter((p) => p.terminals > 0)
    .map(pace)
    .join(', ')}`;
}

/** One workload over the year of punches, and the same on an empty journal (a fifth of the time, at least 30 s). */
async function busyBox(work: Workload, seconds: number, delivered: number, pending: number): Promise<BenchRow[]> {
  const baseSeconds = Math.max(30, Math.round(seconds / 5));
  log(
    `busy-box, ${work.name}: ${fmt(seconds)} s of punchgate run over ${fmt(delivered)} delivered + ${fmt(pending)} pending punches, ` +
      `${TERMINALS} ZK terminals polled every minute, ${describe(work)}; the HRMS answering in ${work.hrmsLatencyMs} ms; status every 10 s, /metrics every 5 s; ` +
      `baseline: the same on an empty journal for ${baseSeconds} s`,
  );
  const base = await busyRun(baseSeconds, 0, 0, work);
  const ours = await busyRun(seconds, delivered, pending, work);
  const say = (name: string, r: BusyResult) =>
    log(
      `  ${name}: event loop delay p99 over the whole span ${r.whole ? `${fmt(r.whole.p99, 1)} ms (max ${fmt(r.whole.max, 1)} ms, ${fmt(r.whole.samples)} samples)` : 'not recorded'}, ` +
        `p99 of the worst 5 s window ${fmt(Math.max(...r.loopP99), 1)} ms, median window ${fmt(median(r.loopP99), 1)} ms, ` +
        `max ${fmt(Math.max(...r.loopMax), 1)} ms (past prom-client's ${PROM_CLIENT_SAMPLE_MS} ms sampling period, which its gauges include); ATTLOG POST->OK p99 ${fmt(percentile(r.attlog.latencies, 99), 1)} ms ` +
        `(${fmt(r.attlog.latencies.length)} posts, ${r.attlog.failed} failed), rtlog p99 ${fmt(percentile(r.rtlog.latencies, 99), 1)} ms ` +
        `(${fmt(r.rtlog.latencies.length)} posts, ${r.rtlog.failed} failed); /metrics p99 ${fmt(percentile(r.scrapes, 99), 1)} ms ` +
        `(${r.scrapes.length} scrapes: median ${fmt(median(r.scrapes), 1)} ms, slowest ${slowest(r.scrapes)}); ` +
        `punches acknowledged to the push terminals ${fmt(r.attlog.acked + r.rtlog.acked)} ` +
        `(${fmt(((r.attlog.acked + r.rtlog.acked) / r.cpu.wallMs) * 1000, 0)}/s), delivered by the daemon over the measured span ${fmt(r.delivered)}`,
    );
  // Where the time went: who had the CPU (shares of one core; the box has two), the daemon's
  // garbage collection, and which of its labelled jobs held the loop 20 ms or more.
  const where = (name: string, r: BusyResult) => {
    const c = r.cpu.cores;
    const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '?' : `${fmt(x * 100, 0)}%`);
    log(
      `  ${name}: CPU over ${fmt(r.cpu.wallMs / 1000, 0)} s (of one core): daemon ${pct(c.daemon)}, simulators ${pct(c.simulators)}, ` +
        `scraper ${pct(c.scraper)}; the whole box ${pct(r.cpu.boxCores)} of ${pct(r.cpu.boxOf)} (other work on it included); ` +
        `daemon GC ${r.gcMs === undefined ? '?' : `${fmt(r.gcMs, 0)} ms`}`,
    );
    const top = r.longTasks.slice(0, 6);
    log(
      `  ${name}: daemon tasks of 20 ms or more: ` +
        (top.length === 0
          ? 'none'
          : top
              .map((t) => `${t.label} ${fmt(t.count)}x (max ${fmt(t.maxMs, 0)} ms, ${fmt(t.totalMs, 0)} ms in all)`)
              .join('; ')),
    );
  };
  say(`${work.name}, empty journal`, base);
  where(`${work.name}, empty journal`, base);
  say(`${work.name}, ${fmt(delivered)} delivered`, ours);
  where(`${work.name}, ${fmt(delivered)} delivered`, ours);
  const loopP99 = Math.max(...ours.loopP99);
  const loopMax = Math.max(...ours.loopMax);
  const att = percentile(ours.attlog.latencies, 99);
  const rt = percentile(ours.rtlog.latencies, 99);
  const scrape = percentile(ours.scrapes, 99);
  const note = `${work.name}: ${fmt(seconds)} s over ${fmt(delivered)} delivered punches; baseline: empty journal, ${baseSeconds} s`;
  // Each row names its workload; the flood's are beyond issue 35's (see FLOOD), held to the same limits.
  const bench = work === FLOOD ? 'busy-box flood' : 'busy-box';
  return [
    {
      // Issue 35's figure: the p99 of the delay over the whole run ("over 5 minutes").
      bench,
      metric: 'event-loop delay p99 over the whole run',
      unit: 'ms',
      ours: ours.whole?.p99 ?? NaN,
      baseline: base.whole?.p99 ?? NaN,
      target: `<= ${LOOP_P99_LIMIT_MS} ms`,
      pass: ours.whole !== undefined && ours.whole.p99 <= LOOP_P99_LIMIT_MS,
      note,
    },
    {
      // Stricter than the issue asks: the same limit for each 5 s window (a bad minute is not averaged away).
      bench,
      metric: 'event-loop delay p99, worst 5 s window (stricter than issue 35)',
      unit: 'ms',
      ours: loopP99,
      baseline: Math.max(...base.loopP99),
      target: `<= ${LOOP_P99_LIMIT_MS} ms`,
      pass: loopP99 <= LOOP_P99_LIMIT_MS,
    },
    {
      bench,
      metric: 'event-loop delay max',
      unit: 'ms',
      ours: loopMax,
      baseline: Math.max(...base.loopMax),
      target: `<= ${LOOP_MAX_LIMIT_MS} ms`,
      pass: loopMax <= LOOP_MAX_LIMIT_MS,
    },
    {
      bench,
      metric: `ATTLOG POST -> OK p99, ${PUSH_TERMINALS} terminals (${work.name})`,
      unit: 'ms',
      ours: att,
      baseline: percentile(base.attlog.latencies, 99),
      target: `<= ${POST_P99_LIMIT_MS} ms`,
      pass: att <= POST_P99_LIMIT_MS && ours.attlog.failed === 0,
    },
    {
      bench,
      metric: `Security PUSH rtlog POST -> OK p99, ${PUSH_TERMINALS} terminals (${work.name})`,
      unit: 'ms',
      ours: rt,
      baseline: percentile(base.rtlog.latencies, 99),
      target: `<= ${POST_P99_LIMIT_MS} ms`,
      pass: rt <= POST_P99_LIMIT_MS && ours.rtlog.failed === 0,
    },
    {
      bench,
      metric: '/metrics p99 (a scrape every 5 s)',
      unit: 'ms',
      ours: scrape,
      baseline: percentile(base.scrapes, 99),
      target: `<= ${SCRAPE_P99_LIMIT_MS} ms`,
      pass: scrape <= SCRAPE_P99_LIMIT_MS,
    },
    {
      bench,
      metric: 'daemon CPU (share of one core; the box has 2)',
      unit: '%',
      ours: 100 * (ours.cpu.cores.daemon ?? NaN),
      baseline: 100 * (base.cpu.cores.daemon ?? NaN),
      target: 'info',
    },
    {
      bench,
      metric: 'simulators and scraper CPU (share of one core)',
      unit: '%',
      ours: 100 * ((ours.cpu.cores.simulators ?? NaN) + (ours.cpu.cores.scraper ?? NaN)),
      baseline: 100 * ((base.cpu.cores.simulators ?? NaN) + (base.cpu.cores.scraper ?? NaN)),
      target: 'info',
    },
    {
      bench,
      metric: 'whole box busy, other work included (share of one core)',
      unit: '%',
      ours: 100 * (ours.cpu.boxCores ?? NaN),
      baseline: 100 * (base.cpu.boxCores ?? NaN),
      target: 'info',
    },
  ];
}
