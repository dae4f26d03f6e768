import { describe, expect, it } from 'vitest';
import { Database } from '../../src/journal/sqlite-driver.js';
import { spawnDaemon, startStack } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { killTraced, traceLength, tracedMainPid, walSyncTracer, walSyncsSince } from '../helpers/wal-syncs.js';

const POLLS = 6;

/**
 * Issue 35: a ZK terminal's poll journals its punches and records the terminal without a disk
 * sync on the event loop (on an SD card each takes 5 to 50 ms, and a site polls 200 terminals a
 * minute). `punchgate run` under strace, which names the thread of every sync of the journal's
 * write-ahead log: with a new punch on the terminal before each poll, the polls' syncs are made by
 * other threads (libuv's pool). The poll waits for its sync before it goes on (and before any
 * clear: test/zk-source/poll.test.ts); every punch is in the journal after a SIGTERM.
 */
describe('ZK polls: the write-ahead log synced off the event loop, through punchgate run', () => {
  it('journals every poll with its syncs made by threads other than the main one', async () => {
    const stack = await startStack({ terminals: 1, zk: { realtime: false } });
    const sim = stack.terminals[0]!;
    const trace = stack.tmp.path('strace.txt');
    const d = spawnDaemon(stack.configPath, [], {}, walSyncTracer(trace));
    let nodePid = 0;
    const journalled = () => {
      const db = new Database(stack.tmp.path('journal.db'), { readonly: true, fileMustExist: true });
      try {
        return (db.prepare(`SELECT count(*) AS n FROM punches`).get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    try {
      sim.addPunch({ userId: '1001', logTime: '2026-11-29 07:00:00' });
      await waitFor(() => journalledSafe() >= 1, 60_000, 'the first poll');
      nodePid = tracedMainPid(trace);
      expect(nodePid).toBeGreaterThan(0);
      const before = traceLength(trace);
      for (let i = 1; i <= POLLS; i++) {
        sim.addPunch({ userId: '1001', logTime: `2026-11-29 07:0${i}:00` });
        await waitFor(() => journalledSafe() >= 1 + i, 20_000, `poll ${i}`);
      }
      const { onLoop, offLoop, all: during } = walSyncsSince(trace, before, nodePid);
      // Each poll journalled its punch and recorded the terminal: before, two syncs on the main
      // thread a poll (the punches, the terminal's record); now both are made beside it.
      expect(offLoop.length, JSON.stringify(during)).toBeGreaterThanOrEqual(POLLS);
      expect(onLoop.length, JSON.stringify(during)).toBeLessThanOrEqual(2);
      process.kill(nodePid, 'SIGTERM');
      expect(await d.exited, d.output().slice(-3000)).toMatchObject({ code: 0 });
      expect(journalled()).toBe(1 + POLLS);
    } finally {
      await killTraced(d, nodePid);
      await stack.stop();
    }

    /** The count, or 0 while the journal is not there yet. */
    function journalledSafe(): number {
      try {
        return journalled();
      } catch {
        return 0;
      }
    }
  }, 120_000);

  it('journals real-time punches with their syncs made beside the event loop (the terminal keeps them for its poll)', async () => {
    // One poll at the start, none after (1 January only): every later punch comes in real time.
    const stack = await startStack({ terminals: 1, zk: { realtime: true, schedule: '0 0 0 1 1 *' } });
    const sim = stack.terminals[0]!;
    const trace = stack.tmp.path('strace.txt');
    const d = spawnDaemon(stack.configPath, [], {}, walSyncTracer(trace));
    let nodePid = 0;
    const db = () => new Database(stack.tmp.path('journal.db'), { readonly: true, fileMustExist: true });
    const journalled = () => {
      try {
        const conn = db();
        try {
          return (conn.prepare(`SELECT count(*) AS n FROM punches`).get() as { n: number }).n;
        } finally {
          conn.close();
        }
      } catch {
        return 0; // not there yet
      }
    };
    try {
      sim.addPunch({ userId: '1001', logTime: '2026-11-29 07:00:00' });
      await waitFor(() => journalled() >= 1, 60_000, 'the first poll');
      await waitFor(() => sim.sessions() === 1, 20_000, 'the poll gone, the real-time link open');
      nodePid = tracedMainPid(trace);
      expect(nodePid).toBeGreaterThan(0);
      const before = traceLength(trace);
      for (let i = 1; i <= POLLS; i++) {
        sim.addPunch({ userId: '1001', logTime: `2026-11-29 07:1${i}:00` });
        await waitFor(() => journalled() >= 1 + i, 20_000, `real-time punch ${i}`);
      }
      const { onLoop, offLoop, all: during } = walSyncsSince(trace, before, nodePid);
      // Before: one sync on the main thread per real-time punch.
      expect(offLoop.length, JSON.stringify(during)).toBeGreaterThanOrEqual(POLLS);
      expect(onLoop.length, JSON.stringify(during)).toBeLessThanOrEqual(2);
      process.kill(nodePid, 'SIGTERM');
      expect(await d.exited, d.output().slice(-3000)).toMatchObject({ code: 0 });
      expect(journalled()).toBe(1 + POLLS);
    } finally {
      await killTraced(d, nodePid);
      await stack.stop();
    }
  }, 120_000);
});
