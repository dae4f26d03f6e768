import { describe, expect, it } from 'vitest';
import { checkPushRefusals, readPushState } from '../../src/check/adms-check.js';
import { parseConfig } from '../../src/config/load.js';
import type { AdmsTerminalConfig } from '../../src/config/terminals.js';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { buildStatus } from '../../src/status/index.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * Read from a stopped daemon's journal, nothing is pushing now. The one-serial alerts said so in
 * the past with when; the summaries (many unknown serials, one serial from many addresses outside
 * its allowFrom) and `check` still said "are pushing". They say the past too, with the time last seen.
 */
describe('push refusal summaries read from a stopped daemon', () => {
  it('say the past, with the time last seen, in the status and in check', () => {
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
          terminals: [{ name: 'lobby', kind: 'adms', serial: 'LOBBY1', allowFrom: ['192.168.10.7'] }],
        },
        tmp.dir,
      );
      const store = new PushStore(journal.db, journal, clock);
      const at = clock.now();
      const row = (serial: string, address: string, reason: 'unknown' | 'address') => ({
        serial,
        address,
        reason,
        terminal: reason === 'address' ? 'lobby' : null,
        firstSeenAt: at - 60_000,
        lastSeenAt: at,
        count: 2,
      });
      store.recordRefusals([
        ...['A1', 'A2', 'A3', 'A4', 'A5'].map((s) => row(s, '192.168.10.50', 'unknown')),
        row('LOBBY1', '192.168.10.60', 'address'),
        row('LOBBY1', '192.168.10.61', 'address'),
      ]);
      clock.advance(5 * 60_000);
      const daemon = { running: false, statusLogAt: at, stale: true };
      const stopped = buildStatus(journal, config, clock.now(), { daemon });
      const many = stopped.alertItems.find((a) => a.kind === 'push-unknown-many')!;
      const spoof = stopped.alertItems.find((a) => a.kind === 'push-address')!;
      expect(many.cause).toMatch(
        /^5 unknown serials were pushing \(10 requests refused, from 192\.168\.10\.50; e\.g\. SN=A\d, SN=A\d, SN=A\d; last seen 2026-11-22 09:00:00 \+00:00, before punchgate run stopped\)/,
      );
      expect(spoof.cause).toContain(
        'terminal SN=LOBBY1 (lobby) was pushing from 2 addresses outside its allowFrom (4 requests refused, e.g. 192.168.10.60, 192.168.10.61; last seen 2026-11-22 09:00:00 +00:00, before punchgate run stopped)',
      );
      for (const a of stopped.alertItems) expect(a.cause).not.toMatch(/\b(is|are) pushing|serials pushing/);

      // Running: the present, with the time last seen.
      const running = buildStatus(journal, config, clock.now(), { daemon: { ...daemon, running: true } });
      expect(running.alertItems.find((a) => a.kind === 'push-unknown-many')!.cause).toMatch(
        /^5 unknown serials are pushing \(.*; last 2026-11-22 09:00:00 \+00:00\)/,
      );

      // check, reading the same journal with the daemon stopped, says what the status says.
      const seen = readPushState(tmp.path('j.db'), clock.now());
      const checked = checkPushRefusals(seen.refusals, config.terminals as AdmsTerminalConfig[], true);
      expect(checked.map((c) => c.detail).sort()).toEqual([many.cause, spoof.cause].sort());
    } finally {
      journal.close();
      tmp.cleanup();
    }
  });
});
