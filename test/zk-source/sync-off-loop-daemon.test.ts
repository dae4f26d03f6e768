import { describe, expect, it } from 'vitest';
import { Database } from '../../src/journal/sqlite-driver.js';
import { spawnDaemon, startStack } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { killTraced, traceLength, tracedMainPid, walSyncTracer, walSyncsSince } from '../helpers/wal-syncs.js';

/** New punches on the terminal, each journalled before the next is added. */
const PUNCHES = 6;

/**
 * `punchgate run` under strace with one ZK terminal (`zk`: its settings): a first punch journalled
 * and `ready` waited for, then PUNCHES more added one at a time (07:01, 07:02..., each waited for).
 * Returns the WAL syncs made meanwhile, on the main thread and off it, once `offLoop` of them were
 * made off it (a sync no one waits for may come after the punch shows); ends the daemon with SIGTERM
 * and expects every punch in the journal.
 */
async function syncsWhileJournalling(
  zk: Record<string, unknown>,
  ready: (run: { sessions(): number; output(): string }) => Promise<void>,
  offLoop: number,
): Promise<ReturnType<typeof walSyncsSince>> {
  const stack = await startStack({ terminals: 1, zk });
  const sim = stack.terminals[0]!;
  const trace = stack.tmp.path('strace.txt');
  const d = spawnDaemon(stack.configPath, [], {}, walSyncTracer(trace));
  let nodePid = 0;
  /** The count, or 0 while the journal is not there yet. */
  const journalled = () => {
    try {
      const db = new Database(stack.tmp.path('journal.db'), { readonly: true, fileMustExist: true });
      try {
        return (db.prepare(`SELECT count(*) AS n FROM punches`).get() as { n: number }).n;
      } finally {
        db.close();
      }
    } catch {
      return 0;
    }
  };
  try {
    sim.addPunch({ userId: '1001', logTime: '2026-11-29 07:00:00' });
    await waitFor(() => journalled() >= 1, 60_000, 'the first poll');
    await ready({ sessions: () => sim.sessions(), output: () => d.output() });
    nodePid = tracedMainPid(trace);
    expect(nodePid).toBeGreaterThan(0);
    const before = traceLength(trace);
    for (let i = 1; i <= PUNCHES; i++) {
      sim.addPunch({ userId: '1001', logTime: `2026-11-29 07:0${i}:00` });
      await waitFor(() => journalled() >= 1 + i, 20_000, `punch ${i}`);
    }
    await waitFor(
      () => walSyncsSince(trace, before, nodePid).offLoop.length >= offLoop,
      20_000,
      'the syncs off the loop',
    );
    const syncs = walSyncsSince(trace, before, nodePid);
    process.kill(nodePid, 'SIGTERM');
    expect(await d.exited, d.output().slice(-3000)).toMatchObject({ code: 0 });
    expect(journalled()).toBe(1 + PUNCHES);
    return syncs;
  } finally {
    await killTraced(d, nodePid);
    await stack.stop();
  }
}

/**
 * Issue 35: a ZK terminal's punches are journalled, and the terminal recorded, without a disk sync
 * on the event loop (on an SD card each takes 5 to 50 ms, and a site polls 200 terminals a
 * minute). `punchgate run` under strace, which names the thread of every sync of the journal's
 * write-ahead log: the syncs are made by other threads (libuv's pool). A poll waits for its sync
 * before it goes on (and before any clear: test/zk-source/poll.test.ts); a real-time punch is
 * waited for by no one (the terminal keeps it for its poll). Every punch is in the journal after a
 * SIGTERM.
 */
describe('ZK terminals: the write-ahead log synced off the event loop, through punchgate run', () => {
  it('journals every poll with its syncs made by threads other than the main one', async () => {
    const { onLoop, offLoop, all } = await syncsWhileJournalling({ realtime: false }, async () => {}, PUNCHES);
    // Each poll journalled its punch and recorded the terminal: before, two syncs on the main
    // thread a poll (the punches, the terminal's record); now both are made beside it.
    expect(offLoop.length, JSON.stringify(all)).toBeGreaterThanOrEqual(PUNCHES);
    expect(onLoop.length, JSON.stringify(all)).toBeLessThanOrEqual(2);
  }, 120_000);

  it('journals real-time punches with their syncs made beside the event loop (the terminal keeps them for its poll)', async () => {
    // One poll at the start, none after (1 January only): every later punch comes in real time.
    const { onLoop, offLoop, all } = await syncsWhileJournalling(
      { realtime: true, schedule: '0 0 0 1 1 *' },
      (run) =>
        waitFor(
          () => /real-time events subscribed/.test(run.output()) && run.sessions() === 1,
          20_000,
          'the real-time link subscribed, the poll gone',
        ),
      1,
    );
    // Before: one sync on the main thread per real-time punch. Now beside it: one sync for all the
    // punches that came while the one before was being made (no one waits for them).
    expect(offLoop.length, JSON.stringify(all)).toBeGreaterThanOrEqual(1);
    expect(onLoop.length, JSON.stringify(all)).toBeLessThanOrEqual(2);
  }, 120_000);
});
