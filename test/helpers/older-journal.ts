import type { Database } from 'better-sqlite3';
import { PUNCH_STATES_23, PUNCH_STATES_24 } from '../../src/journal/not-routed.js';
import { UNKNOWN_CARDS_TERM } from '../../src/journal/punch-counts.js';
import { listCheckText, orCheck, rewriteTableText, STATE_CHECKS, tableText } from '../../src/journal/state-check.js';

/**
 * Turns a journal back into one of the version before migration 18, for tests of the migrations up
 * to it: the objects of later migrations go (retention-marks.ts, 19; user-backups.ts's cards, 21; push-zones.ts, 22;
 * unknown-cards.ts, 23; not-routed.ts's index, 24; kept-drops.ts, 25; terminal-zones.ts, 26; terminal-directions.ts, 27), and the tables' CHECK on state goes back to the
 * list it had (state-check.ts; the punches' without 24's not_routed), by the same edit of sqlite_schema.
 */
export function backBeforeStateChecks(db: Database): void {
  db.exec('DROP TABLE retention_marks');
  db.exec('ALTER TABLE user_backups DROP COLUMN cards');
  db.exec('DROP TABLE push_zones');
  db.exec('DROP INDEX punches_card_codes');
  dropNotRoutedIndexes(db);
  dropKeptDroppedOld(db);
  rewriteTableText(
    db,
    STATE_CHECKS.map(({ table, states }) => {
      const sql = backBeforeNotRouted(table, tableText(db, table) ?? '');
      if (!sql.includes(orCheck(states))) throw new Error(`${table}: no CHECK of migration 18 to put back`);
      return { table, sql: sql.replace(orCheck(states), listCheckText(states)) };
    }),
  );
}

/**
 * Migrations 25 to 27 undone (kept-drops.ts, terminal-zones.ts, terminal-directions.ts): kept uploads dropped for their
 * age no longer counted apart, no terminal zones nor direction settings.
 */
function dropKeptDroppedOld(db: Database): void {
  db.exec('ALTER TABLE push_kept_counts DROP COLUMN dropped_old');
  db.exec('DROP TABLE terminal_zones');
  db.exec('DROP TABLE terminal_directions');
}

/** Migration 24's indexes undone: its own goes, the waiting cards' index is made as migration 13 made it. */
function dropNotRoutedIndexes(db: Database): void {
  db.exec(`DROP INDEX punches_not_routed_at; DROP INDEX punches_unknown_cards;
    CREATE INDEX punches_unknown_cards ON punches (terminal, biometric_code) WHERE ${UNKNOWN_CARDS_TERM};`);
}

/** The punches table's text as migration 23 left it: its CHECK without not_routed (migration 24). */
function backBeforeNotRouted(table: string, sql: string): string {
  if (table !== 'punches') return sql;
  if (!sql.includes(orCheck(PUNCH_STATES_24))) throw new Error('punches: no CHECK of migration 24 to put back');
  return sql.replace(orCheck(PUNCH_STATES_24), orCheck(PUNCH_STATES_23));
}

/**
 * Turns a journal back into one of version 23, for tests of migration 24 (not-routed.ts): its index
 * goes (and migration 25's column, 26's and 27's tables), and the punches' CHECK no longer allows not_routed (by the same edit of sqlite_schema).
 * The journal must hold no not_routed punch (the CHECK would no longer hold for it).
 */
export function backBeforeNotRoutedState(db: Database): void {
  dropNotRoutedIndexes(db);
  dropKeptDroppedOld(db);
  rewriteTableText(db, [{ table: 'punches', sql: backBeforeNotRouted('punches', tableText(db, 'punches') ?? '') }]);
  db.pragma('user_version = 23');
}
