/**
 * Benchmark (issue 25): `punchgate backup` of a 1,000,000-punch journal while the daemon's
 * delivery drains it to the HRMS simulator.
 *
 * The journal is filled by a child process. The drainer (bench/child-drain-timed.ts) is the
 * daemon's delivery in a process of its own, owning the journal as `punchgate run` does, with
 * each of its journal writes timed. While it drains, `punchgate backup` (the shipped bundle, with
 * the unit's node flags and environment) copies the journal; its time and RSS (sampled, and the
 * kernel's high-water mark) are measured, and the drainer's longest write during the backup is
 * compared with its longest write in as long a window without one. The baseline of the time is
 * a plain copy of the same journal file in the same run (what `cp journal.db` costs: not a
 * consistent backup while the journal is written, and without the -wal).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { DrainWindow } from './child-drain-timed.js';
import { BenchChild } from './lib/child.js';
import { CLI, unitEnv, unitNodeArgs } from './lib/daemon.js';
import { startHrmsChild } from './lib/hrms.js';
import { mb, RssSampler } from './lib/rss.js';
import { scaled } from './lib/scale.js';
import { BENCH_SITE, scratchDir } from './lib/setup.js';
import { fmt, log, type BenchRow } from './lib/table.js';
import { nowMs } from './lib/timing.js';

/** The bound on a daemon write while a backup runs. */
const LONGEST_WRITE_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchBackup(): Promise<BenchRow[]> {
  const total = scaled(1_000_000, { step: 1000 });
  const scratch = scratchDir('backup');
  const path = join(scratch.dir, 'journal.db');
  const sim = await startHrmsChild();
  let drainer: BenchChild | undefined;
  try {
    const filler = await BenchChild.start('child-fill');
    const filled = await filler.call<{ added: number; ms: number }>('ingest', { path, total });
    await filler.stop();
    if (filled.added !== total) throw new Error(`journal holds ${filled.added} new punches, expected ${total}`);
    const config = join(scratch.dir, 'punchgate.yaml');
    writeFileSync(
      config,
      stringify({ site: BENCH_SITE, journal: { path }, hrms: { baseUrl: sim.ready.url }, log: { level: 'warn' } }),
    );
    log(`backup: journal of ${fmt(total)} pending punches, ${fmt(mb(statSync(path).size), 1)} MB`);

    drainer = await BenchChild.start('child-drain-timed', {
      args: [JSON.stringify({ path, url: sim.ready.url, batchSize: 200 })],
    });
    // The drain under way, then the backup beside it.
    await sleep(1000);
    await drainer.call<DrainWindow>('window');
    const target = join(scratch.dir, 'backup.db');
    let sampler: RssSampler | undefined;
    const t0 = nowMs();
    const child = spawn(process.execPath, [...unitNodeArgs(), CLI, '--config', config, 'backup', target], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: unitEnv(),
    });
    sampler = new RssSampler(child.pid!, 100).start();
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    const backupMs = nowMs() - t0;
    const rss = sampler.stop();
    sampler = undefined;
    const during = await drainer.call<DrainWindow>('window');
    if (code !== 0) throw new Error(`punchgate backup exited ${code}: ${output.slice(-800)}`);
    log(`backup: ${output.trim()}`);

    // The drain alone, for as long as the backup took.
    await sleep(Math.max(1000, backupMs));
    const alone = await drainer.call<DrainWindow>('window');
    // The baseline: a plain copy of the same file, the drain still running.
    const c0 = nowMs();
    copyFileSync(path, join(scratch.dir, 'copy.db'));
    const copyMs = nowMs() - c0;
    const duringCopy = await drainer.call<DrainWindow>('window');
    const left = await drainer.call<number>('pending');
    log(
      `backup: ${fmt(backupMs / 1000, 1)} s (plain copy ${fmt(copyMs / 1000, 1)} s); RSS peak ${fmt(mb(rss.peak), 1)} MB, VmHWM ${fmt(mb(rss.hwm), 1)} MB; ` +
        `the drain's longest journal write: ${fmt(during.longestWriteMs)} ms of ${fmt(during.writes)} during the backup ` +
        `(${fmt(during.delivered)} punches answered), ${fmt(alone.longestWriteMs)} ms of ${fmt(alone.writes)} without it, ` +
        `${fmt(duringCopy.longestWriteMs)} ms during the plain copy; ${fmt(left)} still pending at the end`,
    );
    if (during.delivered === 0)
      throw new Error('the drain answered no punch during the backup: it did not run beside it');
    const peak = Math.max(rss.peak, Number.isNaN(rss.hwm) ? 0 : rss.hwm);
    return [
      {
        bench: 'backup',
        metric: `punchgate backup of ${fmt(total)} punches while the daemon drains (vs cp of the file)`,
        unit: 'ms',
        ours: backupMs,
        baseline: copyMs,
        ratio: backupMs / copyMs,
        ratioAs: 'times',
        target: 'info',
        note: 'ours: start, online backup in 4 MB steps synced, quick_check, counts; the plain copy is neither consistent nor checked',
      },
      {
        bench: 'backup',
        metric: 'peak RSS of punchgate backup',
        unit: 'MB',
        ours: mb(peak),
        target: 'info',
        note: `max of 100 ms samples (${fmt(mb(rss.peak), 1)} MB) and VmHWM (${fmt(mb(rss.hwm), 1)} MB)`,
      },
      {
        bench: 'backup',
        metric: "the daemon's longest journal write during the backup (vs without one)",
        unit: 'ms',
        ours: during.longestWriteMs,
        baseline: alone.longestWriteMs,
        ratio: during.longestWriteMs / Math.max(1, alone.longestWriteMs),
        ratioAs: 'times',
        target: `<= ${LONGEST_WRITE_MS} ms`,
        pass: during.longestWriteMs <= LONGEST_WRITE_MS,
        note: `${fmt(during.writes)} writes (claims and settles) during the backup; ${fmt(duringCopy.longestWriteMs)} ms during the plain copy`,
      },
    ];
  } finally {
    await drainer?.stop();
    await sim.stop();
    scratch.remove();
  }
}
