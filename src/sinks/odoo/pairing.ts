import type { Direction } from '../types.js';
import { parseUtc } from '../../punch/wall-clock-utc.js';

/** An hr.attendance record as read back (check_out false while open). */
export interface Attendance {
  id: number;
  checkIn: string;
  checkOut: string | null;
  /**
   * Closed by Odoo's automatic check-out (out_mode 'auto_check_out', Odoo 18+: the
   * _cron_auto_check_out of addons/hr_attendance/models/hr_attendance.py closes a record open past
   * the schedule and its tolerance, or at a company's set time): Odoo's guess, not a punch.
   */
  autoCheckOut?: boolean;
}

/** What one punch does to an employee's attendances. */
export type PairStep =
  /** Already in Odoo (a punch sent again after a crash, or by a replaced box): nothing to write. */
  | { kind: 'already'; id: number; as: 'check-in' | 'check-out' }
  | { kind: 'open' }
  /** `replaces`: the check-out Odoo's automatic check-out wrote, which this punch corrects. */
  | { kind: 'close'; id: number; replaces?: string }
  /** Nothing sensible to write; our words, the punch is refused. */
  | { kind: 'refuse'; message: string };

/**
 * The one decision of the Odoo sink, from the employee's records around the punch (UTC `at`).
 * - A record whose check_in or check_out is this very time holds the punch already: idempotence
 *   (a crash after Odoo wrote, a replayed journal) costs no second record.
 * - `in` opens a record. If one is open, Odoo refuses it with its own words ("... hasn't checked
 *   out since ..."): we let Odoo say it rather than guess its phrasing.
 * - `out` closes the open record begun before it and at most `longestShiftMs` ago; with none, or
 *   one begun longer ago (a forgotten check-out), the punch is refused.
 * - no direction: alternate. The open record begun before it and at most `longestShiftMs` ago is
 *   closed (an overnight shift stays one record); otherwise a new record opens.
 * Odoo checks every write against overlaps (hr_attendance._check_validity), so a punch that falls
 * inside a closed record is refused by Odoo, never written as a crossed pair.
 */
export function pairStep(
  records: readonly Attendance[],
  at: string,
  direction: Direction | undefined,
  longestShiftMs: number,
): PairStep {
  for (const r of records) {
    if (r.checkIn === at) return { kind: 'already', id: r.id, as: 'check-in' };
    if (r.checkOut === at) return { kind: 'already', id: r.id, as: 'check-out' };
  }
  const t = parseUtc(at);
  // Odoo allows one open record per employee; the latest is the one that counts if there are more.
  const open = [...records]
    .filter((r) => r.checkOut === null)
    .sort((a, b) => parseUtc(b.checkIn) - parseUtc(a.checkIn))[0];
  const openBefore = open && parseUtc(open.checkIn) < t ? open : undefined;
  if (direction === 'in') return { kind: 'open' };
  // Odoo 18+ closes a record left open past the schedule itself (automatic check-out) at a time
  // of its own. The employee's real check-out, delivered after the cron ran (a terminal offline,
  // a backlog, or simply a long day), is that record's check-out: it replaces Odoo's guess. Sent
  // as before, an alternating punch opened a record of its own (closed by the next morning's
  // punch: a night of attendance, every later pair shifted) and an `out` punch was refused.
  if (!openBefore) {
    const latest = [...records]
      .filter((r) => parseUtc(r.checkIn) < t)
      .sort((a, b) => parseUtc(b.checkIn) - parseUtc(a.checkIn))[0];
    if (latest?.autoCheckOut && latest.checkOut !== null && t - parseUtc(latest.checkIn) <= longestShiftMs)
      return { kind: 'close', id: latest.id, replaces: latest.checkOut };
  }
  if (direction === 'out') {
    if (openBefore && t - parseUtc(openBefore.checkIn) <= longestShiftMs) return { kind: 'close', id: openBefore.id };
    // Closed, a record left open days ago (a forgotten check-out, and this shift's check-in never
    // punched) would become one attendance of days, for good: refused, for someone to correct.
    if (openBefore)
      return {
        kind: 'refuse',
        message:
          `a check-out at ${at} UTC, but the employee's open attendance in Odoo began at ${openBefore.checkIn} UTC, ` +
          `more than longestShiftHours (${longestShiftMs / 3_600_000}) earlier (a forgotten check-out): not closed; ` +
          "close that attendance in Odoo (and add this shift's check-in), then run punchgate punches retry",
      };
    return {
      kind: 'refuse',
      message: open
        ? `a check-out at ${at} UTC, but the employee's open attendance in Odoo began later (${open.checkIn} UTC): not paired`
        : `a check-out at ${at} UTC, but the employee has no open attendance in Odoo to close`,
    };
  }
  if (openBefore && t - parseUtc(openBefore.checkIn) <= longestShiftMs) return { kind: 'close', id: openBefore.id };
  return { kind: 'open' };
}
