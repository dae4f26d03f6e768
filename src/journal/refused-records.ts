import type { Database } from 'better-sqlite3';
import type { RefusedRecords } from './types.js';

/**
 * Records the journal refused at its door (a biometric code or terminal name against the text
 * rule of src/punch.ts), per terminal: how many, since when, and the last reason with the
 * refused code as printable text. Never the record itself: it is not a punch. Kept so that the
 * status says so after a restart and from `punchgate status`; written in the ingest's own
 * transaction.
 */
export const REFUSED_RECORDS_MIGRATION = `
  CREATE TABLE refused_records (
    terminal    TEXT    NOT NULL PRIMARY KEY,
    count       INTEGER NOT NULL,
    first_at    INTEGER NOT NULL,
    last_at     INTEGER NOT NULL,
    -- Why the last one was refused, e.g. "biometric code has a control character (U+001B)".
    last_reason TEXT    NOT NULL,
    -- The last refused code, escaped (\\x1b) and cut at 40 characters.
    last_code   TEXT    NOT NULL
  ) WITHOUT ROWID;
`;

export class RefusedRecordStore {
  private readonly add;
  private readonly since;

  constructor(db: Database) {
    this.add = db.prepare(`INSERT INTO refused_records (terminal, count, first_at, last_at, last_reason, last_code)
        VALUES (@terminal, @count, @at, @at, @reason, @code)
        ON CONFLICT (terminal) DO UPDATE SET count = count + excluded.count, last_at = excluded.last_at,
          last_reason = excluded.last_reason, last_code = excluded.last_code`);
    this.since = db.prepare(`SELECT terminal, count, first_at AS firstAt, last_at AS lastAt, last_reason AS lastReason,
        last_code AS lastCode FROM refused_records WHERE last_at >= ? ORDER BY terminal`);
  }

  /** Inside the ingest's transaction. */
  record(r: { terminal: string; count: number; at: number; reason: string; code: string }): void {
    this.add.run(r);
  }

  /** Terminals with a refused record since `from` (epoch ms). */
  list(from: number): RefusedRecords[] {
    return this.since.all(from) as RefusedRecords[];
  }
}
