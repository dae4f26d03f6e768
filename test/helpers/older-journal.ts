import type { Database } from 'better-sqlite3';
import { listCheckText, orCheck, STATE_CHECKS } from '../../src/journal/state-check.js';

/**
 * Puts the tables' CHECK on state back to the list the journal had before migration 18
 * (state-check.ts), by the same edit of sqlite_schema: for tests that turn a journal back into one
 * of an older version.
 */
export function putStateListChecksBack(db: Database): void {
  const version = db.pragma('schema_version', { simple: true }) as number;
  db.unsafeMode(true);
  try {
    db.pragma('writable_schema = ON');
    const write = db.prepare(
      `UPDATE sqlite_schema SET sql = replace(sql, @now, @then) WHERE type = 'table' AND name = @table AND instr(sql, @now) > 0`,
    );
    for (const { table, states } of STATE_CHECKS) {
      const r = write.run({ now: orCheck(states), then: listCheckText(states), table });
      if (r.changes !== 1) throw new Error(`${table}: no CHECK of migration 18 to put back`);
    }
    db.pragma(`schema_version = ${version + 1}`);
  } finally {
    db.pragma('writable_schema = OFF');
    db.unsafeMode(false);
  }
}
