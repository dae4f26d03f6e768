import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { bareNodeRss } from '../../bench/lib/floor.js';
import { scriptLaunch } from '../../bench/lib/unit.js';
import { cliSandbox } from '../helpers/cli.js';

const LINES = 1_000_000;
const LIMIT_MB = 100;
/**
 * An idle bare node 20 is ~40 MB resident, the floor the issue's 100 MB was set on. A newer
 * runtime starts higher (Node 24's own floor is larger): the limit moves by that difference,
 * measured here, so that the test keeps judging punchgate's import, not the runtime.
 */
const NODE20_FLOOR_MB = 40;

/** VmHWM (the kernel's high-water mark of resident memory) of a running process, in bytes; null once it is gone. */
function peakRss(pid: number): number | null {
  try {
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

/**
 * `punchgate import` of a 1,000,000-line file streams it and commits in chunks: its peak resident
 * memory stays under 100 MB (the whole file read at once took about 700 MB), every good line is
 * journalled, and the bad lines are reported with their numbers (exit 65).
 */
describe('import of a 1,000,000-line file', () => {
  const box = cliSandbox();
  afterAll(() => box.tmp.cleanup());

  it(
    'stays under 100 MB resident, journals every good line and reports the bad ones by number',
    async () => {
      const file = box.tmp.path('big.csv');
      const bad = new Map([
        [2, '\u001b[2J,2025-01-01 00:00:00'],
        [500_001, '5001,2025-02-30 08:00:00'],
        [LINES + 1, '"unclosed,2025-01-01 00:00:00'],
      ]);
      const fd = openSync(file, 'w');
      writeSync(fd, 'biometriccode,logDate\n');
      const base = Date.UTC(2025, 0, 1);
      let buf: string[] = [];
      for (let line = 2; line <= LINES + 1; line++) {
        const t = new Date(base + line * 1000).toISOString();
        buf.push(bad.get(line) ?? `${1000 + (line % 5000)},${t.slice(0, 10)} ${t.slice(11, 19)}`);
        if (buf.length === 10_000) {
          writeSync(fd, buf.join('\n') + '\n');
          buf = [];
        }
      }
      writeSync(fd, buf.join('\n') + '\n');
      closeSync(fd);

      // As an admin's shell runs it: with the memory settings of the CLI's #! line.
      const launch = scriptLaunch();
      const child = spawn(
        process.execPath,
        [...launch.nodeArgs, 'dist/punchgate.js', '--config', box.config, 'import', file],
        { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...launch.env } },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      // VmHWM only grows: its last reading before the process ends is the peak of the whole run.
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, peakRss(child.pid!) ?? 0)), 10);
      const status = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      clearInterval(sampler);

      expect(stderr.trim().split('\n')).toEqual([
        `${file}:2: biometric code has a control character (U+001B)`,
        `${file}:500001: impossible logDate "2025-02-30 08:00:00": there is no day 30 in February (it has 28 days): check the terminal's date and time`,
        `${file}:${LINES + 1}: a quoted cell (cell 1) is never closed`,
      ]);
      expect(stdout).toBe(`${file}: ${LINES - 3} new, 0 duplicates, 3 bad\n`);
      expect(status).toBe(65);
      expect(peak).toBeGreaterThan(0);
      const floorMb = (await bareNodeRss()).median / (1024 * 1024);
      // Measured: 77-79 MB on Node 20, 91-92 MB on Node 24 (V8 13 peaks higher on the same import).
      const limit = LIMIT_MB + Math.max(0, floorMb - NODE20_FLOOR_MB);
      expect(
        peak / (1024 * 1024),
        `peak RSS ${(peak / (1024 * 1024)).toFixed(1)} MB (bare node here: ${floorMb.toFixed(1)} MB)`,
      ).toBeLessThan(limit);

      const journal = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a' });
      try {
        expect(journal.counts().pending).toBe(LINES - 3);
      } finally {
        journal.close();
      }
    },
    // One million lines through SQLite with synchronous=FULL: tens of seconds on a busy two-core box.
    300_000,
  );
});
