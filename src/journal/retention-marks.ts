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
 * A punch absent from the journal and dated within its device's marks (from the earliest to the
 * latest own time of the punches deleted) is taken as one of those: counted as a duplicate
 * (IngestResult.forgotten), not journalled. A punch still in the journal is a duplicate anyway.
 * The marks sit more than `retentionDays` in the past, so a punch recorded now by a clock that is
 * right is never near one. One dated before the earliest was never deleted: absent from the
 * journal, it is new. A clock reset (a flat RTC battery: 2000-01-01) records punches there, and
 * they go on to the clock checks (quarantined as recorded by a clock reset), never dropped as known.
 * Keyed as the punches' own uniqueness is: the device's serial, or the terminal's name for
 * punches filed without one (terminal = '' when device is set).
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

/**
 * The earliest log_time of a delivered punch the retention deleted, beside the latest: marks made
 * before it keep NULL (nothing says how far back their deletions went: everything up to the mark
 * is taken as known, as before).
 */
export const RETENTION_MARKS_FROM_MIGRATION = `
  ALTER TABLE retention_marks ADD COLUMN down_from TEXT;
`;

/** The log times a device's deleted punches lie within; `from` undefined: not known (a mark of before). */
export interface ForgottenSpan {
  from?: string;
  upTo: string;
}

/** Whether a punch absent from the journal, dated `logTime`, is one the retention deleted. */
export function wasForgotten(span: ForgottenSpan | undefined, logTime: string): boolean {
  return span !== undefined && logTime <= span.upTo && (span.from === undefined || logTime >= span.from);
}

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
    // A mark of before (down_from NULL) stays open below, its earlier deletions not known: SQLite's
    // min() of several values is NULL when one is.
    this.raise = db.prepare(`INSERT INTO retention_marks (device, terminal, up_to, down_from) VALUES (?, ?, ?, ?)
        ON CONFLICT (device, terminal) DO UPDATE SET up_to = max(up_to, excluded.up_to),
          down_from = min(down_from, excluded.down_from)`);
    this.read = db.prepare(
      'SELECT up_to AS upTo, down_from AS "from" FROM retention_marks WHERE device = ? AND terminal = ?',
    );
  }

  /** Inside the prune's transaction: the marks of the devices whose punches it deleted. */
  record(rows: readonly PrunedPunch[]): void {
    const spans = new Map<string, { device: string; terminal: string; upTo: string; from: string }>();
    for (const r of rows) {
      const terminal = r.device === '' ? r.terminal : '';
      const key = `${r.device}\u0000${terminal}`;
      const seen = spans.get(key);
      if (!seen) spans.set(key, { device: r.device, terminal, upTo: r.log_time, from: r.log_time });
      else {
        if (r.log_time > seen.upTo) seen.upTo = r.log_time;
        if (r.log_time < seen.from) seen.from = r.log_time;
      }
    }
    for (const m of spans.values()) this.raise.run(m.device, m.terminal, m.upTo, m.from);
  }

  /** The span of a punch's device (or of its terminal when it has none), or undefined. */
  span(device: string, terminal: string): ForgottenSpan | undefined {
    const r = this.read.get(device, device === '' ? terminal : '') as { upTo: string; from: string | null } | undefined;
    if (!r) return undefined;
    return r.from === null ? { upTo: r.upTo } : { upTo: r.upTo, from: r.from };
  }
}
