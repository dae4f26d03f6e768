import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * Found by a new site admin's first day: lobby's serial retyped in the config one digit short
 * (A1PUSH00001 for A1PUSH000001). The alert named the typo, but lobby's own line under the
 * terminals said "it has not called this box yet: check its power and network, and that its Cloud
 * Server Setting names this box's address", while the terminal called every few seconds.
 */
describe('a push terminal whose serial in the config is nearly the one pushing: its own line', () => {
  it('says the nearly-same serial that calls, and the serial to correct, not its power and network', () => {
    const tmp = tempDir();
    const clock = fakeClock(Date.UTC(2026, 11, 2, 3, 0, 0));
    const journal = Journal.open({ path: tmp.path('j.db'), site: 'p', mode: 'owner', clock });
    try {
      const config = parseConfig(
        {
          site: 'p',
          journal: { path: tmp.path('j.db') },
          hrms: { baseUrl: 'https://hr.example.com' },
          adms: { listen: '127.0.0.1:8081', delay: 10 },
          terminals: [
            { name: 'lobby', kind: 'adms', serial: 'A1PUSH00001' },
            { name: 'door', kind: 'adms', serial: 'DOOR0001' },
          ],
        },
        tmp.dir,
      );
      const at = clock.now();
      new PushStore(journal.db, journal, clock).recordRefusals([
        {
          serial: 'A1PUSH000001',
          address: '127.0.0.1',
          reason: 'unknown',
          terminal: null,
          firstSeenAt: at,
          lastSeenAt: at,
          count: 9,
        },
      ]);
      clock.advance(10 * 60_000);
      const r = buildStatus(journal, config, clock.now());
      const lobby = r.terminals.find((t) => t.name === 'lobby')!;
      expect(lobby.problem).toMatchObject({
        cause:
          'it has not called this box as A1PUSH00001, but SN=A1PUSH000001 calls from 127.0.0.1 (nearly the same: a typo?)',
        fix: 'if that is this terminal, correct its serial in the config to A1PUSH000001 (System Info on the terminal shows it), then reload',
      });
      expect(formatStatus(r)).toContain(
        '    lobby: it has not called this box as A1PUSH00001, but SN=A1PUSH000001 calls',
      );
      // Another terminal silent with no near serial pushing: its power and network, as before.
      expect(r.terminals.find((t) => t.name === 'door')!.problem?.fix).toContain('check its power and network');
    } finally {
      journal.close();
      tmp.cleanup();
    }
  });
});
