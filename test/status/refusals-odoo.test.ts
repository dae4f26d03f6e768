import { describe, expect, it } from 'vitest';
import { refusalAlerts } from '../../src/status/refusals.js';

/**
 * Found by an integrator's rehearsal (helper C4): Odoo refuses a check-in with the employee's name
 * and the open record's time in its words ("Cannot create new attendance record for Ann Lee, the
 * employee hasn't checked out since Dec 2, 2026, 9:03:50 AM", as the Odoo simulator writes them
 * after Odoo's hr.attendance), so each person made an alert line of their own: 6 lines for 6 people
 * and "N punches refused for 23 other reasons" for the rest, the causes cut off. One line per cause.
 */
describe('refusal alerts of Odoo’s own words', () => {
  const open = (name: string, since: string) =>
    `Cannot create new attendance record for ${name}, the employee hasn't checked out since ${since}`;
  const inside = (name: string, on: string) =>
    `Cannot create new attendance record for ${name}, the employee was already checked in on ${on}`;

  it('are one line per cause, whatever the names and times', () => {
    const people = [
      'Ann Lee',
      'Bo Chen',
      'Chidi Okafor',
      'Dana Weiß',
      'Eli Cohen',
      'Femi Ade',
      'Gita Rao',
      'Hugo Díaz',
    ];
    const rows = [
      ...people.map((name, i) => ({
        message: open(name, `Dec 2, 2026, 9:0${i}:50 AM`),
        code: `10${i}`,
        state: 'rejected' as const,
        count: 2,
      })),
      ...people.slice(0, 3).map((name, i) => ({
        message: inside(name, `11/25/2026 08:0${i}:00`),
        code: `10${i}`,
        state: 'rejected' as const,
        count: 1,
      })),
    ];
    const alerts = refusalAlerts(rows, 'odoo');
    expect(alerts.map((a) => a.cause)).toEqual([
      'sink odoo: 16 punches refused: Odoo still has an attendance of the employee open ("hasn\'t checked out since") for codes 100, 101, 102, 103, 104 and 3 more',
      'sink odoo: 3 punches refused: the punch falls inside an attendance Odoo already has ("was already checked in on") for codes 100, 101 and 102',
    ]);
    expect(alerts[0]!.fix).toMatch(/^close their open attendance in Odoo/);
  });

  /**
   * A new-user trial (F6) followed sinks-odoo.md's rehearsal with a Security PUSH simulator: its
   * people press out with no in before it, and Odoo's "no open attendance in Odoo to close" came as
   * 'the HRMS said "..."', fix "correct what it says in the HRMS": no word of what to correct, nor
   * of direction: alternate, which its sister refusal names.
   */
  it('say what to do about a check-out with no open attendance', () => {
    const rows = ['1002', '1003'].map((code, i) => ({
      message: `a check-out at 2026-12-02 15:5${i}:27 UTC, but the employee has no open attendance in Odoo to close`,
      code,
      state: 'rejected' as const,
      count: 1,
    }));
    const [alert, ...more] = refusalAlerts(rows);
    expect(more).toEqual([]);
    expect(alert!.cause).toBe(
      '2 punches refused: a check-out with no open attendance in Odoo to close (its check-in never punched, or refused) for codes 1002 and 1003',
    );
    expect(alert!.fix).toMatch(
      /^add the missing check-ins in Odoo; where people do not press the check-in and check-out keys, set the terminal's direction: alternate \(docs\/direction\.md\), then `punchgate punches retry`$/,
    );
  });
});
