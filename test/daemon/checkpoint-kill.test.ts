import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keys, spawnDaemon, startStack } from './stack.js';
import { waitFor } from '../helpers/wait.js';

/** The journal file's size and modification time: with its own checkpoints off, only the checkpoint worker writes it. */
function dbStamp(path: string): string {
  const st = statSync(path);
  return `${st.size}:${st.mtimeMs}`;
}

/**
 * The daemon's checkpoints run in a worker thread (issue 35). Killed (SIGKILL) while that worker
 * copies the WAL into the database file, the daemon loses no punch: SQLite's checkpoint is
 * crash-safe (the WAL keeps every frame until the copy is synced), and the next start finds every
 * punch journalled and delivers it.
 */
describe('a kill during a checkpoint of the worker', () => {
  it('loses no punch, the database file being written by the worker when the daemon is killed', async () => {
    const stack = await startStack({ delivery: { batchSize: 200 } });
    const t = stack.terminals[0]!;
    // Each life of the daemon has 3000 new punches to journal (and deliver): its checkpoint worker
    // starts at its first 1000 rows written and has work to do.
    let n = 0;
    const punchMore = () => {
      for (const end = n + 3000; n < end; n++)
        t.addPunch({
          userId: String(1000 + (n % 97)),
          logTime: `2026-11-${String(1 + Math.floor(n / 1440)).padStart(2, '0')} ${String(Math.floor(n / 60) % 24).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}:00`,
        });
    };
    const journal = stack.tmp.path('journal.db');
    let killedWhileWriting = 0;
    try {
      for (let kill = 0; kill < 4; kill++) {
        punchMore();
        // At debug level the daemon says when its checkpoint thread starts.
        const d = spawnDaemon(stack.configPath, ['--log-level', 'debug']);
        await waitFor(
          () => d.output().includes('the journal checkpoint thread started') || d.child.exitCode !== null,
          15_000,
          'the checkpoint thread started',
        );
        const before = dbStamp(journal);
        // From now on the database file changes only by a checkpoint of the worker (the main
        // connection's automatic checkpoint is off, and its own fallback needs 20,000 rows).
        await waitFor(() => dbStamp(journal) !== before || d.child.exitCode !== null, 15_000, 'a worker checkpoint');
        d.child.kill('SIGKILL');
        const exit = await d.exited;
        expect(exit.signal, d.output().slice(-2000)).toBe('SIGKILL');
        killedWhileWriting++;
      }
      expect(killedWhileWriting).toBe(4);
      const d = spawnDaemon(stack.configPath);
      const expected = keys(t.punches());
      await waitFor(
        () => keys(stack.hrms.attendance()).length === expected.length,
        60_000,
        'every punch delivered after the kills',
      );
      expect(keys(stack.hrms.attendance())).toEqual(expected);
      expect(d.output()).not.toContain('checkpoint thread failed');
      await waitFor(() => d.output().includes('punchgate running'), 15_000, 'the last daemon running');
      // A clean stop ends the worker first, then the journal's own closing checkpoint runs.
      d.child.kill('SIGTERM');
      expect(await d.exited, d.output().slice(-2000)).toEqual({ code: 0, signal: null });
    } finally {
      await stack.stop();
    }
  }, 180_000);
});
