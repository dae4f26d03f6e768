import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isBusyJournalError, Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { WAL_SIZE_LIMIT_BYTES } from '../../src/journal/open-db.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const punch = (i: number, terminal = 'gate-1') => ({
  terminal,
  biometricCode: String(1000 + (i % 97)),
  logTime: `2026-11-${String(1 + Math.floor(i / 86_400)).padStart(2, '0')} ${String(Math.floor((i % 86_400) / 3600)).padStart(2, '0')}:${String(Math.floor((i % 3600) / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
});

/**
 * Another connection holds the journal's write lock (standing in for another process: SQLite
 * locks each connection apart). The journal's writes that may wait are kept and done once it is
 * free; those that may not (ingest, claim) fail as busy, quickly, for the caller to keep.
 */
describe('a journal another connection holds', () => {
  let tmp: ReturnType<typeof tempDir>;
  let journal: Journal;
  let other: Database;
  beforeEach(() => {
    tmp = tempDir();
    journal = Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'owner', busyTimeoutMs: 50 });
    other = new Database(tmp.path('j.db'), { timeout: 0 });
  });
  afterEach(() => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    journal.close();
    tmp.cleanup();
  });

  it('keeps returned claims, terminal and delivery state while busy, and writes them once it is free', async () => {
    journal.ingest([punch(1), punch(2), punch(3)]);
    const claimed = journal.claim(3);
    other.exec('BEGIN IMMEDIATE');
    // None of these throws: they are kept.
    journal.settle([{ id: claimed[0]!.id, kind: 'delivered', message: 'ok' }]);
    journal.release([claimed[1]!.id]);
    journal.settle([{ id: claimed[2]!.id, kind: 'rejected', message: 'Unknown code' }]);
    journal.terminals.update('gate-1', { online: true, lastError: 'x' });
    journal.deliveryState.update({ auth: 'ok', lastResult: '3 sent' });
    expect(journal.keptWrites).toBe(5);
    expect(journal.busySince()).not.toBeNull();
    // Until then, what was kept reads as written.
    expect(journal.terminals.get('gate-1')).toMatchObject({ online: true, lastError: 'x' });
    // /metrics' narrow read of every terminal's contact too (it once read the table alone: 0).
    expect(journal.terminals.contacts()).toEqual([{ name: 'gate-1', online: true, lastSuccessAt: null }]);
    expect(journal.deliveryState.get()).toMatchObject({ auth: 'ok', lastResult: '3 sent' });
    // Writes that must be durable at once fail as busy, quickly.
    const t0 = Date.now();
    expect(() => journal.ingest([punch(4)])).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    // After its 50 ms busy timeout, not the 5 s default; room for a loaded CI box.
    expect(Date.now() - t0).toBeLessThan(3000);
    let claimError: unknown;
    try {
      journal.claim(5);
    } catch (e) {
      claimError = e;
    }
    expect(isBusyJournalError(claimError)).toBe(true);

    other.exec('COMMIT');
    await waitFor(() => journal.keptWrites === 0, 20_000, 'the kept writes written');
    expect(journal.busySince()).toBeNull();
    expect(journal.counts()).toMatchObject({ delivered: 1, pending: 1, rejected: 1, inflight: 0 });
    const fresh = new Database(tmp.path('j.db'), { readonly: true });
    expect(fresh.prepare(`SELECT online, last_error AS e FROM terminals WHERE name = 'gate-1'`).get()).toEqual({
      online: 1,
      e: 'x',
    });
    fresh.close();
    expect(journal.terminals.contacts()).toEqual([{ name: 'gate-1', online: true, lastSuccessAt: null }]);
  });

  it('a busy probe clears once the lock is let go, even with nothing kept', () => {
    other.exec('BEGIN IMMEDIATE');
    expect(() => journal.ingest([punch(1)])).toThrow();
    expect(journal.busySince()).not.toBeNull();
    other.exec('COMMIT');
    expect(journal.busySince()).toBeNull();
  });

  it('punches retry and release commit a chunk at a time, so other writers get in between', async () => {
    const n = 12_000;
    const all = Array.from({ length: n }, (_, i) => punch(i));
    for (let i = 0; i < n; i += 2000) journal.ingest(all.slice(i, i + 2000));
    for (let left = n; left > 0;) {
      const c = journal.claim(2000);
      left -= c.length;
      journal.settle(c.map((p) => ({ id: p.id, kind: 'rejected' as const, message: 'no' })));
    }
    // Another writer that never waits: it gets in only between the command's transactions.
    let inBetween = 0;
    const writer = setInterval(() => {
      try {
        other.prepare(`UPDATE delivery_state SET last_result = ? WHERE id = 1`).run(String(inBetween));
        inBetween++;
      } catch (e) {
        if (!isBusyJournalError(e)) throw e;
      }
    }, 0);
    try {
      expect(await journal.queries.retry({ state: 'rejected' })).toBe(n);
    } finally {
      clearInterval(writer);
    }
    expect(inBetween).toBeGreaterThan(0);
    expect(journal.counts().pending).toBe(n);
  });

  it('keeps the WAL bounded: after a large write it is cut back to journal_size_limit', () => {
    // One big transaction (what a long-running writer leaves) grows the WAL past the limit.
    const big = new Database(tmp.path('j.db'));
    big.exec('BEGIN IMMEDIATE');
    const ins = big.prepare(
      `INSERT INTO punches (terminal, device, biometric_code, log_time, site, state, last_message, created_at, updated_at)
       VALUES ('bulk', '', ?, '2026-11-22 08:00:00', 's', 'delivered', ?, 0, 0)`,
    );
    for (let i = 0; i < 60_000; i++) ins.run(String(i), 'x'.repeat(600));
    big.exec('COMMIT');
    big.close();
    const wal = tmp.path('j.db-wal');
    expect(statSync(wal).size).toBeGreaterThan(WAL_SIZE_LIMIT_BYTES);
    // The journal's next writes checkpoint it and cut it back.
    for (let i = 0; i < 30; i++) journal.ingest(Array.from({ length: 1000 }, (_, k) => punch(i * 1000 + k, 'gate-9')));
    expect(statSync(wal).size).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
  });
});
