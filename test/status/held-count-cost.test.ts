import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { heldBehindRefusedCount } from '../../src/status/refusals.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * The status asks, for an Odoo sink, how many punches wait behind a refused one. During a
 * catch-up of hundreds of thousands of punches with nothing refused, that was two full counts of
 * the backlog at every status report (seconds of the daemon's time): the kept counts say at once
 * that nothing is refused, so nothing is held.
 */
describe('punches held behind a refused one, during a catch-up', () => {
  const tmp = tempDir();
  afterEach(() => tmp.cleanup());
  const policy = { holdNothing: [] as string[] };

  it('are not counted through the backlog when no punch is refused', () => {
    const uncounted = {
      refusedWaiting: () => 0,
      dueCount: () => {
        throw new Error('counted the whole backlog');
      },
    };
    expect(heldBehindRefusedCount(uncounted, policy)).toBe(0);
  });

  it('are counted when one is refused, for the first sink and for another', () => {
    const j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock: fakeClock(), mode: 'owner' });
    try {
      j.useSinks({ defaultSink: 'odoo', others: ['odoo-2'] });
      j.ingest(
        ['07:00:00', '07:30:00', '08:00:00'].map((t) => ({
          terminal: 'gate-1',
          biometricCode: '7',
          logTime: `2026-11-22 ${t}`,
        })),
      );
      const b = j.sinkQueue('odoo-2');
      for (const q of [j, b]) {
        expect(q.refusedWaiting()).toBe(0);
        expect(heldBehindRefusedCount(q, policy)).toBe(0);
        const [first] = q.claim(1);
        q.settle([{ id: first!.id, kind: 'rejected', message: "hasn't checked out" }]);
        expect(q.refusedWaiting()).toBe(1);
        expect(heldBehindRefusedCount(q, policy)).toBe(2);
      }
    } finally {
      j.close();
    }
  });
});
