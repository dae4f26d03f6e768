import type { Database } from 'better-sqlite3';

/**
 * The CHECK on a punch's state, in the punches and sink_deliveries tables, written as comparisons
 * joined by OR instead of a list `state IN (...)` (migration 18, issue 35).
 *
 * Why: SQLite checks a table's CHECK for every row it inserts and every row whose state changes,
 * and it evaluates a constant list of more than two values by first building a small temporary
 * B-tree of the list, for that row alone (state-terms.ts found the same in the partial indexes and
 * rewrote those). Measured on the delivery's two writes of a punch (the claim's UPDATE to inflight,
 * the settle's to delivered; raw SQL, batches of 1000 over 50,000 punches, three alternating runs):
 * 8.2–10.6 µs a punch with the list, 6.9–7.9 with comparisons, 7.0–7.5 with no CHECK at all.
 * Comparisons cost next to nothing; the list cost more than the whole claim's SELECT.
 *
 * How: the table's text in sqlite_schema is edited, in the migration's one transaction, by SQLite's
 * documented procedure for a constraint change that does not change what is stored (sqlite.org,
 * ALTER TABLE, "making other kinds of table schema changes"): writable_schema on, the text
 * replaced, the schema version raised so that every connection, this one too, reads the schema
 * again. No row is touched, and none needs to be: the new CHECK allows exactly the values the old
 * one allowed. better-sqlite3 keeps SQLite's defensive mode on, which refuses such an edit; the
 * migration turns it off for its own statements only. Rebuilding the tables instead would copy a
 * year of punches at start, while the terminals wait.
 *
 * The text replaced must be the list punchgate wrote (spacing, case and quotes aside): anything else
 * stops the migration, which then changes nothing (the journal stays at the version before).
 */

/** The states each table allows, in the order its CHECK names them. Part of a migration: never change. */
export const STATE_CHECKS = [
  { table: 'punches', states: ['pending', 'inflight', 'delivered', 'rejected', 'dead', 'quarantined'] },
  { table: 'sink_deliveries', states: ['pending', 'inflight', 'delivered', 'rejected', 'dead'] },
] as const;

/** `CHECK (state IN ('a','b',...))` as punchgate wrote it; spacing, the case of the words and quotes around `state` aside. */
function listCheck(states: readonly string[]): RegExp {
  const list = states.map((s) => `'${s}'`).join(String.raw`\s*,\s*`);
  const name = String.raw`["\x60[]?state["\x60\]]?`; // state, "state", `state` or [state]
  return new RegExp(String.raw`CHECK\s*\(\s*${name}\s*IN\s*\(\s*${list}\s*\)\s*\)`, 'i');
}

/** The list as the first migrations wrote it (tests put a journal back to an older version with it). */
export function listCheckText(states: readonly string[]): string {
  return `CHECK (state IN (${states.map((s) => `'${s}'`).join(',')}))`;
}

/** The same constraint as comparisons joined by OR. */
export function orCheck(states: readonly string[]): string {
  return `CHECK (${states.map((s) => `state = '${s}'`).join(' OR ')})`;
}

/** A table's text is not what punchgate wrote, so a migration cannot take it (the journal is left as it was). */
export class SchemaTextError extends Error {
  constructor(
    readonly table: string,
    message: string,
  ) {
    super(message);
    this.name = 'SchemaTextError';
  }
}

/** Migration 18 (see above); runs inside the migration's transaction. */
export function rewriteStateChecks(db: Database): void {
  const edits = STATE_CHECKS.map(({ table, states }) => {
    const sql = tableText(db, table);
    const list = listCheck(states);
    if (sql === undefined || !list.test(sql))
      throw new SchemaTextError(table, `the ${table} table's CHECK on state is not the one punchgate wrote`);
    return { table, sql: sql.replace(list, orCheck(states)) };
  });
  rewriteTableText(db, edits);
}

/** A table's text as sqlite_schema keeps it (undefined: no such table). */
export function tableText(db: Database, table: string): string | undefined {
  return db.prepare(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?`).pluck().get(table) as
    string | undefined;
}

/**
 * Replaces the text of tables in sqlite_schema by SQLite's procedure (see above): writable_schema
 * on, the text written, the schema version raised so that every connection reads it again. Only
 * for a change that leaves what is stored valid (a CHECK said another way); run it inside a
 * transaction, so that a failure half way changes nothing. The one place punchgate edits its
 * schema so (tests put a journal back to an older version with it too).
 */
export function rewriteTableText(db: Database, edits: readonly { table: string; sql: string }[]): void {
  const version = db.pragma('schema_version', { simple: true }) as number;
  db.unsafeMode(true);
  try {
    db.pragma('writable_schema = ON');
    const write = db.prepare(`UPDATE sqlite_schema SET sql = @sql WHERE type = 'table' AND name = @table`);
    for (const e of edits) if (write.run(e).changes !== 1) throw new Error(`no table ${e.table} to rewrite`);
    db.pragma(`schema_version = ${version + 1}`);
  } finally {
    db.pragma('writable_schema = OFF');
    db.unsafeMode(false);
  }
}
