import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * A claim commits without a disk sync of its own (its loss in a power cut leaves its punches
 * pending, as a claim of a process that is gone): only that transaction. Every other write, an
 * ingest above all, keeps synchronous=FULL, whatever the claim met.
 */
describe('claims without a disk sync of their own', () => {
  let tmp: ReturnType<typeof tempDir>;
  let j: Journal;
  const FULL = 2;
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
