import type { Database } from 'better-sqlite3';
import { listCheckText, orCheck, rewriteTableText, STATE_CHECKS, tableText } from '../../src/journal/state-check.js';

/**
 * Turns a journal back into one of the version before migration 18, for tests of the migrations up
 * to it: the objects of later migrations go (retention-marks.ts, 19; user-backups.ts's cards, 21; push-zones.ts, 22; unknown-cards.ts, 23), and the tables' CHECK on
 * state goes back to the list it had (state-check.ts), by the same edit of sqlite_schema.
 */
export function backBeforeStateChecks(db: Database): void {
  db.exec('DROP TABLE retention_marks');
  db.exec('ALTER TABLE user_backups DROP COLUMN cards');
  db.exec('DROP TABLE push_zones');
  db.exec('DROP INDEX punches_card_codes');
  rewriteTableText(
    db,
    STATE_CHECKS.map(({ table, states }) => {
      const sql = tableText(db, table) ?? '';
      if (!sql.includes(orCheck(states))) throw new Error(`${table}: no CHECK of migration 18 to put back`);
      return { table, sql: sql.replace(orCheck(states), listCheckText(states)) };
    }),
  );
}
