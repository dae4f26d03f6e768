import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { checkAdmsTerminal, readPushState } from '../../src/check/adms-check.js';
import { tempDir } from '../helpers/tmp.js';

describe('punchgate check on a push terminal when the journal cannot be read', () => {
  const tmp = tempDir('punchgate-push-unreadable-');
  afterEach(() => tmp.cleanup());

  it('says it cannot tell, never "no contact yet" over a terminal the daemon hears', () => {
    // A check run as a user without rights on the journal said "no contact yet" while punchgate
    // run was receiving the terminal's punches (a new-admin trial): it could not read what it saw.
    const path = tmp.path('journal.db');
    writeFileSync(path, 'this is not a database, as a file this user cannot open reads\n'.repeat(20));
    const push = readPushState(path, Date.now());
    expect(push.unreadable).toBe(true);
    const r = checkAdmsTerminal(
      { name: 'push1', kind: 'adms', serial: 'CPUSH0001' } as Parameters<typeof checkAdmsTerminal>[0],
      { adms: undefined, push: push.terminals.get('push1'), unreadable: push.unreadable, now: Date.now() },
    );
    expect(r.status).toBe('warn');
    expect(r.detail).toBe(
      'cannot tell whether the push terminal SN=CPUSH0001 has called: this user cannot read the journal',
    );
    expect(r.fix).toMatch(/^run the check as the service user: sudo -u punchgate punchgate check/);
    expect(r.detail).not.toMatch(/no contact/);
  });

  it('a journal that does not exist yet is no contact yet, as before', () => {
    const push = readPushState(tmp.path('none.db'), Date.now());
    expect(push.unreadable).toBe(false);
  });
});
