import { describe, expect, it } from 'vitest';
import { deliveredLine } from '../../src/delivery/deliverer.js';
import { countingQueue, PendingCount } from '../../src/delivery/pending.js';
import { fakeClock } from '../helpers/tmp.js';
import { MemoryQueue } from './memory-queue.js';

describe('the pending figure of the delivery log line', () => {
  it('is exact for a short queue, counted in full now and then for a long one, and followed between counts', () => {
    const clock = fakeClock(0);
    const queue = new MemoryQueue(() => clock.now());
    for (let i = 0; i < 50; i++) queue.add(String(i), `2026-11-22 08:00:${String(i % 60).padStart(2, '0')}`);
    let counts = 0;
    const counted = { ...queue, dueCount: (o?: { atMost?: number }) => (counts++, queue.dueCount(o)) };
    const pending = new PendingCount(counted, () => clock.now());
    const q = countingQueue(queue, pending);
    expect(pending.read()).toEqual({ n: 50, exact: true });

    for (let i = 0; i < 3000; i++) queue.add(`x${i}`, '2026-11-22 09:00:00');
    expect(pending.read()).toEqual({ n: 3050, exact: true });
    counts = 0;
    // Between full counts: what this process claims and returns is followed, without counting.
    const batch = q.claim(200);
    q.settle(batch.slice(0, 190).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    q.settle(batch.slice(190, 195).map((p) => ({ id: p.id, kind: 'unknown' as const })));
    q.release(batch.slice(195).map((p) => p.id));
    queue.add('new', '2026-11-22 10:00:00'); // from a terminal: shown at the next full count
    expect(pending.read()).toEqual({ n: 2860, exact: false });
    expect(counts).toBe(0);
    clock.advance(5000);
    expect(pending.read()).toEqual({ n: 2861, exact: true });
    // Below the bounded count's limit, exact again each time.
    q.settle(q.claim(2000).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    expect(pending.read()).toEqual({ n: 861, exact: true });
  });

  it('counts a long queue in full no more than a small share of the time: a catch-up is not slowed by its own figure', () => {
    const clock = fakeClock(0);
    const queue = new MemoryQueue(() => clock.now());
    for (let i = 0; i < 3000; i++) queue.add(`x${i}`, '2026-11-22 09:00:00');
    let full = 0;
    // A full count of a backlog of hundreds of thousands takes about a second of the event loop.
    const slow = {
      ...queue,
      dueCount: (o?: { atMost?: number }) => {
        if (o?.atMost === undefined) {
          full++;
          clock.advance(1000);
        }
        return queue.dueCount(o);
      },
    };
    const pending = new PendingCount(slow, () => clock.now());
    expect(pending.read()).toEqual({ n: 3000, exact: true });
    expect(full).toBe(1);
    // Five seconds on: a count that took a second is not made again yet (the figure is followed).
    clock.advance(5000);
    expect(pending.read()).toEqual({ n: 3000, exact: false });
    expect(full).toBe(1);
    // Fifty times what it took after it: counted again.
    clock.advance(45_000);
    expect(pending.read()).toEqual({ n: 3000, exact: true });
    expect(full).toBe(2);
  });

  it('says what the HRMS did with the batch in plain words', () => {
    const t = { delivered: 197, duplicates: 0, rejected: 3, unknown: 0 };
    // The line once read "delivered 200 punches (3 refused)" when 197 were taken.
    expect(deliveredLine(t, 41)).toBe('sent 200 punches to the HRMS: 197 delivered, 3 refused; 41 pending');
    expect(deliveredLine({ ...t, delivered: 1, rejected: 0 }, 0)).toBe('delivered 1 punch to the HRMS, 0 pending');
    expect(deliveredLine({ ...t, rejected: 0 }, 3, true, 'sink odoo')).toBe(
      'delivered 197 punches to sink odoo, 3 pending',
    );
    expect(deliveredLine({ delivered: 7, duplicates: 1, rejected: 2, unknown: 4 }, 5000, false)).toBe(
      'sent 14 punches to the HRMS: 7 delivered, 2 refused, 1 already there, 4 unanswered, back in the queue; about 5000 pending',
    );
    // None taken (an HRMS that knows none of the codes yet): sent, 0 delivered.
    expect(deliveredLine({ delivered: 0, duplicates: 0, rejected: 20, unknown: 0 }, 0)).toBe(
      'sent 20 punches to the HRMS: 0 delivered, 20 refused; 0 pending',
    );
    expect(deliveredLine({ delivered: 0, duplicates: 0, rejected: 1, unknown: 0 }, 0)).toBe(
      'sent 1 punch to the HRMS: 0 delivered, 1 refused; 0 pending',
    );
    expect(deliveredLine({ delivered: 0, duplicates: 1, rejected: 1, unknown: 0 }, 0)).toBe(
      'sent 2 punches to the HRMS: 0 delivered, 1 refused, 1 already there; 0 pending',
    );
    expect(deliveredLine({ delivered: 14, duplicates: 1, rejected: 7, unknown: 0 }, 41)).toBe(
      'sent 22 punches to the HRMS: 14 delivered, 7 refused, 1 already there; 41 pending',
    );
  });
});
