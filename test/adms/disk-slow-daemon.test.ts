import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { slowFsyncEnv } from '../../bench/lib/slow-fsync.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import type { StatusReport } from '../../src/status/types.js';
import { spawnDaemon, statusUrl } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { parseMetrics } from '../web/helpers.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';
import { attlog, http } from './harness.js';

const SERIAL = 'SLOWDISK1';
const UPLOADS = 12;
const PER_UPLOAD = 3;
/** What every disk sync of the daemon takes on top of this machine's (a worn SD card). */
const SLOW_SYNC_MS = 600;

/**
 * Issue 35, a small box's worn SD card: every disk sync of `punchgate run` is made 600 ms slower
 * (a shim preloaded into the daemon alone, bench/lib/slow-fsync.ts). The terminal is still
 * answered OK only once its punches are on the disk, so each OK takes that long; the status (page,
 * status.json) says the disk is slow, with the fix, and /metrics counts the slow syncs for the
 * fleet's alert (PunchgateJournalDiskSlow). Nothing is lost.
 */
describe('a journal disk slow to sync, through punchgate run', () => {
  it('answers every upload once it is on the disk, and says the disk is slow in the status and /metrics', async () => {
    const stack = await startPushStack({
      terminals: [{ name: 'lobby', serial: SERIAL }],
      status: { listen: '127.0.0.1:0', intervalMs: 500 },
    });
    // The disk turns slow once the daemon has started (the card wears out under a running box):
    // its start makes a few dozen syncs (the journal created, the config's last good copy), half a
    // minute at 600 ms each, none of them what this test is about. Slow from then on, the stop included.
    const slowFlag = stack.tmp.path('disk-is-slow');
    const env = slowFsyncEnv(stack.tmp.dir, { BENCH_SLOW_FSYNC_MS: String(SLOW_SYNC_MS) }, slowFlag);
    const d = spawnDaemon(stack.configPath, [], env);
    try {
      await waitFor(() => /push terminal receiver listening/.test(d.output()), 30_000, 'the receiver');
      const url = await statusUrl(d);
      writeFileSync(slowFlag, '');
      expect((await http(stack.url, 'GET', `/iclock/cdata?SN=${SERIAL}&options=all&pushver=2.4.1`)).status).toBe(200);
      const took: number[] = [];
      for (let u = 0; u < UPLOADS; u++) {
        const lines = Array.from(
          { length: PER_UPLOAD },
          (_, i) => `${3000 + u}\t2026-11-04 09:${String(u).padStart(2, '0')}:${String(i).padStart(2, '0')}\t0\t1`,
        );
        const t0 = performance.now();
        expect(
          await http(stack.url, 'POST', `/iclock/cdata?SN=${SERIAL}&table=ATTLOG&Stamp=${200 + u}`, attlog(lines)),
        ).toEqual({ status: 200, body: `OK:${PER_UPLOAD}` });
        took.push(performance.now() - t0);
      }
      // Each OK waited for a sync of its own upload: none came before the disk had it.
      expect(Math.min(...took)).toBeGreaterThanOrEqual(SLOW_SYNC_MS - 50);
      const report = async () => (await (await fetch(`${url}status.json`)).json()) as StatusReport;
      await waitFor(
        async () => (await report()).alertItems.some((a) => a.kind === 'journal-disk-slow'),
        60_000,
        'the slow disk alert',
      );
      const r = await report();
      expect(r.journal.diskSync!.syncs).toBeGreaterThanOrEqual(10);
      expect(r.journal.diskSync!.p90Ms).toBeGreaterThanOrEqual(SLOW_SYNC_MS - 50);
      expect(r.alerts.join('\n')).toMatch(
        /the journal's disk is slow: one sync in ten took \d+\.\d s or more in the last 10 min .*move journal\.path to better storage/,
      );
      expect(await (await fetch(url)).text()).toContain('the journal&#39;s disk is slow');
      const m = parseMetrics(await (await fetch(`${url}metrics`)).text());
      const count = m.get('punchgate_journal_disk_sync_seconds_count')!;
      expect(count).toBeGreaterThanOrEqual(10);
      // Not one of them within half a second.
      expect(m.get('punchgate_journal_disk_sync_seconds_bucket{le="0.5"}')).toBe(0);
      // punchgate check says the same, from the daemon's status.json.
      const check = await runPunchgate(['check', '--config', stack.configPath]);
      expect(check.stdout).toMatch(/^WARN disk: .* free at .*, but the journal's disk is slow: one sync in ten took/m);
      d.child.kill('SIGTERM');
      expect(await d.exited, d.output().slice(-3000)).toMatchObject({ code: 0 });
      const db = new Database(stack.tmp.path('journal.db'), { readonly: true });
      try {
        const n = db.prepare(`SELECT count(*) AS n FROM punches WHERE biometric_code >= '3000'`).get() as { n: number };
        expect(n.n).toBe(UPLOADS * PER_UPLOAD);
      } finally {
        db.close();
      }
    } finally {
      if (d.child.exitCode === null) {
        d.child.kill('SIGKILL');
        await d.exited;
      }
      await stack.stop();
    }
  }, 180_000);
});
