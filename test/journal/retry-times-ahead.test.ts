import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import type { Logger } from '../../src/util/logger.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 11, 2, 9, 0, 0);
const punch = { terminal: 'gate-1', biometricCode: '7', logTime: '2026-12-02 08:00:00' };

/**
 * A punch the HRMS refused while the box clock was a year ahead, the clock set right while no
 * punchgate ran: its next attempt is within delivery.rejectedRetry.maxMs of the next start, and
 * deadAfterDays counts from that start, not from a year ahead (found by an adversarial trial: it
 * waited a year for its next attempt, and the status said nothing of it).
 */
describe('refused punches whose retry times a box clock set back left a year ahead', () => {
  it('are tried again within rejectedRetry.maxMs of the next start, and given up by the days they waited since', () => {
    const tmp = tempDir();
    try {
      const open = (clock: ReturnType<typeof fakeClock>, lines: string[] = []) =>
        Journal.open({
          path: tmp.path('journal.db'),
          site: 'plant-a',
          clock,
          mode: 'owner',
          deadAfterAttempts: 100,
          deadAfterDays: 30,
          logger: { warn: (_o: unknown, m: string) => lines.push(m) } as unknown as Logger,
        });
      const ahead = open(fakeClock(NOW + 365 * DAY));
      ahead.ingest([punch]);
      const [p] = ahead.claim(1);
      ahead.settle([{ id: p!.id, kind: 'rejected', message: 'Employee not found' }]);
      ahead.close();

      const clock = fakeClock(NOW);
      const lines: string[] = [];
      const j = open(clock, lines);
      try {
        expect(lines).toEqual([
          '1 refused punch was to be tried again more than delivery.rejectedRetry.maxMs (1440 min) from now: the box clock was ahead when the HRMS refused them and was set back while punchgate was stopped; tried again within that time now',
        ]);
        expect(j.claim(1)).toEqual([]);
        clock.advance(DAY);
        const [again] = j.claim(1);
        expect(again?.id).toBe(p!.id);
        j.settle([{ id: again!.id, kind: 'rejected', message: 'Employee not found' }]);
        // 31 days after the start, and refused once more: given up, as deadAfterDays says.
        clock.advance(30 * DAY);
        const [last] = j.claim(1);
        expect(last?.id).toBe(p!.id);
        j.settle([{ id: last!.id, kind: 'rejected', message: 'Employee not found' }]);
        expect(j.counts()).toMatchObject({ rejected: 0, dead: 1 });
      } finally {
        j.close();
      }
    } finally {
      tmp.cleanup();
    }
  });
});
