import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { recordFailedPoll } from '../../src/sources/poll-outcome.js';
import { buildStatus } from '../../src/status/index.js';
import { silentLogger } from '../../src/util/logger.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const MIN = 60_000;
const DAY = 1440 * MIN;
const NOW = Date.UTC(2026, 11, 2, 9, 0, 0);

/**
 * A terminal that cannot be reached since a time the box clock has since been set back from is
 * alerted on after the usual minutes of failed polls on the clock of now (found by an adversarial
 * trial: unreachable while the box ran a year ahead, the clock set right at a restart, and the
 * status said it OFFLINE with no alert, for the year of the step).
 */
describe('a terminal offline since a time ahead of the box clock', () => {
  it('is alerted on after the usual minutes of failed polls on the clock of now', () => {
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
      const fault = { cause: 'no answer from 10.0.0.1:4370', fix: 'check its power and network' };
      const failAt = (journal: Journal, at: number) =>
        recordFailedPoll(journal.terminals, silentLogger(), 'gate-1', { reached: false, startedAt: at, fault });
      // Unreachable while the box clock ran a year ahead; punchgate stops; the clock is set right.
      const ahead = Journal.open({
        path: tmp.path('j.db'),
        site: 'p',
        clock: fakeClock(NOW + 365 * DAY),
        mode: 'owner',
      });
      failAt(ahead, NOW + 365 * DAY);
      ahead.close();
      const clock = fakeClock(NOW);
      const journal = Journal.open({ path: tmp.path('j.db'), site: 'p', clock, mode: 'owner' });
      try {
        for (let m = 0; m <= 6; m++) failAt(journal, NOW + m * MIN);
        clock.advance(6 * MIN);
        const status = buildStatus(journal, config, clock.now(), { freeBytes: null });
        expect(status.terminals[0]).toMatchObject({ online: false, offlineSince: new Date(NOW).toISOString() });
        expect(status.alertItems.map((a) => a.kind)).toContain('terminal-unreachable');
      } finally {
        journal.close();
      }
    } finally {
      tmp.cleanup();
    }
  });
});
