import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Backoff, backoffDelay } from '../../src/util/backoff.js';

describe('backoff', () => {
  it('doubles from the base and stops at the maximum', () => {
    const bounds = { baseMs: 1000, maxMs: 30_000 };
    expect([0, 1, 2, 3, 4, 5, 2000].map((n) => backoffDelay(n, bounds))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
    expect(backoffDelay(0, { baseMs: 500, maxMs: 100 })).toBe(500);
  });

  it('without jitter, each failure waits the ceiling; reset starts again', () => {
    const b = new Backoff({ baseMs: 10, maxMs: 50 }, false);
    expect([b.next(), b.next(), b.next(), b.next()]).toEqual([10, 20, 40, 50]);
    expect(b.failures).toBe(4);
    b.reset();
    expect(b.next()).toBe(10);
  });

  it('full jitter stays within [0, min(max, base * 2^n)) for any random value', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1, maxLength: 40 }),
        (rs) => {
          const queue = [...rs];
          const b = new Backoff({ baseMs: 1000, maxMs: 300_000 }, () => queue.shift()!);
          rs.forEach((_, n) => {
            const ceiling = Math.min(300_000, 1000 * 2 ** n);
            const d = b.next();
            expect(d).toBeGreaterThanOrEqual(0);
            expect(d).toBeLessThan(ceiling);
          });
        },
      ),
    );
  });
});
