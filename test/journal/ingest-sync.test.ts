import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { crashJournal } from '../helpers/crash.js';
import { tempDir } from '../helpers/tmp.js';

const punchesOf = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    terminal: 'gate-1',
    device: 'SN-1',
    biometricCode: String(from + i),
    logTime: '2026-11-29 08:00:00',
  }));

/**
 * A polled terminal's punches journalled without a disk sync on the event loop (ZK polls on an
 * SD card): `synced` resolves only after a sync of the WAL begun after the commit, and the
 * punches are in the file however the process ends after it.
 */
describe('ingestSyncedLater: a source write synced beside the event loop', () => {
  it('commits at once, resolves after a WAL sync, and every punch is there after a crash', async () => {
    const tmp = tempDir();
    const path = tmp.path('j.db');
    const journal = Journal.open({ path, site: 's', mode: 'owner' });
    // The WAL file exists once something was written (before, each commit syncs itself).
    journal.ingest(punchesOf(0, 1));
    const before = journal.walSyncs;
    const { result, synced } = journal.ingestSyncedLater(punchesOf(100, 500));
    expect(result).toMatchObject({ added: 500, duplicates: 0 });
    expect(journal.db.pragma('synchronous', { simple: true })).toBe(2); // FULL again after the commit
    expect(journal.walSyncs).toBe(before); // not synced yet: the sync runs beside the event loop
    await synced;
    expect(journal.walSyncs).toBeGreaterThan(before);
    // The same punches again: duplicates, nothing added.
    const again = journal.ingestSyncedLater(punchesOf(100, 500));
    expect(again.result).toMatchObject({ added: 0, duplicates: 500 });
    await again.synced;
    crashJournal(journal);
    const reopened = Journal.open({ path, site: 's', mode: 'owner' });
    try {
      expect(reopened.counts().pending).toBe(501);
    } finally {
      reopened.close();
      tmp.cleanup();
    }
  });

  it("inside another transaction it is that transaction's write: synced with its commit, resolved at once", async () => {
    const tmp = tempDir();
    const journal = Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'owner' });
    try {
      journal.ingest(punchesOf(0, 1));
      const inside = journal.db.transaction(() => journal.ingestSyncedLater(punchesOf(10, 3)))();
      expect(inside.result.added).toBe(3);
      await inside.synced; // resolved: the transaction's own commit synced
      expect(journal.counts().pending).toBe(4);
    } finally {
      journal.close();
      tmp.cleanup();
    }
  });
});
