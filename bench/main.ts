/**
 * `npm run bench [-- NAME...]`: runs the benchmarks (all, or the named ones) and prints each
 * figure next to its baseline measured in the same run, with the target and PASS/FAIL.
 * BENCH_SCALE=0.1 gives a quick run; BENCH_DIR picks the file system for the journals.
 * Exit code: 0 when every benchmark ran (PASS or FAIL), 1 when one crashed, 64 on a bad name.
 */
import { cpus, totalmem } from 'node:os';
import { benchAdms } from './adms.js';
import { benchBackup } from './backup.js';
import { benchBiotime } from './biotime.js';
import { benchDaemonIdle } from './daemon-idle.js';
import { benchDaemonLatency } from './daemon-latency.js';
import { benchDeliveryTurn } from './delivery-turn.js';
import { benchDrain } from './drain.js';
import { benchDrainDesigns } from './drain-designs.js';
import { benchDrainRss } from './drain-rss.js';
import { benchDrainWire } from './drain-wire.js';
import { benchIngest } from './ingest.js';
import { benchBusyBox, benchStatusSize } from './journal-size.js';
import { benchPackage } from './package.js';
import { benchScale } from './lib/scale.js';
import { benchSinks } from './sinks.js';
import { log, renderTable, type BenchRow } from './lib/table.js';
import { benchDahua } from './dahua.js';
import { benchHikDownload } from './hik-download.js';
import { benchZkDownload } from './zk-download.js';
import { benchZkFaults } from './zk-faults.js';
import { benchMetricsServe, benchWebIdle } from './web.js';

interface Benchmark {
  describe: string;
  run: () => Promise<BenchRow[]>;
  /** Run only when named: it changes the machine (installs a package). */
  optIn?: boolean;
}

const BENCHMARKS: Record<string, Benchmark> = {
  ingest: { describe: 'journal ingest incl. dedup vs a bare better-sqlite3 insert loop', run: benchIngest },
  drain: { describe: 'journal -> HRMS simulator at batch 200 and 1000 vs a bare undici POST loop', run: benchDrain },
  'delivery-turn': {
    describe: 'the loop time of a settle + claim of 200, punches from 200 terminals vs one; a year of history vs none',
    run: benchDeliveryTurn,
  },
  'drain-designs': {
    describe:
      "why the drain is not nearer the wire: the journal's SQL per punch under other claim designs; the journal work on a worker thread",
    run: benchDrainDesigns,
  },
  'drain-wire': {
    describe: 'the drain vs a bare POST loop with the HRMS answering after 5 ms (a LAN) and 30 ms (a cloud HRMS)',
    run: benchDrainWire,
  },
  rss: { describe: 'peak RSS while draining 1,000,000 punches (batch 1000)', run: benchDrainRss },
  'zk-download': {
    describe: 'download + journal 100,000 punches: our ZK client vs node-zklib 1.3.0 (paced)',
    run: benchZkDownload,
  },
  'zk-faults': {
    describe: 'records received by each client under the fault modes that break node-zklib',
    run: benchZkFaults,
  },
  'hik-download': {
    describe: 'read + journal 100,000 Hikvision events (real poll) vs the bare page-fetch loop',
    run: benchHikDownload,
  },
  dahua: {
    describe: 'read + journal 100,000 Dahua access records (real poll) vs the bare page loop; peak RSS',
    run: benchDahua,
  },
  biotime: {
    describe: 'read + journal 100,000 BioTime server transactions (real poll) vs the bare page loop; RSS',
    run: benchBiotime,
  },
  'daemon-idle': {
    describe: 'idle RSS of `punchgate run` with 10 simulated terminals (needs `punchgate run`)',
    run: benchDaemonIdle,
  },
  'web-idle': {
    describe: 'idle RSS of `punchgate run` with 10 terminals, status page server on and scraped (vs off)',
    run: benchWebIdle,
  },
  'metrics-serve': {
    describe: 'time to serve /metrics of `punchgate run` with 200 terminals (vs a bare node:http server)',
    run: benchMetricsServe,
  },
  'status-size': {
    describe: 'status report build over 1,000,000 delivered punches + a backlog vs over an empty journal',
    run: benchStatusSize,
  },
  'busy-box': {
    describe:
      'punchgate run over 1,000,000 delivered punches: event-loop delay, push POST -> OK, /metrics (BENCH_BUSY_SECONDS, default 300)',
    run: benchBusyBox,
  },
  'daemon-latency': {
    describe: 'real-time punch -> HRMS latency through `punchgate run` (needs `punchgate run`)',
    run: benchDaemonLatency,
  },
  adms: {
    describe: 'push terminals: punches/s acknowledged by the ADMS receiver vs bare ingest; p99 POST -> OK',
    run: benchAdms,
  },
  package: {
    describe:
      'the .deb: sizes, install to first punch and upgrade downtime vs the npm route (only when named; root, npm run package)',
    run: benchPackage,
    optIn: true,
  },
  sinks: {
    describe:
      'Frappe, Odoo JSON-2 and JSON-RPC sinks from the journal, 4 calls in flight, vs a bare loop of the same calls; Frappe vs 1 at a time',
    run: benchSinks,
  },
  backup: {
    describe: "punchgate backup of 1,000,000 punches while the daemon drains: time, RSS, the daemon's longest write",
    run: benchBackup,
  },
};

function usage(): string {
  return [
    'usage: npm run bench [-- NAME...]',
    '',
    ...Object.entries(BENCHMARKS).map(([n, b]) => `  ${n.padEnd(15)} ${b.describe}`),
    '',
    'env: BENCH_SCALE=0.1 (quick run), BENCH_DIR=/path (where journals are written)',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    log(usage());
    return 0;
  }
  const unknown = argv.filter((n) => !(n in BENCHMARKS));
  if (unknown.length) {
    process.stderr.write(`unknown benchmark: ${unknown.join(', ')}\n\n${usage()}\n`);
    return 64;
  }
  try {
    benchScale();
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 64;
  }
  const names = argv.length ? argv : Object.keys(BENCHMARKS).filter((n) => !BENCHMARKS[n]!.optIn);
  const cpu = cpus();
  log(
    `punchgate bench: node ${process.version}, ${cpu.length} cores (${cpu[0]?.model ?? '?'}), ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB RAM, BENCH_SCALE=${benchScale()}, started ${new Date().toISOString()}`,
  );
  const rows: BenchRow[] = [];
  let crashed = 0;
  const started = Date.now();
  for (const name of names) {
    const b = BENCHMARKS[name]!;
    log(`\n== ${name}: ${b.describe}`);
    const t0 = Date.now();
    try {
      const r = await b.run();
      rows.push(...r);
      if (r.length) log(`\n${renderTable(r)}`);
    } catch (e) {
      crashed++;
      const msg = e instanceof Error ? (e.stack ?? e.message) : String(e);
      process.stderr.write(`${name}: benchmark failed to run: ${msg}\n`);
      rows.push({
        bench: name,
        metric: 'did not run',
        unit: '-',
        ours: NaN,
        target: '-',
        pass: false,
        note: e instanceof Error ? e.message : String(e),
      });
    }
    log(`(${name}: ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }
  log(
    `\n== summary (${((Date.now() - started) / 1000).toFixed(0)} s, BENCH_SCALE=${benchScale()})\n${renderTable(rows)}`,
  );
  return crashed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
