import type { Database, Statement } from 'better-sqlite3';
import { CountMoves, type PunchCounts } from './punch-counts.js';
import { hashedPunchId } from './punch-id.js';
import type { PunchState } from './types.js';

/**
 * One identity for a punch whatever the route it came by (issue 30). A punch is known by its
 * device's serial where one is known, else by its terminal's name (punch-id.ts). Some routes
 * cannot know the serial: `punchgate import --terminal X` before X was ever polled, a serial
 * reader, a real-time event before the device told its serial. Without this table the same punch
 * read again by a poll (which knows the serial) was a second punch with a second devicelogId.
 *
 * So the journal remembers the device each terminal was last seen to be (terminal_devices):
 * - a punch that comes without a serial, for a terminal whose device is known, is filed under
 *   that device (as the poll files it);
 * - when a terminal's device is learnt (its first punch with a serial, or a new serial), the
 *   punches filed under its name alone are moved to the device (adopt): what comes again from
 *   the device is then a duplicate. A punch that may have been sent already keeps the
 *   devicelogId it was sent with (punches.sent_as): an id never changes once sent. If the same
 *   punch is in the journal under both (journals from before this fix), the copy never sent
 *   moves to punches_superseded, as migration 3 did for renamed terminals.
 */
export const TERMINAL_DEVICES_MIGRATION = `
  -- The devicelogId a punch may have been sent with before its terminal's device was learnt;
  -- NULL: the id follows from the punch (punch-id.ts).
  ALTER TABLE punches ADD COLUMN sent_as TEXT;
  CREATE TABLE terminal_devices (
    terminal  TEXT    NOT NULL PRIMARY KEY,
    -- The device's serial as the journal keeps it (deviceIdentity).
    device    TEXT    NOT NULL,
    learnt_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  -- Each terminal's device is the one of its newest punch that has one (SQLite takes the bare
  -- columns from the row of max(id)).
  INSERT INTO terminal_devices (terminal, device, learnt_at)
    SELECT terminal, device, created_at FROM (
      SELECT terminal, device, created_at, max(id) FROM punches WHERE device <> '' GROUP BY terminal
    );
`;

/** What `adopt` did, for the log. */
export interface Adopted {
  moved: number;
  /** Copies never sent that were the same punch as one filed under the device: out of the queue. */
  superseded: number;
  /** The same punch under both, both possibly sent already: left as they are. */
  bothSent: number;
}

/** Whether a row may have reached the HRMS (then its devicelogId is fixed). */
const MAY_BE_SENT = `(attempts > 0 OR state NOT IN ('pending', 'quarantined'))`;

export class TerminalDevices {
  private readonly stmt: Record<
    'get' | 'set' | 'all' | 'byName' | 'twins' | 'sentRows' | 'pin' | 'move' | 'supersede' | 'drop',
    Statement
  >;

  constructor(
    private readonly db: Database,
    /** Rows from this id on have hashed devicelogIds (older ones' ids do not depend on the device). */
    private readonly hashedFrom: number,
    /** The kept counts per terminal and state (punch-counts.ts): a superseded row leaves them. */
    private readonly counts: PunchCounts,
  ) {
    this.stmt = {
      get: db.prepare(`SELECT device FROM terminal_devices WHERE terminal = ?`).pluck(),
      set: db.prepare(`INSERT INTO terminal_devices (terminal, device, learnt_at) VALUES (@terminal, @device, @now)
          ON CONFLICT (terminal) DO UPDATE SET device = excluded.device, learnt_at = excluded.learnt_at`),
      all: db.prepare(`SELECT terminal, device FROM terminal_devices`),
      // Whether any of the terminal's punches is filed by name alone (the partial index punches_by_terminal answers).
      byName: db.prepare(`SELECT 1 FROM punches WHERE terminal = ? AND device = '' LIMIT 1`).pluck(),
      // The partial index punches_by_terminal finds the rows filed by name; punches_by_device their twins.
      // `t.device <> ''` lets SQLite use that partial index (it cannot tell @device is not ''): without
      // it every adopt, at each daemon start for each terminal, read the whole punches table.
      twins: db.prepare(`SELECT r.id AS rid, ${unsent('r')} AS rUnsent, t.id AS tid, ${unsent('t')} AS tUnsent
          FROM punches r JOIN punches t
            ON t.device = @device AND t.device <> '' AND t.log_time = r.log_time AND t.biometric_code = r.biometric_code
          WHERE r.terminal = @terminal AND r.device = ''`),
      sentRows: db.prepare(`SELECT id, site, terminal, biometric_code AS biometricCode, log_time AS logTime FROM punches
          WHERE terminal = @terminal AND device = '' AND sent_as IS NULL AND id >= @from AND ${MAY_BE_SENT}`),
      pin: db.prepare(`UPDATE punches SET sent_as = ? WHERE id = ?`),
      move: db.prepare(`UPDATE OR IGNORE punches SET device = @device WHERE terminal = @terminal AND device = ''`),
      supersede:
        db.prepare(`INSERT INTO punches_superseded (id, terminal, device, biometric_code, log_time, verify_type,
            punch_state, site, state, claimed_from, attempts, next_attempt_at, first_rejected_at, last_message, duplicate,
            created_at, updated_at, delivered_at, superseded_by)
          SELECT id, terminal, device, biometric_code, log_time, verify_type, punch_state, site, state, claimed_from,
            attempts, next_attempt_at, first_rejected_at, last_message, duplicate, created_at, updated_at, delivered_at, @by
          FROM punches WHERE id = @id`),
      drop: db.prepare(`DELETE FROM punches WHERE id = ? RETURNING terminal, state`),
    };
  }

  /** Every terminal whose device is known, with that device. */
  known(): Map<string, string> {
    return new Map((this.stmt.all.all() as { terminal: string; device: string }[]).map((r) => [r.terminal, r.device]));
  }

  /** The device terminal `name` is known to be ('' when none is known). */
  deviceOf(terminal: string): string {
    return (this.stmt.get.get(terminal) as string | undefined) ?? '';
  }

  /**
   * Inside a write transaction: terminal `terminal` is device `device` (non-empty) from now on.
   * Its punches filed by name alone move to the device. Returns what moved (undefined: nothing new).
   */
  learn(terminal: string, device: string, now: number): Adopted | undefined {
    if (this.deviceOf(terminal) === device) return undefined;
    this.stmt.set.run({ terminal, device, now });
    // Nothing filed by name: nothing to adopt. A source with several devices under one terminal
    // (a BioTime server) learns one after the other in every write; adopting would look through
    // the terminal's rows each time.
    if (this.stmt.byName.get(terminal) === undefined) return { moved: 0, superseded: 0, bothSent: 0 };
    return this.adopt(terminal, device);
  }

  /** Inside a write transaction: moves every terminal's punches filed by name alone to its known device. */
  adoptAll(): Adopted {
    const sum: Adopted = { moved: 0, superseded: 0, bothSent: 0 };
    for (const r of this.stmt.all.all() as { terminal: string; device: string }[]) {
      const a = this.adopt(r.terminal, r.device);
      sum.moved += a.moved;
      sum.superseded += a.superseded;
      sum.bothSent += a.bothSent;
    }
    return sum;
  }

  private adopt(terminal: string, device: string): Adopted {
    const out: Adopted = { moved: 0, superseded: 0, bothSent: 0 };
    const twins = this.stmt.twins.all({ terminal, device }) as {
      rid: number;
      rUnsent: number;
      tid: number;
      tUnsent: number;
    }[];
    const leaving = new CountMoves();
    for (const t of twins) {
      // Keep the copy that may have been sent (its id is the one the HRMS knows); the other leaves the queue.
      const [gone, by] = t.rUnsent ? [t.rid, t.tid] : t.tUnsent ? [t.tid, t.rid] : [undefined, undefined];
      if (gone === undefined) {
        out.bothSent++;
        continue;
      }
      this.stmt.supersede.run({ id: gone, by });
      const row = this.stmt.drop.get(gone) as { terminal: string; state: PunchState } | undefined;
      if (row) leaving.add(row.terminal, row.state, -1);
      out.superseded++;
    }
    this.counts.apply(leaving);
    // A row that may have been sent keeps the id it was sent with: the one of its name.
    for (const r of this.stmt.sentRows.all({ terminal, from: this.hashedFrom }) as {
      id: number;
      site: string;
      terminal: string;
      biometricCode: string;
      logTime: string;
    }[])
      this.stmt.pin.run(hashedPunchId({ ...r, device: '' }), r.id);
    out.moved = this.stmt.move.run({ terminal, device }).changes;
    return out;
  }
}

function unsent(t: string): string {
  return `(${t}.attempts = 0 AND ${t}.state IN ('pending', 'quarantined'))`;
}
