import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const FULL = 2;

/**
 * Issue 35: a terminal's ledger row and delivery's last result are written without a disk sync
 * of their own (200 terminals polled at the minute made 200+ syncs on the event loop); punches
 * keep theirs. The records are in the file for every other reader at once, and the connection is
 * back to synchronous FULL for the next punch.
 */
describe('status records written without a sync of their own', () => {
  let tmp: ReturnType<typeof tempDir>;
  let j: Journal;
  beforeEach(() => {
    tmp = tempDir();
    j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock: fakeClock(), mode: 'owner' });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    j.close();
    tmp.cleanup();
  });

  it('commits ledger and delivery-state writes with synchronous NORMAL, punches with FULL', () => {
    const pragmas: string[] = [];
    const pragma = j.db.pragma.bind(j.db);
    vi.spyOn(j.db, 'pragma').mockImplementation(((source: string, o?: { simple?: boolean }) => {
      pragmas.push(source);
      return pragma(source, o);
    }) as never);
    j.terminals.update('gate-1', { online: true, lastPollAt: 5, serial: 'SN1' });
    j.deliveryState.update({ lastAttemptAt: 7, lastResult: 'ok' });
    j.deliveryStateOf('frappe').update({ lastAttemptAt: 8 });
    expect(pragmas.filter((p) => p === 'synchronous = NORMAL')).toHaveLength(3);
    expect(j.db.pragma('synchronous', { simple: true })).toBe(FULL);
    // A punch: no switch, synced as ever.
    pragmas.length = 0;
    expect(j.ingest([{ terminal: 'gate-1', biometricCode: '1', logTime: '2026-11-22 08:00:00' }]).added).toBe(1);
    expect(pragmas).not.toContain('synchronous = NORMAL');

    // Another reader (`punchgate status`, `check`) sees them at once.
    const other = new Database(tmp.path('j.db'), { readonly: true });
    try {
      expect(other.prepare(`SELECT online, last_poll_at AS at FROM terminals WHERE name = 'gate-1'`).get()).toEqual({
        online: 1,
        at: 5,
      });
      expect(other.prepare(`SELECT last_attempt_at AS at, last_result AS r FROM delivery_state`).get()).toEqual({
        at: 7,
        r: 'ok',
      });
      expect(other.prepare(`SELECT last_attempt_at AS at FROM sink_state WHERE sink = 'frappe'`).get()).toEqual({
        at: 8,
      });
    } finally {
      other.close();
    }
  });
});
