/**
 * An HRMS that changes the letter case of a person's code (AB100 becomes ab100), found by a
 * trial: the roster added a second user for the same person, without the fingerprints and card
 * of the first, whose punches kept coming under the old code; --remove-absent then removed the
 * one the person had enrolled on. Now such a code is refused with the reason and the fix, and the
 * user the terminal holds is left alone.
 */
import { describe, expect, it } from 'vitest';
import { planTerminal } from '../../src/roster/plan.js';
import type { RosterEntry, TerminalProfile, TerminalUser } from '../../src/roster/types.js';

const PROFILE: TerminalProfile = {
  nameBytes: 24,
  codeBytes: 24,
  numericCodes: false,
  maxCard: 0xffffffff,
  maxUid: 100,
};
const entry = (code: string, name: string): RosterEntry => ({
  code,
  name,
  card: null,
  active: true,
  where: 'HRMS employee 1',
});
const user = (uid: number, code: string, name: string): TerminalUser => ({ uid, code, name, card: 0, privilege: 0 });

describe('a roster code that differs from a terminal user only in letter case', () => {
  it('is refused, not added as a second user; the user on the terminal is left alone, also with --remove-absent', () => {
    const plan = planTerminal(
      [entry('ab100', 'Ab Case'), entry('1001', 'Jane')],
      [user(1, 'AB100', 'Ab Case'), user(2, '1001', 'Jane')],
      PROFILE,
      { removeAbsent: true, includeAdmins: false, maxRemovals: Infinity },
    );
    expect(plan.changes).toEqual([]);
    expect(plan.refused).toEqual([
      {
        code: 'ab100',
        where: 'HRMS employee 1',
        reason: expect.stringMatching(
          /^this terminal holds AB100 \(uid 1\), the same code in other letters: not added as a second user/,
        ),
      },
    ]);
    expect(plan.kept).toBe(1);
  });

  it('the exact code still wins when the terminal holds both spellings', () => {
    const plan = planTerminal(
      [entry('ab100', 'Ab Case')],
      [user(1, 'AB100', 'Old'), user(2, 'ab100', 'Ab Case')],
      PROFILE,
      {
        removeAbsent: false,
        includeAdmins: false,
        maxRemovals: Infinity,
      },
    );
    expect(plan.refused).toEqual([]);
    expect(plan.kept).toBe(1);
    expect(plan.leftAlone).toBe(1);
  });
});
