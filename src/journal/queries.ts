import type { Database, Statement } from 'better-sqlite3';
import { PreparedStatements } from './prepared.js';
import { deviceIdentity, UNKNOWN_CARD_PREFIX } from '../punch.js';
import type { Clock } from '../util/clock.js';
import { CountMoves, type PunchCounts } from './punch-counts.js';
import { PRUNE_GUARD, REFUSED_TERM } from './state-terms.js';
import { DONE_TERM, WAITING_CARDS_TERM } from './not-routed.js';
import type { PunchIds } from './punch-id.js';
import { RetentionMarks, wasForgotten } from './retention-marks.js';
import { waitingUnknownCards } from './unknown-cards.js';
import {
  type JournalCounts,
  type OldestClaim,
  type PunchFilter,
  type PunchState,
  type RefusedPunches,
  type StoredPunch,
} from './types.js';

type Row = Record<string, unknown>;

/**
 * Rows per transaction of an admin operation over many punches (`punches retry`, `release`):
 * a few milliseconds each, with a pause between them, so the daemon is never kept waiting.
 */
const ADMIN_CHUNK_ROWS = 2000;
const ADMIN_PAUSE_MS = 5;
const pause = () => new Promise<void>((resolve) => setTimeout(resolve, ADMIN_PAUSE_MS));

/** A punches row as the CLI and status see it, with the devicelogId it is sent under. */
export function toStored(r: Row, ids: PunchIds): StoredPunch {
  const identity = {
    id: r.id as number,
    site: r.site as string,
    terminal: r.terminal as string,
    device: r.device as string,
    biometricCode: r.biometric_code as string,
    logTime: r.log_time as string,
    sentAs: r.sent_as as string | null | undefined,
  };
  return {
    id: identity.id,
    terminal: identity.terminal,
    device: identity.device,
    biometricCode: identity.biometricCode,
    logTime: identity.logTime,
    verifyType: r.verify_type as number | null,
    punchState: r.punch_state as number | null,
    devicelogId: ids.idOf(identity),
    state: r.state as PunchState,
    attempts: r.attempts as number,
    nextAttemptAt: r.next_attempt_at as number | null,
    lastMessage: r.last_message as string | null,
    duplicate: r.duplicate === 1,
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
    deliveredAt: r.delivered_at as number | null,
  };
}

function where(f: PunchFilter & { ids?: readonly number[]; codes?: readonly string[] }): {
  sql: string;
  params: unknown[];
} {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (f.state) {
    parts.push('state = ?');
    params.push(f.state);
  }
  if (f.terminal) {
    parts.push('terminal = ?');
    params.push(f.terminal);
  }
  if (f.since) {
    parts.push('log_time >= ?');
    params.push(f.since);
  }
  if (f.until) {
    parts.push('log_time <= ?');
    params.push(f.until);
  }
  if (f.codes && f.codes.length > 0) {
    parts.push('biometric_code IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(f.codes));
  }
  if (f.ids && f.ids.length > 0) {
    parts.push(`id IN (${f.ids.map(() => '?').join(',')})`);
    params.push(...f.ids);
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

/** Why a punch whose time does not exist is quarantined (after "quarantined: " in its last_message). */
export const NO_REAL_TIME = 'not a valid time';
/**
 * A punch's time is a real time of the calendar (what isLogTime accepts): SQLite's own reading of
 * it gives it back, and its hour is not 24 (which SQLite reads as the day's end, on some days).
 */
export const REAL_TIME = `(datetime(log_time) IS log_time AND substr(log_time, 12, 2) < '24')`;

/** Read-side and admin operations over the journal (status, CLI, clear policy). */
/** Quarantined punches of one terminal and reason (JournalQueries.quarantineSummary). */
export interface QuarantineGroup {
  terminal: string;
  reason: string;
  count: number;
  from: string;
  to: string;
  message: string | null;
}

export class JournalQueries {
  /** What the retention deleted, per device (retention-marks.ts): made at its first use. */
  private retentionMarks: RetentionMarks | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly ids: PunchIds,
    private readonly punchCounts: PunchCounts,
    /** Told how many rows a bulk operation wrote (the journal checkpoints after many). */
    private readonly wrote: (rows: number) => void = () => undefined,
  ) {
    this.prepared = new PreparedStatements(db);
  }

  /** Statements prepared once (the status asks the same ones every interval; preparing costs as much as running them). */
  private readonly prepared: PreparedStatements;
  private prepare(sql: string): Statement {
    return this.prepared.get(sql);
  }

  /** The punches by state, from the counts kept with every write (punch-counts.ts): never a count of the table. */
  counts(): JournalCounts {
    return this.punchCounts.byState();
  }

  /**
   * The oldest punch still waiting (pending or inflight), by log time: the first pending one in
   * the queue index and the oldest of the few in flight (their own small index).
   */
  oldestPending(): StoredPunch | undefined {
    const pending = this.prepare(
      `SELECT * FROM punches WHERE state IN ('pending', 'rejected') AND state = 'pending' ORDER BY log_time, id LIMIT 1`,
    ).get() as Row | undefined;
    const inflight = this.prepare(
      `SELECT * FROM punches WHERE state = 'inflight' ORDER BY log_time, id LIMIT 1`,
    ).get() as Row | undefined;
    const older =
      pending && inflight
        ? [pending, inflight].sort((a, b) =>
            a.log_time === b.log_time
              ? (a.id as number) - (b.id as number)
              : (a.log_time as string) < (b.log_time as string)
                ? -1
                : 1,
          )[0]
        : (pending ?? inflight);
    return older ? toStored(older, this.ids) : undefined;
  }

  list(filter: PunchFilter = {}): StoredPunch[] {
    const w = where(filter);
    const limit = filter.limit ? `LIMIT ${Math.max(1, Math.floor(filter.limit))}` : '';
    return (
      this.db.prepare(`SELECT * FROM punches ${w.sql} ORDER BY log_time, id ${limit}`).all(...w.params) as Row[]
    ).map((r) => toStored(r, this.ids));
  }

  /**
   * Whether any punch is filed under this terminal name (a terminal since removed from the config
   * keeps its punches). Asked only for a name the config does not have: a scan, on a typo's path.
   */
  hasTerminal(terminal: string): boolean {
    return this.prepare('SELECT 1 FROM punches WHERE terminal = ? LIMIT 1').get(terminal) !== undefined;
  }

  /** Iterates punches without loading them all (export of large journals). */
  *iterate(filter: PunchFilter = {}): IterableIterator<StoredPunch> {
    const w = where(filter);
    for (const r of this.db.prepare(`SELECT * FROM punches ${w.sql} ORDER BY log_time, id`).iterate(...w.params)) {
      yield toStored(r as Row, this.ids);
    }
  }

  /**
   * Re-queues rejected or dead punches now, with a fresh retry schedule. Returns how many.
   * Commits a chunk of rows at a time (see ADMIN_CHUNK_ROWS), never one long transaction.
   */
  retry(filter: {
    state: 'rejected' | 'dead';
    terminal?: string;
    /** Biometric codes (any of them). */
    codes?: readonly string[];
    ids?: readonly number[];
  }): Promise<number> {
    const w = where(filter);
    const stmt = this.db.prepare(
      `UPDATE punches SET state = 'pending', attempts = 0, first_rejected_at = NULL, next_attempt_at = NULL, updated_at = ?
        ${w.sql} AND id >= ? AND id < ? RETURNING terminal`,
    );
    return this.inChunks((from, to) => this.moved(stmt.all(this.clock.now(), ...w.params, from, to), filter.state));
  }

  /**
   * Punches of unknown badge cards (`card:<number>`) of `terminal` not yet delivered nor in flight,
   * whose card `lookup` maps now (the admin added it to the code map): their code becomes the
   * mapped one, so that a retry sends it (found by a new-user trial: the retried punch went out as
   * `card:...` again and could only end dead). A punch already journalled under the mapped code
   * (the same read) is left as it is and counted in `kept`. The state does not change, so no count.
   */
  remapUnknownCards(
    terminal: string,
    lookup: (card: string) => string | undefined,
  ): { remapped: number; kept: number } {
    const rows = this.db
      .prepare(
        // Not a punch never meant for the first sink (not_routed): left as when it counted as delivered.
        `SELECT id, biometric_code AS code FROM punches WHERE ${WAITING_CARDS_TERM} AND terminal = ? AND state <> 'inflight'`,
      )
      .all(terminal) as { id: number; code: string }[];
    const update = this.db.prepare(
      `UPDATE punches SET biometric_code = ?, updated_at = ? WHERE id = ? AND biometric_code = ? AND state <> 'inflight'`,
    );
    const out = { remapped: 0, kept: 0 };
    const now = this.clock.now();
    this.db.transaction(() => {
      for (const r of rows) {
        const mapped = lookup(r.code.slice(UNKNOWN_CARD_PREFIX.length));
        if (mapped === undefined) continue;
        try {
          out.remapped += update.run(mapped, now, r.id, r.code).changes;
        } catch (e) {
          if (!/^SQLITE_CONSTRAINT/.test((e as { code?: string }).code ?? '')) throw e;
          out.kept++;
        }
      }
    })();
    this.wrote(out.remapped);
    return out;
  }

  /**
   * Releases quarantined punches to the queue (an admin checked their times), a chunk at a time.
   * A punch whose time does not exist (`2026-02-30 08:00:00`, `24:00:00`: a broken clock or
   * firmware) is never released: an HRMS would refuse it, or worse read it as another day.
   * `datetime(t) IS t` holds exactly for the times isLogTime accepts (the test says so).
   */
  releaseQuarantined(filter: { terminal?: string; ids?: readonly number[] } = {}): Promise<number> {
    const w = where({ ...filter, state: 'quarantined' });
    const stmt = this.db.prepare(
      `UPDATE punches SET state = 'pending', last_message = NULL, updated_at = ? ${w.sql} AND ${REAL_TIME}
        AND id >= ? AND id < ? RETURNING terminal`,
    );
    return this.inChunks((from, to) => this.moved(stmt.all(this.clock.now(), ...w.params, from, to), 'quarantined'));
  }

  /** Quarantined punches whose time does not exist (never released), with one of those times. */
  quarantinedWithoutTime(filter: { terminal?: string } = {}): { count: number; example: string | null } {
    const w = where({ ...filter, state: 'quarantined' });
    return this.db
      .prepare(`SELECT count(*) AS count, min(log_time) AS example FROM punches ${w.sql} AND NOT ${REAL_TIME}`)
      .get(...w.params) as { count: number; example: string | null };
  }

  /** Counts rows an UPDATE ... RETURNING terminal moved from `from` to pending. */
  private moved(rows: unknown[], from: PunchState): number {
    const moves = new CountMoves();
    for (const r of rows as { terminal: string }[]) moves.move(r.terminal, from, 'pending');
    this.punchCounts.apply(moves);
    return rows.length;
  }

  /** Runs `chunk` over consecutive id ranges, each its own transaction, pausing between them. */
  private async inChunks(chunk: (from: number, to: number) => number): Promise<number> {
    const { lo, hi } = this.db
      .prepare('SELECT (SELECT min(id) FROM punches) AS lo, (SELECT max(id) FROM punches) AS hi')
      .get() as {
      lo: number | null;
      hi: number | null;
    };
    if (lo === null || hi === null) return 0;
    let total = 0;
    for (let from = lo; from <= hi; from += ADMIN_CHUNK_ROWS) {
      if (from > lo) await pause();
      total += this.db.transaction(() => chunk(from, from + ADMIN_CHUNK_ROWS))();
    }
    this.wrote(total);
    return total;
  }

  /** The oldest claim still in flight (any process), or undefined when nothing is in flight. */
  oldestClaim(): OldestClaim | undefined {
    const r = this.prepare(
      `SELECT min(updated_at) AS claimedAt, count(*) AS punches, count(DISTINCT claimed_by) AS holders
          FROM punches WHERE state = 'inflight'`,
    ).get() as { claimedAt: number | null; punches: number; holders: number };
    return r.claimedAt === null ? undefined : { claimedAt: r.claimedAt, punches: r.punches, holders: r.holders };
  }

  /**
   * Quarantined punches per terminal and reason, with the span of their times (for the status);
   * `message`: the newest one's (for "in the future": the offset it was seen with).
   */
  quarantineSummary(): QuarantineGroup[] {
    // SQLite: a bare column beside max() is read from the row that has the max.
    return this.prepare(
      `SELECT terminal, CASE WHEN NOT ${REAL_TIME} THEN 'no-time'
                WHEN last_message LIKE '%clock was behind%' THEN 'behind'
                WHEN last_message LIKE '%future%' THEN 'future' ELSE 'implausible' END AS reason,
              count(*) AS count, min(log_time) AS "from", max(log_time) AS "to", max(id) AS newest, last_message AS message
          FROM punches WHERE ${REFUSED_TERM} AND state = 'quarantined' GROUP BY 1, 2 ORDER BY count DESC LIMIT 20`,
    )
      .all()
      .map((r) => {
        const { newest: _newest, ...g } = r as QuarantineGroup & { newest: number };
        return g;
      });
  }

  /**
   * Punches of a device (known by its serial), or of a terminal where no device is given, not yet
   * delivered: the clear policy refuses while any exist.
   */
  undeliveredCount(terminal: string, serial?: string): number {
    // Looked up under the identity the punches were kept under (ingest's deviceIdentity).
    const device = serial ? deviceIdentity(serial) : serial;
    const r = device
      ? this.db
          .prepare(`SELECT count(*) AS n FROM punches WHERE device = ? AND device <> '' AND NOT ${DONE_TERM}`)
          .get(device)
      : this.db.prepare(`SELECT count(*) AS n FROM punches WHERE terminal = ? AND NOT ${DONE_TERM}`).get(terminal);
    return (r as { n: number }).n;
  }

  /**
   * How many of the given punches are delivered (the clear policy checks every record on the
   * terminal). They are looked up by their identity: the device's serial where known.
   */
  deliveredAmong(
    terminal: string,
    serial: string,
    punches: readonly { biometricCode: string; logTime: string }[],
  ): number {
    const device = serial ? deviceIdentity(serial) : serial;
    // Delivered to every sink, not only the first: the log of a terminal is its last copy of the
    // punches another sink still owes (found by a new-user trial: Odoo refused them all, and the
    // log was cleared). The same rule as retention's (PRUNE_GUARD).
    // A punch never meant for the first sink (not-routed.ts) is done for it.
    const everySink = `${DONE_TERM} AND ${PRUNE_GUARD}`;
    const stmt = device
      ? this.db.prepare(
          `SELECT ${everySink} AS done FROM punches WHERE device = ? AND device <> '' AND log_time = ? AND biometric_code = ?`,
        )
      : this.db.prepare(
          `SELECT ${everySink} AS done FROM punches WHERE terminal = ? AND device = '' AND log_time = ? AND biometric_code = ?`,
        );
    const key = device || terminal;
    // Delivered, then deleted by the retention: not in the journal, delivered all the same.
    const forgotten = (this.retentionMarks ??= new RetentionMarks(this.db)).span(device, terminal);
    let n = 0;
    for (const p of punches) {
      const r = stmt.get(key, p.logTime, p.biometricCode) as { done: number } | undefined;
      if (r?.done === 1 || (r === undefined && wasForgotten(forgotten, p.logTime))) n++;
    }
    return n;
  }

  /**
   * Undelivered punches of unknown badge cards (codes with UNKNOWN_CARD_PREFIX), per terminal:
   * read through their own partial index, whatever the journal holds besides.
   */
  unknownCards(): { terminal: string; count: number; codes: string[] }[] {
    return waitingUnknownCards(this.db).map(({ terminal, count, codes }) => ({ terminal, count, codes }));
  }

  /**
   * Rejected and dead punches counted by the HRMS's message, code and state, for the alerts
   * (which group them by cause). One row per distinct (message, code, state): as many as the
   * refused employees times their reasons, not as many as the punches.
   */
  refusedPunches(): RefusedPunches[] {
    return (
      this.prepare(
        `SELECT last_message AS message, biometric_code AS code, state, count(*) AS count
                FROM punches WHERE ${REFUSED_TERM} AND state IN ('rejected', 'dead')
                GROUP BY last_message, biometric_code, state`,
      ).all() as { message: string | null; code: string; state: 'rejected' | 'dead'; count: number }[]
    ).map((r) => ({ ...r, message: r.message ?? '' }));
  }

  /**
   * Per terminal: punches in the journal and how many of them are delivered (from the kept
   * counts), and the highest row id (the metrics' starting point).
   */
  terminalTotals(): { rows: { terminal: string; journaled: number; delivered: number }[]; maxId: number } {
    return this.db
      .transaction(() => {
        const rows = this.punchCounts.byTerminal();
        const max = this.prepare(`SELECT max(id) AS m FROM punches`).get() as { m: number | null };
        return { rows, maxId: max.m ?? 0 };
      })
      .deferred();
  }

  /**
   * Punches journalled after row `afterId` (up to row `upToId`, when given), per terminal (row ids
   * only grow: a range of the table).
   */
  journaledSince(
    afterId: number,
    upToId = Number.MAX_SAFE_INTEGER,
  ): { terminal: string; count: number; maxId: number }[] {
    return this.prepare(
      // NOT INDEXED: a rowid range, not a walk of the unique index.
      `SELECT terminal, count(*) AS count, max(id) AS maxId FROM punches NOT INDEXED WHERE id > ? AND id <= ? GROUP BY terminal`,
    ).all(afterId, upToId) as { terminal: string; count: number; maxId: number }[];
  }

  /** The newest punch's row id (0: none); the last row of the table's b-tree, not a scan. */
  maxPunchId(): number {
    return (this.prepare(`SELECT max(id) AS m FROM punches`).get() as { m: number | null }).m ?? 0;
  }

  /** How many of these punches are delivered, per terminal. */
  deliveredAmongIds(ids: readonly number[]): { terminal: string; count: number }[] {
    if (ids.length === 0) return [];
    return this.prepare(
      `SELECT terminal, count(*) AS count FROM punches
                WHERE id IN (SELECT value FROM json_each(?)) AND state = 'delivered' GROUP BY terminal`,
    ).all(JSON.stringify(ids)) as { terminal: string; count: number }[];
  }
}
