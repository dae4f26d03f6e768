import { describe, expect, it } from 'vitest';
import { instantOfWall, wallClockAt } from '../../src/punch.js';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('instantOfWall: a wall clock in a zone as the instant it is', () => {
  it('is the inverse of wallClockAt, in fixed and daylight-saving zones', () => {
    expect(iso(instantOfWall('2026-11-30 08:00:00', 'Asia/Kolkata'))).toBe('2026-11-30T02:30:00.000Z');
    expect(iso(instantOfWall('2026-07-01 12:00:00', 'America/New_York'))).toBe('2026-07-01T16:00:00.000Z');
    expect(iso(instantOfWall('2026-01-01 12:00:00', 'America/New_York'))).toBe('2026-01-01T17:00:00.000Z');
    expect(iso(instantOfWall('2026-07-01 12:00:00', 'UTC'))).toBe('2026-07-01T12:00:00.000Z');
    for (const ms of [Date.UTC(2026, 2, 29, 0, 59, 59), Date.UTC(2026, 9, 25, 2, 0, 0), Date.UTC(2026, 5, 1)])
      expect(instantOfWall(wallClockAt(ms, 'Europe/Berlin'), 'Europe/Berlin')).toBe(ms);
  });

  it('never later than the truth: the earlier of an hour shown twice, the instant before an hour skipped', () => {
    // Berlin: 25 October 2026 the clocks go back at 03:00 (02:30 is shown at 00:30Z and 01:30Z).
    expect(iso(instantOfWall('2026-10-25 02:30:00', 'Europe/Berlin'))).toBe('2026-10-25T00:30:00.000Z');
    // 29 March 2026 they go forward at 02:00: 02:30 is never shown; 01:30Z shows 03:30.
    const skipped = instantOfWall('2026-03-29 02:30:00', 'Europe/Berlin')!;
    expect(skipped).toBeLessThanOrEqual(Date.UTC(2026, 2, 29, 1, 0, 0));
    expect(instantOfWall('2026-13-01 12:00:00', 'UTC')).toBeUndefined();
  });
});
