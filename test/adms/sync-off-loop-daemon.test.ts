import { describe, expect, it } from 'vitest';
import { Database } from '../../src/journal/sqlite-driver.js';
import { spawnDaemon } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { killTraced, traceLength, tracedMainPid, walSyncTracer, walSyncsSince } from '../helpers/wal-syncs.js';
import { startPushStack } from './daemon-stack.js';
import { attlog, http } from './harness.js';

const SERIAL = 'SYNC00001';
const UPLOADS = 12;
const PER_UPLOAD = 5;

/**
 * Issue 35: the disk sync of a push upload's commit is not made on the event loop (on an SD card
 * it takes 5 to 50 ms, and every terminal, scrape and delivery would wait behind it). The daemon
 * runs under strace, which names the thread of every sync of the journal's write-ahead log: the
 * uploads' syncs are made by other threads (libuv's pool), and each terminal is answered OK only
 * after them (the group-commit tests hold the order; here every punch answered is in the journal).
 */
describe('push uploads: the write-ahead log synced off the event loop, through punchgate run', () => {
  it('answers each upload OK with its punches journalled, the syncs of the uploads made by threads other than the main one', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'lobby', serial: SERIAL }] });
    const trace = stack.tmp.path('strace.txt');
    const d = spawnDaemon(stack.configPath, [], {}, walSyncTracer(trace));
    let nodePid = 0;
    try {
      await waitFor(() => /push terminal receiver listening/.test(d.output()), 30_000, 'the receiver');
      nodePid = tracedMainPid(trace);
      expect(nodePid).toBeGreaterThan(0);
      expect((await http(stack.url, 'GET', `/iclock/cdata?SN=${SERIAL}&options=all&pushver=2.4.1`)).status).toBe(200);
      const before = traceLength(trace);
      for (let u = 0; u < UPLOADS; u++) {
        const lines = Array.from(
          { length: PER_UPLOAD },
          (_, i) => `${2000 + u}\t2026-11-03 08:${String(u).padStart(2, '0')}:${String(i).padStart(2, '0')}\t0\t1`,
        );
        expect(
          await http(stack.url, 'POST', `/iclock/cdata?SN=${SERIAL}&table=ATTLOG&Stamp=${100 + u}`, attlog(lines)),
        ).toEqual({ status: 200, body: `OK:${PER_UPLOAD}` });
      }
      const { onLoop, offLoop, all: during } = walSyncsSince(trace, before, nodePid);
      // Every upload was answered after a sync of the WAL, and neither those syncs nor the ones of
      // delivering the punches held the event loop (before: one on it per upload, and one per batch
      // delivered). Another write of the daemon (a terminal's contact) may still sync on it.
      expect(offLoop.length, JSON.stringify(during)).toBeGreaterThanOrEqual(UPLOADS);
      expect(onLoop.length, JSON.stringify(during)).toBeLessThanOrEqual(2);
      process.kill(nodePid, 'SIGTERM');
      expect(await d.exited, d.output().slice(-3000)).toMatchObject({ code: 0 });
      const db = new Database(stack.tmp.path('journal.db'), { readonly: true });
      try {
        const n = db.prepare(`SELECT count(*) AS n FROM punches WHERE biometric_code >= '2000'`).get() as { n: number };
        expect(n.n).toBe(UPLOADS * PER_UPLOAD);
      } finally {
        db.close();
      }
    } finally {
      await killTraced(d, nodePid);
      await stack.stop();
    }
  }, 120_000);
});
