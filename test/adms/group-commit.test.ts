import { describe, expect, it } from 'vitest';
import type { IngestResult, PunchUpload } from '../../src/journal/types.js';
import { GroupCommit } from '../../src/sources/adms/group-commit.js';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { systemClock } from '../../src/util/clock.js';
import { tempDir } from '../helpers/tmp.js';

const upload = (terminal: string, n: number, stamp: string): PunchUpload => ({
  upload: { terminal, serial: `SN-${terminal}`, table: 'ATTLOG', stamp, at: Date.now() },
  punches: Array.from({ length: n }, (_, i) => ({
    terminal,
    device: `SN-${terminal}`,
    biometricCode: String(1000 + i),
    logTime: `2026-11-01 08:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
  })),
  malformed: { count: 0, first: null },
});

describe('group commit of uploads', () => {
  it('journals uploads that arrive together in one transaction, each with its stamp', async () => {
    const tmp = tempDir();
    const journal = Journal.open({ path: tmp.path('j.db'), site: 'g', mode: 'owner' });
    try {
      const store = new PushStore(journal.db, journal, systemClock);
      const calls: number[] = [];
      const counting = { commitPunches: (u: readonly PunchUpload[]) => (calls.push(u.length), store.commitPunches(u)) };
      const g = new GroupCommit(counting);
      const results = await Promise.all([
        g.submit(upload('a', 10, '1')),
        g.submit(upload('b', 20, '2')),
        g.submit(upload('c', 5, '3')),
      ]);
      expect(calls).toEqual([3]);
      expect(results.map((r) => r.added)).toEqual([10, 20, 5]);
      expect(store.stamps('b', 'SN-b')).toEqual({ ATTLOG: '2' });
      expect(store.pushTerminal('c')).toMatchObject({ uploads: 1, received: 5 });
    } finally {
      journal.close();
      tmp.cleanup();
    }
  });

  it('fails every upload of a group when the journal is busy, and isolates any other failure', async () => {
    const ok: IngestResult = { added: 1, duplicates: 0, quarantined: 0 };
    let busy = true;
    const calls: string[][] = [];
    const g = new GroupCommit({
      commitPunches: (uploads) => {
        calls.push(uploads.map((u) => u.upload.terminal));
        if (busy) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
        if (uploads.some((u) => u.upload.terminal === 'poison')) throw new Error('something odd in this one');
        return uploads.map(() => ok);
      },
    });
    const first = await Promise.allSettled([g.submit(upload('a', 1, '1')), g.submit(upload('b', 1, '1'))]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toEqual([['a', 'b']]); // busy: not retried one by one (each would wait for the lock again)
    busy = false;
    calls.length = 0;
    const second = await Promise.allSettled([
      g.submit(upload('a', 1, '2')),
      g.submit(upload('poison', 1, '2')),
      g.submit(upload('c', 1, '2')),
    ]);
    expect(second.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(calls).toEqual([['a', 'poison', 'c'], ['a'], ['poison'], ['c']]);
  });
});
