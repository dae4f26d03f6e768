import type { Database } from 'better-sqlite3';
import { REFUSED_TERM } from './state-terms.js';

/**
 * Refused punches' retry times brought back within reach at a start: a next attempt at most
 * `maxMs` (delivery.rejectedRetry.maxMs) from now, a first refusal no later than now, in every
 * sink's queue. Both are wall-clock times; the daemon moves them with a step of the box clock it
 * sees (Journal.clockStepped), but not with one made while no punchgate ran: a box whose clock
 * was a year ahead refused a punch, was stopped, set right and started again, and the punch
 * waited a year for its next attempt (and deadAfterDays counted from a year ahead), though no
 * retry is ever planned further than `maxMs` away (found by an adversarial trial). Returns how
 * many next attempts were brought forward; one transaction.
 *
 * Only refused rows are read, through the refused punches' index (punches_refused, state first):
 * a start after an outage may have a million punches pending, and reading each of them at every
 * start cost about a second (and met a damaged page among them before the status log was up).
 * The other sinks' queues have no such index; their refused rows are found through their queue.
 */
export function bringRetryTimesWithinReach(db: Database, now: number, maxMs: number): number {
  const latest = now + maxMs;
  let moved = 0;
  db.transaction(() => {
    moved += db
      .prepare(
        `UPDATE punches SET next_attempt_at = @latest
         WHERE ${REFUSED_TERM} AND state = 'rejected' AND next_attempt_at > @latest`,
      )
      .run({ latest }).changes;
    db.prepare(
      `UPDATE punches SET first_rejected_at = @now
       WHERE ${REFUSED_TERM} AND state = 'rejected' AND first_rejected_at > @now`,
    ).run({ now });
    moved += db
      .prepare(
        `UPDATE sink_deliveries SET next_attempt_at = @latest
         WHERE state IN ('pending', 'rejected') AND state = 'rejected' AND next_attempt_at > @latest`,
      )
      .run({ latest }).changes;
    db.prepare(
      `UPDATE sink_deliveries SET first_rejected_at = @now
       WHERE state IN ('pending', 'rejected') AND state = 'rejected' AND first_rejected_at > @now`,
    ).run({ now });
  }).immediate();
  return moved;
}
