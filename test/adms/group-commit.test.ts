import { describe, expect, it } from 'vitest';
import type { IngestResult, PunchUpload } from '../../src/journal/types.js';
import { BUSY_WINDOW_MS, GroupCommit, MAX_GROUP_PUNCHES } from '../../src/sources/adms/group-commit.js';
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
    let elapsed = 0;
    const calls: string[][] = [];
    const g = new GroupCommit(
      {
        commitPunches: (uploads) => {
          calls.push(uploads.map((u) => u.upload.terminal));
          if (busy) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
          if (uploads.some((u) => u.upload.terminal === 'poison')) throw new Error('something odd in this one');
          return uploads.map(() => ok);
        },
      },
      () => elapsed,
    );
    const first = await Promise.allSettled([g.submit(upload('a', 1, '1')), g.submit(upload('b', 1, '1'))]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toEqual([['a', 'b']]); // busy: not retried one by one (each would wait for the lock again)
    // Within the busy window the next groups are refused without asking the journal (no wait on the loop).
    busy = false;
    elapsed += BUSY_WINDOW_MS - 1;
    const refused = await Promise.allSettled([g.submit(upload('d', 1, '1'))]);
    expect(refused.map((r) => r.status)).toEqual(['rejected']);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_BUSY' });
    expect(calls).toEqual([['a', 'b']]);
    elapsed += 1;
    calls.length = 0;
    const second = await Promise.allSettled([
      g.submit(upload('a', 1, '2')),
      g.submit(upload('poison', 1, '2')),
      g.submit(upload('c', 1, '2')),
    ]);
    expect(second.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(calls).toEqual([['a', 'poison', 'c'], ['a'], ['poison'], ['c']]);
  });
  it('splits uploads that arrive together into transactions of at most MAX_GROUP_PUNCHES punches, one per turn', async () => {
    const tmp = tempDir();
    const journal = Journal.open({ path: tmp.path('j.db'), site: 'g', mode: 'owner' });
    try {
      const store = new PushStore(journal.db, journal, systemClock);
      const events: string[] = [];
      const g = new GroupCommit({
        commitPunches: (u: readonly PunchUpload[]) => {
          events.push(`commit ${u.reduce((n, x) => n + x.punches.length, 0)}`);
          return store.commitPunches(u);
        },
      });
      // About 10 to 20 us a punch on a 2-core box: a bound of a few hundred keeps a turn near 10 ms.
      expect(MAX_GROUP_PUNCHES).toBeLessThanOrEqual(1000);
      const per = 100;
      const n = Math.ceil((2.5 * MAX_GROUP_PUNCHES) / per); // two and a half groups' worth
      // A large upload alone is still taken whole (a group always takes its first upload).
      const big = 2 * MAX_GROUP_PUNCHES;
      const uploads = [...Array.from({ length: n }, (_, i) => upload(`t${i}`, per, '1')), upload('big', big, '1')];
      const results = await Promise.all(
        uploads.map((u, i) => g.submit(u).then((r) => (events.push(`answered ${i}`), r))),
      );
      const commits = events.filter((e) => e.startsWith('commit')).map((e) => Number(e.split(' ')[1]));
      const perGroup = MAX_GROUP_PUNCHES / per;
      expect(commits).toEqual([
        ...Array.from({ length: Math.floor(n / perGroup) }, () => MAX_GROUP_PUNCHES),
        ...(n % perGroup ? [(n % perGroup) * per] : []),
        big,
      ]);
      // Each group is answered before the next is committed: the next waits for a later turn.
      expect(events.indexOf('answered 0')).toBeLessThan(events.indexOf(`commit ${MAX_GROUP_PUNCHES}`, 1));
      // Every punch journalled, none twice.
      expect(results.reduce((a, r) => a + r.added, 0)).toBe(n * per + big);
      expect(journal.counts().pending).toBe(n * per + big);
    } finally {
      journal.close();
      tmp.cleanup();
    }
  });

  it('with the disk sync off the event loop: answers an upload only once its sync has ended, commits the next group meanwhile, refuses on a failed sync', async () => {
    const ok: IngestResult = { added: 1, duplicates: 0, quarantined: 0 };
    const syncs: { resolve: () => void; reject: (e: unknown) => void }[] = [];
    const committed: string[][] = [];
    const g = new GroupCommit({
      commitPunches: () => {
        throw new Error('not used: the journal syncs apart');
      },
      commitPunchesSyncedLater: (uploads) => {
        committed.push(uploads.map((u) => u.upload.terminal));
        const synced = new Promise<void>((resolve, reject) => syncs.push({ resolve, reject }));
        return { value: uploads.map(() => ok), synced };
      },
    });
    const answered: string[] = [];
    const track = (p: Promise<IngestResult>, name: string) =>
      p.then(
        () => answered.push(`${name} ok`),
        () => answered.push(`${name} refused`),
      );
    const a = track(g.submit(upload('a', 1, '1')), 'a');
    const b = track(g.submit(upload('b', 1, '1')), 'b');
    await new Promise((r) => setImmediate(r));
    expect(committed).toEqual([['a', 'b']]);
    expect(answered).toEqual([]); // committed, not yet on the disk: no OK
    // The next upload is committed while the first group's sync still runs.
    const c = track(g.submit(upload('c', 1, '1')), 'c');
    await new Promise((r) => setImmediate(r));
    expect(committed).toEqual([['a', 'b'], ['c']]);
    expect(answered).toEqual([]);
    syncs[0]!.resolve();
    await Promise.all([a, b]);
    expect(answered).toEqual(['a ok', 'b ok']);
    syncs[1]!.reject(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await c;
    expect(answered).toEqual(['a ok', 'b ok', 'c refused']); // the terminal keeps it and sends it again
  });

  it('through a real journal: committed without a sync on the event loop, answered after the WAL sync, every punch there after a reopen', async () => {
    const tmp = tempDir();
    const path = tmp.path('j.db');
    const journal = Journal.open({ path, site: 'g', mode: 'owner' });
    try {
      const store = new PushStore(journal.db, journal, systemClock);
      let inside = -1;
      const g = new GroupCommit({
        commitPunches: (u) => store.commitPunches(u),
        commitPunchesSyncedLater: (u) =>
          journal.syncedLater(() => {
            inside = journal.db.pragma('synchronous', { simple: true }) as number;
            return store.commitPunches(u);
          }),
      });
      // The first upload may sync itself (the WAL file is opened once it exists); the rest sync apart.
      await g.submit(upload('first', 1, '1'));
      const before = journal.walSyncs;
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => g.submit(upload(`t${i}`, 20, '1'))));
      expect(inside).toBe(1); // NORMAL: no sync in the commit
      expect(journal.db.pragma('synchronous', { simple: true })).toBe(2); // FULL again after it
      expect(journal.walSyncs).toBeGreaterThan(before); // answered after a sync of the WAL
      expect(results.map((r) => r.added)).toEqual([20, 20, 20, 20, 20]);
    } finally {
      journal.close();
    }
    const again = Journal.open({ path, site: 'g', mode: 'owner' });
    try {
      expect(again.counts().pending).toBe(101);
    } finally {
      again.close();
      tmp.cleanup();
    }
  });
});
