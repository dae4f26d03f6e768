import { describe, expect, it } from 'vitest';
import type { PushJournal } from '../../src/journal/types.js';
import { ContactBook } from '../../src/sources/adms/contacts.js';
import type { PushTerminal } from '../../src/sources/adms/directory.js';
import type { Logger } from '../../src/util/logger.js';
import { fakeClock } from '../helpers/tmp.js';

/**
 * A push terminal that polls a little less often than the offline limit goes silent and calls
 * again every few minutes, forever: it wrote two log lines each time (found by a long-life trial:
 * ~2,000 lines in 20 h of a fast clock, enough for journald's rate limit to drop other lines).
 * Now at most 6 such lines an hour per terminal, the rest counted in the next line; a real
 * outage after a flapping hour is still said.
 */
describe('a push terminal that keeps going silent and calling again', () => {
  const LIMIT_MS = 120_000;
  function book() {
    const clock = fakeClock();
    const lines: string[] = [];
    const logger = {
      warn: (_o: unknown, m: string) => lines.push(m),
      info: (_o: unknown, m: string) => lines.push(m),
    } as unknown as Logger;
    const journal = {
      pushTerminals: () => [],
      recordRefusals: () => undefined,
      recordContacts: () => undefined,
    } as unknown as PushJournal;
    const contacts = new ContactBook(journal, clock, logger, () => LIMIT_MS);
    const lobby = { cfg: { name: 'lobby', serial: 'SN1' }, allow: null } as unknown as PushTerminal;
    return { contacts, lobby, lines, clock };
  }

  it('writes a bounded number of lines a day, and still says a real outage after flapping', () => {
    const b = book();
    const hours = 24;
    // A day of flapping: silent 3 min (past the 2 min limit), then calling, every 4 min.
    for (let i = 0; i < (hours * 60) / 4; i++) {
      b.contacts.seen(b.lobby, '127.0.0.1');
      for (let m = 0; m < 3; m++) {
        b.clock.advance(60_000);
        b.contacts.flush();
      }
      b.clock.advance(60_000);
    }
    expect(b.lines.length).toBeLessThanOrEqual(6 * (hours + 1));
    expect(b.lines.some((l) => /more changes between silent and calling since the last such line/.test(l))).toBe(true);

    // Then it dies for real: said within the hour, with how long it has been silent.
    b.contacts.seen(b.lobby, '127.0.0.1');
    const before = b.lines.length;
    for (let m = 0; m < 65; m++) {
      b.clock.advance(60_000);
      b.contacts.flush();
    }
    const said = b.lines.slice(before).filter((l) => l.startsWith('terminal lobby has stopped calling'));
    expect(said).toHaveLength(1);
  });
});
