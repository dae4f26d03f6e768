import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { shiftWallClock, utcWallClock, wallClockAt } from '../../src/punch.js';

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

// Zones with DST in both hemispheres, a half-hour offset with DST, and none.
const ZONES = ['Europe/Berlin', 'America/St_Johns', 'Australia/Sydney', 'Asia/Kolkata', 'UTC'];

describe('wallClockAt', () => {
  it('reads the process zone with Date getters exactly as Intl reads the named zone', () => {
    for (const zone of ZONES) {
      process.env.TZ = zone; // Node re-reads the zone when TZ is assigned
      fc.assert(
        fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }), (ms) => {
          expect(wallClockAt(ms)).toBe(wallClockAt(ms, zone));
        }),
        { numRuns: 500 },
      );
      // Around the 2026 DST changes of each hemisphere, minute by minute.
      for (const start of [
        Date.UTC(2026, 2, 28, 22),
        Date.UTC(2026, 9, 24, 22),
        Date.UTC(2026, 3, 4, 12),
        Date.UTC(2026, 2, 8, 4),
      ]) {
        for (let ms = start; ms < start + 12 * 3600_000; ms += 60_000)
          expect(wallClockAt(ms)).toBe(wallClockAt(ms, zone));
      }
    }
  });

  it('gives the wall clock of a named zone whatever the process zone', () => {
    process.env.TZ = 'America/Los_Angeles';
    const ms = Date.UTC(2026, 10, 22, 3, 4, 5);
    expect(wallClockAt(ms, 'Asia/Kolkata')).toBe('2026-11-22 08:34:05');
    expect(wallClockAt(ms, 'UTC')).toBe('2026-11-22 03:04:05');
    expect(wallClockAt(ms)).toBe('2026-11-21 19:04:05');
  });
});

describe('utcWallClock and shiftWallClock', () => {
  it('reads epoch ms on the UTC calendar, whatever the process zone', () => {
    process.env.TZ = 'Asia/Kolkata';
    expect(utcWallClock(Date.UTC(2026, 0, 31, 23, 59, 59))).toBe('2026-01-31 23:59:59');
    expect(utcWallClock(Date.UTC(2024, 1, 29, 0, 0, 0))).toBe('2024-02-29 00:00:00');
  });

  it('moves a wall clock across a day, a month and a leap day; refuses what is not a log time', () => {
    expect(shiftWallClock('2026-12-31 23:59:30', 45)).toBe('2027-01-01 00:00:15');
    expect(shiftWallClock('2024-03-01 00:00:10', -20)).toBe('2024-02-29 23:59:50');
    expect(() => shiftWallClock('yesterday', 1)).toThrow('not a log time: yesterday');
  });
});
