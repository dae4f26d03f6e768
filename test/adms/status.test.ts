import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';
import { checkAdmsTerminal, readPushState } from '../../src/check/adms-check.js';
import type { AdmsTerminalConfig } from '../../src/config/terminals.js';

const MIN = 60_000;

describe('push terminals in the status', () => {
  it('shows last contact and upload, judges online now, and alerts on silence, kept lines and strangers', () => {
    const tmp = tempDir();
    const clock = fakeClock(Date.UTC(2026, 10, 22, 9, 0, 0));
    const journal = Journal.open({ path: tmp.path('j.db'), site: 'p', mode: 'owner', clock });
    try {
      const config = parseConfig(
        {
          site: 'p',
          journal: { path: tmp.path('j.db') },
          hrms: { baseUrl: 'https://hr.example.com' },
          adms: { listen: '0.0.0.0:8081', delay: 10 },
          terminals: [
            { name: 'lobby', kind: 'adms', serial: 'LOBBY1' },
            { name: 'new', kind: 'adms', serial: 'NEW1' },
          ],
        },
        tmp.dir,
      );
      const store = new PushStore(journal.db, journal, clock);
      const at = clock.now();
      store.commitPunches([
        {
          upload: { terminal: 'lobby', serial: 'LOBBY1', table: 'ATTLOG', stamp: '9', at },
          punches: [{ terminal: 'lobby', device: 'LOBBY1', biometricCode: '1', logTime: '2026-11-22 08:59:00' }],
          malformed: { count: 2, first: 'line 3: no tab between the fields' },
          extra: {
            kept: [{ table: 'ATTLOG', reason: 'line 3: no tab between the fields', body: 'a b\nc d', lines: 2 }],
          },
        },
      ]);
      store.recordContacts([
        {
          terminal: 'lobby',
          serial: 'LOBBY1',
          lastContactAt: at,
          address: '192.168.10.7',
          online: true,
          offlineSince: null,
          firmware: 'Ver 8.0.4',
        },
      ]);
      store.recordRefusals([
        {
          serial: 'STRANGER',
          address: '192.168.10.99',
          reason: 'unknown',
          terminal: null,
          firstSeenAt: at,
          lastSeenAt: at,
          count: 3,
        },
        // A serial that is configured by now: no longer news.
        {
          serial: 'NEW1',
          address: '192.168.10.98',
          reason: 'unknown',
          terminal: null,
          firstSeenAt: at,
          lastSeenAt: at,
          count: 1,
        },
      ]);

      const now = buildStatus(journal, config, clock.now());
      const lobby = now.terminals.find((t) => t.name === 'lobby')!;
      expect(lobby).toMatchObject({ kind: 'adms', online: true, serial: 'LOBBY1', firmware: 'Ver 8.0.4' });
      expect(lobby.push).toMatchObject({ received: 1, malformed: 2, address: '192.168.10.7' });
      expect(now.pushRefusals!.map((r) => r.serial)).toEqual(['STRANGER']);
      const text = formatStatus(now);
      expect(text).toContain(
        'lobby            online   last contact 2026-11-22 09:00:00 +00:00  last upload 2026-11-22 09:00:00 +00:00  received 1  firmware Ver 8.0.4',
      );
      expect(text).toContain('new              no contact yet (push, SN=NEW1)');
      expect(text).toContain(
        '! terminal SN=STRANGER is pushing but is not configured (from 192.168.10.99, last 2026-11-22 09:00:00 +00:00): add it to terminals with kind: adms and serial: STRANGER, then reload',
      );
      // Read from the journal of a stopped daemon: nothing is pushing now; said in the past, with when.
      const daemon = { running: false, statusLogAt: clock.now(), stale: true };
      const stoppedText = formatStatus(buildStatus(journal, config, clock.now(), { daemon }));
      expect(stoppedText).toContain(
        '! terminal SN=STRANGER was pushing but is not configured (from 192.168.10.99, last seen 2026-11-22 09:00:00 +00:00, before punchgate run stopped)',
      );
      expect(stoppedText).not.toContain('is pushing');
      expect(text).toContain(
        '! terminal lobby: 1 ATTLOG upload(s) answered OK could not be turned into punches (2 lines in all, last 2026-11-22 09:00:00 +00:00: line 3: no tab between the fields): 1 kept raw in the journal: update the terminal firmware or punchgate, then run punchgate terminals reparse lobby',
      );

      // check says the kept uploads in the status's very words, with the fix (it passed meanwhile).
      const kept = now.alertItems.find((a) => a.kind === 'push-kept')!;
      const seen = readPushState(tmp.path('j.db'), clock.now());
      const checked = checkAdmsTerminal(config.terminals[0] as AdmsTerminalConfig, {
        adms: config.adms,
        push: seen.terminals.get('lobby'),
        kept: seen.kept,
        now: clock.now(),
      });
      expect(checked).toMatchObject({ status: 'warn', name: 'terminal lobby', detail: kept.cause, fix: kept.fix });

      // Silent for 12 minutes: offline, judged now (the daemon may not be running to say so).
      clock.advance(12 * MIN);
      const later = buildStatus(journal, config, clock.now());
      expect(later.terminals.find((t) => t.name === 'lobby')!.online).toBe(false);
      // In the words of check: the cause, then the fix.
      expect(later.alertItems.find((a) => a.kind === 'push-silent')).toEqual({
        kind: 'push-silent',
        cause:
          'terminal lobby has not pushed for 12 min (last contact 2026-11-22 09:00:00 +00:00 from 192.168.10.7): its punches wait on the terminal',
        fix: "check its power and network, and that its Cloud Server Setting names this box's address and adms.listen port",
      });
      expect(formatStatus(later)).toContain('lobby            OFFLINE  last contact 2026-11-22 09:00:00 +00:00');
    } finally {
      journal.close();
      tmp.cleanup();
    }
  });
});
