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
 * is waiting, never with the delivered history. (Later migrations made them again with the same
 * rows and a cheaper WHERE, OWED_TERM of state-terms.ts, which the queries repeat, and then keyed
 * by log time first, owed-by-time.ts: one walk, bounded by OWED_SCAN_LIMIT, serves all terminals.)
 */
export const SHIFT_PROGRESS_MIGRATION = `
  CREATE INDEX punches_owed_by_terminal ON punches (terminal, log_time)
    WHERE state IN ('pending', 'inflight', 'rejected');
  CREATE INDEX sink_owed_by_terminal ON sink_deliveries (sink, terminal, log_time)
    WHERE state IN ('pending', 'inflight', 'rejected');
`;

/**
 * What the default sink owes, oldest first (in the order of punches_owed_by_time, owed-by-time.ts):
 * each punch's terminal and log time.
 */
export const OWED_DEFAULT_SQL = `SELECT terminal, log_time AS t, state = 'rejected' AS refused FROM punches
          WHERE ${OWED_TERM} ORDER BY log_time`;
/**
 * The same for another sink (on sink_owed_by_time), with whether the punch is quarantined (a sink
 * row stays pending while its punch is held): such rows owe nothing yet, but count as read.
 */
export const OWED_SINK_SQL = `SELECT d.terminal, d.log_time AS t, p.state = 'quarantined' AS held,
          d.state = 'rejected' AS refused
          FROM sink_deliveries d JOIN punches p ON p.id = d.punch_id
          WHERE d.sink = ? AND ${OWED_TERM.replaceAll('state', 'd.state')} ORDER BY d.log_time`;

/**
 * At most this many owed punches are read per round (a few milliseconds): past them, a terminal not yet
 * met is given the log time reached as its oldest owed. That is never later than its true oldest
 * (every punch before it was read), so the shift sync only waits longer, never runs ahead of a
 * punch Frappe has not got. Below this many punches waiting, every terminal's figure is exact.
 */
export const OWED_SCAN_LIMIT = 5000;

/** One terminal's progress, as the shift sync takes it (TerminalProgress there). */
export interface TerminalReadProgress {
  /** The terminal's wall clock up to which its log is read; absent: never read. */
  readUpTo?: string;
  /** The log time of the oldest punch of the terminal the sink has not got; absent: none. */
  oldestUndelivered?: string;
  /** That oldest punch was refused by the sink and waits for its retry (it holds the shift sync there). */
  oldestRefused?: true;
}

export class ShiftProgressQueries {
  private readonly st: Record<string, Statement>;

  /** `scanLimit`: OWED_SCAN_LIMIT (tests set a small one). */
  constructor(
    private readonly db: Database,
    private readonly scanLimit = OWED_SCAN_LIMIT,
  ) {
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
    /** Terminal name -> device serial, as the journal knows them: an old name of a renamed terminal counts as it. */
    knownDevices: ReadonlyMap<string, string> = new Map(),
  ): Map<string, TerminalReadProgress> {
    const out = new Map<string, TerminalReadProgress>();
    this.db
      .transaction(() => {
        const oldest = this.oldestOwed(
          sink,
          new Set(terminals.map((t) => t.name)),
          oldNamesOf(terminals, knownDevices),
        );
        for (const t of terminals) {
          const p: TerminalReadProgress = {};
          const r = this.st.read!.get(t.name) as
            { readUpTo: string | null; pollAt: number | null; successAt: number | null } | undefined;
          if (r?.readUpTo && isLogTime(r.readUpTo)) p.readUpTo = r.readUpTo;
          else if (r?.successAt != null) {
            const at = r.pollAt != null && r.pollAt <= r.successAt ? r.pollAt : r.successAt;
            p.readUpTo = wallClockAt(at, t.timezone);
          }
          const taken =
            sink === undefined
              ? undefined
              : (this.st.notTakenIn!.get(sink, t.name) as { t: string | null } | undefined)?.t;
          const first = oldest.get(t.name);
          const owed = [first?.t, taken].filter((x): x is string => typeof x === 'string').sort();
          if (owed[0] !== undefined) p.oldestUndelivered = owed[0];
          if (first?.refused && first.t === owed[0]) p.oldestRefused = true;
          out.set(t.name, p);
        }
      })
      .deferred();
    return out;
  }

  /**
   * The oldest owed punch of each of `wanted`, read in one walk of what `sink` owes, oldest first,
   * until each was met or OWED_SCAN_LIMIT punches were read; then each terminal not met gets the
   * log time reached (a bound: see OWED_SCAN_LIMIT). A terminal absent from the map owes nothing.
   */
  private oldestOwed(
    sink: string | undefined,
    wanted: ReadonlySet<string>,
    oldNames: ReadonlyMap<string, string>,
  ): Map<string, { t: string; refused?: boolean }> {
    const out = new Map<string, { t: string; refused?: boolean }>();
    if (wanted.size === 0) return out;
    const rows = (sink === undefined ? this.st.owedDefault!.iterate() : this.st.owedSink!.iterate(sink)) as Iterable<{
      terminal: string;
      t: string;
      held?: number;
      refused: number;
    }>;
    let read = 0;
    for (const r of rows) {
      const terminal = oldNames.get(r.terminal) ?? r.terminal;
      if (!r.held && wanted.has(terminal) && !out.has(terminal))
        out.set(terminal, r.refused ? { t: r.t, refused: true } : { t: r.t });
      if (out.size === wanted.size) break;
      if (++read >= this.scanLimit) {
        for (const name of wanted) if (!out.has(name)) out.set(name, { t: r.t });
        break; // leaving the loop ends the statement (better-sqlite3 resets it): the rest is never read
      }
    }
    return out;
  }
}

/**
 * Old names of `terminals`: a name the journal knows that is not among them, whose device is one
 * of theirs (a terminal renamed with punches still owed under its old name). Those punches hold the
 * shift sync as the terminal's own do: without it, a rename moved the sync past a refused punch.
 */
function oldNamesOf(
  terminals: readonly { name: string }[],
  knownDevices: ReadonlyMap<string, string>,
): Map<string, string> {
  const names = new Set(terminals.map((t) => t.name));
  const byDevice = new Map<string, string>();
  for (const t of terminals) {
    const device = knownDevices.get(t.name);
    if (device) byDevice.set(device.toUpperCase(), t.name);
  }
  const out = new Map<string, string>();
  for (const [name, device] of knownDevices) {
    const now = byDevice.get(device.toUpperCase());
    if (!names.has(name) && now !== undefined) out.set(name, now);
  }
  return out;
}
