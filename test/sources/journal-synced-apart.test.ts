import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import type { PunchSink } from '../../src/journal/types.js';
import { cursorCommit } from '../../src/sources/http-poll.js';
import { journalReadAgain } from '../../src/sources/journal-synced-apart.js';
import { PunchBuffer } from '../../src/sources/punch-buffer.js';
import { silentLogger } from '../../src/util/logger.js';
import { crashJournal } from '../helpers/crash.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const punchesOf = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    terminal: 'door',
    device: 'SN-9',
    biometricCode: String(from + i),
    logTime: '2026-11-29 08:00:00',
  }));

/** A journal in a fresh folder, its WAL file there (syncs apart need it), and a way to count what a reopened file holds. */
function openJournal() {
  const tmp = tempDir();
  const path = tmp.path('j.db');
  const journal = Journal.open({ path, site: 's', mode: 'owner' });
  journal.ingest(punchesOf(0, 1));
  const afterCrash = () => {
    crashJournal(journal);
    const reopened = Journal.open({ path, site: 's', mode: 'owner' });
    try {
      return { pending: reopened.counts().pending, cursor: reopened.sourceState.get('door', 'cursor') };
    } finally {
      reopened.close();
      tmp.cleanup();
    }
  };
  return { journal, afterCrash };
}

/**
 * Issue 35: punches a terminal still holds and a poll reads again (real-time events, a page read
 * with its cursor) are committed at once and synced beside the event loop, waited for by no one;
 * punches read once (a serial line's) keep a commit that syncs before it returns. Counted by the
 * journal's syncs made apart, and by what the file holds after the process's connection crashes.
 */
describe('journalling what a poll reads again: the disk sync beside the event loop', () => {
  it('commits at once, syncs apart, and every punch is there after a crash', async () => {
    const { journal, afterCrash } = openJournal();
    const before = journal.walSyncs;
    expect(journalReadAgain(journal, punchesOf(100, 300))).toMatchObject({ added: 300, duplicates: 0 });
    expect(journal.counts().pending).toBe(301); // committed at once
    await waitFor(() => journal.walSyncs > before, 10_000, 'the sync made apart');
    expect(afterCrash().pending).toBe(301);
  });

  it('a sink that cannot sync apart takes the punches with a commit that syncs itself', () => {
    const { journal, afterCrash } = openJournal();
    const before = journal.walSyncs;
    const plain: PunchSink = { ingest: (p, o) => journal.ingest(p, o) };
    expect(journalReadAgain(plain, punchesOf(100, 5))).toMatchObject({ added: 5 });
    expect(journal.walSyncs).toBe(before);
    expect(afterCrash().pending).toBe(6);
  });

  it('a page and its cursor (Hikvision, Dahua) are one commit, synced apart', async () => {
    const { journal, afterCrash } = openJournal();
    const woken: number[] = [];
    const commit = cursorCommit<number>(
      { sink: journal, onPunches: (n) => woken.push(n) },
      { terminal: 'door', timezone: undefined, key: 'cursor', skewSeconds: null },
      String,
    );
    const before = journal.walSyncs;
    expect(commit(punchesOf(100, 40), 140)).toMatchObject({ added: 40 });
    expect(woken).toEqual([40]);
    await waitFor(() => journal.walSyncs > before, 10_000, 'the sync made apart');
    expect(afterCrash()).toEqual({ pending: 41, cursor: '140' });
  });

  it('the punch buffer syncs apart for a terminal that keeps its punches (ZK real-time), itself for a serial line', async () => {
    for (const readAgainByPoll of [true, false]) {
      const { journal, afterCrash } = openJournal();
      const written: number[] = [];
      const buffer = new PunchBuffer({
        sink: journal,
        ingestOptions: () => ({}),
        log: silentLogger(),
        readAgainByPoll,
        onWritten: (items) => written.push(items.length),
      });
      const before = journal.walSyncs;
      for (const punch of punchesOf(100, 3)) buffer.add([{ punch }]);
      await waitFor(() => written.reduce((a, b) => a + b, 0) === 3, 10_000, 'the punches written');
      if (readAgainByPoll) await waitFor(() => journal.walSyncs > before, 10_000, 'the sync made apart');
      else expect(journal.walSyncs).toBe(before);
      expect(await buffer.stop()).toEqual([]);
      expect(afterCrash().pending).toBe(4);
    }
  });
});
