import type { Database } from 'better-sqlite3';

/**
 * Refused punches' retry times brought back within reach at a start: a next attempt at most
 * `maxMs` (delivery.rejectedRetry.maxMs) from now, a first refusal no later than now, in every
 * sink's queue. Both are wall-clock times; the daemon moves them with a step of the box clock it
 * sees (Journal.clockStepped), but not with one made while no punchgate ran: a box whose clock
 * was a year ahead refused a punch, was stopped, set right and started again, and the punch
 * waited a year for its next attempt (and deadAfterDays counted from a year ahead), though no
 * retry is ever planned further than `maxMs` away (found by an adversarial trial). Returns how
 * many next attempts were brought forward; one transaction, through the queues' small indexes.
 */
export function bringRetryTimesWithinReach(db: Database, now: number, maxMs: number): number {
  const latest = now + maxMs;
  let moved = 0;
  db.transaction(() => {
    for (const table of ['punches', 'sink_deliveries'] as const) {
      moved += db
        .prepare(
          `UPDATE ${table} SET next_attempt_at = @latest
           WHERE state IN ('pending', 'rejected') AND state = 'rejected' AND next_attempt_at > @latest`,
        )
        .run({ latest }).changes;
      db.prepare(
        `UPDATE ${table} SET first_rejected_at = @now
           WHERE state IN ('pending', 'rejected') AND first_rejected_at > @now`,
      ).run({ now });
    }
  }).immediate();
  return moved;
}
