/**
 * Properties of the planner (fast-check): applying a plan and planning again changes nothing;
 * administrators are never removed without --include-admins; users the roster does not mention
 * are untouched without --remove-absent; new users get the smallest free uids.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyChanges, isAdministrator, planTerminal, removalLimit, storedCode } from '../../src/roster/plan.js';
import type { RosterEntry, TerminalProfile, TerminalUser } from '../../src/roster/types.js';

const WIDE: TerminalProfile = { nameBytes: 24, codeBytes: 24, numericCodes: false, maxCard: 0xffffffff, maxUid: 65535 };
const NARROW: TerminalProfile = { nameBytes: 8, codeBytes: 24, numericCodes: true, maxCard: 0xffffffff, maxUid: 40 };

const codeArb = fc.oneof(
  fc.integer({ min: 1, max: 40 }).map(String),
  fc.integer({ min: 1, max: 40 }).map((n) => String(n).padStart(3, '0')),
  fc.constantFrom('EMP-1', 'EMP-2', 'x y', 'Ünï'),
);
const nameArb = fc.string({ unit: 'grapheme', maxLength: 30 });
const cardArb = fc.option(fc.integer({ min: 0, max: 0xffffffff }), { nil: null });

const rosterArb = fc.uniqueArray(fc.record({ code: codeArb, name: nameArb, card: cardArb, active: fc.boolean() }), {
  selector: (e) => e.code,
  maxLength: 25,
});

function terminalArb(profile: TerminalProfile) {
  const code = profile.numericCodes ? fc.integer({ min: 1, max: 40 }).map(String) : codeArb;
  return fc
    .uniqueArray(
      fc.record({
        uid: fc.integer({ min: 1, max: profile.maxUid ?? 1 }),
        code,
        name: nameArb.map((n) => n.trim()),
        card: fc.integer({ min: 0, max: 0xffffffff }),
        privilege: fc.constantFrom(0, 0, 0, 1, 2, 6, 14, 15),
      }),
      { selector: (u) => u.uid, maxLength: 25 },
    )
    .map((users) => {
      // A terminal holds a user id once.
      const seen = new Set<string>();
      return users.filter((u) => !seen.has(u.code) && (seen.add(u.code), true)) as TerminalUser[];
    });
}

const caseArb = fc.constantFrom(WIDE, NARROW).chain((profile) =>
  fc.record({
    profile: fc.constant(profile),
    roster: rosterArb.map((rows) => rows.map((r, i): RosterEntry => ({ ...r, where: `roster.csv:${i + 2}` }))),
    current: terminalArb(profile),
    removeAbsent: fc.boolean(),
    includeAdmins: fc.boolean(),
  }),
);

/** No removal limit: the rules other than the limit, on their own. */
const ALL = Infinity;

const key = (code: string, p: TerminalProfile) => {
  const s = storedCode(code, p);
  return 'code' in s ? s.code : `!${code}`;
};

describe('planTerminal (properties)', () => {
  it('applying a plan and planning again changes nothing', () => {
    fc.assert(
      fc.property(caseArb, ({ profile, roster, current, removeAbsent, includeAdmins }) => {
        const opts = { removeAbsent, includeAdmins, maxRemovals: ALL };
        const first = planTerminal(roster, current, profile, opts);
        const after = applyChanges(current, first.changes);
        const second = planTerminal(roster, after, profile, opts);
        expect(second.changes).toEqual([]);
        expect(second.refused).toEqual(first.refused);
      }),
      { numRuns: 400 },
    );
  });

  it('removes only the administrators named with includeAdmins', () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.subarray(['1', '2', '3', '007', 'EMP-1']),
        ({ profile, roster, current, removeAbsent }, named) => {
          const plan = planTerminal(roster, current, profile, {
            removeAbsent,
            includeAdmins: new Set(named),
            maxRemovals: ALL,
          });
          const namedKeys = new Set(named.map((c) => key(c, profile)));
          for (const c of plan.changes) {
            if (c.action === 'remove' && isAdministrator(c.privilege))
              expect(namedKeys.has(key(c.code, profile))).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never removes an administrator without includeAdmins', () => {
    fc.assert(
      fc.property(caseArb, ({ profile, roster, current, removeAbsent }) => {
        const plan = planTerminal(roster, current, profile, { removeAbsent, includeAdmins: false, maxRemovals: ALL });
        for (const c of plan.changes) {
          if (c.action === 'remove') expect(isAdministrator(c.privilege)).toBe(false);
        }
        const admins14 = current.filter((u) => u.privilege === 14).map((u) => u.uid);
        const removed = plan.changes.filter((c) => c.action === 'remove').map((c) => c.uid);
        expect(removed.filter((uid) => admins14.includes(uid))).toEqual([]);
        // and a privilege is never changed by any change
        const after = applyChanges(current, plan.changes);
        for (const u of after) {
          const was = current.find((x) => x.uid === u.uid);
          if (was) expect(u.privilege).toBe(was.privilege);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('leaves users the roster does not mention untouched without removeAbsent', () => {
    fc.assert(
      fc.property(caseArb, ({ profile, roster, current, includeAdmins }) => {
        const plan = planTerminal(roster, current, profile, { removeAbsent: false, includeAdmins, maxRemovals: ALL });
        const mentioned = new Set(roster.map((e) => key(e.code, profile)));
        const strangers = current.filter((u) => !mentioned.has(key(u.code, profile)));
        const touched = new Set(plan.changes.map((c) => c.uid));
        for (const s of strangers) expect(touched.has(s.uid)).toBe(false);
        expect(plan.leftAlone).toBe(strangers.length);
      }),
      { numRuns: 300 },
    );
  });

  it('gives new users the smallest free uids and never one in use', () => {
    fc.assert(
      fc.property(caseArb, ({ profile, roster, current, removeAbsent, includeAdmins }) => {
        const plan = planTerminal(roster, current, profile, { removeAbsent, includeAdmins, maxRemovals: ALL });
        const used = new Set(current.map((u) => u.uid));
        const added = plan.changes.filter((c) => c.action === 'add').map((c) => c.uid as number);
        const expected: number[] = [];
        for (let uid = 1; expected.length < added.length; uid++) if (!used.has(uid)) expected.push(uid);
        expect([...added].sort((a, b) => a - b)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves alone the users of unreadable roster rows, and removes nobody as absent when a bad row has no code', () => {
    fc.assert(
      fc.property(caseArb, fc.boolean(), ({ profile, roster, current, includeAdmins }, unknown) => {
        const guardedCodes = new Set(current.slice(0, 3).map((u) => u.code));
        const rest = roster.filter((e) => !guardedCodes.has(e.code));
        const plan = planTerminal(
          rest,
          current,
          profile,
          { removeAbsent: true, includeAdmins, maxRemovals: ALL },
          { codes: guardedCodes, unknown },
        );
        const guardedUids = new Set(current.slice(0, 3).map((u) => u.uid));
        for (const c of plan.changes) {
          if (c.action === 'remove' && c.reason === 'absent') {
            expect(unknown).toBe(false);
            expect(guardedUids.has(c.uid)).toBe(false);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never removes more than the limit: over it, nobody is removed and the rest of the plan still goes', () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.oneof(fc.constant<'default'>('default'), fc.nat(6)),
        ({ profile, roster, current, removeAbsent, includeAdmins }, maxRemovals) => {
          const opts = { removeAbsent, includeAdmins, maxRemovals };
          const plan = planTerminal(roster, current, profile, opts);
          const unlimited = planTerminal(roster, current, profile, { ...opts, maxRemovals: ALL });
          const limit = removalLimit(maxRemovals, current.length);
          const removals = (p: typeof plan) => p.changes.filter((c) => c.action === 'remove');
          const others = (p: typeof plan) => p.changes.filter((c) => c.action !== 'remove');
          if (removals(unlimited).length > limit) {
            expect(removals(plan)).toEqual([]);
            expect(plan.heldRemovals?.removals).toEqual(removals(unlimited));
          } else {
            expect(plan.heldRemovals).toBeNull();
            expect(removals(plan)).toEqual(removals(unlimited));
          }
          expect(others(plan)).toEqual(others(unlimited));
        },
      ),
      { numRuns: 300 },
    );
  });
});
