import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A claim commits without a disk sync of its own (its loss in a power cut leaves its punches
 * pending, as a claim of a process that is gone): only that transaction, and the deliverer's
 * settle-and-claim (`together`), whose WAL is synced right after it off the event loop. Every
 * other write, an ingest above all, keeps synchronous=FULL, whatever the claim met.
 */
describe('claims without a disk sync of their own', () => {
  let tmp: ReturnType<typeof tempDir>;
  let j: Journal;
  const FULL = 2;
  const NORMAL = 1;
  beforeEach(() => {
    tmp = tempDir();
    j = Journal.open({ path: tmp.path('j.db'), site: 's', clock: fakeClock(), mode: 'owner' });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('ingest and settle run with synchronous FULL before and after a claim', () => {
    j.ingest([{ terminal: 'a', biometricCode: '1', logTime: '2026-11-22 08:00:00' }]);
    expect(j.db.pragma('synchronous', { simple: true })).toBe(FULL);
    const c = j.claim(10);
    expect(c).toHaveLength(1);
    expect(j.db.pragma('synchronous', { simple: true })).toBe(FULL);
    j.settle([{ id: c[0]!.id, kind: 'delivered' }]);
    expect(j.counts()).toMatchObject({ delivered: 1, inflight: 0 });
  });

  it('a settle and the next claim in one transaction (together): one commit, its WAL synced after it off the event loop, undone as one', async () => {
    j.ingest(
      ['08:00:00', '08:01:00', '08:02:00'].map((t) => ({
        terminal: 'a',
        biometricCode: '1',
        logTime: `2026-11-22 ${t}`,
      })),
    );
    const [first] = j.claim(1);
    // An error after the settle undoes it: the punch stays inflight, nothing else is claimed.
    expect(() =>
      j.together(() => {
        j.settle([{ id: first!.id, kind: 'delivered' }]);
        j.claim(1);
        throw new Error('after the settle');
      }),
    ).toThrow('after the settle');
    expect(j.counts()).toMatchObject({ delivered: 0, inflight: 1, pending: 2 });
    const syncs = j.walSyncs;
    const next = j.together(() => {
      j.settle([{ id: first!.id, kind: 'delivered' }]);
      // Inside: committed without a sync of its own (the claim leaves the setting alone: it
      // cannot change inside a transaction); the WAL is synced right after, in the thread pool.
      expect(j.db.pragma('synchronous', { simple: true })).toBe(NORMAL);
      return j.claim(1);
    });
    expect(next).toHaveLength(1);
    expect(j.db.pragma('synchronous', { simple: true })).toBe(FULL);
    expect(j.counts()).toMatchObject({ delivered: 1, inflight: 1, pending: 1 });
    await waitFor(() => j.walSyncs > syncs, 20_000, 'the WAL synced after the transaction');
  });

  it('a claim that fails leaves synchronous FULL', () => {
    const other = Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'shared', busyTimeoutMs: 10 });
    try {
      j.ingest([{ terminal: 'a', biometricCode: '1', logTime: '2026-11-22 08:00:00' }]);
      other.db.exec('BEGIN IMMEDIATE');
      const busy = Journal.open({ path: tmp.path('j.db'), site: 's', mode: 'shared', busyTimeoutMs: 10 });
      try {
        expect(() => busy.claim(10)).toThrow();
        expect(busy.db.pragma('synchronous', { simple: true })).toBe(FULL);
      } finally {
        busy.close();
      }
    } finally {
      other.db.exec('ROLLBACK');
      other.close();
    }
  });
});
