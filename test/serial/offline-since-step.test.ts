import { describe, expect, it } from 'vitest';
import { SerialStats } from '../../src/sources/serial/status.js';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 11, 2, 9, 0, 0);

/**
 * A serial reader gone since before a step back of the box clock is offline since no later than
 * its latest failed open: the status's alert comes after its usual minutes on the clock of now
 * (found by an adversarial trial: the time stayed an hour ahead of the box, and the alert away).
 */
describe('a serial reader gone across a step back of the box clock', () => {
  it('is offline since no later than its latest failed open', () => {
    const stats = new SerialStats('gate-serial', '/dev/ttyUSB0');
    stats.markOpened(T - HOUR);
    stats.markLost(T, 'the device was unplugged');
    expect(stats.snapshot(0).offlineSince).toBe(T);
    // The clock steps back an hour; the next tries to open it fail on the clock of now.
    stats.markOpenFailed(T - HOUR + 5_000, 'ENOENT', null);
    expect(stats.snapshot(0).offlineSince).toBe(T - HOUR + 5_000);
    stats.markOpenFailed(T - HOUR + 65_000, 'ENOENT', null);
    expect(stats.snapshot(0).offlineSince).toBe(T - HOUR + 5_000);
  });
});
