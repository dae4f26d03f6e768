import type { Database, Statement } from 'better-sqlite3';
import { backoffDelay } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';
import {
  anyPending,
  freeParam,
  heldParam,
  notHeldTerm,
  pendingCodesParam,
  pulledTerm,
  SINK_REFUSED_FIRST,
  type RefusedFirst,
  withRefusalsAhead,
} from './held-behind-refused.js';
import type { PunchIds } from './punch-id.js';
import { toStored } from './queries.js';
import { scrubEachOnce, type Scrub } from './state-stores.js';
import { REFUSED_TERM } from './state-terms.js';
import type {
  ClaimOptions,
  DeliveryQueue,
  DueCountOptions,
  JournalCounts,
  OutboundPunch,
  PunchOutcome,
  PunchState,
  RefusedPunches,
  StoredPunch,
} from './types.js';
import { noPunchCounts } from './types.js';
import type { WriteGate } from './write-gate.js';

/**
 * Each punch delivered to each of its sinks independently (issue 32).
 *
 * Why this shape: the punches table's delivery columns (state, attempts, next_attempt_at, ...)
 * stay the state of the default sink, the first of the config (the `hrms:` block where there is
 * one). So a journal of today needs no rewrite of its punches, its pending punches reach the
 * default sink exactly once, and every query, count, index and test of today keeps its meaning.
 * Every other sink's state of a punch is a row of sink_deliveries, with the same columns and
 * the same meaning (pending, inflight with its claim holder, delivered, rejected, dead).
 *
 * Rows are made lazily, not by ingest: `sinks.cursor` is the highest punch id a sink has taken
 * in; each claim of the sink first takes in the punches above it (a rowid range, cheap), leaving
 * out those of terminals that do not name the sink. So every path that journals punches (poll,
 * push, import, reparse) is covered without a hook of its own, and ingest costs no more.
 * A sink seen for the first time starts at the journal's highest id then: it gets the punches
 * journalled from then on, never the history of the box (`punches retry --sink NAME --all`
 * queues the older ones when that is wanted). A quarantined punch is taken in but not sent
 * until it is released: quarantine is a fact about the punch, not about a sink.
 *
 * Retention deletes a delivered punch only when every active sink has it delivered (or never
 * had to): see PRUNE_GUARD (state-terms.ts). Counts per sink and state are kept in sink_counts by the writes that
 * move rows (issue 35: no status figure counts the delivered history).
 */
export const SINK_DELIVERIES_MIGRATION = `
  CREATE TABLE sinks (
    name          TEXT    NOT NULL PRIMARY KEY,
    first_seen_at INTEGER NOT NULL,
    -- Punches with a higher id are not taken in yet (see sink-deliveries.ts).
    cursor        INTEGER NOT NULL,
    -- In the config now: only these hold back retention.
    active        INTEGER NOT NULL DEFAULT 1,
    -- The sink whose state the punches table holds (one row at most).
    is_default    INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  CREATE TABLE sink_deliveries (
    sink              TEXT    NOT NULL,
    punch_id          INTEGER NOT NULL,
    -- Copied from the punch: the queue's order without a join.
    log_time          TEXT    NOT NULL,
    terminal          TEXT    NOT NULL,
    state             TEXT    NOT NULL CHECK (state IN ('pending','inflight','delivered','rejected','dead')),
    claimed_from      TEXT,
    claimed_by        TEXT,
    attempts          INTEGER NOT NULL DEFAULT 0,
    next_attempt_at   INTEGER,
    first_rejected_at INTEGER,
    last_message      TEXT,
    duplicate         INTEGER NOT NULL DEFAULT 0,
    delivered_at      INTEGER,
    updated_at        INTEGER NOT NULL,
    PRIMARY KEY (sink, punch_id)
  ) WITHOUT ROWID;
  CREATE INDEX sink_queue ON sink_deliveries (sink, log_time, punch_id) WHERE state IN ('pending', 'rejected');
  CREATE INDEX sink_inflight ON sink_deliveries (claimed_by) WHERE state = 'inflight';
  CREATE INDEX sink_undelivered ON sink_deliveries (punch_id) WHERE state <> 'delivered';
  CREATE INDEX sink_by_punch ON sink_deliveries (punch_id);
  CREATE TABLE sink_counts (
    sink  TEXT    NOT NULL,
    state TEXT    NOT NULL,
    n     INTEGER NOT NULL,
    PRIMARY KEY (sink, state)
  ) WITHOUT ROWID;
  CREATE TABLE sink_state (
    sink              TEXT    NOT NULL PRIMARY KEY,
    auth              TEXT    NOT NULL DEFAULT 'unknown',
    auth_failed_since INTEGER,
    last_attempt_at   INTEGER,
    last_success_at   INTEGER,
    last_error        TEXT,
    last_error_at     INTEGER,
    last_result       TEXT,
    failing_since     INTEGER
  ) WITHOUT ROWID;
`;

type SinkState = Exclude<PunchState, 'quarantined' | 'not_routed'>;
/**
 * Punch ids one transaction takes in at most: after a long outage of a sink (its cursor stood
 * still while punches came in), a claim catches up a few thousand rows a transaction, never in
 * one long transaction, and picks only once every punch is taken in (catchUp).
 */
const TAKE_IN_ROWS = 5000;
const DAY_MS = 86_400_000;

/** The sinks of the config, told to the journal at start and on reload. */
export interface SinkRoster {
  /** The sink the punches table holds the state of. */
  defaultSink: string;
  /** Every other sink. */
  others: readonly string[];
}

/**
 * Records the sinks of the config: a new one starts at the journal's highest punch id; those no
 * longer configured stop holding back retention. Returns the default sink the journal recorded
 * before, when it was another one (the caller says so: the punches' state was that sink's).
 */
export function registerSinks(db: Database, now: number, roster: SinkRoster): string | undefined {
  return db
    .transaction(() => {
      const before = db.prepare(`SELECT name FROM sinks WHERE is_default = 1`).get() as { name: string } | undefined;
      const top = (db.prepare(`SELECT coalesce(max(id), 0) AS m FROM punches`).get() as { m: number }).m;
      const add = db.prepare(`INSERT INTO sinks (name, first_seen_at, cursor, active, is_default) VALUES (?, ?, ?, 1, 0)
          ON CONFLICT (name) DO UPDATE SET active = 1, is_default = 0`);
      db.prepare(`UPDATE sinks SET active = 0, is_default = 0`).run();
      for (const name of roster.others) add.run(name, now, top);
      db.prepare(
        `INSERT INTO sinks (name, first_seen_at, cursor, active, is_default) VALUES (?, ?, ?, 0, 1)
          ON CONFLICT (name) DO UPDATE SET active = 0, is_default = 1`,
      ).run(roster.defaultSink, now, top);
      return before && before.name !== roster.defaultSink ? before.name : undefined;
    })
    .immediate();
}

/**
 * The sinks of `names` the journal has never recorded (registerSinks starts them at its newest
 * punch), each with the punches already journalled, which it is not sent unless asked.
 */
export function sinksNewToJournal(db: Database, names: readonly string[]): { sink: string; older: number }[] {
  const known = db.prepare(`SELECT 1 FROM sinks WHERE name = ?`);
  const fresh = names.filter((n) => known.get(n) === undefined);
  if (fresh.length === 0) return [];
  // Once per start or reload, and only when a sink is new: a count of the punches table.
  const older = (db.prepare(`SELECT count(*) AS n FROM punches`).get() as { n: number }).n;
  return fresh.map((sink) => ({ sink, older }));
}

/** Claim holders with sink rows in flight. */
export function sinkHolders(db: Database): (string | null)[] {
  return (
    db.prepare(`SELECT DISTINCT claimed_by AS holder FROM sink_deliveries WHERE state = 'inflight'`).all() as {
      holder: string | null;
    }[]
  ).map((r) => r.holder);
}

/** Returns a gone holder's sink claims to the queue, counted; inside the caller's transaction. */
export function recoverSinkClaims(db: Database, holder: string | null, now: number): number {
  const rows = db
    .prepare(
      `UPDATE sink_deliveries SET state = coalesce(claimed_from, 'pending'), claimed_from = NULL, claimed_by = NULL,
        updated_at = ? WHERE state = 'inflight' AND claimed_by IS ? RETURNING sink, state`,
    )
    .all(now, holder) as { sink: string; state: SinkState }[];
  const moves = new SinkMoves();
  for (const r of rows) moves.move(r.sink, 'inflight', r.state);
  moves.apply(db);
  return rows.length;
}

/** Deletes the sink rows of punches the retention deleted; inside its transaction. */
export function pruneSinkRows(db: Database, punchIds: readonly number[]): void {
  if (punchIds.length === 0) return;
  const rows = db
    .prepare(`DELETE FROM sink_deliveries WHERE punch_id IN (SELECT value FROM json_each(?)) RETURNING sink, state`)
    .all(JSON.stringify(punchIds)) as { sink: string; state: SinkState }[];
  const moves = new SinkMoves();
  for (const r of rows) moves.add(r.sink, r.state, -1);
  moves.apply(db);
}

/** Sink rows moved between states by one transaction. */
class SinkMoves {
  private readonly m = new Map<string, number>();
  add(sink: string, state: SinkState, n = 1): void {
    const k = `${sink}\u0000${state}`;
    this.m.set(k, (this.m.get(k) ?? 0) + n);
  }
  move(sink: string, from: SinkState, to: SinkState, n = 1): void {
    if (from === to) return;
    this.add(sink, from, -n);
    this.add(sink, to, n);
  }
  apply(db: Database): void {
    const st = db.prepare(`INSERT INTO sink_counts (sink, state, n) VALUES (?, ?, ?)
        ON CONFLICT (sink, state) DO UPDATE SET n = n + excluded.n`);
    for (const [k, n] of this.m) {
      if (n === 0) continue;
      const [sink, state] = k.split('\u0000') as [string, string];
      st.run(sink, state, n);
    }
  }
}

export interface SinkQueueDeps {
  db: Database;
  gate: WriteGate;
  clock: Clock;
  ids: PunchIds;
  scrub?: Scrub | undefined;
  settings: { rejectedRetry: { baseMs: number; maxMs: number }; deadAfterAttempts: number; deadAfterDays: number };
  /** Before a claim: earlier returns written, stale claims recovered; gives this process's claim holder. */
  beginClaim(now: number): string;
  /** This process's claim holder ('' before its first claim). */
  holder(): string;
  /** Runs a delivery write committed without a disk sync on the event loop (Journal's syncedApart). */
  syncedApart<T>(fn: () => T): T;
  /** A delivery write that may wait for a busy journal, without a disk sync on the event loop (Journal's deferApart). */
  deferApart(fn: () => void): void;
}

type Row = Record<string, unknown>;
type PickedRow = Omit<OutboundPunch, 'devicelogId'> & {
  site: string;
  terminal: string;
  device: string;
  sentAs: string | null;
};

/**
 * The delivery queue of one sink other than the default: the same semantics as the journal's
 * own queue (journal.ts: claim, settle, release, the slow schedule of refused punches, dead),
 * over the sink's rows of sink_deliveries.
 */
export class SinkQueue implements DeliveryQueue {
  private readonly stmt: Record<string, Statement>;
  private readonly notFor: string;

  constructor(
    private readonly d: SinkQueueDeps,
    readonly sink: string,
    /** Terminals whose punches do not go to this sink (their `sinks:` leaves it out). */
    notFor: readonly string[],
  ) {
    this.notFor = JSON.stringify(notFor);
    const { db } = d;
    this.stmt = {
      cursor: db.prepare(`SELECT cursor FROM sinks WHERE name = ?`),
      top: db.prepare(`SELECT coalesce(max(id), 0) AS m FROM punches`),
      takeIn: db.prepare(`INSERT INTO sink_deliveries (sink, punch_id, log_time, terminal, state, updated_at)
          SELECT @sink, id, log_time, terminal, 'pending', @now FROM punches
          WHERE id > @from AND id <= @to AND terminal NOT IN (SELECT value FROM json_each(@notFor))
          ON CONFLICT DO NOTHING`),
      moveCursor: db.prepare(`UPDATE sinks SET cursor = @to WHERE name = @sink AND cursor < @to`),
      notTakenIn: db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM punches
          WHERE id > @from AND terminal NOT IN (SELECT value FROM json_each(@notFor)) LIMIT @limit)`),
      pick: db.prepare(`SELECT d.punch_id AS id, p.site, p.terminal, p.device, p.biometric_code AS biometricCode,
            p.log_time AS logTime, p.punch_state AS punchState, p.sent_as AS sentAs, d.attempts, d.state AS previousState
          FROM sink_deliveries d JOIN punches p ON p.id = d.punch_id
          WHERE d.sink = @sink AND d.state IN ('pending', 'rejected')
            AND (d.state = 'pending' OR @all OR d.next_attempt_at <= @now) AND p.state <> 'quarantined'
          ORDER BY d.log_time, d.punch_id LIMIT @limit`),
      pickHeld: db.prepare(`SELECT d.punch_id AS id, p.site, p.terminal, p.device, p.biometric_code AS biometricCode,
            p.log_time AS logTime, p.punch_state AS punchState, p.sent_as AS sentAs, d.attempts, d.state AS previousState
          FROM sink_deliveries d JOIN punches p ON p.id = d.punch_id
          WHERE d.sink = @sink AND d.state IN ('pending', 'rejected')
            AND (d.state = 'pending' OR @all OR d.next_attempt_at <= @now) AND p.state <> 'quarantined'
            AND ${notHeldTerm('p.biometric_code', 'd.log_time')}
          ORDER BY d.log_time, d.punch_id LIMIT @limit`),
      refusedFirst: db.prepare(SINK_REFUSED_FIRST),
      // The refusals that hold nothing, of the codes a claim takes a pending punch of (held-behind-refused.ts).
      pickPulled: db.prepare(`SELECT d.punch_id AS id, p.site, p.terminal, p.device, p.biometric_code AS biometricCode,
            p.log_time AS logTime, p.punch_state AS punchState, p.sent_as AS sentAs, d.attempts, d.state AS previousState
          FROM sink_deliveries d JOIN punches p ON p.id = d.punch_id
          WHERE d.sink = @sink AND d.state IN ('pending', 'rejected') AND d.state = 'rejected' AND p.state <> 'quarantined'
            AND ${pulledTerm('p.biometric_code', 'd.last_message')}
          ORDER BY d.log_time, d.punch_id`),
      markInflight:
        db.prepare(`UPDATE sink_deliveries SET claimed_from = state, claimed_by = @holder, state = 'inflight',
          updated_at = @now WHERE sink = @sink AND punch_id IN (SELECT value FROM json_each(@ids))`),
      delivered: db.prepare(`UPDATE sink_deliveries SET state = 'delivered', claimed_from = NULL, claimed_by = NULL,
          duplicate = @duplicate, attempts = attempts + 1, last_message = @message, delivered_at = @now,
          updated_at = @now, next_attempt_at = NULL
          WHERE sink = @sink AND punch_id IN (SELECT value FROM json_each(@ids)) AND state = 'inflight'
            AND claimed_by = @holder RETURNING punch_id`),
      getInflight: db.prepare(`SELECT attempts, first_rejected_at AS firstRejectedAt FROM sink_deliveries
          WHERE sink = ? AND punch_id = ? AND state = 'inflight' AND claimed_by = ?`),
      rejected: db.prepare(`UPDATE sink_deliveries SET state = @state, claimed_from = NULL, claimed_by = NULL,
          attempts = @attempts, first_rejected_at = @firstRejectedAt, next_attempt_at = @next, last_message = @message,
          updated_at = @now WHERE sink = @sink AND punch_id = @id AND state = 'inflight' AND claimed_by = @holder`),
      unclaim: db.prepare(`UPDATE sink_deliveries SET state = coalesce(claimed_from, 'pending'), claimed_from = NULL,
          claimed_by = NULL, last_message = coalesce(@message, last_message), updated_at = @now
          WHERE sink = @sink AND punch_id IN (SELECT value FROM json_each(@ids)) AND state = 'inflight'
            AND claimed_by = @holder RETURNING state`),
      anyPending: db.prepare(`SELECT 1 FROM sink_deliveries d JOIN punches p ON p.id = d.punch_id
          WHERE d.sink = ? AND d.state IN ('pending', 'rejected') AND d.state = 'pending' AND p.state <> 'quarantined'
          LIMIT 1`),
      nextRejected: db.prepare(`SELECT min(next_attempt_at) AS t FROM sink_deliveries
          WHERE sink = ? AND state IN ('pending', 'rejected') AND state = 'rejected'`),
      dueCount:
        db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM sink_deliveries d JOIN punches p ON p.id = d.punch_id
          WHERE d.sink = @sink AND d.state IN ('pending', 'rejected')
            AND (d.state = 'pending' OR @all OR d.next_attempt_at <= @now) AND p.state <> 'quarantined' LIMIT @limit)`),
      dueCountHeld:
        db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM sink_deliveries d JOIN punches p ON p.id = d.punch_id
          WHERE d.sink = @sink AND d.state IN ('pending', 'rejected')
            AND (d.state = 'pending' OR @all OR d.next_attempt_at <= @now) AND p.state <> 'quarantined'
            AND ${notHeldTerm('p.biometric_code', 'd.log_time')} LIMIT @limit)`),
      counts: db.prepare(`SELECT state, n FROM sink_counts WHERE sink = ?`),
      keptCount: db.prepare(`SELECT n FROM sink_counts WHERE sink = @sink AND state = @state`),
      // The sink's punches held in quarantine (not sent until released): taken in as pending, or
      // not taken in yet. Read through punches_refused (the quarantined punches only, never the
      // history), each looked up by the sink's primary key.
      quarantined: db.prepare(`SELECT count(*) AS n FROM punches p
          WHERE ${REFUSED_TERM} AND state = 'quarantined'
            AND ((p.id > @cursor AND p.terminal NOT IN (SELECT value FROM json_each(@notFor)))
              OR EXISTS (SELECT 1 FROM sink_deliveries d WHERE d.sink = @sink AND d.punch_id = p.id AND d.state = 'pending'))`),
      // On sink_undelivered (the backlog, never the history): by the sink's name alone, its primary
      // key would read every punch it was ever sent.
      refused: db.prepare(`SELECT d.last_message AS message, p.biometric_code AS code, d.state, count(*) AS count
          FROM sink_deliveries d INDEXED BY sink_undelivered JOIN punches p ON p.id = d.punch_id
          WHERE d.state <> 'delivered' AND d.sink = ? AND d.state IN ('rejected', 'dead')
          GROUP BY d.last_message, p.biometric_code, d.state`),
    };
  }

  /** The sink's refused and given-up punches, grouped by its HRMS's message and code (the status's alerts). */
  refused(): RefusedPunches[] {
    // None refused or dead (the kept counts): nothing to read through the backlog.
    if (this.kept('rejected') + this.kept('dead') === 0) return [];
    return (
      this.stmt.refused!.all(this.sink) as {
        message: string | null;
        code: string;
        state: 'rejected' | 'dead';
        count: number;
      }[]
    ).map((r) => ({ ...r, message: r.message ?? '' }));
  }

  /** The sink's punches by state from sink_counts alone (no count of rows). */
  private kept(state: SinkState): number {
    return (this.stmt.keptCount!.get({ sink: this.sink, state }) as { n: number } | undefined)?.n ?? 0;
  }

  refusedWaiting(): number {
    return this.kept('rejected');
  }

  /** As Journal.refusedFirstByCode, for this sink: the codes whose later punches wait behind a refused one. */
  refusedFirstByCode(holdNothing: readonly string[]): Map<string, string> {
    if (this.refusedWaiting() === 0) return new Map();
    const rows = this.stmt.refusedFirst!.all({ sink: this.sink, free: freeParam({ holdNothing }) }) as RefusedFirst[];
    return new Map(rows.map((r) => [r.code, r.t]));
  }

  /** The claim's rows with the refusals that hold nothing pulled along ahead of them (held-behind-refused.ts). */
  private withRefusalsAhead(rows: PickedRow[], limit: number, opts: ClaimOptions): PickedRow[] {
    if (!opts.holdBehindRefused || !opts.holdNothing?.length || !anyPending(rows) || this.refusedWaiting() === 0)
      return rows;
    const args = { sink: this.sink, codes: pendingCodesParam(rows), free: freeParam(opts) };
    return withRefusalsAhead(rows, this.stmt.pickPulled!.all(args) as PickedRow[], limit);
  }

  /** The codes with a refused punch waiting here, and the earliest such punch's log time (held-behind-refused.ts). */
  private heldCodes(opts: ClaimOptions): string {
    // None refused (the kept counts): none held, without reading the backlog for refused rows.
    if (this.refusedWaiting() === 0) return heldParam([]);
    return heldParam(this.stmt.refusedFirst!.all({ sink: this.sink, free: freeParam(opts) }) as RefusedFirst[]);
  }

  private cursor(): number {
    return (this.stmt.cursor!.get(this.sink) as { cursor: number } | undefined)?.cursor ?? Infinity;
  }

  /**
   * Takes in up to TAKE_IN_ROWS punches journalled since the last claim (inside a transaction);
   * true while more wait above the cursor.
   */
  private takeIn(now: number): boolean {
    const from = this.cursor();
    if (from === Infinity) return false; // not registered (a journal opened without the config's sinks)
    const top = (this.stmt.top!.get() as { m: number }).m;
    if (top <= from) return false;
    const to = Math.min(top, from + TAKE_IN_ROWS);
    const n = this.stmt.takeIn!.run({ sink: this.sink, now, from, to, notFor: this.notFor }).changes;
    this.stmt.moveCursor!.run({ sink: this.sink, to });
    const moves = new SinkMoves();
    moves.add(this.sink, 'pending', n);
    moves.apply(this.d.db);
    return to < top;
  }

  /**
   * Takes in every punch journalled since the last claim before one is picked, TAKE_IN_ROWS a
   * transaction (none long). Why all of them: a claim picks the oldest log times among the rows
   * taken in, so with part of a long backlog taken in (a sink back after an outage), a punch a
   * terminal uploaded late, behind the part, went out after newer punches of the same person:
   * Odoo paired a 17:00 check-out before its 08:00 check-in. The default sink's queue orders its
   * whole backlog; this sink now does the same.
   */
  private catchUp(now: number): void {
    while (this.takeInOnce(now));
  }

  /** One step of catchUp in its own transaction (the deliverer yields between steps): true while more wait. */
  takeInStep(): boolean {
    return this.takeInOnce(this.d.clock.now());
  }

  private takeInOnce(now: number): boolean {
    const { db } = this.d;
    return this.d.gate.attempt(() => db.transaction(() => this.takeIn(now)).immediate());
  }

  claim(limit: number, opts: ClaimOptions = {}): OutboundPunch[] {
    const now = this.d.clock.now();
    const holder = this.d.beginClaim(now);
    const { db } = this.d;
    // As the journal's claim: made durable by the settle that follows (inside `together`: its commit).
    const relax = !db.inTransaction;
    if (relax) db.pragma('synchronous = NORMAL');
    try {
      this.catchUp(now);
      return this.d.gate.attempt(() =>
        db
          .transaction(() => {
            this.takeIn(now);
            const args = { sink: this.sink, now, limit, all: opts.ignoreBackoff ? 1 : 0 };
            const picked = (
              opts.holdBehindRefused
                ? this.stmt.pickHeld!.all({ ...args, held: this.heldCodes(opts) })
                : this.stmt.pick!.all(args)
            ) as PickedRow[];
            const rows = this.withRefusalsAhead(picked, limit, opts);
            if (rows.length > 0) {
              this.stmt.markInflight!.run({ sink: this.sink, now, holder, ids: JSON.stringify(rows.map((r) => r.id)) });
              const moves = new SinkMoves();
              for (const r of rows) moves.move(this.sink, r.previousState, 'inflight');
              moves.apply(db);
            }
            return rows.map((r): OutboundPunch => ({
              id: r.id,
              devicelogId: this.d.ids.idOf(r),
              biometricCode: r.biometricCode,
              logTime: r.logTime,
              attempts: r.attempts,
              previousState: r.previousState,
              terminal: r.terminal,
              device: r.device,
              punchState: r.punchState,
            }));
          })
          .immediate(),
      );
    } finally {
      if (relax) db.pragma('synchronous = FULL');
    }
  }

  /** As Journal.together: `fn` in one IMMEDIATE transaction, one commit (one disk sync). */
  together<T>(fn: () => T): T {
    return this.d.syncedApart(() => this.d.gate.attempt(() => this.d.db.transaction(fn).immediate()));
  }

  settle(outcomes: readonly PunchOutcome[]): void {
    if (outcomes.length === 0) return;
    const now = this.d.clock.now();
    const holder = this.d.holder();
    const scrub = scrubEachOnce(this.d.scrub);
    const { settings } = this.d;
    const sink = this.sink;
    this.d.deferApart(() =>
      this.d.db
        .transaction(() => {
          const moves = new SinkMoves();
          for (const o of outcomes) {
            const message = o.message === undefined ? null : scrub(o.message);
            const ids = JSON.stringify([o.id]);
            if (o.kind === 'unknown') {
              for (const r of this.stmt.unclaim!.all({ sink, ids, message, now, holder }) as { state: SinkState }[])
                moves.move(sink, 'inflight', r.state);
            } else if (o.kind !== 'rejected') {
              const n = this.stmt.delivered!.all({
                sink,
                ids,
                duplicate: o.kind === 'duplicate' ? 1 : 0,
                message,
                now,
                holder,
              }).length;
              moves.move(sink, 'inflight', 'delivered', n);
            } else {
              const row = this.stmt.getInflight!.get(sink, o.id, holder) as
                { attempts: number; firstRejectedAt: number | null } | undefined;
              if (!row) continue;
              const attempts = row.attempts + 1;
              const firstRejectedAt = row.firstRejectedAt ?? now;
              const dead =
                attempts >= settings.deadAfterAttempts || now - firstRejectedAt >= settings.deadAfterDays * DAY_MS;
              moves.move(sink, 'inflight', dead ? 'dead' : 'rejected');
              this.stmt.rejected!.run({
                sink,
                id: o.id,
                state: dead ? 'dead' : 'rejected',
                attempts,
                firstRejectedAt,
                next: dead ? null : now + backoffDelay(attempts - 1, settings.rejectedRetry),
                message,
                now,
                holder,
              });
            }
          }
          moves.apply(this.d.db);
        })
        .immediate(),
    );
  }

  release(ids: readonly number[]): void {
    if (ids.length === 0) return;
    const args = {
      sink: this.sink,
      ids: JSON.stringify(ids),
      message: null,
      now: this.d.clock.now(),
      holder: this.d.holder(),
    };
    this.d.deferApart(() =>
      this.d.db.transaction(() => {
        const moves = new SinkMoves();
        for (const r of this.stmt.unclaim!.all(args) as { state: SinkState }[])
          moves.move(this.sink, 'inflight', r.state);
        moves.apply(this.d.db);
      })(),
    );
  }

  /** Punches journalled since the sink last took some in (at most `limit`). */
  private notTakenIn(limit = -1): number {
    const from = this.cursor();
    if (from === Infinity) return 0;
    return (this.stmt.notTakenIn!.get({ from, notFor: this.notFor, limit }) as { n: number }).n;
  }

  nextDueAt(): number | null {
    if (this.notTakenIn(1) > 0 || this.stmt.anyPending!.get(this.sink)) return this.d.clock.now();
    return (this.stmt.nextRejected!.get(this.sink) as { t: number | null }).t;
  }

  dueCount(opts: DueCountOptions = {}): number {
    const limit = opts.atMost ?? -1;
    const args = { sink: this.sink, now: this.d.clock.now(), all: opts.ignoreBackoff ? 1 : 0, limit };
    const n = (
      (opts.holdBehindRefused
        ? this.stmt.dueCountHeld!.get({ ...args, held: this.heldCodes(opts) })
        : this.stmt.dueCount!.get(args)) as { n: number }
    ).n;
    return limit < 0 ? n + this.notTakenIn() : Math.min(limit, n + this.notTakenIn(limit));
  }

  /**
   * The sink's punches by state, from the kept counts (pending includes punches not taken in yet).
   * Quarantined punches are counted apart, as the default sink's are: a quarantined punch is
   * pending in the sink's rows (quarantine is a fact of the punch), but it is not sent until it
   * is released, so counting it as pending showed punches waiting that nothing would send.
   */
  counts(): JournalCounts {
    const out = noPunchCounts();
    for (const r of this.stmt.counts!.all(this.sink) as { state: SinkState; n: number }[])
      if (r.state in out) out[r.state] = r.n;
    const cursor = this.cursor();
    out.quarantined =
      cursor === Infinity
        ? 0
        : (this.stmt.quarantined!.get({ sink: this.sink, cursor, notFor: this.notFor }) as { n: number }).n;
    out.pending += this.notTakenIn() - out.quarantined;
    return out;
  }

  /** The sink's punches with its state of each (`punches --sink`), in log-time order. */
  list(
    filter: {
      state?: PunchState;
      /** Every state but delivered. */
      undelivered?: boolean;
      terminal?: string;
      codes?: readonly string[];
      limit?: number;
      newestFirst?: boolean;
    } = {},
  ): StoredPunch[] {
    const parts = ['d.sink = ?'];
    const params: unknown[] = [this.sink];
    if (filter.state) {
      parts.push('d.state = ?');
      params.push(filter.state);
    }
    if (filter.undelivered) parts.push(`d.state <> 'delivered'`);
    if (filter.terminal) {
      parts.push('p.terminal = ?');
      params.push(filter.terminal);
    }
    if (filter.codes && filter.codes.length > 0) {
      parts.push('p.biometric_code IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(filter.codes));
    }
    const order = filter.newestFirst ? 'DESC' : '';
    const limit = filter.limit ? `LIMIT ${Math.max(1, Math.floor(filter.limit))}` : '';
    return (
      this.d.db
        .prepare(
          `SELECT p.id, p.site, p.terminal, p.device, p.biometric_code, p.log_time, p.verify_type, p.punch_state, p.sent_as,
              p.created_at, d.state, d.attempts, d.next_attempt_at, d.last_message, d.duplicate, d.updated_at, d.delivered_at
            FROM sink_deliveries d JOIN punches p ON p.id = d.punch_id WHERE ${parts.join(' AND ')}
            ORDER BY d.log_time ${order}, d.punch_id ${order} ${limit}`,
        )
        .all(...params) as Row[]
    ).map((r) => toStored(r, this.d.ids));
  }

  /**
   * Re-queues the sink's rejected or dead punches now, with a fresh schedule. With `all`, also
   * the punches journalled before the sink was first seen (older than its rows): they are taken in
   * as pending. Returns how many of each: queued again, and older ones queued for the first time.
   */
  retry(filter: { state: 'rejected' | 'dead'; terminal?: string; all?: boolean }): { again: number; older: number } {
    const now = this.d.clock.now();
    const { db } = this.d;
    return db
      .transaction(() => {
        const rows = db
          .prepare(
            `UPDATE sink_deliveries SET state = 'pending', attempts = 0, first_rejected_at = NULL, next_attempt_at = NULL,
              updated_at = ? WHERE sink = ? AND state = ? ${filter.terminal ? 'AND terminal = ?' : ''} RETURNING punch_id`,
          )
          .all(now, this.sink, filter.state, ...(filter.terminal ? [filter.terminal] : [])).length;
        const moves = new SinkMoves();
        moves.move(this.sink, filter.state, 'pending', rows);
        let older = 0;
        if (filter.all) {
          older = db
            .prepare(
              `INSERT INTO sink_deliveries (sink, punch_id, log_time, terminal, state, updated_at)
              SELECT ?, id, log_time, terminal, 'pending', ? FROM punches
              WHERE id <= (SELECT cursor FROM sinks WHERE name = ?) AND state <> 'quarantined'
                AND terminal NOT IN (SELECT value FROM json_each(?)) ${filter.terminal ? 'AND terminal = ?' : ''}
              ON CONFLICT DO NOTHING`,
            )
            .run(this.sink, now, this.sink, this.notFor, ...(filter.terminal ? [filter.terminal] : [])).changes;
          moves.add(this.sink, 'pending', older);
        }
        moves.apply(db);
        return { again: rows, older };
      })
      .immediate();
  }
}
