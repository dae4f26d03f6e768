import { describe, expect, it } from 'vitest';
import { latestWallClockUpTo } from '../../src/journal/latest-wall-clock.js';

/**
 * The latest wall clock shown up to an instant, for the future judge: on the night the clocks fall
 * back it is the last second before the change, in a terminal's zone and in the box's own (Europe/Berlin here).
 */
describe('latestWallClockUpTo on a box in Europe/Berlin', () => {
  const at = (iso: string) => Date.parse(iso);

  it('the hour after the clocks fall back: the last second of summer time', () => {
    expect(process.env.TZ).toBe('Europe/Berlin');
    // 02:05 winter time (01:05 UTC): 02:59:59 summer time was shown a few minutes before.
    for (const zone of ['Europe/Berlin', undefined]) {
      expect(latestWallClockUpTo(at('2026-10-25T01:05:00Z'), zone)).toBe('2026-10-25 02:59:59');
      // Once the wall clock is past it again, the wall clock itself.
      expect(latestWallClockUpTo(at('2026-10-25T02:30:00Z'), zone)).toBe('2026-10-25 03:30:00');
      // Any other time, and the night the clocks spring forward: the wall clock itself.
      expect(latestWallClockUpTo(at('2026-11-22T12:00:00Z'), zone)).toBe('2026-11-22 13:00:00');
      expect(latestWallClockUpTo(at('2026-03-29T01:05:00Z'), zone)).toBe('2026-03-29 03:05:00');
    }
    // A zone of its own, and one with no DST.
    expect(latestWallClockUpTo(at('2026-11-01T06:10:00Z'), 'America/New_York')).toBe('2026-11-01 01:59:59');
    expect(latestWallClockUpTo(at('2026-10-25T01:05:00Z'), 'Asia/Kolkata')).toBe('2026-10-25 06:35:00');
  });
});
