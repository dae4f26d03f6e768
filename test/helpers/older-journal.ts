import type { Database } from 'better-sqlite3';
import { listCheckText, orCheck, rewriteTableText, STATE_CHECKS, tableText } from '../../src/journal/state-check.js';

/**
 * Puts the tables' CHECK on state back to the list the journal had before migration 18
 * (state-check.ts), by the same edit of sqlite_schema: for tests that turn a journal back into one
 * of an older version.
 */
export function putStateListChecksBack(db: Database): void {
  rewriteTableText(
    db,
    STATE_CHECKS.map(({ table, states }) => {
      const sql = tableText(db, table) ?? '';
      if (!sql.includes(orCheck(states))) throw new Error(`${table}: no CHECK of migration 18 to put back`);
      return { table, sql: sql.replace(orCheck(states), listCheckText(states)) };
    }),
  );
}
