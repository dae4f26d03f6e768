import { describe, expect, it } from 'vitest';
import { wallClockToUtc } from '../../src/punch/wall-clock-utc.js';

/** The box's own zone (Europe/Berlin here) never changes what a terminal's zone makes of its punch. */
describe('wallClockToUtc on a box in Europe/Berlin', () => {
  it('reads each terminal in its own zone', () => {
    expect(process.env.TZ).toBe('Europe/Berlin');
    expect(wallClockToUtc('2026-10-25 02:30:00', 'Europe/Berlin')).toBe('2026-10-25 00:30:00');
    expect(wallClockToUtc('2026-03-29 02:30:00', 'Europe/Berlin')).toBe('2026-03-29 01:30:00');
    expect(wallClockToUtc('2026-11-01 01:30:00', 'America/New_York')).toBe('2026-11-01 05:30:00');
    expect(wallClockToUtc('2026-07-01 09:00:00', 'Asia/Kolkata')).toBe('2026-07-01 03:30:00');
    expect(wallClockToUtc('2026-10-25 02:30:00', 'UTC')).toBe('2026-10-25 02:30:00');
  });
});
