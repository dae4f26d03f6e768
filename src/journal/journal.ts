import type Database from 'better-sqlite3';
import { existsSync, linkSync, rmSync, unlinkSync } from 'node:fs';
import {
  codeProblem,
  deviceIdentity,
  isLogTime,
  serialProblem,
  shiftWallClock,
  textProblem,
  wallClockAt,
  wallClockDiffSeconds,
  type Punch,
} from '../punch.js';
import { backoffDelay } from '../util/backoff.js';
import { elapsedMs, systemClock, type Clock } from '../util/clock.js';
import { damagedWalWords, keepDamagedWal, type DamagedWal } from './damaged-wal.js';
import type { Logger } from '../util/logger.js';
import { printable } from '../util/terminal-text.js';
import { ClaimHolder } from './claim-holder.js';
import {
  anyPending,
  DEFAULT_REFUSED_FIRST,
  freeParam,
  heldParam,
  notHeldTerm,
  pendingCodesParam,
  pulledTerm,
  type RefusedFirst,
  withRefusalsAhead,
} from './held-behind-refused.js';
import { describeJournalFailure, isBusyJournalError, JournalBusyError } from './errors.js';
import { JournalFileGoneError, JournalFileIdentity } from './file-identity.js';
import { fileSystemStillWrites, probeFileSystemNow } from './file-system-probe.js';
import { canonicalJournalPath, foreignLinkToJournal } from './journal-file.js';
import { ensurePrivateFile } from '../util/private-file.js';
import { saveOverwrittenJournal } from './overwritten-journal.js';
import { JournalLockedError, OwnerLock } from './lock.js';
import { openJournalDb, WAL_SIZE_LIMIT_BYTES } from './open-db.js';
import { PunchHistory } from './history.js';
import { CountMoves, PunchCounts } from './punch-counts.js';
import { PunchIds } from './punch-id.js';
import { PunchInserts } from './punch-inserts.js';
import { ShiftProgressQueries, type TerminalReadProgress } from './shift-progress.js';
import { HourlyStats } from './hourly-stats.js';
import { JournalQueries, NO_REAL_TIME } from './queries.js';
import { PRUNE_GUARD } from './state-terms.js';
import { NOT_ROUTED_MESSAGE } from './not-routed.js';
import { RefusedRecordStore } from './refused-records.js';
import { CommandRetention } from './command-retention.js';
import { bringRetryTimesWithinReach } from './retry-times-ahead.js';
import { RetentionMarks, wasForgotten, type ForgottenSpan, type PrunedPunch } from './retention-marks.js';
import {
  pruneSinkRows,
  recoverSinkClaims,
  registerSinks,
  sinksNewToJournal,
  sinkHolders,
  SinkQueue,
  type SinkRoster,
} from './sink-deliveries.js';
import { TerminalDevices, type Adopted } from './terminal-devices.js';
import { TerminalDirections, type KeptDirection } from './terminal-directions.js';
import { TerminalZones } from './terminal-zones.js';
import { DeliveryStateStore, scrubEachOnce, SourceStateTable, TerminalStateStore, type Scrub } from './state-stores.js';
import type {
  ClaimOptions,
  DueCountOptions,
  DeliveryQueue,
  IngestOptions,
  IngestRefusal,
  JournalCounts,
  IngestResult,
  OutboundPunch,
  PunchOutcome,
  PunchSink,
  PunchState,
} from './types.js';
import { WalSync } from './wal-sync.js';
import {
  CHECKPOINT_KICK_ROWS,
  CHECKPOINT_RETRY_MAX_MS,
  CHECKPOINT_RETRY_MS,
  CheckpointWorker,
  type CheckpointState,
  type CheckpointTuning,
} from './checkpoint-worker.js';
import { WriteGate } from './write-gate.js';
import { owedToRemovedSinks, removedSinkWords, type RemovedSinkOwed } from './removed-sinks.js';
import { FutureJudge, signed, type FutureCall } from './future-judge.js';
import { assertIntact } from './integrity.js';

export interface JournalOptions {
  path: string;
  /** Prefix of every devicelogId: "<site>-<hash of the punch>" (see punch-id.ts). */
  site: string;
  clock?: Clock;
  /**
   * 'owner' (punchgate run): takes the single-owner lock, makes the journal where no file exists,
   * upgrades an older schema. 'shared': reads and writes beside the daemon. 'readonly': reads only
   * (status, listings). Only 'owner' creates or migrates a journal.
   */
  mode?: 'owner' | 'shared' | 'readonly';
  /** Make the journal where no file exists (default: only in 'owner' mode). */
  create?: boolean;
  /**
   * How long a write waits for another process's write lock before it fails as busy (default
   * 5 s). SQLite waits synchronously, so the daemon keeps this short and retries asynchronously.
   */
  busyTimeoutMs?: number;
  /** 'owner': told before each step of an older journal's schema upgrade (the daemon tells systemd). */
  onMigrationStep?: (from: number, target: number) => void;
  /** The same while opening: migration and recovery of stale claims (default 30 s for 'owner'). */
  openTimeoutMs?: number;
  /** Applied to every text from outside stored in the journal (HRMS messages, terminal strings). */
  scrub?: Scrub;
  logger?: Logger;
  /** A kept write met a journal that cannot be written (disk full, read-only, damaged). */
  onFatal?: (e: unknown) => void;
  /** Another process started (since when) or stopped (null) keeping this one from writing. */
  onBusyChange?: (since: number | null) => void;
  retentionDays?: number;
  futureToleranceMinutes?: number;
  /** How far before the moment it could have been recorded a new punch may be dated (see IngestOptions). */
  pastToleranceHours?: number;
  /** Slower schedule for punches the HRMS refused: base doubling up to max. */
  rejectedRetry?: { baseMs: number; maxMs: number };
  deadAfterAttempts?: number;
  deadAfterDays?: number;
  /** How often a claim first looks for claims of processes that are gone (default 30 s). */
  claimRecoveryMs?: number;
  /**
   * Only the daemon ('owner'): checkpoints in a worker thread, off the event loop
   * (checkpoint-worker.ts). Short commands keep SQLite's automatic checkpoint.
   */
  checkpointInWorker?: boolean | CheckpointTuning;
}

type Settings = Required<
  Pick<
    JournalOptions,
    | 'path'
    | 'site'
    | 'retentionDays'
    | 'futureToleranceMinutes'
    | 'pastToleranceHours'
    | 'rejectedRetry'
    | 'deadAfterAttempts'
    | 'deadAfterDays'
    | 'claimRecoveryMs'
  >
>;

/** A picked row as the raw statement gives it (the columns of `pick`, in order). */
type PickedTuple = [
  id: number,
  site: string,
  terminal: string,
  device: string,
  biometricCode: string,
  logTime: string,
  punchState: number | null,
  sentAs: string | null,
  attempts: number,
  previousState: 'pending' | 'rejected',
];

/** A row as an UPDATE ... RETURNING terminal, state gives it (the state it went to). */
type Returned = { terminal: string; state: PunchState };

const DAY_MS = 86_400_000;

/** Two serials of one device: equal but for letter case (ZKTeco's push receiver compares them so). */
const sameSerial = (known: string, reported: string) =>
  known !== '' && known.length === reported.length && known.toUpperCase() === reported.toUpperCase();

/** `fn` remembering its last argument and answer (the same terminal and device punch after punch). */
function memoLast<T>(fn: (s: string) => T): (s: string) => T {
  let key: string | undefined;
  let value: T;
  return (s) => {
    if (s !== key) {
      key = s;
      value = fn(s);
    }
    return value;
  };
}
/**
 * Punches before this are implausible (a terminal whose clock was reset). 2000-01-01 00:00:00
 * itself is too: it is a ZK terminal's time 0 (its packed time counts from it), what a reset
 * clock or an empty record reads as.
 */
const EARLIEST_PLAUSIBLE = '2000-01-01 00:00:01';
/**
 * How much earlier than the newest punch a push terminal sent a new one may be dated, beyond
 * journal.pastToleranceHours, before it counts as recorded by a clock set back: a clock that ran
 * ahead by a zone's worth (up to 27 h, future-judge.ts) and was then set right dates its next
 * punches that much before its last ones.
 */
const PUSHED_CLOCK_SLACK_SECONDS = 27 * 3600;

/** Why a pushed punch was recorded while its terminal's clock was behind (pushedFloorOf), or undefined. */
function pushedBehind(f: { newest: string; floor: string } | undefined, logTime: string): string | undefined {
  if (f === undefined || logTime >= f.floor) return undefined;
  const behind = wallClockDiffSeconds(f.newest, logTime);
  const words = behind >= 2 * 86_400 ? `${Math.floor(behind / 86_400)} days` : `${Math.floor(behind / 3600)} h`;
  return `recorded while the terminal clock was behind: dated ${words} before the newest punch it sent before (${f.newest.slice(0, 16)}): its clock was reset or set back`;
}
/** Rows per transaction of the journal's own bulk work (prune), so other processes never wait long. */
const CHUNK_ROWS = 5000;
/**
 * After this many rows written, a passive checkpoint (the WAL is then cut back to its size limit).
 * With the checkpoint worker: only when the worker completed none meanwhile (stuck on a slow disk)
 * or the WAL passed its size limit (commits without a pause), so that the WAL cannot grow without
 * bound.
 */
const CHECKPOINT_AFTER_ROWS = 20_000;
/** How long closing waits for a busy journal to take the writes kept for it. */
const CLOSE_TIMEOUT_MS = 5000;
/** Refused records one ingest reports back (and logs) one by one; the rest are counted. */
const REFUSALS_LISTED = 100;
const REFUSALS_LOGGED = 5;
/** A terminal name in the journal (from the config, or an imported file's terminal column). */
const TERMINAL_RULE = { what: 'terminal name', max: 64 };
/** Stand-in serials logged once per process (at most this many remembered). */
const STAND_INS_LOGGED = 100;

/**
 * The durable, deduplicated punch journal (SQLite). Every write of a punch is one synchronous
 * transaction: when `ingest` returns, its punches survive a crash or power cut.
 *
 * Another process may hold the write lock for a while (an import, `punches retry`, a backup).
 * Writes then fail as busy after `busyTimeoutMs`: `ingest` and `claim` throw (the caller keeps
 * its punches, or tries later), while the writes that only need to happen eventually (returning
 * a claim, a terminal's or delivery's state) are kept and written as soon as the journal is free.
 */
export class Journal implements PunchSink, DeliveryQueue {
  readonly terminals: TerminalStateStore;
  readonly deliveryState: DeliveryStateStore;
  readonly sourceState: SourceStateTable;
  readonly queries: JournalQueries;
  /** Each punch's refused attempts with the HRMS's answers (`punches --history`). */
  readonly history: PunchHistory;
  /** Figures per hour for the status page's charts. */
  readonly hourly: HourlyStats;
  /** Records refused at the journal's door, per terminal (for the status). */
  readonly refusedRecords: RefusedRecordStore;
  private readonly retentionMarks: RetentionMarks;
  private readonly commandRetention: CommandRetention;
  /** Punches per terminal and state, kept by every write that moves them (punch-counts.ts). */
  readonly punchCounts: PunchCounts;
  readonly isOwner: boolean;
  readonly readonly: boolean;
  private readonly clock: Clock;
  /** The devicelogId of each punch (punch-id.ts). */
  private readonly ids: PunchIds;
  /** The device each terminal is known to be: one identity for a punch whatever its route. */
  private readonly devices: TerminalDevices;
  private readonly zones: TerminalZones;
  private readonly directions: TerminalDirections;
  private readonly gate: WriteGate;
  private readonly stmt;
  /** The INSERT of ingest, many punches per statement (punch-inserts.ts). */
  private readonly inserts: PunchInserts;
  private holder: ClaimHolder | undefined;
  /** When claims were last recovered, on the monotonic clock (a step back of the wall clock once held it off for the step). */
  private lastRecovery = -Infinity;
  /** Terminals whose punches do not go to the default sink (useSinks). */
  private defaultNotFor = new Set<string>();
  private writtenSinceCheckpoint = 0;
  private readonly standInsLogged = new Set<string>();
  private shiftProgress: ShiftProgressQueries | undefined;
  /** Judges "in the future" against each terminal's clock (future-judge.ts). */
  private readonly future: FutureJudge;
  /** The box clock's recent net step (ms; negative: back), as the daemon watches it: followBoxClockSteps. */
  private boxStep: () => number = () => 0;
  /** Whether the journal's files are still the ones opened (file-identity.ts); none for a reader. */
  private readonly files: JournalFileIdentity | undefined;
  /** Once a file was found gone: why (every later write is refused with it). */
  private gone: JournalFileGoneError | undefined;
  /** ... and what the connection holds is not saved yet (saveBeforeExit). */
  private savePending = false;
  /** Closed but its connection left open: the journal file was written over in place (close). */
  private leftOpen = false;
  /** The disk sync of `together`, off the event loop (wal-sync.ts). */
  private readonly walSync: WalSync;
  /** The daemon's checkpoints, off the event loop (checkpoint-worker.ts). */
  private checkpointer: CheckpointWorker | undefined;
  /**
   * The worker's options until it starts: once CHECKPOINT_KICK_ROWS rows were written, punches
   * journalled or rows claimed and settled by delivery (and so again after it ended idle,
   * CHECKPOINT_RETIRE_MS). A worker thread costs about 5 to 9 MB of memory; a daemon that writes
   * little (a site delivering a punch now and then) keeps SQLite's automatic checkpoint, which then
   * has little to copy, and starts no thread per batch.
   */
  private checkpointerWanted: CheckpointTuning | undefined;
  private rowsBeforeCheckpointer = 0;
  /** The worker's completed checkpoints at the last fallback look (wrote). */
  private checkpointsSeen = 0;
  private checkpointerStuck = false;
  /**
   * The last failure of the checkpoint worker, until a new one completes a checkpoint: the journal
   * checkpoints on its main thread meanwhile, and starts a new worker once `retryAt` (elapsed ms)
   * has passed (a disk full for a while: the first worker never came back, found by an
   * adversarial trial). Failures in a row wait longer, up to CHECKPOINT_RETRY_MAX_MS.
   */
  private checkpointerFailure: { at: number; why: string; failures: number; retryAt: number } | undefined;
  /** A checkpoint asked for inside a transaction, to run after it (checkpointHere). */
  private checkpointDue = false;
  private pageBytes: number | undefined;
  /** Checkpoints run on this (the main) connection by `wrote`, counted when SQLite ran them (tests). */
  mainCheckpoints = 0;

  private constructor(
    readonly db: Database.Database,
    private readonly opts: Settings,
    clock: Clock,
    private readonly lock: OwnerLock | undefined,
    private readonly extra: Pick<JournalOptions, 'logger' | 'scrub' | 'onFatal' | 'onBusyChange' | 'mode'>,
  ) {
    this.clock = clock;
    this.isOwner = lock !== undefined;
    this.readonly = extra.mode === 'readonly';
    this.files = extra.mode === 'readonly' ? undefined : new JournalFileIdentity(opts.path, extra.mode === 'owner');
    this.gate = new WriteGate({
      clock,
      logger: extra.logger,
      onFatal: extra.onFatal,
      onBusyChange: extra.onBusyChange,
      check: () => this.filesGone(),
    });
    this.terminals = new TerminalStateStore(db, this.gate, extra.scrub);
    this.deliveryState = new DeliveryStateStore(db, this.gate, extra.scrub);
    this.sourceState = new SourceStateTable(db);
    this.ids = PunchIds.of(db);
    this.punchCounts = new PunchCounts(db);
    this.devices = new TerminalDevices(db, this.ids.firstHashed, this.punchCounts);
    this.zones = new TerminalZones(db);
    this.directions = new TerminalDirections(db);
    this.queries = new JournalQueries(db, clock, this.ids, this.punchCounts, (rows) => this.wrote(rows));
    this.history = new PunchHistory(db, this.ids);
    this.hourly = new HourlyStats(db, this.gate);
    this.refusedRecords = new RefusedRecordStore(db);
    this.retentionMarks = new RetentionMarks(db);
    this.commandRetention = new CommandRetention(db);
    this.inserts = new PunchInserts(db);
    this.future = new FutureJudge(
      opts.futureToleranceMinutes * 60_000,
      (t) => this.terminals.get(t)?.skewSeconds ?? null,
    );
    this.walSync = new WalSync(
      opts.path,
      (e) =>
        extra.logger?.error(
          { err: e instanceof Error ? e.message : String(e) },
          'the journal could not sync its write-ahead log, or its disk refused a new file right after the sync: the terminals waiting for it are told to send again; delivery writes sync themselves from now on',
        ),
      undefined,
      // A sync ends before its waiters (a push terminal) are told OK: the file it synced must still be the journal's.
      () => this.filesGone(),
    );
    this.stmt = {
      syncNormal: db.prepare('PRAGMA synchronous = NORMAL'),
      syncFull: db.prepare('PRAGMA synchronous = FULL'),
      // A claim is a read through the queue index, then one UPDATE of the ids it found, in one
      // IMMEDIATE transaction (no other connection can take the same punches in between). This is
      // about half the cost of one UPDATE ... WHERE id IN (subquery) RETURNING for a big batch.
      // Rows as arrays (raw), made into objects by pickRows: better-sqlite3 takes about 1.5 µs a row
      // longer to make an object of ten named columns than an array (issue 35, measured).
      pick: db
        .prepare(
          `SELECT id, site, terminal, device, biometric_code, log_time, punch_state, sent_as, attempts, state
          FROM punches
          WHERE state IN ('pending', 'rejected') AND (state = 'pending' OR @all OR next_attempt_at <= @now)
          ORDER BY log_time, id LIMIT @limit`,
        )
        .raw(),
      // The same, leaving out the punches held behind a refused one (held-behind-refused.ts).
      pickHeld: db
        .prepare(
          `SELECT id, site, terminal, device, biometric_code, log_time, punch_state, sent_as, attempts, state
          FROM punches
          WHERE state IN ('pending', 'rejected') AND (state = 'pending' OR @all OR next_attempt_at <= @now)
            AND ${notHeldTerm('biometric_code', 'log_time')}
          ORDER BY log_time, id LIMIT @limit`,
        )
        .raw(),
      refusedFirst: db.prepare(DEFAULT_REFUSED_FIRST),
      // The refusals that hold nothing, of the codes a claim takes a pending punch of (held-behind-refused.ts).
      pickPulled: db
        .prepare(
          `SELECT id, site, terminal, device, biometric_code, log_time, punch_state, sent_as, attempts, state
          FROM punches
          WHERE state IN ('pending', 'rejected') AND state = 'rejected' AND ${pulledTerm('biometric_code', 'last_message')}
          ORDER BY log_time, id`,
        )
        .raw(),
      markInflight:
        db.prepare(`UPDATE punches SET claimed_from = state, claimed_by = @holder, state = 'inflight', updated_at = @now
          WHERE id IN (SELECT value FROM json_each(@ids))`),
      // Bulk forms take the ids as a JSON array: one statement for a whole batch's answers. Only
      // this process's own claims are settled or returned.
      // Each settled row's terminal as a plain string (pluck), not an object: about 0.8 µs a row less.
      delivered: db
        .prepare(
          `UPDATE punches SET state = 'delivered', claimed_from = NULL, claimed_by = NULL, duplicate = @duplicate,
          attempts = attempts + 1, last_message = @message, delivered_at = @now, updated_at = @now, next_attempt_at = NULL
          WHERE id IN (SELECT value FROM json_each(@ids)) AND state = 'inflight' AND claimed_by = @holder
          RETURNING terminal`,
        )
        .pluck(),
      getInflight: db.prepare(
        `SELECT terminal, attempts, first_rejected_at AS firstRejectedAt FROM punches WHERE id = ? AND state = 'inflight' AND claimed_by = ?`,
      ),
      rejected:
        db.prepare(`UPDATE punches SET state = @state, claimed_from = NULL, claimed_by = NULL, attempts = @attempts,
          first_rejected_at = @firstRejectedAt, next_attempt_at = @next, last_message = @message, updated_at = @now
          WHERE id = @id AND state = 'inflight' AND claimed_by = @holder`),
      unclaim:
        db.prepare(`UPDATE punches SET state = coalesce(claimed_from, 'pending'), claimed_from = NULL, claimed_by = NULL,
          last_message = coalesce(@message, last_message), updated_at = @now
          WHERE id IN (SELECT value FROM json_each(@ids)) AND state = 'inflight' AND claimed_by = @holder
          RETURNING terminal, state`),
      holders: db.prepare(`SELECT DISTINCT claimed_by AS holder FROM punches WHERE state = 'inflight'`),
      recover:
        db.prepare(`UPDATE punches SET state = coalesce(claimed_from, 'pending'), claimed_from = NULL, claimed_by = NULL,
          updated_at = @now WHERE state = 'inflight' AND claimed_by IS @holder RETURNING terminal, state`),
      // The `state IN ('pending', 'rejected')` term lets SQLite use the small queue index.
      anyPending: db.prepare(
        `SELECT 1 FROM punches WHERE state IN ('pending', 'rejected') AND state = 'pending' LIMIT 1`,
      ),
      nextRejected: db.prepare(
        `SELECT min(next_attempt_at) AS t FROM punches WHERE state IN ('pending', 'rejected') AND state = 'rejected'`,
      ),
      // LIMIT -1 is no limit; a bounded count stops early (counting 50,000 punches takes milliseconds).
      dueCount: db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM punches
          WHERE state IN ('pending', 'rejected') AND (state = 'pending' OR @all OR next_attempt_at <= @now) LIMIT @limit)`),
      dueCountHeld: db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM punches
          WHERE state IN ('pending', 'rejected') AND (state = 'pending' OR @all OR next_attempt_at <= @now)
            AND ${notHeldTerm('biometric_code', 'log_time')} LIMIT @limit)`),
      // The newest row always stays, so that row ids are never handed out twice (nor the old "<site>-<n>" devicelogIds).
      // Never a punch another sink still owes (PRUNE_GUARD, state-terms.ts). Nor one whose own time
      // is within the retention (@logCutoff): delivered while the box's clock was far behind (a dead
      // RTC before NTP), its delivered_at looks old once the clock is right, yet the terminal still
      // holds it and would hand it in again as new.
      prune: db.prepare(pruneSql('delivered')),
      // The same for punches never meant for the default sink (not-routed.ts): done for it too.
      pruneNotRouted: db.prepare(pruneSql('not_routed')),
      // The newest own time among the punches journalled last (not quarantined): the terminals'
      // clocks, a second opinion on the box's for the retention (pruneSteps).
      // The newest punch a device journalled that is not quarantined: the push terminals' floor (ingest).
      newestOfDevice: db
        .prepare(
          `SELECT log_time FROM punches WHERE device = ? AND device <> '' AND state <> 'quarantined' ORDER BY log_time DESC LIMIT 1`,
        )
        .pluck(),
      // The terminal a device's punches were journalled under (punches_by_device finds one at once).
      terminalOfDevice: db.prepare(
        `SELECT terminal, device FROM punches WHERE device = ? AND device <> '' AND terminal <> ? LIMIT 1`,
      ),
      newestLogTime: db.prepare(`SELECT max(log_time) AS t FROM (SELECT log_time FROM punches
          WHERE state <> 'quarantined' ORDER BY id DESC LIMIT 1000)`),
      // A punch of a terminal that does not deliver to the default sink: done for it, never sent, and
      // never counted as delivered to it (not-routed.ts). delivered_at: when, for the retention.
      notForDefault:
        db.prepare(`UPDATE punches SET state = 'not_routed', claimed_from = NULL, claimed_by = NULL, last_message = @message,
          delivered_at = @now, updated_at = @now, next_attempt_at = NULL
          WHERE id IN (SELECT value FROM json_each(@ids)) AND state IN ('pending', 'rejected')`),
    };
  }

  static open(options: JournalOptions): Journal {
    const clock = options.clock ?? systemClock;
    const mode = options.mode ?? 'shared';
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    const openTimeoutMs = options.openTimeoutMs ?? (mode === 'owner' ? Math.max(busyTimeoutMs, 30_000) : busyTimeoutMs);
    const foreignLink = foreignLinkToJournal(options.path);
    if (foreignLink) throw foreignLink;
    let lock: OwnerLock | undefined;
    if (mode === 'owner') {
      try {
        lock = OwnerLock.acquire(options.path);
      } catch (e) {
        if (e instanceof JournalLockedError) throw e;
        throw describeJournalFailure(options.path, e);
      }
    }
    let journal: Journal;
    let damagedWal: DamagedWal | undefined;
    try {
      // Before SQLite's open reads the log (and drops what follows a damaged frame): only the owner's.
      if (mode === 'owner') {
        try {
          damagedWal = keepDamagedWal(options.path, new Date(clock.now()));
        } catch (e) {
          // Its copy could not be written (a full disk): said as the journal's trouble, with its fix.
          throw describeJournalFailure(options.path, e);
        }
      }
      const db = openJournalDb(options.path, {
        create: options.create ?? mode === 'owner',
        migrate: mode === 'owner',
        readonly: mode === 'readonly',
        openTimeoutMs,
        busyTimeoutMs,
        onMigrationStep: options.onMigrationStep,
      });
      journal = new Journal(
        db,
        {
          path: options.path,
          site: options.site,
          retentionDays: options.retentionDays ?? 400,
          futureToleranceMinutes: options.futureToleranceMinutes ?? 10,
          pastToleranceHours: options.pastToleranceHours ?? 24,
          rejectedRetry: options.rejectedRetry ?? { baseMs: 3_600_000, maxMs: DAY_MS },
          deadAfterAttempts: options.deadAfterAttempts ?? 30,
          deadAfterDays: options.deadAfterDays ?? 30,
          claimRecoveryMs: options.claimRecoveryMs ?? 30_000,
        },
        clock,
        lock,
        {
          logger: options.logger,
          scrub: options.scrub,
          onFatal: options.onFatal,
          onBusyChange: options.onBusyChange,
          mode,
        },
      );
    } catch (e) {
      lock?.release();
      throw e;
    }
    if (damagedWal)
      options.logger?.error(
        { keptAs: damagedWal.keptAs, droppedWrites: damagedWal.droppedCommits },
        damagedWalWords(options.path, damagedWal),
      );
    if (mode === 'owner') {
      // Claims left by a crash (this daemon's previous life, a killed flush) go back to the queue,
      // and their holders' files are removed. Waits up to openTimeoutMs for a busy journal.
      try {
        journal.db.pragma(`busy_timeout = ${openTimeoutMs}`);
        journal.recoverStaleClaims({ sweepFiles: true });
        journal.bringRetryTimesWithinReach();
        journal.adoptKnownDevices();
        journal.db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      } catch (e) {
        journal.close();
        if (isBusyJournalError(e)) throw new JournalBusyError(options.path);
        throw describeJournalFailure(options.path, e);
      }
      if (options.checkpointInWorker)
        journal.checkpointerWanted = options.checkpointInWorker === true ? {} : options.checkpointInWorker;
    }
    return journal;
  }

  get path(): string {
    return this.opts.path;
  }

  /** Refused punches' retry times left ahead by a box clock set back while no punchgate ran (retry-times-ahead.ts), said in the log. */
  bringRetryTimesWithinReach(): number {
    const { maxMs } = this.opts.rejectedRetry;
    const moved = bringRetryTimesWithinReach(this.db, this.clock.now(), maxMs);
    if (moved > 0)
      this.extra.logger?.warn(
        { punches: moved },
        `${moved === 1 ? '1 refused punch was' : `${moved} refused punches were`} to be tried again more than delivery.rejectedRetry.maxMs (${Math.round(maxMs / 60_000)} min) from now: the box clock was ahead when the HRMS refused them and was set back while punchgate was stopped; tried again within that time now`,
      );
    return moved;
  }

  /**
   * Returns to the queue the claims of processes that are gone (their holder's lock is free);
   * a live process's claims are never touched. Returns how many punches went back.
   */
  recoverStaleClaims(opts: { sweepFiles?: boolean } = {}): number {
    if (this.readonly) return 0;
    const now = this.clock.now();
    this.lastRecovery = elapsedMs(this.clock);
    const own = this.holder?.id;
    const holders = new Set((this.stmt.holders.all() as { holder: string | null }[]).map((r) => r.holder));
    for (const h of sinkHolders(this.db)) holders.add(h);
    if (opts.sweepFiles) for (const id of ClaimHolder.list(this.opts.path)) holders.add(id);
    let returned = 0;
    for (const holder of holders) {
      if (holder === own || ClaimHolder.isAlive(this.opts.path, holder)) continue;
      const n = this.gate.attempt(() =>
        this.db.transaction(
          () =>
            this.unclaimed(this.stmt.recover.all({ holder, now }) as Returned[]) +
            recoverSinkClaims(this.db, holder, now),
        )(),
      );
      ClaimHolder.forget(this.opts.path, holder);
      if (n > 0) {
        returned += n;
        this.extra.logger?.warn(
          { punches: n, holder },
          'returned punches claimed by a process that is gone to the queue (they are sent again)',
        );
      }
    }
    return returned;
  }

  /**
   * Every ingest from now on judges punch times against the box's clock as it ran before its
   * recent steps as well (`step`: the net step in ms, negative back), whichever path the punches
   * come by (polled sources, push terminals, event streams): the daemon's watch of the box clock.
   */
  followBoxClockSteps(step: () => number): void {
    this.boxStep = step;
  }

  ingest(punches: readonly Punch[], opts: IngestOptions = {}): IngestResult {
    const now = this.clock.now();
    // A box clock stepped back leaves terminals ahead of it, one stepped forward behind it: neither is theirs.
    const step = opts.boxStepMs ?? this.boxStep();
    const future = this.future.begin(now, opts, step);
    const pastSeconds = this.opts.pastToleranceHours * 3600;
    // The terminal's clock is (or just was) behind by more than the tolerance; unknown for a serial line.
    const skew = opts.clockSkewSeconds === undefined ? undefined : opts.clockSkewSeconds + step / 1000;
    const behind = skew === undefined ? undefined : skew <= -pastSeconds;
    // Before these, a punch recorded just now (live) or new in a log already read cannot be genuine.
    const liveFloor =
      opts.live && behind !== false
        ? wallClockAt(now - pastSeconds * 1000 - Math.max(0, step), opts.timezone)
        : undefined;
    const readFloor =
      behind === true && opts.readUpTo !== undefined && isLogTime(opts.readUpTo)
        ? shiftWallClock(opts.readUpTo, -pastSeconds)
        : undefined;
    // A push terminal sends what it records after what it sent before (an outage's backlog too):
    // a new punch dated well before the newest one it sent, and before the box's clock, was recorded
    // by a clock reset (to 2000) or set back. Its clock cannot be read; its own punches are the evidence.
    const pushedFloorOf = memoLast((device: string) => {
      if (!opts.pushed || device === '') return undefined;
      const newest = this.stmt.newestOfDevice.get(device) as string | undefined;
      if (newest === undefined || !isLogTime(newest)) return undefined;
      const floor = shiftWallClock(newest, -(pastSeconds + PUSHED_CLOCK_SLACK_SECONDS));
      const boxFloor = wallClockAt(now - pastSeconds * 1000 - Math.max(0, step), opts.timezone);
      return { newest, floor: floor < boxFloor ? floor : boxFloor };
    });
    const result: IngestResult = { added: 0, duplicates: 0, quarantined: 0 };
    let refusedCount = 0;
    const refusals: (IngestRefusal & { terminal: string })[] = [];
    // Most calls carry one terminal and one device: each is judged once.
    const terminalProblem = memoLast((t: string) => textProblem(t, TERMINAL_RULE));
    const identity = memoLast((d: string) => deviceIdentity(d));
    const marks = new Map<string, ForgottenSpan | undefined>();
    const markOf = (device: string, terminal: string) => {
      const key = device === '' ? `\u0000${terminal}` : device;
      if (!marks.has(key)) marks.set(key, this.retentionMarks.span(device, terminal));
      return marks.get(key);
    };
    let forgotten = 0;
    const adopted: { terminal: string; device: string; a: Adopted }[] = [];
    this.gate.attempt(() =>
      this.db
        .transaction(() => {
          refusals.length = 0;
          adopted.length = 0;
          // The device each terminal of this write is filed under (read once per terminal).
          const deviceOf = new Map<string, string>();
          result.added = result.duplicates = result.quarantined = refusedCount = forgotten = 0;
          marks.clear();
          const moves = new CountMoves();
          // The device each run was filed under, as the punches named it (countByDevice).
          const named = new Map<string, string>();
          const newByDevice = opts.countByDevice ? new Map<string, number>() : undefined;
          if (newByDevice) result.newByDevice = newByDevice;
          // Written a run of punches at a time (punch-inserts.ts): how many of each run were new.
          const inserts = this.inserts.begin((terminal, state, added, offered, device) => {
            result.duplicates += offered - added;
            if (added === 0) return;
            if (newByDevice) {
              const name = named.get(device) ?? device;
              newByDevice.set(name, (newByDevice.get(name) ?? 0) + added);
            }
            if (state === 'quarantined') result.quarantined += added;
            else result.added += added;
            moves.add(terminal, state, added);
          });
          for (let i = 0; i < punches.length; i++) {
            const p = punches[i]!;
            const refused = codeProblem(p.biometricCode) ?? terminalProblem(p.terminal);
            if (refused !== undefined) {
              refusedCount++;
              refusals.push({ index: i, reason: refused, code: printable(p.biometricCode, 40), terminal: p.terminal });
              continue;
            }
            // A punch without a serial is the punch of the device its terminal is known to be; a
            // serial seen for the first time moves the terminal's punches filed by name to it.
            const reported = identity(p.device ?? '');
            let device = deviceOf.get(p.terminal);
            if (reported !== '' && device !== reported) {
              device ??= this.devices.deviceOf(p.terminal);
              if (sameSerial(device, reported)) {
                // The serial the terminal is known by in other letter case (a push terminal's serial
                // retyped in the config: the receiver matches serials so): one device, one spelling.
                deviceOf.set(p.terminal, device);
              } else if (opts.pastDevice) {
                // A replaced device's log: its own identity, and the terminal stays its new device.
                deviceOf.set(p.terminal, (device = reported));
              } else {
                // Learning a device may move punches filed by name: the ones gathered go in first.
                inserts.flush();
                const a = this.devices.learn(p.terminal, reported, now);
                if (a && (a.moved || a.superseded || a.bothSent))
                  adopted.push({ terminal: p.terminal, device: reported, a });
                deviceOf.set(p.terminal, (device = reported));
              }
            } else if (device === undefined) deviceOf.set(p.terminal, (device = this.devices.deviceOf(p.terminal)));
            // Delivered once, then deleted by the retention: the terminal's old log read again.
            if (isLogTime(p.logTime) && wasForgotten(markOf(device, p.terminal), p.logTime)) {
              forgotten++;
              continue;
            }
            const reason = !isLogTime(p.logTime)
              ? NO_REAL_TIME
              : p.logTime < EARLIEST_PLAUSIBLE
                ? 'before 2000 (or at its very first second): the terminal clock was probably reset'
                : (future.reason(p.terminal, p.logTime) ??
                  (liveFloor !== undefined && p.logTime < liveFloor
                    ? `recorded while the terminal clock was behind: received ${wallClockAt(now, opts.timezone).slice(0, 16)} (box clock)`
                    : readFloor !== undefined && p.logTime < readFloor
                      ? `recorded while the terminal clock was behind: new after its log was read up to ${opts.readUpTo!.slice(0, 16)}`
                      : pushedBehind(pushedFloorOf(device), p.logTime)));
            if (newByDevice) named.set(device, p.device ?? '');
            inserts.add(
              p.terminal,
              device,
              p.biometricCode,
              p.logTime,
              p.verifyType ?? null,
              p.punchState ?? null,
              this.opts.site,
              reason ? 'quarantined' : 'pending',
              reason ? `quarantined: ${reason}` : null,
              now,
            );
          }
          inserts.flush();
          result.duplicates += forgotten;
          this.punchCounts.apply(moves);
          this.recordRefusals(refusals, now);
          result.released = this.settleClocks(future, now) || undefined;
          if (opts.state) this.sourceState.set(opts.state, now);
        })
        .immediate(),
    );
    if (refusedCount > 0) {
      result.refused = refusedCount;
      result.refusals = refusals.slice(0, REFUSALS_LISTED).map(({ index, reason, code }) => ({ index, reason, code }));
      this.logRefusals(refusals, refusedCount);
    }
    this.logStandIns(punches, identity);
    for (const x of adopted) this.logAdopted(x.terminal, x.device, x.a);
    if (forgotten > 0) {
      result.forgotten = forgotten;
      this.extra.logger?.debug(
        { forgotten, retentionDays: this.opts.retentionDays },
        'punches delivered before and since deleted by the retention were read again (a terminal keeps its old log): not journalled again',
      );
    }
    this.wrote(result.added + result.quarantined);
    if (result.released === undefined) delete result.released;
    return result;
  }

  /**
   * Push terminals whose offset became steady in this ingest: their punches held as in the future
   * that their clock explains go to the queue (inside the ingest's transaction), and the offset is
   * their clock's for the status. Terminals on time again lose theirs. Returns the punches released.
   */
  private settleClocks(future: FutureCall, now: number): number {
    let released = 0;
    for (const s of future.steady) {
      const n = this.db
        .prepare(
          `UPDATE punches SET state = 'pending', last_message = NULL, next_attempt_at = NULL, updated_at = ?
            WHERE terminal = ? AND state = 'quarantined' AND last_message LIKE 'quarantined: in the future%' AND log_time <= ?`,
        )
        .run(now, s.terminal, s.latest).changes;
      if (n > 0) {
        const moves = new CountMoves();
        moves.move(s.terminal, 'quarantined', 'pending', n);
        this.punchCounts.apply(moves);
      }
      released += n;
      this.terminals.update(s.terminal, { skewSeconds: s.offsetSeconds });
      this.extra.logger?.warn(
        { terminal: s.terminal, offsetSeconds: s.offsetSeconds, released: n },
        `terminal ${s.terminal} pushes punches dated ${signed(s.offsetSeconds)} after they arrive, steadily: its clock is off; its punches are delivered with the times it recorded`,
      );
    }
    for (const t of future.settled()) {
      this.terminals.update(t, { skewSeconds: null });
      this.extra.logger?.info(
        { terminal: t },
        `terminal ${t} pushes punches dated about now again: its clock is right`,
      );
    }
    return released;
  }

  /** Per terminal, inside the ingest's transaction: how many, and the last one's reason. */
  private recordRefusals(refusals: readonly (IngestRefusal & { terminal: string })[], at: number): void {
    const byTerminal = new Map<string, { count: number; last: IngestRefusal }>();
    for (const r of refusals) {
      // A terminal name that is itself refused is kept as printable text.
      const terminal = printable(r.terminal, 64);
      const t = byTerminal.get(terminal);
      if (t) {
        t.count++;
        t.last = r;
      } else byTerminal.set(terminal, { count: 1, last: r });
    }
    for (const [terminal, t] of byTerminal)
      this.refusedRecords.record({ terminal, count: t.count, at, reason: t.last.reason, code: t.last.code });
  }

  private logRefusals(refusals: readonly (IngestRefusal & { terminal: string })[], count: number): void {
    const log = this.extra.logger;
    if (!log) return;
    for (const r of refusals.slice(0, REFUSALS_LOGGED)) {
      log.warn(
        { terminal: printable(r.terminal, 64), code: r.code, reason: r.reason },
        `terminal ${printable(r.terminal, 64)}: record refused, not journalled: ${r.reason}`,
      );
    }
    if (count > REFUSALS_LOGGED)
      log.warn({ refused: count }, `${count - REFUSALS_LOGGED} more records refused in the same write (same rule)`);
  }

  /** Punches filed by a terminal's name moved to its device, now known (terminal-devices.ts). */
  private logAdopted(terminal: string, device: string, a: Adopted): void {
    this.extra.logger?.info(
      { terminal: printable(terminal, 64), device: printable(device, 40), ...a },
      `terminal ${printable(terminal, 64)} is device ${printable(device, 40)}: ${a.moved} punches journalled under its name alone are now known by the device` +
        (a.superseded
          ? `; ${a.superseded} journalled twice were kept once (the other copy, never sent, is in punches_superseded)`
          : '') +
        (a.bothSent
          ? `; ${a.bothSent} were journalled and sent twice before this version, under two devicelogIds`
          : ''),
    );
  }

  /** Inside open (the daemon): punches filed by name of terminals whose device is known move to it. */
  private adoptKnownDevices(): void {
    const a = this.gate.attempt(() => this.db.transaction(() => this.devices.adoptAll()).immediate());
    if (a.moved || a.superseded || a.bothSent) this.logAdopted('(every terminal)', 'its known device', a);
  }

  /** A device whose serial is kept as a stand-in is said once per process. */
  private logStandIns(punches: readonly Punch[], identity: (d: string) => string): void {
    const log = this.extra.logger;
    if (!log || punches.length === 0) return;
    for (const p of [punches[0]!, punches[punches.length - 1]!]) {
      const serial = p.device ?? '';
      const kept = identity(serial);
      if (kept === serial || this.standInsLogged.has(kept) || this.standInsLogged.size >= STAND_INS_LOGGED) continue;
      this.standInsLogged.add(kept);
      log.warn(
        { terminal: printable(p.terminal, 64), serial: printable(serial, 40), keptAs: kept },
        `terminal ${printable(p.terminal, 64)} reports a serial number that cannot be kept as it is (${serialProblem(serial)}): its punches are kept under ${kept}`,
      );
    }
  }

  /** Before any claim (the default sink's or another's): this process's claim holder. */
  private beginClaim(now: number): string {
    // Earlier returns first (they may free punches this claim should see); busy: try later.
    this.gate.flush();
    this.holder ??= ClaimHolder.create(this.opts.path, now);
    if (elapsedMs(this.clock) - this.lastRecovery >= this.opts.claimRecoveryMs) this.recoverStaleClaims();
    return this.holder.id;
  }

  /**
   * Tells the journal the config's sinks (at start and on reload): a new one starts with the
   * punches journalled from now on (sink-deliveries.ts); `defaultNotFor`: terminals whose punches
   * do not go to the default sink.
   */
  useSinks(roster: SinkRoster & { defaultNotFor?: readonly string[] }): void {
    this.defaultNotFor = new Set(roster.defaultNotFor ?? []);
    if (this.readonly) return;
    // Read before the roster is recorded: which sinks it takes out now.
    const removed = owedToRemovedSinks(this.db, roster);
    const added = sinksNewToJournal(this.db, roster.others);
    const before = this.gate.attempt(() => registerSinks(this.db, this.clock.now(), roster));
    // A sink new to the journal starts at its newest punch (sink-deliveries.ts): the punches
    // already in it are never sent there unless asked, which the log says once, with the command.
    for (const a of added)
      if (a.older > 0)
        this.extra.logger?.info(
          { sink: a.sink, notSent: a.older },
          `sink ${a.sink} is new in the config: it gets the punches journalled from now on, not the ${a.older} already in the journal; to send it those too: sudo -u punchgate punchgate punches retry --sink ${a.sink} --older`,
        );
    // A sink taken out now is a warning; one taken out earlier is said again at each start, quietly.
    for (const r of removed)
      this.extra.logger?.[r.justRemoved ? 'warn' : 'info'](
        { sink: r.sink, owed: r.owed },
        removedSinkWords(r, this.opts.retentionDays),
      );
    if (before !== undefined)
      this.extra.logger?.warn(
        { was: before, now: roster.defaultSink },
        `the first sink of the config is now ${roster.defaultSink}, it was ${before}: the journal's punches keep their state, which was ${before}'s (punches delivered to ${before} are not sent to ${roster.defaultSink}); put ${before} first again, or queue them with punches retry --sink`,
      );
  }

  /**
   * The sinks the journal knows that `roster` (the config's) does not name, with the punches they
   * are still owed (never sent while they are out of the config): for the status.
   */
  owedToRemovedSinks(roster: SinkRoster): RemovedSinkOwed[] {
    return owedToRemovedSinks(this.db, roster);
  }

  /** The queue of a sink other than the default (sink-deliveries.ts); `notFor`: terminals that leave it out. */
  sinkQueue(name: string, notFor: readonly string[] = []): SinkQueue {
    return new SinkQueue(
      {
        db: this.db,
        gate: this.gate,
        clock: this.clock,
        ids: this.ids,
        scrub: this.extra.scrub,
        settings: this.opts,
        beginClaim: (now) => this.beginClaim(now),
        holder: () => this.holder?.id ?? '',
        syncedApart: this.syncedApart,
        deferApart: (fn) => this.deferApart(fn),
      },
      name,
      notFor,
    );
  }

  /**
   * For the Frappe shift sync, per terminal: how far its log is read and the oldest punch `sink`
   * still owes (undefined: the default sink). Indexed on what is waiting (shift-progress.ts).
   */
  shiftSyncProgress(
    sink: string | undefined,
    terminals: readonly { name: string; timezone?: string | undefined }[],
  ): Map<string, TerminalReadProgress> {
    this.shiftProgress ??= new ShiftProgressQueries(this.db);
    return this.shiftProgress.progress(sink, terminals, this.terminalDevices());
  }

  /** A sink's delivery state (auth, last success, failing since) for status; the default's is deliveryState. */
  deliveryStateOf(sink: string | undefined): DeliveryStateStore {
    return sink === undefined ? this.deliveryState : new DeliveryStateStore(this.db, this.gate, this.extra.scrub, sink);
  }

  claim(limit: number, opts: ClaimOptions = {}): OutboundPunch[] {
    const now = this.clock.now();
    const holder = this.beginClaim(now);
    // A claim is committed without a disk sync of its own (synchronous NORMAL for this one
    // transaction): lost in a power cut, its punches are simply pending again, as a claim of a
    // process that is gone would be. The WAL is written in order, so the settle that follows
    // (synchronous FULL) makes the claim durable with it: one disk sync per batch, not two.
    // Inside `together` (the settle of the batch before, then this claim) its commit is that sync.
    if (this.db.inTransaction) return this.claimRows(limit, opts, now, holder);
    this.db.pragma('synchronous = NORMAL');
    try {
      return this.claimRows(limit, opts, now, holder);
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  /**
   * Runs `fn` (a settle, the delivery state, the next claim) in one IMMEDIATE transaction: one
   * commit, so one disk sync, for all of it. Throws (busy) when another process holds the
   * journal; nothing of `fn` is then written, and an error inside `fn` undoes all of it.
   */
  together<T>(fn: () => T): T {
    this.checkpointer?.used();
    return this.syncedApart(() => this.gate.attempt(() => this.db.transaction(fn).immediate()));
  }

  /**
   * Runs `fn` (its own transaction) committed without a disk sync on the event loop, the WAL
   * synced right after in the thread pool (wal-sync.ts), no one waiting. Inside a transaction, or
   * where the WAL cannot be synced apart, `fn` commits as it would (its own sync). For writes
   * whose loss in a power cut (between the commit and the sync) costs nothing but a repeat:
   * - delivery's writes (a settle, a return, the settle with the next claim): their punches are
   *   inflight under a process that is gone, go back to the queue at the next start and are sent
   *   again, and the HRMS answers "already there";
   * - a terminal's record in the ledger (last poll, serial, clock, read up to): figures for the
   *   status, written again at the next poll; a record older than its punches only makes the next
   *   poll judge their clock with an older `readUpTo`.
   */
  readonly syncedApart = <T>(fn: () => T): T => {
    const { value, apart } = this.withoutSync(fn);
    if (apart) this.walSync.request();
    return value;
  };

  /** A delivery write that may wait for a busy journal (WriteGate.defer), without a sync on the event loop (syncedApart). */
  private deferApart(fn: () => void): void {
    this.syncedApart(() => this.gate.defer(undefined, fn));
  }

  /**
   * Runs `fn` (transactions of its own, such as a group of push uploads) committed without a
   * disk sync on the event loop; `synced` resolves once the WAL is synced off it (wal-sync.ts),
   * and only then may a terminal be told its punches are kept. Inside another transaction, or
   * where the WAL cannot be synced apart, `fn`'s commits sync themselves and `synced` resolves
   * once the file system still takes writes after them.
   */
  syncedLater<T>(fn: () => T): { value: T; synced: Promise<void> } {
    const { value, apart } = this.withoutSync(fn);
    if (apart) return { value, synced: this.walSync.synced() };
    // Synced by SQLite within the commit: trusted, as WalSync's own, only while the file system
    // still takes writes after it (file-system-probe.ts).
    return {
      value,
      synced: this.readonly ? Promise.resolve() : fileSystemStillWrites(canonicalJournalPath(this.opts.path)),
    };
  }

  /**
   * Throws the journal's failure (describeJournalFailure: the file system went read-only, or an
   * I/O error) when its file system no longer takes writes (file-system-probe.ts). A command that
   * journalled with SQLite's own sync asks it before saying what it kept: ext4 can report a sync
   * as done for data it drops when a disk error strikes during it.
   */
  confirmWritable(): void {
    const failed = probeFileSystemNow(canonicalJournalPath(this.opts.path));
    if (failed)
      throw describeJournalFailure(
        this.opts.path,
        Object.assign(new Error(`disk I/O error after its sync (${failed.message})`), { code: 'SQLITE_IOERR_FSYNC' }),
      );
  }

  /**
   * `ingest`, committed without a disk sync on the event loop: `synced` resolves once the punches
   * are on the disk (a sync of the WAL begun after the commit, in the thread pool), and rejects
   * when that sync fails. A source that would tell its terminal anything (clear its log, answer
   * it) waits for it; until then a power cut loses the punches as it would have a moment before
   * the commit, and the terminal still holds them. A rejection nobody waits for is no crash.
   */
  ingestSyncedLater(
    punches: readonly Punch[],
    opts: IngestOptions = {},
  ): { result: IngestResult; synced: Promise<void> } {
    const { value, synced } = this.syncedLater(() => this.ingest(punches, opts));
    synced.catch(() => undefined);
    return { result: value, synced };
  }

  /**
   * Runs `fn` at synchronous NORMAL (its commits without a sync of their own) when the WAL can be
   * synced apart afterwards (`apart`): outside a transaction, with the WAL file at hand. Otherwise
   * as it is, each commit with its own sync.
   */
  private withoutSync<T>(fn: () => T): { value: T; apart: boolean } {
    if (this.db.inTransaction || this.readonly || !this.walSync.available()) return { value: fn(), apart: false };
    this.stmt.syncNormal.run();
    try {
      return { value: fn(), apart: true };
    } finally {
      this.stmt.syncFull.run();
    }
  }

  /** WAL syncs done off the event loop after a `together` (for tests). */
  get walSyncs(): number {
    return this.walSync.done;
  }

  /**
   * Tells `listener` how long each disk sync of the write-ahead log made off the event loop took
   * (seconds): the disk's pace, for /metrics. Returns how to stop.
   */
  onDiskSync(listener: (seconds: number) => void): () => void {
    return this.walSync.onSynced(listener);
  }

  private claimRows(limit: number, opts: ClaimOptions, now: number, holder: string): OutboundPunch[] {
    const claimed = this.claimRowsNow(limit, opts, now, holder);
    this.deliveryWrote(claimed.length);
    return claimed;
  }

  /**
   * Rows claimed or settled by delivery: they count toward starting the checkpoint worker (their
   * writes are not counted by `wrote`, which bounds the WAL by punches journalled).
   */
  private deliveryWrote(rows: number): void {
    this.checkpointer?.used();
    this.countTowardCheckpointer(rows);
  }

  /** Rows written count toward starting the worker (again after it failed, once its wait is over). */
  private countTowardCheckpointer(rows: number): void {
    if (!this.checkpointerWanted || (this.rowsBeforeCheckpointer += rows) < CHECKPOINT_KICK_ROWS) return;
    const failed = this.checkpointerFailure;
    if (failed && elapsedMs(this.clock) < failed.retryAt) return;
    this.startCheckpointer();
  }

  /**
   * How the journal's checkpoints run now, for the status: in the worker thread, on the main
   * thread after the worker failed (since when, why, and when a new one is tried), or on the main
   * thread because little is written (no worker wanted, or one not started yet).
   */
  checkpointState(): CheckpointState {
    const f = this.checkpointerFailure;
    if (f)
      return {
        thread: this.checkpointer ? 'restarted' : 'failed',
        failedAt: f.at,
        error: f.why,
        failures: f.failures,
      };
    return { thread: this.checkpointer ? 'running' : 'idle', failedAt: null, error: null, failures: 0 };
  }

  private claimRowsNow(limit: number, opts: ClaimOptions, now: number, holder: string): OutboundPunch[] {
    return this.gate.attempt(() =>
      this.db
        .transaction(() => {
          // In queue order (log time, then id): the index's order.
          let rows = this.pickRows(now, limit, opts);
          // Punches of terminals that name other sinks only are settled for this one, unsent.
          for (let round = 0; this.defaultNotFor.size > 0 && rows.length > 0 && round < 100; round++) {
            const skip = rows.filter((r) => this.defaultNotFor.has(r.terminal));
            if (skip.length === 0) break;
            this.stmt.notForDefault.run({
              now,
              ids: JSON.stringify(skip.map((r) => r.id)),
              message: NOT_ROUTED_MESSAGE,
            });
            const skipped = new CountMoves();
            for (const r of skip) skipped.move(r.terminal, r.previousState, 'not_routed');
            this.punchCounts.apply(skipped);
            const full = rows.length === limit;
            rows = rows.filter((r) => !this.defaultNotFor.has(r.terminal));
            if (rows.length > 0 || !full) break;
            rows = this.pickRows(now, limit, opts);
          }
          if (rows.length > 0) {
            this.stmt.markInflight.run({ now, holder, ids: JSON.stringify(rows.map((r) => r.id)) });
            // The rows were read in this IMMEDIATE transaction: every one of them moved.
            const moves = new CountMoves();
            for (const r of rows) moves.move(r.terminal, r.previousState, 'inflight');
            this.punchCounts.apply(moves);
          }
          return rows;
        })
        .immediate(),
    );
  }

  /**
   * The queue's first `limit` due rows, in queue order (log time, then id), each made once into
   * the punch delivery sends (one object a row, not a row object and then a punch: issue 35).
   */
  private pickRows(now: number, limit: number, opts: ClaimOptions): OutboundPunch[] {
    const all = opts.ignoreBackoff ? 1 : 0;
    const raw = (
      opts.holdBehindRefused
        ? this.stmt.pickHeld.all({ now, limit, all, held: this.heldCodes(opts) })
        : this.stmt.pick.all({ now, limit, all })
    ) as PickedTuple[];
    const out = this.outbound(raw);
    if (!opts.holdBehindRefused || !opts.holdNothing?.length || !anyPending(out) || this.refusedWaiting() === 0)
      return out;
    const pulled = this.stmt.pickPulled.all({ codes: pendingCodesParam(out), free: freeParam(opts) }) as PickedTuple[];
    return withRefusalsAhead(out, this.outbound(pulled), limit);
  }

  /** Picked rows as the punches delivery sends. */
  private outbound(raw: readonly PickedTuple[]): OutboundPunch[] {
    const out = new Array<OutboundPunch>(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const [id, site, terminal, device, biometricCode, logTime, punchState, sentAs, attempts, previousState] = raw[i]!;
      out[i] = {
        id,
        devicelogId: this.ids.idOf({ id, site, terminal, device, biometricCode, logTime, sentAs }),
        biometricCode,
        logTime,
        terminal,
        device,
        punchState,
        attempts,
        previousState,
      };
    }
    return out;
  }

  settle(outcomes: readonly PunchOutcome[]): void {
    if (outcomes.length === 0) return;
    this.deliveryWrote(outcomes.length);
    const now = this.clock.now();
    const holder = this.holder?.id ?? '';
    const scrub = scrubEachOnce(this.extra.scrub);
    // Delivered, duplicate and unknown answers are grouped by message (usually one per batch)
    // and settled with one statement per group; refusals need each punch's own history.
    const groups = new Map<
      string,
      { kind: 'delivered' | 'duplicate' | 'unknown'; message: string | null; ids: number[] }
    >();
    const rejected: { id: number; message: string }[] = [];
    for (const o of outcomes) {
      if (o.kind === 'rejected') {
        rejected.push({ id: o.id, message: scrub(o.message) });
        continue;
      }
      const message = o.message === undefined ? null : scrub(o.message);
      const key = message === null ? o.kind : `${o.kind}:${message}`;
      const g = groups.get(key) ?? groups.set(key, { kind: o.kind, message, ids: [] }).get(key)!;
      g.ids.push(o.id);
    }
    this.deferApart(() =>
      this.db
        .transaction(() => {
          const moves = new CountMoves();
          for (const g of groups.values()) {
            const ids = JSON.stringify(g.ids);
            if (g.kind === 'unknown')
              for (const r of this.stmt.unclaim.all({ ids, message: g.message, now, holder }) as Returned[])
                moves.move(r.terminal, 'inflight', r.state);
            else
              for (const terminal of this.stmt.delivered.all({
                ids,
                duplicate: g.kind === 'duplicate' ? 1 : 0,
                message: g.message,
                now,
                holder,
              }) as string[])
                moves.move(terminal, 'inflight', 'delivered');
          }
          for (const o of rejected) {
            const row = this.stmt.getInflight.get(o.id, holder) as
              { terminal: string; attempts: number; firstRejectedAt: number | null } | undefined;
            if (!row) continue;
            const attempts = row.attempts + 1;
            const firstRejectedAt = row.firstRejectedAt ?? now;
            const dead =
              attempts >= this.opts.deadAfterAttempts || now - firstRejectedAt >= this.opts.deadAfterDays * DAY_MS;
            const delay = backoffDelay(attempts - 1, this.opts.rejectedRetry);
            moves.move(row.terminal, 'inflight', dead ? 'dead' : 'rejected');
            this.stmt.rejected.run({
              id: o.id,
              state: dead ? 'dead' : 'rejected',
              attempts,
              firstRejectedAt,
              next: dead ? null : now + delay,
              message: o.message,
              now,
              holder,
            });
            this.history.refused({
              id: o.id,
              at: now,
              attempt: attempts,
              state: dead ? 'dead' : 'rejected',
              message: o.message,
            });
          }
          this.punchCounts.apply(moves);
        })
        .immediate(),
    );
  }

  release(ids: readonly number[]): void {
    if (ids.length === 0) return;
    const args = { ids: JSON.stringify(ids), message: null, now: this.clock.now(), holder: this.holder?.id ?? '' };
    this.deferApart(() => this.db.transaction(() => this.unclaimed(this.stmt.unclaim.all(args) as Returned[]))());
  }

  /** Counts claims returned to the queue (rows as RETURNING gives them: the state they went back to). */
  private unclaimed(rows: readonly Returned[]): number {
    const moves = new CountMoves();
    for (const r of rows) moves.move(r.terminal, 'inflight', r.state);
    this.punchCounts.apply(moves);
    return rows.length;
  }

  nextDueAt(): number | null {
    if (this.stmt.anyPending.get()) return this.clock.now();
    const r = this.stmt.nextRejected.get() as { t: number | null };
    return r.t;
  }

  dueCount(opts: DueCountOptions = {}): number {
    const limit = opts.atMost ?? -1;
    const args = { now: this.clock.now(), all: opts.ignoreBackoff ? 1 : 0, limit };
    const row = opts.holdBehindRefused
      ? this.stmt.dueCountHeld.get({ ...args, held: this.heldCodes(opts) })
      : this.stmt.dueCount.get(args);
    return (row as { n: number }).n;
  }

  refusedWaiting(): number {
    return this.counts().rejected;
  }

  /**
   * Each code with a refused punch waiting (but those whose refusal holds nothing), and the earliest
   * such punch's log time: a holding sink's later punches of that code wait behind it
   * (held-behind-refused.ts). For `punchgate punches`, which says so beside each.
   */
  refusedFirstByCode(holdNothing: readonly string[]): Map<string, string> {
    if (this.refusedWaiting() === 0) return new Map();
    const rows = this.stmt.refusedFirst.all({ free: freeParam({ holdNothing }) }) as RefusedFirst[];
    return new Map(rows.map((r) => [r.code, r.t]));
  }

  /** The codes with a refused punch waiting, and the earliest such punch's log time (held-behind-refused.ts). */
  private heldCodes(opts: ClaimOptions): string {
    // None refused (the kept counts): none held, without reading the backlog for refused rows.
    if (this.refusedWaiting() === 0) return heldParam([]);
    return heldParam(this.stmt.refusedFirst.all({ free: freeParam(opts) }) as RefusedFirst[]);
  }

  counts(): JournalCounts {
    return this.queries.counts();
  }

  /**
   * Throws the journal's "is damaged" error (exit 74) when SQLite's quick_check finds damaged
   * pages: reads the whole file (integrity.ts says the cost), so only before a large write.
   */
  assertIntact(): void {
    assertIntact(this.db, this.opts.path);
  }

  /**
   * Records the zone of each configured terminal (its `timezone`, else the box's): kept once it is
   * taken out of the config, for its punches still waiting (terminal-zones.ts). Throws when busy.
   */
  rememberTerminalZones(zones: readonly { terminal: string; timezone: string }[], at: number): void {
    if (this.readonly) return;
    this.gate.attempt(() => this.zones.remember(zones, at));
  }

  /** The zone each terminal had when last in the config (terminal-zones.ts). */
  terminalZones(): Map<string, string> {
    return this.zones.all();
  }

  /**
   * Records the direction setting of each configured terminal: kept once it is taken out of the
   * config, for its punches still waiting (terminal-directions.ts). Throws when busy.
   */
  rememberTerminalDirections(rows: readonly KeptDirection[], at: number): void {
    if (this.readonly) return;
    this.gate.attempt(() => this.directions.remember(rows, at));
  }

  /** The direction setting each terminal had when last in the config (terminal-directions.ts). */
  terminalDirections(): Map<string, KeptDirection> {
    return this.directions.all();
  }

  /** Each terminal whose device (serial) the journal knows, with it (terminal-devices.ts). */
  knownDevices(): Map<string, string> {
    return this.devices.known();
  }

  /**
   * The terminal that was device `serial` (any letter case) before the one it is now, with the
   * serial as the journal keeps it: a replaced device, named by its status (previous serial) or by
   * punches journalled under it. Undefined when no terminal was that device, or it still is.
   * `apart`: a name punches are filed under that is no terminal (an import's), never the answer.
   */
  pastDeviceOf(serial: string, apart = ''): { terminal: string; device: string } | undefined {
    const current = this.devices.known();
    const isPast = (terminal: string, device: string) =>
      !sameSerial(current.get(terminal) ?? '', device) &&
      !sameSerial(this.terminals.get(terminal)?.serial ?? '', device);
    for (const t of this.terminals.list())
      if (sameSerial(t.previousSerial, serial) && isPast(t.name, t.previousSerial))
        return { terminal: t.name, device: t.previousSerial };
    for (const spelling of new Set([deviceIdentity(serial), deviceIdentity(serial.toUpperCase())])) {
      const row = this.stmt.terminalOfDevice.get(spelling, apart) as { terminal: string; device: string } | undefined;
      if (row && isPast(row.terminal, row.device)) return row;
    }
    return undefined;
  }

  /**
   * Each terminal's device: the one it is known by (knownDevices), else the serial it last
   * reported (a terminal renamed has reported it under its new name before any punch came).
   */
  terminalDevices(): Map<string, string> {
    const out = this.devices.known();
    for (const t of this.terminals.list()) if (t.serial && !out.has(t.name)) out.set(t.name, t.serial);
    return out;
  }

  /**
   * Since when (epoch ms) another process has kept this one from writing, or null. While writes
   * wait, tries them; otherwise checks that the write lock can be had now.
   */
  busySince(): number | null {
    if (this.gate.busySince === null || this.readonly) return this.gate.busySince;
    if (this.gate.keptWrites > 0) this.gate.retry();
    else {
      try {
        this.gate.attempt(() => {
          this.db.exec('BEGIN IMMEDIATE');
          this.db.exec('ROLLBACK');
        });
      } catch (e) {
        if (!isBusyJournalError(e)) throw e;
      }
    }
    return this.gate.busySince;
  }

  /** Writes kept for a busy journal (returned claims, terminal and delivery state). */
  get keptWrites(): number {
    return this.gate.keptWrites;
  }

  /**
   * The box clock stepped by `deltaMs` (negative: back), in every sink's queue. The time of a
   * punch's first refusal moves with it either way: deadAfterDays counts the time it waited, not
   * the step (30 days forward gave up punches refused two minutes before). That holds for a punch
   * in flight at the step too: its refusal is settled against the clock after the step. A step
   * back moves the next attempts, kept as wall-clock times, back too, so that none waits the step
   * on top of its retry delay; a step forward only brings retries early, which costs nothing.
   * One transaction (never half applied, so never applied twice to a table), kept and done once
   * the journal is free when another process holds it (a busy journal at the step once left the
   * times unmoved, and punches were given up at their next refusal).
   */
  clockStepped(deltaMs: number): void {
    if (this.readonly || deltaMs === 0) return;
    const delta = Math.round(deltaMs);
    const move = () => {
      const now = this.clock.now();
      // For every sink (the default sink's state is the punch's own): a step is no time waited.
      for (const table of ['punches', 'sink_deliveries'] as const) {
        // deadAfterDays counts from the first refusal: a step forward must not give a punch up.
        // Queued and in-flight rows apart, each by its small index (a million delivered are not read).
        for (const states of [`state IN ('pending', 'rejected')`, `state = 'inflight'`])
          this.db
            .prepare(
              `UPDATE ${table} SET first_rejected_at = first_rejected_at + @delta
               WHERE ${states} AND first_rejected_at IS NOT NULL`,
            )
            .run({ delta });
        // A retry time moves back with a step back (not to wait the step again); forward, it is due.
        if (delta < 0)
          this.db
            .prepare(
              `UPDATE ${table} SET next_attempt_at = max(@now, next_attempt_at + @delta)
               WHERE state IN ('pending', 'rejected') AND state = 'rejected' AND next_attempt_at > @now`,
            )
            .run({ now, delta });
      }
    };
    this.deferApart(() => this.db.transaction(move).immediate());
  }

  /**
   * Deletes delivered punches older than the retention, a chunk of rows per transaction;
   * returns how many. Throws (busy) when another process holds the journal: try later.
   */
  prune(): number {
    let deleted = 0;
    for (const n of this.pruneSteps()) deleted += n;
    return deleted;
  }

  /**
   * The same, with `pause` awaited between two chunks (the daemon yields to its event loop
   * there: terminals, scrapes and delivery go on between the chunks of a large prune).
   */
  async pruneInSteps(
    pause: () => Promise<void>,
    /** Runs each step (the daemon labels it: what held the event loop, if anything did). */
    step: <T>(fn: () => T) => T = (fn) => fn(),
  ): Promise<number> {
    let deleted = 0;
    const steps = this.pruneSteps();
    for (;;) {
      const r = step(() => steps.next());
      if (r.done) return deleted;
      deleted += r.value;
      await pause();
    }
  }

  /**
   * One transaction per step, each of at most CHUNK_ROWS rows, found through the index of
   * delivered punches by delivery time: a prune costs what it deletes, not the journal's size.
   */
  private *pruneSteps(): Generator<number> {
    const cutoff = this.clock.now() - this.opts.retentionDays * DAY_MS;
    const logCutoff = this.logTimeCutoffFor(cutoff);
    // Refused attempts of that age go too (a chunk per transaction, like the punches below).
    for (let n = CHUNK_ROWS; n === CHUNK_ROWS;) {
      n = this.gate.attempt(() => this.history.prune(cutoff, CHUNK_ROWS));
      this.wrote(n);
      yield 0;
    }
    for (const state of ['delivered', 'not_routed'] as const)
      for (let n = CHUNK_ROWS; n === CHUNK_ROWS;) {
        n = this.gate.attempt(() => this.pruneChunk(cutoff, logCutoff, state));
        this.wrote(n);
        yield n;
      }
    // Settled terminal commands of that age go too, a window of rows per step (command-retention.ts).
    for (let after: number | null = 0; after !== null;) {
      const from: number = after;
      const r = this.gate.attempt(() => this.commandRetention.step(cutoff, from, CHUNK_ROWS));
      this.wrote(r.deleted);
      after = r.next;
      yield 0;
    }
  }

  /**
   * The retention's cutoff as a punch's own time: the earlier of the box's clock and the terminals'
   * clocks (the newest punch journalled), each a retention back. The box's clock may be ahead (set to
   * the wrong year, a bad NTP answer, a wrong RTC at boot, a VM restored): without the terminals'
   * bound a box clock a year ahead deleted the delivered punches of the last months that terminals
   * still hold (their logs, read again, enqueued them as new: sent twice), and one a few days ahead
   * with a retention of a few days deleted the punches delivered minutes before (found by a trial
   * with faketime: 145 punches of the last minute deleted at a start 3 days ahead with
   * retentionDays 2), their history gone and the retention marks then at the present, where a late
   * punch of that terminal (one a poll reads after the real-time events missed it) was taken as one
   * of those deleted and never journalled. A quiet spell (holidays, no punch) only delays the
   * retention by its length: nothing goes early.
   */
  private logTimeCutoffFor(cutoff: number): string {
    const byBox = logTimeCutoff(cutoff);
    const newest = (this.stmt.newestLogTime.get() as { t: string | null }).t;
    if (newest === null || !isLogTime(newest)) return byBox;
    const byTerminals = shiftWallClock(newest, -(this.opts.retentionDays + 1) * 86_400);
    return byTerminals < byBox ? byTerminals : byBox;
  }

  /** One chunk of prune, with its counts, in one transaction. */
  private pruneChunk(cutoff: number, logCutoff: string, state: 'delivered' | 'not_routed'): number {
    return this.db.transaction(() => {
      const stmt = state === 'delivered' ? this.stmt.prune : this.stmt.pruneNotRouted;
      const rows = stmt.all({ cutoff, logCutoff, limit: CHUNK_ROWS }) as (PrunedPunch & { id: number })[];
      this.retentionMarks.record(rows);
      const moves = new CountMoves();
      for (const r of rows) moves.add(r.terminal, state, -1);
      this.punchCounts.apply(moves);
      pruneSinkRows(
        this.db,
        rows.map((r) => r.id),
      );
      return rows.length;
    })();
  }

  /**
   * The checkpoints move to a worker thread: SQLite's automatic one (inside the commit that crosses
   * 1000 pages, with a sync of the database file) is turned off on this connection. If the worker
   * cannot start or fails later, the journal checkpoints itself as before.
   */
  private startCheckpointer(): void {
    const opts = this.checkpointerWanted;
    this.checkpointerWanted = undefined;
    if (!opts || !this.db.open) return;
    const back = () => {
      this.checkpointer = undefined;
      if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
    };
    // Failed: the main thread checkpoints meanwhile; a new worker once the wait is over.
    const failed = (why: string) => {
      back();
      const failures = (this.checkpointerFailure?.failures ?? 0) + 1;
      const wait = Math.min(CHECKPOINT_RETRY_MS * 2 ** (failures - 1), CHECKPOINT_RETRY_MAX_MS);
      this.checkpointerFailure = { at: this.clock.now(), why, failures, retryAt: elapsedMs(this.clock) + wait };
      this.checkpointerWanted = opts;
      this.rowsBeforeCheckpointer = 0;
      this.checkpointsSeen = 0;
      this.checkpointerStuck = false;
    };
    const progressed = () => {
      if (!this.checkpointerFailure) return;
      this.extra.logger?.info(
        { failedAt: new Date(this.checkpointerFailure.at).toISOString() },
        'the journal checkpoint thread is back: checkpoints run off the main thread again',
      );
      this.checkpointerFailure = undefined;
    };
    // Idle: the worker has ended; SQLite's automatic checkpoint until the next one starts.
    const idle = () => {
      back();
      this.checkpointerWanted = opts;
      this.rowsBeforeCheckpointer = 0;
      this.checkpointsSeen = 0;
      this.checkpointerStuck = false;
      this.extra.logger?.debug('the journal checkpoint thread ended: little was written for a while');
    };
    try {
      this.checkpointer = new CheckpointWorker(this.opts.path, {
        logger: this.extra.logger,
        onFailed: failed,
        onProgress: progressed,
        onIdle: idle,
        elapsed: () => elapsedMs(this.clock),
        ...opts,
      });
      this.db.pragma('wal_autocheckpoint = 0');
      // Said at debug level: a test (and an admin looking at threads) can tell when it started.
      this.extra.logger?.debug('the journal checkpoint thread started');
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      this.extra.logger?.warn(
        { err: why },
        'the journal checkpoint thread could not start; the journal checkpoints on its main thread until a new thread starts',
      );
      failed(why);
    }
  }

  /** Counts rows written; after many, a passive checkpoint lets the WAL be cut back to its size limit. */
  private wrote(rows: number): void {
    this.countTowardCheckpointer(rows);
    this.checkpointer?.wrote(rows);
    this.writtenSinceCheckpoint += rows;
    if (this.writtenSinceCheckpoint < CHECKPOINT_AFTER_ROWS) return;
    this.writtenSinceCheckpoint = 0;
    const worker = this.checkpointer;
    if (worker?.active) {
      const progressed = worker.progressed !== this.checkpointsSeen;
      this.checkpointsSeen = worker.progressed;
      if (progressed) {
        this.checkpointerStuck = false;
        // The worker copies only the frames committed when it starts; while commits follow each
        // other without a pause it never finds all of the WAL copied, so the WAL is never started
        // over and grows (200,000 punches without a pause: 70 MB). Past its size limit, this
        // connection copies the rest itself, between two of its own commits: only the frames the
        // worker has not copied yet (about its last 1000 rows) and a sync of the database file.
        const frames = worker.last?.log ?? 0;
        if (frames * this.pageSize() <= WAL_SIZE_LIMIT_BYTES) return;
      } else {
        if (!this.checkpointerStuck)
          this.extra.logger?.warn(
            { rows: CHECKPOINT_AFTER_ROWS },
            'the journal checkpoint thread has not finished a checkpoint for a while (slow disk?); the journal checkpoints on its main thread meanwhile',
          );
        this.checkpointerStuck = true;
      }
    }
    this.checkpointHere();
  }

  /**
   * A passive checkpoint on this connection. Not inside a transaction (a push terminal's upload
   * ingests inside the transaction of its stamp), where SQLite refuses it (SQLITE_LOCKED): then
   * right after the transaction, in the next turn of the event loop.
   */
  private checkpointHere(): void {
    if (this.db.inTransaction) {
      if (this.checkpointDue) return;
      this.checkpointDue = true;
      setImmediate(() => {
        this.checkpointDue = false;
        if (this.db.open) this.checkpointHere();
      });
      return;
    }
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
      this.mainCheckpoints++;
    } catch {
      // a checkpoint is an optimisation: the next one will do
    }
  }

  private pageSize(): number {
    return (this.pageBytes ??= this.db.pragma('page_size', { simple: true }) as number);
  }

  /** The checkpoint worker's checkpoints so far (undefined: none runs; tests). */
  get workerCheckpoints(): Pick<CheckpointWorker, 'completed' | 'progressed' | 'last'> | undefined {
    const w = this.checkpointer;
    return w && { completed: w.completed, progressed: w.progressed, last: w.last };
  }

  /**
   * Undefined while the journal's files are the ones this process opened. Otherwise (the first
   * time) the error every later write gets, and what the open connection still holds is saved:
   * a deleted write-ahead log is copied into the journal file (a checkpoint reads it through the
   * open handle); a deleted journal is written out whole (VACUUM INTO) and put back under its
   * name when nothing took its place, else kept beside it. A terminal is then never told OK for
   * a punch in a file that is gone, and no punch written before is lost. Inside a transaction
   * (a push upload's) the saving waits until it is undone: saveBeforeExit.
   */
  private filesGone(): JournalFileGoneError | undefined {
    if (this.gone || !this.files) return this.gone;
    const problem = this.files.problem(this.opts.path);
    if (!problem) return undefined;
    this.gone = problem;
    this.savePending = true;
    // A journal file written over in place: no checkpoint may lay the log's pages over it now.
    if (problem.gone === 'overwritten') this.checkpointer?.close();
    if (this.db.inTransaction) return problem;
    // The daemon exits now (74) and starts again on the file now under the name.
    this.extra.onFatal?.(this.saveBeforeExit());
    return this.gone;
  }

  /**
   * Before the process exits on a fatal journal error: when a journal file was found gone, saves
   * what the connection holds (once, outside a transaction) and returns the error saying where.
   */
  saveBeforeExit(): JournalFileGoneError | undefined {
    const gone = this.gone;
    if (!gone || !this.savePending || this.db.inTransaction) return gone;
    this.savePending = false;
    this.gone = new JournalFileGoneError(gone.path, gone.gone, `${gone.problem}; ${this.saveFrom(gone)}`, gone.fix);
    this.extra.logger?.error({ code: 'FILE_GONE' }, this.gone.message);
    return this.gone;
  }

  /** Saves what the open connection holds after a file was found gone; says what it did. */
  private saveFrom(problem: JournalFileGoneError): string {
    const path = canonicalJournalPath(this.opts.path);
    if (problem.gone === 'overwritten') return saveOverwrittenJournal(this.db, path, fileStamp(this.clock.now()));
    try {
      if (problem.gone === 'wal') {
        const r = (this.db.pragma('wal_checkpoint(FULL)') as { busy: number; log: number; checkpointed: number }[])[0];
        if (r && r.busy === 0 && r.log === r.checkpointed) return `all it held (${r.log} pages) is copied into ${path}`;
        return `only part of it could be copied into ${path} (another process reads the journal)`;
      }
      const aside = `${path}.saved-${fileStamp(this.clock.now())}`;
      ensurePrivateFile(aside); // a copy of the journal, private as the journal is (it was 0644)
      this.db.prepare('VACUUM INTO ?').run(aside);
      if (existsSync(path))
        return `what it held is saved as ${aside}: stop punchgate and put that file in place of the new one if it is the journal to keep`;
      // The old -wal and -shm carry the deleted file's pages (all in the copy now): never replayed onto it.
      for (const side of [`${path}-wal`, `${path}-shm`]) rmSync(side, { force: true });
      linkSync(aside, path);
      unlinkSync(aside);
      return `what it held is saved back as ${path}`;
    } catch (e) {
      return `saving what it held failed (${e instanceof Error ? e.message : String(e)})`;
    }
  }

  close(): void {
    if (!this.db.open || this.leftOpen) return;
    try {
      if (this.gate.keptWrites > 0) {
        // Give a busy journal a last chance to take the returned claims and the state.
        this.db.pragma(`busy_timeout = ${CLOSE_TIMEOUT_MS}`);
        this.gate.retry();
        const left = this.gate.stop();
        if (left > 0)
          this.extra.logger?.warn(
            { writes: left },
            'the journal stayed busy: claims not returned go back to the queue once this process has ended',
          );
      }
      this.gate.stop();
      this.checkpointer?.close();
      if (this.isOwner && this.gone?.gone !== 'overwritten') {
        // Only a tidy-up: the write-ahead log keeps every commit, and the next open copies it.
        // So a checkpoint the disk refuses (full, failing) is said, never thrown: thrown, it hid
        // the failure that made a start close the journal ("database or disk is full", exit 1).
        try {
          this.db.pragma('wal_checkpoint(TRUNCATE)');
        } catch (e) {
          if (!isBusyJournalError(e)) {
            const failure = describeJournalFailure(this.opts.path, e);
            this.extra.logger?.warn(
              { code: failure.code },
              `the journal's last checkpoint at close failed (its write-ahead log keeps what it holds): ${failure.message}`,
            );
          }
        }
      }
    } finally {
      this.checkpointer?.close();
      this.walSync.close();
      // SQLite's close (the last connection's) would checkpoint the log into a journal file written
      // over in place: that connection stays open until the process ends (overwritten-journal.ts).
      if (this.gone?.gone === 'overwritten') this.leftOpen = true;
      else {
        this.db.close();
        this.files?.close();
      }
      this.holder?.release(this.opts.path);
      this.lock?.release();
    }
  }
}

/** `20261130T165700Z`: a file name's time. */
const fileStamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');

/**
 * The retention's cutoff as a punch's own time (a terminal's wall clock, "YYYY-MM-DD HH:MM:SS"), a
 * day earlier than the cutoff in UTC: no terminal's zone is that far from UTC.
 */
function logTimeCutoff(cutoffMs: number): string {
  return new Date(cutoffMs - DAY_MS).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * The retention's delete of one chunk of punches done for the default sink in `state`, through that
 * state's partial index on delivered_at (punches_delivered_at, punches_not_routed_at).
 */
function pruneSql(state: 'delivered' | 'not_routed'): string {
  return `DELETE FROM punches WHERE id IN (SELECT id FROM punches
            WHERE state = '${state}' AND delivered_at < @cutoff AND log_time < @logCutoff AND ${PRUNE_GUARD}
            ORDER BY delivered_at LIMIT @limit)
          AND id < (SELECT max(id) FROM punches) RETURNING id, terminal, device, log_time`;
}
