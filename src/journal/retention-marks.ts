import type { Database, Statement } from 'better-sqlite3';

/**
 * What the retention forgot, per device: the latest own time (log_time) of a delivered punch it
 * deleted. A ZK terminal keeps its log until it is cleared (off by default), and a small site's
 * terminal holds years of punches (100,000 records at 50 a day): each download reads them all, and
 * the journal knows one as already delivered only while it keeps its row. Without this, a punch
 * delivered 400 days ago (journal.retentionDays) was deleted by the retention one night and
 * journalled as new at the next download, then delivered again: every day, the punches of 400
 * days before, for as long as the terminal held them. A push terminal asked to send its log again
 * (or an export imported twice) did the same.
 *
 * A punch absent from the journal and dated at or before its device's mark is taken as one of
 * those: counted as a duplicate (IngestResult.forgotten), not journalled. A punch still in the
 * journal is a duplicate anyway. The marks sit more than `retentionDays` in the past, so a punch
 * recorded now is never near one. Keyed as the punches' own uniqueness is: the device's serial, or
 * the terminal's name for punches filed without one (terminal = '' when device is set).
 */
export const RETENTION_MARKS_MIGRATION = `
  CREATE TABLE retention_marks (
    device   TEXT NOT NULL,
    terminal TEXT NOT NULL,
    -- The latest log_time (the terminal's wall clock) of a delivered punch the retention deleted.
    up_to    TEXT NOT NULL,
    PRIMARY KEY (device, terminal)
  ) WITHOUT ROWID;
`;

/** A deleted punch, as the prune returns it. */
export interface PrunedPunch {
  terminal: string;
  device: string;
  log_time: string;
}

export class RetentionMarks {
  private readonly raise: Statement;
  private readonly read: Statement;

  constructor(db: Database) {
    this.raise = db.prepare(`INSERT INTO retention_marks (device, terminal, up_to) VALUES (?, ?, ?)
        ON CONFLICT (device, terminal) DO UPDATE SET up_to = max(up_to, excluded.up_to)`);
    this.read = db.prepare('SELECT up_to FROM retention_marks WHERE device = ? AND terminal = ?').pluck();
  }

  /** Inside the prune's transaction: the marks of the devices whose punches it deleted. */
  record(rows: readonly PrunedPunch[]): void {
    const latest = new Map<string, { device: string; terminal: string; upTo: string }>();
    for (const r of rows) {
      const terminal = r.device === '' ? r.terminal : '';
      const key = `${r.device}\u0000${terminal}`;
      const seen = latest.get(key);
      if (!seen) latest.set(key, { device: r.device, terminal, upTo: r.log_time });
      else if (r.log_time > seen.upTo) seen.upTo = r.log_time;
    }
    for (const m of latest.values()) this.raise.run(m.device, m.terminal, m.upTo);
  }

  /** The mark of a punch's device (or of its terminal when it has none), or undefined. */
  upTo(device: string, terminal: string): string | undefined {
    return this.read.get(device, device === '' ? terminal : '') as string | undefined;
  }
}
