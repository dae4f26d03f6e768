import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { DeliveryHealth } from '../../src/delivery/health.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { silentLogger } from '../../src/util/logger.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const NOW = Date.UTC(2026, 11, 2, 6, 22, 57);

/**
 * `punchgate status` takes delivery's next try from the daemon's status.json, written every
 * status.intervalMs. While the HRMS is down the daemon asks it every few seconds, so the time
 * written there has often passed when an admin reads it: a new admin's trial read
 * "last error 06:22:54 ... next try 06:22:50" at 06:22:57, a next try before the last error.
 */
describe('delivery failing: the next try in `punchgate status`', () => {
  const failingSite = (live: { nextTryAt: number | null; probing: boolean }) => {
    const tmp = tempDir();
    const config = parseConfig(
      {
        site: 'p',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' },
        terminals: [{ name: 'gate-1', kind: 'zk', host: '10.0.0.1' }],
      },
      tmp.dir,
    );
    const clock = fakeClock(NOW - 5 * 60_000);
    const journal = Journal.open({ path: tmp.path('j.db'), site: 'p', clock, mode: 'owner' });
    try {
      const health = new DeliveryHealth(journal.deliveryStateOf(undefined), silentLogger(), clock);
      health.transient('connect ECONNREFUSED 127.0.0.1:9', '77 not delivered: temporary failure', 5000);
      clock.advance(5 * 60_000 - 3000);
      health.transient('connect ECONNREFUSED 127.0.0.1:9', '77 not delivered: temporary failure', 5000);
      const r = buildStatus(journal, config, NOW, {
        freeBytes: null,
        live: { journalBusySince: null, heldPunches: 0, delivery: live },
      });
      return formatStatus(r)
        .split('\n')
        .find((l) => l.startsWith('  failing since'))!;
    } finally {
      journal.close();
      tmp.cleanup();
    }
  };

  it('says a next try the daemon wrote that has passed as due now, and that the HRMS is probed meanwhile', () => {
    const line = failingSite({ nextTryAt: NOW - 7000, probing: true });
    expect(line).toMatch(
      /: next try due now \(the HRMS is asked every few seconds meanwhile\); to try now: sudo -u punchgate punchgate flush$/,
    );
  });

  it('gives a next try still ahead with its time, and says probing only when the daemon said so', () => {
    const ahead = failingSite({ nextTryAt: NOW + 170_000, probing: false });
    expect(ahead).toMatch(/: next try 2026-12-02 06:25:47 [+-]\d\d:\d\d; to try now:/);
    expect(ahead).not.toContain('asked every few seconds');
  });
});
