import { describe, expect, it } from 'vitest';
import type { PushJournal } from '../../src/journal/types.js';
import { ContactBook } from '../../src/sources/adms/contacts.js';
import type { PushTerminal } from '../../src/sources/adms/directory.js';
import type { Logger } from '../../src/util/logger.js';

/**
 * A push terminal's silence is time passing, not the box's wall clock moving: a step of the box
 * clock forward (NTP after a boot at 2000, an admin's date -s) made every push terminal "stopped
 * calling (no contact for 720 h)" and offline, and then "calls again after 720 h of silence"
 * (found by an adversarial trial: a box clock stepped 30 days forward under faketime).
 */
describe('push terminal contacts across a step of the box clock', () => {
  function book() {
    let wall = Date.UTC(2026, 10, 30, 8, 0, 0);
    let mono = 1_000;
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
    const clock = { now: () => wall, elapsed: () => mono };
    const contacts = new ContactBook(journal, clock, logger, () => 120_000);
    const lobby = { cfg: { name: 'lobby', serial: 'SN1' }, allow: null } as unknown as PushTerminal;
    return {
      contacts,
      lobby,
      lines,
      pass: (ms: number, stepMs = 0) => {
        wall += ms + stepMs;
        mono += ms;
      },
    };
  }

  it('a step forward of 30 days is not 30 days of silence', () => {
    const b = book();
    b.contacts.seen(b.lobby, '127.0.0.1');
    b.pass(2_000, 30 * 86_400_000);
    b.contacts.flush();
    expect(b.lines).toEqual([]);
    b.contacts.seen(b.lobby, '127.0.0.1');
    expect(b.lines).toEqual([]);
  });

  it('real silence is still told, in the time that passed, whichever way the clock stepped', () => {
    const b = book();
    b.contacts.seen(b.lobby, '127.0.0.1');
    b.pass(5 * 60_000, -3_600_000); // 5 min pass, the clock stepped back an hour meanwhile
    b.contacts.flush();
    expect(b.lines).toEqual([
      'terminal lobby has stopped calling (no contact for 5 min): check its power and network, and that its Cloud Server Setting names this box',
    ]);
    b.pass(60_000);
    b.contacts.seen(b.lobby, '127.0.0.1');
    expect(b.lines[1]).toBe('terminal lobby calls again (from 127.0.0.1) after 6 min of silence');
  });
});
