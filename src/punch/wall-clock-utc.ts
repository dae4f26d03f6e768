import { wallClockAt } from '../punch.js';

/**
 * A terminal's wall-clock time ('YYYY-MM-DD HH:mm:ss' in IANA zone `zone`) as naive UTC text
 * ('YYYY-MM-DD HH:MM:SS'), as Odoo stores it in hr.attendance (odoo/fields.py Datetime).
 *
 * Two wall-clock readings are not one instant, and the choice is the same as JavaScript's
 * Temporal 'compatible' disambiguation (and Python's fold=0):
 * - the fall-back hour happens twice (02:30 in Europe/Berlin on the last Sunday of October is
 *   00:30 UTC and 01:30 UTC): the FIRST occurrence is taken (summer time, 00:30 UTC). A ZK
 *   terminal cannot say which it meant, and the journal keeps the wall clock only. A pair inside
 *   that hour stays in order only while the out's wall time is later than the in's: in 02:50
 *   summer time and out 02:10 winter time come out reversed (a known limitation, docs/sinks-odoo.md).
 * - the spring-forward hour does not exist (02:30 in Berlin on the last Sunday of March): the
 *   time is read with the offset before the change (winter time, 01:30 UTC, i.e. 03:30 summer
 *   time), as a terminal whose clock had not yet moved would mean it.
 */
export function wallClockToUtc(logTime: string, zone: string): string {
  const wall = pseudoUtc(logTime);
  // Offsets never exceed 14 h, so these two see the offsets on both sides of any change near it.
  const before = offsetAt(wall - 14 * 3600_000, zone);
  const after = offsetAt(wall + 14 * 3600_000, zone);
  const candidates = [wall - before, wall - after].filter((t) => wallClockAt(t, zone) === logTime);
  const t = candidates.length > 0 ? Math.min(...candidates) : wall - before;
  return formatUtc(t);
}

/**
 * A wall-clock time of zone `from` as the wall clock of zone `to` at the same instant (a Frappe
 * site stores check-ins in its own zone). The same zone: the time as it is, untouched (a time in
 * the spring-forward gap or the repeated autumn hour is not moved by a round trip).
 */
export function wallClockInZone(logTime: string, from: string, to: string): string {
  if (from === to) return logTime;
  return wallClockAt(parseUtc(wallClockToUtc(logTime, from)), to);
}

/** Odoo's naive UTC text of instant `ms`. */
export function formatUtc(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** Odoo's naive UTC text as epoch ms. */
export function parseUtc(s: string): number {
  return Date.parse(`${s.replace(' ', 'T')}Z`);
}

function pseudoUtc(logTime: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(logTime);
  if (!m) throw new Error(`not a log time: ${logTime}`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

/** The zone's offset from UTC at instant `ms`, in ms (east positive). */
function offsetAt(ms: number, zone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return pseudoUtc(wallClockAt(whole, zone)) - whole;
}
