import type { Database } from 'better-sqlite3';
import type { SinkRoster } from './sink-deliveries.js';

/** A sink the journal knows that the config no longer names, with punches it was still owed. */
export interface RemovedSinkOwed {
  sink: string;
  /** Punches not delivered to it: pending, in flight or refused for now (its dead ones are given up already). */
  owed: number;
  /** Taken out by this start or reload (it held retention back until now); false: taken out before. */
  justRemoved: boolean;
}

/**
 * The sinks the config no longer names that were still owed punches (read before the roster is
 * recorded): such punches are never sent (no loop delivers to a sink out of the config), and
 * retention stops waiting for that sink (PRUNE_GUARD counts only the sinks in the config). A
 * reload that took a sink out said only "config reloaded" (a trial): the caller says this.
 *
 * Counted from the kept counts (sink_counts), and for a sink taken out now also the punches
 * journalled since it last took some in (a rowid range): it was owed those too. A former default
 * sink is left out: the punches table holds its state, handed to the new default sink (its own
 * warning in useSinks).
 */
export function owedToRemovedSinks(db: Database, roster: SinkRoster): RemovedSinkOwed[] {
  const named = new Set([roster.defaultSink, ...roster.others]);
  const sinks = db.prepare(`SELECT name, cursor, active FROM sinks WHERE is_default = 0`).all() as {
    name: string;
    cursor: number;
    active: number;
  }[];
  const rows = db.prepare(
    `SELECT coalesce(sum(n), 0) AS n FROM sink_counts WHERE sink = ? AND state IN ('pending', 'inflight', 'rejected')`,
  );
  const above = db.prepare(`SELECT count(*) AS n FROM punches WHERE id > ?`);
  const out: RemovedSinkOwed[] = [];
  for (const s of sinks) {
    if (named.has(s.name)) continue;
    const justRemoved = s.active === 1;
    const owed = (rows.get(s.name) as { n: number }).n + (justRemoved ? (above.get(s.cursor) as { n: number }).n : 0);
    if (owed > 0) out.push({ sink: s.name, owed, justRemoved });
  }
  return out;
}

/**
 * What it means, in words for the log: they are not sent, retention may delete them now, and the
 * fix. `retentionDays`: journal.retentionDays (delivered punches are deleted that long after
 * their delivery to the sinks still in the config).
 */
export function removedSinkWords(r: RemovedSinkOwed, retentionDays: number): string {
  const punches = `${r.owed} ${r.owed === 1 ? 'punch' : 'punches'}`;
  const what = r.justRemoved
    ? `sink ${r.sink} was taken out of the config while it was still owed ${punches}`
    : `sink ${r.sink} is not in the config and is still owed ${punches} from before it was taken out`;
  return (
    `${what}: they are not sent to it, and retention no longer waits for it (each is deleted ` +
    `${retentionDays} days after the sinks still in the config have it delivered, journal.retentionDays); ` +
    `to deliver them, put sink ${r.sink} back in the config and reload (it then also gets the punches journalled meanwhile)`
  );
}
