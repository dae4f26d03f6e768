import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { ContactBook } from '../../src/sources/adms/contacts.js';
import type { PushTerminal } from '../../src/sources/adms/directory.js';
import { buildStatus } from '../../src/status/index.js';
import type { Logger } from '../../src/util/logger.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const HOUR = 3_600_000;

/**
 * A push terminal that went silent before a step back of the box clock is said offline by the
 * status once its silence passes the limit, as the log says it (found by an adversarial trial:
 * the status judged its last contact, an hour ahead of the stepped clock, as a call still to come,
 * and said it online for the hour of the step; after a restart the log never said it either).
 */
describe('a push terminal silent across a step back of the box clock, in the status', () => {
  function stack() {
    const tmp = tempDir();
    const clock = fakeClock(Date.UTC(2026, 11, 2, 9, 0, 0));
    const journal = Journal.open({ path: tmp.path('j.db'), site: 'p', mode: 'owner', clock });
    const config = parseConfig(
      {
        site: 'p',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com' },
        adms: { listen: '0.0.0.0:8081', delay: 10 },
        terminals: [{ name: 'lobby', kind: 'adms', serial: 'LOBBY1' }],
      },
      tmp.dir,
    );
    const store = new PushStore(journal.db, journal, clock);
    const lines: string[] = [];
    const logger = {
      warn: (_o: unknown, m: string) => lines.push(m),
      info: (_o: unknown, m: string) => lines.push(m),
    } as unknown as Logger;
    const book = () => new ContactBook(store, clock, logger, () => 30_000);
    const lobby = { cfg: { name: 'lobby', serial: 'LOBBY1' }, allow: null } as unknown as PushTerminal;
    const lobbyStatus = () => buildStatus(journal, config, clock.now()).terminals.find((t) => t.name === 'lobby')!;
    return {
      clock,
      book,
      lobby,
      lines,
      lobbyStatus,
      done: () => {
        journal.close();
        tmp.cleanup();
      },
    };
  }

  it('while punchgate runs: offline once silent past the limit, its last contact in the clock of now', () => {
    const s = stack();
    try {
      const contacts = s.book();
      contacts.seen(s.lobby, '192.168.10.7');
      contacts.flush();
      expect(s.lobbyStatus().online).toBe(true);
      s.clock.advance(5_000);
      s.clock.step(-2 * HOUR);
      contacts.flush();
      expect(s.lobbyStatus().online).toBe(true);
      s.clock.advance(40_000);
      contacts.flush();
      expect(s.lines.some((l) => l.startsWith('terminal lobby has stopped calling (no contact for 45 s)'))).toBe(true);
      const lobby = s.lobbyStatus();
      expect(lobby.online).toBe(false);
      // 45 s before now, in the stepped clock's terms.
      expect(Date.parse(lobby.push!.lastContactAt!)).toBe(s.clock.now() - 45_000);
    } finally {
      s.done();
    }
  });

  it('after a restart on a clock stepped back while stopped: offline once silent past the limit from the start', () => {
    const s = stack();
    try {
      const before = s.book();
      before.seen(s.lobby, '192.168.10.7');
      before.flush();
      // punchgate stops; the box clock is set back two hours; punchgate starts again.
      s.clock.step(-2 * HOUR);
      const after = s.book();
      after.load();
      after.flush();
      expect(s.lobbyStatus().online).toBe(true);
      s.clock.advance(40_000);
      after.flush();
      expect(s.lines).toEqual([
        'terminal lobby has stopped calling (no contact for 40 s): check its power and network, and that its Cloud Server Setting names this box',
      ]);
      const lobby = s.lobbyStatus();
      expect(lobby.online).toBe(false);
      expect(Date.parse(lobby.push!.lastContactAt!)).toBeLessThanOrEqual(s.clock.now());
    } finally {
      s.done();
    }
  });
});
