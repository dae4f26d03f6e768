/**
 * The WHERE terms of the partial indexes on a punch's state that name three states, written as
 * comparisons joined by OR instead of a list `state IN (a, b, c)`.
 *
 * Why: SQLite evaluates the WHERE of every partial index for each row it inserts or whose state it
 * changes, and it evaluates a constant list of more than two values by building a small temporary
 * B-tree of the list first, for that row alone (EXPLAIN shows OpenEphemeral in the INSERT's
 * program). Two such indexes cost an insert of one punch about 2 µs of the 7.5 SQLite spent on
 * it (a bare better-sqlite3 loop on the punches table, 100,000 rows in transactions of 1,000): a
 * quarter of the journal's own cost of a BioTime or Dahua page (issue 33). Comparisons cost next to
 * nothing. A list of two values is compared directly (punches_queue keeps its `IN`). The tables'
 * own CHECK on state (six values) cost the same way; migration 18 rewrote them (state-check.ts).
 *
 * A query uses a partial index only when its WHERE repeats the index's term word for word (a term
 * `state IN (...)` no longer matches): every query on these indexes takes its term from here.
 */

/** The WHERE of punches_refused: refused, dead and quarantined punches (the status alerts, queries.ts). */
export const REFUSED_TERM = `(state = 'rejected' OR state = 'dead' OR state = 'quarantined')`;

/** The WHERE of punches_owed_by_terminal and sink_owed_by_terminal: not yet delivered (shift-progress.ts). */
export const OWED_TERM = `(state = 'pending' OR state = 'inflight' OR state = 'rejected')`;

/**
 * Migration: the three indexes made again with the terms above (same names, columns and rows;
 * each is small, but making it reads its table once). Part of a migration: never change the terms.
 */
export const STATE_TERMS_MIGRATION = `
  DROP INDEX IF EXISTS punches_refused;
  CREATE INDEX punches_refused ON punches (state, last_message, biometric_code) WHERE ${REFUSED_TERM};
  DROP INDEX IF EXISTS punches_owed_by_terminal;
  CREATE INDEX punches_owed_by_terminal ON punches (terminal, log_time) WHERE ${OWED_TERM};
  DROP INDEX IF EXISTS sink_owed_by_terminal;
  CREATE INDEX sink_owed_by_terminal ON sink_deliveries (sink, terminal, log_time) WHERE ${OWED_TERM};
`;

/**
 * No other sink still owes the punch: every active sink has taken it in (its cursor is past it)
 * and none holds it undelivered (sink-deliveries.ts). With `state = 'delivered'`, the punch is
 * delivered everywhere it goes: the rule of retention's delete (journal.ts) and of clearing a
 * terminal's log (queries.ts, deliveredAmong).
 */
export const PRUNE_GUARD = `NOT EXISTS (SELECT 1 FROM sink_deliveries d WHERE d.punch_id = punches.id
      AND d.state <> 'delivered' AND d.sink IN (SELECT name FROM sinks WHERE active = 1 AND is_default = 0))
    AND id <= (SELECT coalesce(min(cursor), 9007199254740991) FROM sinks WHERE active = 1 AND is_default = 0)`;
