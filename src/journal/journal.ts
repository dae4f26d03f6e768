import type Database from 'better-sqlite3';
import { isLogTime, wallClockAt, type Punch } from '../punch.js';
import { backoffDelay } from '../util/backoff.js';
import { systemClock, type Clock } from '../util/clock.js';
import { OwnerLock } from './lock.js';
import { openJournalDb } from './open-db.js';
import { JournalQueries } from './queries.js';
import { DeliveryStateStore, SourceStateTable, TerminalStateStore } from './state-stores.js';
import type {
  ClaimOptions,
  DeliveryQueue,
  IngestOptions,
  JournalCounts,
  IngestResult,
  OutboundPunch,
  PunchOutcome,
  PunchSink,
} from './types.js';

export interface JournalOptions {
  path: string;
  /** Prefix of every devicelogId: "<site>-<n>". */
  site: string;
  clock?: Clock;
  /**
   * 'owner' (punchgate run): takes the single-owner lock and returns rows left inflight by a
   * crash. 'shared': no lock. 'auto' (flush): shared, but first returns rows left inflight
   * by a crash when no process owns the journal.
   */
  mode?: 'owner' | 'shared' | 'auto';
  retentionDays?: number;
  futureToleranceMinutes?: number;
  /** Slower schedule for punches the HRMS refused: base doubling up to max. */
  rejectedRetry?: { baseMs: number; maxMs: number };
  deadAfterAttempts?: number;
  deadAfterDays?: number;
}

const DAY_MS = 86_400_000;
/** Punches before this are implausible (a terminal whose clock was reset). */
const EARLIEST_PLAUSIBLE = '2000-01-01 00:00:00';

/**
 * The durable, deduplicated punch journal (SQLite). Every write is one synchronous
 * transaction: when a method returns, its effect survives a crash or power cut.
 */
export class Journal implements PunchSink, DeliveryQueue {
  readonly terminals: TerminalStateStore;
  readonly deliveryState: DeliveryStateStore;
  readonly sourceState: SourceStateTable;
  readonly queries: JournalQueries;
  readonly isOwner: boolean;
  private readonly clock: Clock;
  private readonly stmt;

  private constructor(
    readonly db: Database.Database,
    private readonly opts: Required<Omit<JournalOptions, 'clock' | 'mode'>>,
    clock: Clock,
    private readonly lock: OwnerLock | undefined,
  ) {
    this.clock = clock;
    this.isOwner = lock !== undefined;
    this.terminals = new TerminalStateStore(db);
    this.deliveryState = new DeliveryStateStore(db);
    this.sourceState = new SourceStateTable(db);
    this.queries = new JournalQueries(db, clock);
    this.stmt = {
      // Positional parameters: binding is measurably faster than named ones on the ingest path.
      insert: db.prepare(`INSERT INTO punches
          (terminal, device, biometric_code, log_time, verify_type, punch_state, site, state, last_message, created_at, updated_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT DO NOTHING`),
      // A claim is a read through the queue index, then one UPDATE of the ids it found, in one
      // IMMEDIATE transaction (no other connection can take the same punches in between). This is
      // about half the cost of one UPDATE ... WHERE id IN (subquery) RETURNING for a big batch.
      pick: db.prepare(`SELECT id, site || '-' || id AS devicelogId, biometric_code AS biometricCode, log_time AS logTime,
            attempts, state AS previousState
          FROM punches
          WHERE state IN ('pending', 'rejected') AND (state = 'pending' OR @all OR next_attempt_at <= @now)
          ORDER BY log_time, id LIMIT @limit`),
      markInflight: db.prepare(`UPDATE punches SET claimed_from = state, state = 'inflight', updated_at = @now
          WHERE id IN (SELECT value FROM json_each(@ids))`),
      // Bulk forms take the ids as a JSON array: one statement for a whole batch's answers.
      delivered: db.prepare(`UPDATE punches SET state = 'delivered', claimed_from = NULL, duplicate = @duplicate,
          attempts = attempts + 1, last_message = @message, delivered_at = @now, updated_at = @now, next_attempt_at = NULL
          WHERE id IN (SELECT value FROM json_each(@ids)) AND state = 'inflight'`),
      getInflight: db.prepare(
        `SELECT attempts, first_rejected_at AS firstRejectedAt FROM punches WHERE id = ? AND state = 'inflight'`,
      ),
      rejected: db.prepare(`UPDATE punches SET state = @state, claimed_from = NULL, attempts = @attempts,
          first_rejected_at = @firstRejectedAt, next_attempt_at = @next, last_message = @message, updated_at = @now
          WHERE id = @id AND state = 'inflight'`),
      unclaim: db.prepare(`UPDATE punches SET state = coalesce(claimed_from, 'pending'), claimed_from = NULL,
          last_message = coalesce(@message, last_message), updated_at = @now
          WHERE id IN (SELECT value FROM json_each(@ids)) AND state = 'inflight'`),
      // The `state IN ('pending', 'rejected')` term lets SQLite use the small queue index.
      anyPending: db.prepare(
        `SELECT 1 FROM punches WHERE state IN ('pending', 'rejected') AND state = 'pending' LIMIT 1`,
      ),
      nextRejected: db.prepare(
        `SELECT min(next_attempt_at) AS t FROM punches WHERE state IN ('pending', 'rejected') AND state = 'rejected'`,
      ),
      dueCount: db.prepare(`SELECT count(*) AS n FROM punches
          WHERE state IN ('pending', 'rejected') AND (state = 'pending' OR @all OR next_attempt_at <= @now)`),
    };
  }

  static open(options: JournalOptions): Journal {
    const clock = options.clock ?? systemClock;
    const mode = options.mode ?? 'shared';
    let lock: OwnerLock | undefined;
    let recoverOnly: OwnerLock | undefined;
    if (mode === 'owner') lock = OwnerLock.acquire(options.path);
    if (mode === 'auto') {
      try {
        recoverOnly = OwnerLock.acquire(options.path);
      } catch {
        recoverOnly = undefined; // a daemon owns the journal: it recovers its own rows
      }
    }
    let db: Database.Database;
    try {
      db = openJournalDb(options.path);
    } catch (e) {
      lock?.release();
      throw e;
    }
    const journal = new Journal(
      db,
      {
        path: options.path,
        site: options.site,
        retentionDays: options.retentionDays ?? 400,
        futureToleranceMinutes: options.futureToleranceMinutes ?? 10,
        rejectedRetry: options.rejectedRetry ?? { baseMs: 3_600_000, maxMs: DAY_MS },
        deadAfterAttempts: options.deadAfterAttempts ?? 30,
        deadAfterDays: options.deadAfterDays ?? 30,
      },
      clock,
      lock,
    );
    if (lock) journal.recoverInflight();
    if (recoverOnly) {
      // Nobody owns the journal: rows a crashed process left inflight go back to the queue,
      // and the lock is let go at once so that `punchgate run` can always start.
      try {
        journal.recoverInflight();
      } finally {
        recoverOnly.release();
      }
    }
    return journal;
  }

  /** After a crash nothing stays inflight: the owner returns such rows to the queue. */
  private recoverInflight(): number {
    return this.db
      .prepare(
        `UPDATE punches SET state = coalesce(claimed_from, 'pending'), claimed_from = NULL, updated_at = ?
                WHERE state = 'inflight'`,
      )
      .run(this.clock.now()).changes;
  }

  ingest(punches: readonly Punch[], opts: IngestOptions = {}): IngestResult {
    const now = this.clock.now();
    const latest = wallClockAt(now + this.opts.futureToleranceMinutes * 60_000, opts.timezone);
    const result: IngestResult = { added: 0, duplicates: 0, quarantined: 0 };
    this.db
      .transaction(() => {
        for (const p of punches) {
          const reason = !isLogTime(p.logTime)
            ? 'not a valid time'
            : p.logTime < EARLIEST_PLAUSIBLE
              ? 'before 2000: the terminal clock was probably reset'
              : p.logTime > latest
                ? `in the future (box clock ${latest.slice(0, 16)} incl. tolerance)`
                : undefined;
          const r = this.stmt.insert.run(
            p.terminal,
            p.device ?? '',
            p.biometricCode,
            p.logTime,
            p.verifyType ?? null,
            p.punchState ?? null,
            this.opts.site,
            reason ? 'quarantined' : 'pending',
            reason ? `quarantined: ${reason}` : null,
            now,
            now,
          );
          if (r.changes === 0) result.duplicates++;
          else if (reason) result.quarantined++;
          else result.added++;
        }
        if (opts.state) this.sourceState.set(opts.state, now);
      })
      .immediate();
    return result;
  }

  claim(limit: number, opts: ClaimOptions = {}): OutboundPunch[] {
    const now = this.clock.now();
    return this.db
      .transaction(() => {
        // In queue order (log time, then id): the index's order.
        const rows = this.stmt.pick.all({ now, limit, all: opts.ignoreBackoff ? 1 : 0 }) as OutboundPunch[];
        if (rows.length > 0) this.stmt.markInflight.run({ now, ids: JSON.stringify(rows.map((r) => r.id)) });
        return rows;
      })
      .immediate();
  }

  settle(outcomes: readonly PunchOutcome[]): void {
    const now = this.clock.now();
    // Delivered, duplicate and unknown answers are grouped by message (usually one per batch)
    // and settled with one statement per group; refusals need each punch's own history.
    const groups = new Map<
      string,
      { kind: 'delivered' | 'duplicate' | 'unknown'; message: string | null; ids: number[] }
    >();
    const rejected: { id: number; message: string }[] = [];
    for (const o of outcomes) {
      if (o.kind === 'rejected') {
        rejected.push(o);
        continue;
      }
      const message = o.message ?? null;
      const key = message === null ? o.kind : `${o.kind}:${message}`;
      const g = groups.get(key) ?? groups.set(key, { kind: o.kind, message, ids: [] }).get(key)!;
      g.ids.push(o.id);
    }
    this.db
      .transaction(() => {
        for (const g of groups.values()) {
          const ids = JSON.stringify(g.ids);
          if (g.kind === 'unknown') this.stmt.unclaim.run({ ids, message: g.message, now });
          else this.stmt.delivered.run({ ids, duplicate: g.kind === 'duplicate' ? 1 : 0, message: g.message, now });
        }
        for (const o of rejected) {
          const row = this.stmt.getInflight.get(o.id) as
            { attempts: number; firstRejectedAt: number | null } | undefined;
          if (!row) continue;
          const attempts = row.attempts + 1;
          const firstRejectedAt = row.firstRejectedAt ?? now;
          const dead =
            attempts >= this.opts.deadAfterAttempts || now - firstRejectedAt >= this.opts.deadAfterDays * DAY_MS;
          const delay = backoffDelay(attempts - 1, this.opts.rejectedRetry);
          this.stmt.rejected.run({
            id: o.id,
            state: dead ? 'dead' : 'rejected',
            attempts,
            firstRejectedAt,
            next: dead ? null : now + delay,
            message: o.message,
            now,
          });
        }
      })
      .immediate();
  }

  release(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.stmt.unclaim.run({ ids: JSON.stringify(ids), message: null, now: this.clock.now() });
  }

  nextDueAt(): number | null {
    if (this.stmt.anyPending.get()) return this.clock.now();
    const r = this.stmt.nextRejected.get() as { t: number | null };
    return r.t;
  }

  dueCount(opts: ClaimOptions = {}): number {
    return (this.stmt.dueCount.get({ now: this.clock.now(), all: opts.ignoreBackoff ? 1 : 0 }) as { n: number }).n;
  }

  counts(): JournalCounts {
    return this.queries.counts();
  }

  /** Deletes delivered punches older than the retention; returns how many. */
  prune(): number {
    const cutoff = this.clock.now() - this.opts.retentionDays * DAY_MS;
    // The newest row always stays, so that row ids (and devicelogIds) are never handed out twice.
    return this.db
      .prepare(
        `DELETE FROM punches WHERE state = 'delivered' AND delivered_at < ? AND id < (SELECT max(id) FROM punches)`,
      )
      .run(cutoff).changes;
  }

  close(): void {
    if (!this.db.open) return;
    try {
      if (this.isOwner) this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.db.close();
      this.lock?.release();
    }
  }
}
