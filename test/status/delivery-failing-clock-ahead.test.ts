import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { DeliveryHealth } from '../../src/delivery/health.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus } from '../../src/status/index.js';
import { silentLogger } from '../../src/util/logger.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const MIN = 60_000;
const DAY = 1440 * MIN;
const NOW = Date.UTC(2026, 11, 2, 9, 0, 0);

/**
 * Delivery failing since a time the box clock has since been set back from is alerted on after
 * delivery.alertAfterMinutes of failing on the clock of now (found by an adversarial trial: the
 * box a year ahead when the HRMS began to fail, set right while punchgate was stopped, and no
 * "delivery failing" alert came, for a year, while every batch failed).
 */
describe('delivery failing since a time ahead of the box clock', () => {
  it('is alerted on after alertAfterMinutes of failures on the clock of now', () => {
    const tmp = tempDir();
    try {
      const config = parseConfig(
        {
          site: 'p',
          journal: { path: tmp.path('j.db') },
          hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' },
          terminals: [{ name: 'gate-1', kind: 'zk', host: '10.0.0.1' }],
        },
        tmp.dir,
      );
      const fail = (clock: ReturnType<typeof fakeClock>) => {
        const journal = Journal.open({ path: tmp.path('j.db'), site: 'p', clock, mode: 'owner' });
        new DeliveryHealth(journal.deliveryStateOf(undefined), silentLogger(), clock).transient(
          'HTTP 503 Service Unavailable',
          '3 not delivered: temporary failure',
          5000,
        );
        return journal;
      };
      // The HRMS fails while the box clock is a year ahead; punchgate stops; the clock is set right.
      fail(fakeClock(NOW + 365 * DAY)).close();
      const clock = fakeClock(NOW);
      fail(clock).close();
      clock.advance(11 * MIN);
      const journal = fail(clock);
      try {
        const status = buildStatus(journal, config, clock.now(), { freeBytes: null });
        expect(status.alertItems.map((a) => a.kind)).toContain('delivery-failing');
        expect(status.delivery.failingSince).toBe(new Date(NOW).toISOString());
      } finally {
        journal.close();
      }
    } finally {
      tmp.cleanup();
    }
  });
});
