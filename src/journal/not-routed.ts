import type { Database } from 'better-sqlite3';
import { UNKNOWN_CARDS_TERM } from './punch-counts.js';
import { orCheck, rewriteTableText, SchemaTextError, tableText } from './state-check.js';

/**
 * Punches the default sink was never meant to get: their terminal's `sinks:` leaves it out.
 * Delivery settles them for it without sending them. Until migration 24 they were settled as
 * `delivered`, so the status, the page, /metrics, `check` and the hourly figures said "delivered
 * 115" for an HRMS that had received 85 (found by a several-HRMS trial): an admin believed the HRMS
 * held punches it never saw. They now have a state of their own, `not_routed`, counted apart
 * ("not for this sink") and never as delivered.
 *
 * Why a state and not a flag beside `delivered`: every figure is read from the counts kept per
 * state (punch-counts.ts) and from partial indexes on the state, so a state of its own keeps each
 * status query on an index and costs a punch routed normally nothing (the settle and the claim
 * are unchanged); a flag would have to be excluded by every reader of `delivered`.
 *
 * Such punches are done for the default sink: the retention deletes them like delivered ones (from
 * their own small index, by the time they were settled), once every other sink has its copy
 * (PRUNE_GUARD), and a terminal's log may be cleared of them on the same terms.
 */

/** The message such a punch carries (the same since the `sinks:` setting came). Part of migration 24: never change. */
export const NOT_ROUTED_MESSAGE = 'not sent: its terminal delivers to other sinks (its sinks: setting)';

/** A punch done for the default sink: delivered to it, or never meant for it. */
export const DONE_TERM = `(state = 'delivered' OR state = 'not_routed')`;

/**
 * The WHERE of punches_unknown_cards from migration 24 on: an unknown badge card's punch still to
 * deliver to the default sink, not one never meant for it (nothing waits for it). Left in the
 * index, those would have grown the status's read of waiting cards with the days the journal
 * keeps. Part of migration 24: never change.
 */
export const WAITING_CARDS_TERM = `${UNKNOWN_CARDS_TERM} AND state <> 'not_routed'`;

/** The states the punches table allowed before migration 24 (after 18), in its CHECK's order. Part of it: never change. */
export const PUNCH_STATES_23 = ['pending', 'inflight', 'delivered', 'rejected', 'dead', 'quarantined'] as const;
/** ...and from 24 on. */
export const PUNCH_STATES_24 = [...PUNCH_STATES_23, 'not_routed'] as const;

/**
 * Migration 24, inside the migration's transaction: the punches table's CHECK allows `not_routed`
 * (the text edited as migration 18 did, state-check.ts: every stored row stays valid), the
 * retention's index of them, the punches already settled so moved to it, their counts with
 * them, and the index of waiting unknown cards without them (WAITING_CARDS_TERM). One pass over the punches (the UPDATE's), like any migration that reads every row.
 */
export function notRoutedMigration(db: Database): void {
  const sql = tableText(db, 'punches');
  const from = orCheck(PUNCH_STATES_23);
  if (sql === undefined || !sql.includes(from))
    throw new SchemaTextError('punches', `the punches table's CHECK on state is not the one punchgate wrote`);
  rewriteTableText(db, [{ table: 'punches', sql: sql.replace(from, orCheck(PUNCH_STATES_24)) }]);
  db.exec(`CREATE INDEX punches_not_routed_at ON punches (delivered_at) WHERE state = 'not_routed'`);
  const moved = db
    .prepare(
      `UPDATE punches SET state = 'not_routed' WHERE state = 'delivered' AND last_message = ? RETURNING terminal`,
    )
    .pluck()
    .all(NOT_ROUTED_MESSAGE) as string[];
  db.exec(`DROP INDEX punches_unknown_cards;
    CREATE INDEX punches_unknown_cards ON punches (terminal, biometric_code) WHERE ${WAITING_CARDS_TERM};`);
  const perTerminal = new Map<string, number>();
  for (const t of moved) perTerminal.set(t, (perTerminal.get(t) ?? 0) + 1);
  const count = db.prepare(`INSERT INTO punch_counts (terminal, state, n) VALUES (?, ?, ?)
      ON CONFLICT (terminal, state) DO UPDATE SET n = n + excluded.n`);
  const total = db.prepare(`INSERT INTO punch_totals (state, n) VALUES (?, ?)
      ON CONFLICT (state) DO UPDATE SET n = n + excluded.n`);
  for (const [terminal, n] of perTerminal) {
    count.run(terminal, 'delivered', -n);
    count.run(terminal, 'not_routed', n);
  }
  if (moved.length > 0) {
    total.run('delivered', -moved.length);
    total.run('not_routed', moved.length);
  }
}
