import { describe, expect, it } from 'vitest';
import type { SourceStateEntry, SourceStateStore } from '../../src/journal/types.js';
import * as dahua from '../../src/sources/dahua/auth-gate.js';
import * as hik from '../../src/sources/hikvision/auth-gate.js';
import { HikAuthError } from '../../src/sources/hikvision/errors.js';
import { readStoredRefusal } from '../../src/sources/password-refusals.js';

/**
 * The refused-password ledger Dahua and Hikvision share (src/sources/password-refusals.ts), with
 * each one's own rule: what is kept in the journal's `auth` state, and how long the wait is.
 * The daemon-level tests (test/dahua/daemon.test.ts, test/hikvision/poll.test.ts) prove the
 * words against the simulators; this one pins the stored form, which a restart reads back.
 */
function memoryState(): SourceStateStore & { rows: Map<string, string> } {
  const rows = new Map<string, string>();
  return {
    rows,
    get: (terminal, key) => rows.get(`${terminal}/${key}`),
    set: (e: SourceStateEntry) => void rows.set(`${e.terminal}/${e.key}`, e.value),
  };
}

const AT = Date.UTC(2026, 10, 28, 9, 0, 0);
const MIN = 60_000;

describe('refused passwords, kept in the journal', () => {
  it('Dahua: counts refusals in a row as {at, refusals, locked}; a locked account waits half an hour first', () => {
    const state = memoryState();
    dahua.recordRefusal(state, 'door', false, AT);
    const r = dahua.recordRefusal(state, 'door', true, AT + MIN);
    expect(state.rows.get('door/auth')).toBe(JSON.stringify({ at: AT + MIN, refusals: 2, locked: true }));
    expect(dahua.readRefusal(state, 'door')).toEqual(r);
    // The second refusal doubles the 30 minutes of a locked account.
    expect(dahua.nextTry(r, null, AT + MIN)).toBe(AT + MIN + 60 * MIN);
    // A password file changed since the refusal is tried at once; a wait that is over is "now".
    expect(dahua.nextTry(r, AT + 2 * MIN, AT + 3 * MIN)).toBeUndefined();
    expect(dahua.nextTry(r, null, AT + 2 * 60 * MIN)).toBeUndefined();
    expect(dahua.refusalWords('door', r, undefined, '/etc/pw')).toEqual({
      cause: 'door has locked the account after repeated wrong passwords',
      fix: 'put the right password in /etc/pw (trying again now, or as soon as the file changes); devices lock the account after a few failures, so punchgate waits',
    });
  });

  it('Hikvision: keeps the unlock time and the words; the wait lasts at least until the unlock', () => {
    const state = memoryState();
    const r = hik.recordRefusal(state, 'gate', new HikAuthError('locked', true, 40 * 60), AT);
    expect(state.rows.get('gate/auth')).toBe(
      JSON.stringify({ at: AT, refusals: 1, locked: true, unlockAt: AT + 40 * MIN, message: 'locked' }),
    );
    expect(hik.readRefusal(state, 'gate')).toEqual(r);
    expect(hik.nextAuthTry(r, null, AT)).toBe(AT + 40 * MIN);
    // The box clock stepped back an hour: the unlock is as far ahead of now as it was.
    expect(hik.nextAuthTry(r, null, AT - 60 * MIN)).toBe(AT - 20 * MIN);
    expect(hik.refusalText('gate', { ...r, locked: false }, undefined, AT, { env: 'PW' })).toBe(
      'gate refuses the password: set the right password in PW and restart punchgate (trying again now; devices lock the account after a few failures, so punchgate waits)',
    );
  });

  it('a password that works clears the refusal, once; an unreadable row is no refusal and is cleared too', () => {
    const state = memoryState();
    dahua.recordRefusal(state, 'door', false, AT);
    expect(dahua.clearRefusal(state, 'door')).toBe(true);
    expect(dahua.clearRefusal(state, 'door')).toBe(false);
    expect(state.rows.get('door/auth')).toBe('');
    state.set({ terminal: 'door', key: 'auth', value: '{"at":"soon"' });
    expect(readStoredRefusal(state, 'door')).toBeUndefined();
    expect(hik.readRefusal(state, 'door')).toBeUndefined();
    // Dahua's ledger left such a row in place before it shared Hikvision's; both clear it now.
    expect(dahua.clearRefusal(state, 'door')).toBe(false);
    expect(state.rows.get('door/auth')).toBe('');
  });
});
