import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatLogTime, isLogTime } from '../../src/punch.js';

/** The reference: calendar arithmetic through Date.UTC (no time zone involved). */
function reference(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

describe('isLogTime', () => {
  it('agrees with calendar arithmetic for any digits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        (y, mo, d, h, mi, s) => {
          expect(isLogTime(formatLogTime(y, mo, d, h, mi, s))).toBe(reference(y, mo, d, h, mi, s));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('knows leap years and refuses other shapes', () => {
    expect(isLogTime('2024-02-29 23:59:59')).toBe(true);
    expect(isLogTime('2100-02-29 00:00:00')).toBe(false);
    expect(isLogTime('2000-02-29 00:00:00')).toBe(true);
    expect(isLogTime('2026-04-31 08:00:00')).toBe(false);
    for (const bad of [
      '2026-11-22T08:00:00',
      '2026-11-22 08:00',
      ' 2026-11-22 08:00:00',
      '2026-11-22 08:00:00 ',
      '26-11-22 08:00:00',
      '',
    ]) {
      expect(isLogTime(bad)).toBe(false);
    }
  });
});
