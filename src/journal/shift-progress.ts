import type { Database, Statement } from 'better-sqlite3';
import { isLogTime, wallClockAt } from '../punch.js';
import { OWED_TERM } from './state-terms.js';

/**
 * What the Frappe shift sync needs from the journal (src/sinks/frappe/shift-sync.ts), per
 * terminal: how far its log has been read, and the oldest punch one sink still owes.
 *
 * Undelivered to a sink means pending, inflight or rejected (refused, waiting for its slow
 * retry). Neither `dead` nor quarantined punches hold the shift sync back: both wait for an
 * admin (`punches retry`, `punches release`), which can take days, and Auto Attendance of every
 * person of the shift would wait that long (docs/sinks-frappe.md says what to do when one is
 * delivered late). A punch journalled but not yet taken in by a sink other than the default
 * (above its cursor, sink-deliveries.ts) is owed to it too.
 *
 * The partial indexes below hold undelivered punches only: the cost of a query grows with what
 * is waiting, never with the delivered history. (A later migration made them again with the same
 * rows and a cheaper WHERE, OWED_TERM of state-terms.ts, which the queries repeat.)
 */
export const SHIFT_PROGRESS_MIGRATION = `
  CREATE INDEX punches_owed_by_terminal ON punches (terminal, log_time)
    WHERE state IN ('pending', 'inflight', 'rejected');
  CREATE INDEX sink_owed_by_terminal ON sink_deliveries (sink, terminal, log_time)
    WHERE state IN ('pending', 'inflight', 'rejected');
`;

/** The oldest punch of a terminal the default sink owes (on punches_owed_by_terminal, made again with OWED_TERM). */
export const OWED_DEFAULT_SQL = `SELECT log_time AS t FROM punches
          WHERE terminal = ? AND ${OWED_TERM} ORDER BY log_time LIMIT 1`;
/**
 * The same for another sink (on sink_owed_by_terminal); the join leaves out quarantined punches
 * (a sink row stays pending while its punch is held).
 */
export const OWED_SINK_SQL = `SELECT d.log_time AS t FROM sink_deliveries d JOIN punches p ON p.id = d.punch_id
          WHERE d.sink = ? AND d.terminal = ? AND ${OWED_TERM.replaceAll('state', 'd.state')}
            AND p.state <> 'quarantined' ORDER BY d.log_time LIMIT 1`;

/** One terminal's progress, as the shift sync takes it (TerminalProgress there). */
export interface TerminalReadProgress {
  /** The terminal's wall clock up to which its log is read; absent: never read. */
  readUpTo?: string;
  /** The log time of the oldest punch of the terminal the sink has not got; absent: none. */
  oldestUndelivered?: string;
}

export class ShiftProgressQueries {
  private readonly st: Record<string, Statement>;

  constructor(private readonly db: Database) {
    this.st = {
      owedDefault: db.prepare(OWED_DEFAULT_SQL),
      owedSink: db.prepare(OWED_SINK_SQL),
      // Journalled, not yet taken in by the sink: a rowid range of what came in since its last claim.
      notTakenIn: db.prepare(`SELECT min(log_time) AS t FROM punches
          WHERE id > (SELECT cursor FROM sinks WHERE name = ?) AND terminal = ? AND state <> 'quarantined'`),
      read: db.prepare(`SELECT read_up_to AS readUpTo, last_poll_at AS pollAt, last_success_at AS successAt
          FROM terminals WHERE name = ?`),
    };
  }

  /**
   * Per terminal: `readUpTo` is the terminal's own clock at its last complete download where the
   * source records one (ZK pull: TerminalRecord.readUpTo), else the box's clock, in the terminal's
   * zone, at the start of its last successful poll or push contact (the end of it when a failed
   * poll came since). `sink` undefined: the default sink (the punches table's own state).
   */
  progress(
    sink: string | undefined,
    terminals: readonly { name: string; timezone?: string | undefined }[],
  ): Map<string, TerminalReadProgress> {
    const out = new Map<string, TerminalReadProgress>();
    this.db
      .transaction(() => {
        for (const t of terminals) {
          const p: TerminalReadProgress = {};
          const r = this.st.read!.get(t.name) as
            { readUpTo: string | null; pollAt: number | null; successAt: number | null } | undefined;
          if (r?.readUpTo && isLogTime(r.readUpTo)) p.readUpTo = r.readUpTo;
          else if (r?.successAt != null) {
            const at = r.pollAt != null && r.pollAt <= r.successAt ? r.pollAt : r.successAt;
            p.readUpTo = wallClockAt(at, t.timezone);
          }
          const owed = (
            sink === undefined
              ? [this.st.owedDefault!.get(t.name)]
              : [this.st.owedSink!.get(sink, t.name), this.st.notTakenIn!.get(sink, t.name)]
          )
            .map((x) => (x as { t: string | null } | undefined)?.t)
            .filter((x): x is string => typeof x === 'string')
            .sort();
          if (owed[0] !== undefined) p.oldestUndelivered = owed[0];
          out.set(t.name, p);
        }
      })
      .deferred();
    return out;
  }
}
