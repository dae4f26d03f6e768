import { Worker } from 'node:worker_threads';
import { canonicalJournalPath } from './journal-file.js';
import { DRIVER_FILE } from './sqlite-driver.js';
import type { Logger } from '../util/logger.js';

/** Rows written on the main connection after which the worker is asked for a checkpoint. */
export const CHECKPOINT_KICK_ROWS = 1000;
/** The worker also checkpoints this often on its own (delivery's settles write without counting rows). */
export const CHECKPOINT_INTERVAL_MS = 1000;
/**
 * Without a punch written or a batch delivered for this long (and all of the WAL copied), the
 * worker ends: a worker thread costs the daemon about 5 MB (daemon-idle bench: 87 MB, 82.6 MB
 * once it ended), and while little is written SQLite's automatic checkpoint has little to copy.
 * The next 1000 rows written or delivered start one again (a few milliseconds of a core).
 */
export const CHECKPOINT_RETIRE_MS = 30_000;
/**
 * After the worker failed, a new one is started no sooner than this (doubling with each failure in
 * a row, up to CHECKPOINT_RETRY_MAX_MS), at the next CHECKPOINT_KICK_ROWS rows written: a failure
 * is often passing (a disk full for a while), and one that is not costs a warning per wait.
 */
export const CHECKPOINT_RETRY_MS = 30_000;
export const CHECKPOINT_RETRY_MAX_MS = 30 * 60_000;

/** How the journal's checkpoints run, for the status (Journal.checkpointState). */
export interface CheckpointState {
  /**
   * `running`: in the worker thread; `idle`: on the main thread, little written (no thread needed);
   * `failed`: on the main thread since the thread failed (a new one is tried later);
   * `restarted`: a new thread started after a failure, no checkpoint of its own completed yet.
   */
  thread: 'running' | 'idle' | 'failed' | 'restarted';
  /** Epoch ms of the last failure (null: none since the last checkpoint of a thread). */
  failedAt: number | null;
  error: string | null;
  /** Failures in a row. */
  failures: number;
}

/** How long closing waits for the worker to finish a checkpoint and let the file go. */
const CLOSE_WAIT_MS = 5000;

/**
 * The worker's code, run as a script (eval), so that it is the same in the bundle
 * (dist/punchgate.js), in the .deb and in the compiled tree: no file of its own to find. It loads
 * the same SQLite binding as the main thread (by its resolved file), opens the journal by its one
 * name (the same `-wal` and `-shm` as the main connection) and runs a PASSIVE checkpoint when
 * asked and every `intervalMs`. PASSIVE never waits for a lock and never blocks the writer: it
 * copies what it can into the database file and syncs it (synchronous FULL); once all of the WAL
 * is copied, the next commit starts the WAL from its beginning again, and `journal_size_limit`
 * cuts the file back (open-db.ts). Results and errors go back as messages; `close` closes the
 * connection and says so through the shared flag (the main thread waits for it synchronously).
 *
 * Why this checkpoint cannot lose what `together` commits without its own sync (wal-sync.ts:
 * synchronous NORMAL, the WAL fsynced afterwards in the thread pool). Read in SQLite's wal.c
 * (walCheckpoint, walRestartLog, sqlite3WalFrames; 3.53) and the PRAGMA synchronous page ("in WAL
 * mode when synchronous is NORMAL, the WAL file is synchronized before each checkpoint and the
 * database file is synchronized after each completed checkpoint and the WAL file header is
 * synchronized when a WAL file begins to be reused after a checkpoint"):
 * - A commit's frames are in the WAL file before its commit returns; a checkpoint copies only
 *   frames up to the last commit it saw (mxFrame of its snapshot), never a transaction under way.
 * - Before copying, the checkpoint fsyncs the WAL itself (with this connection's synchronous FULL),
 *   so frames it copies are durable in the WAL first, whether or not WalSync's fsync ran yet.
 * - The database file is fsynced when all of the WAL was copied, and only after that fsync is the
 *   WAL marked as all copied (nBackfill = mxFrame). Only then may the writer (the main connection)
 *   start the WAL over at its next commit ("WAL reset": walRestartLog needs every frame copied and
 *   no reader on the WAL); the first frame of a new WAL writes a new header (new salt) and fsyncs
 *   it before any frame is written (unless synchronous OFF, which punchgate never uses), so old
 *   frames never pass for new ones after a power cut.
 * - WalSync's file descriptor stays on the same file: the WAL is reset in place and cut back by
 *   `journal_size_limit` (truncated, not replaced); SQLite deletes it only when the last
 *   connection closes, and the journal closes this worker and WalSync before its own connection.
 * So a checkpoint can only make a `together` commit durable earlier than WalSync would, never
 * undo one; a power cut before WalSync's fsync loses what wal-sync.ts says it may lose, no more.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const closed = new Int32Array(workerData.closed);
let db;
function checkpoint() {
  if (workerData.stall) return;
  try {
    if (!db) {
      const Database = require(workerData.driver);
      db = new Database(workerData.path, { fileMustExist: true, timeout: 0 });
      db.pragma('synchronous = FULL');
      db.pragma('wal_autocheckpoint = 0');
    }
    if (workerData.fail) throw new Error(workerData.fail);
    const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    parentPort.postMessage({ kind: 'done', busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (e) {
    parentPort.postMessage({ kind: 'error', message: String((e && e.message) || e), code: e && e.code });
  }
}
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'checkpoint') return checkpoint();
  if (m !== 'close') return;
  clearInterval(timer);
  try { if (db) db.close(); } catch {}
  Atomics.store(closed, 0, 1);
  Atomics.notify(closed, 0);
  parentPort.close();
});
`;

export interface CheckpointWorkerOptions {
  logger?: Logger;
  /**
   * The worker failed (an error thrown, the thread gone), with why: the journal checkpoints itself
   * until it starts a new worker (journal.ts: a disk that was full for a while is free again later).
   */
  onFailed: (why: string) => void;
  /** A checkpoint that was not busy completed (the journal says the thread is back after a failure). */
  onProgress?: () => void;
  intervalMs?: number;
  /** Tests: every checkpoint of the worker throws this message. */
  failWith?: string;
  /** Tests: the worker never finishes a checkpoint (as on a disk that does not answer). */
  stall?: boolean;
  /** Nothing written for `retireAfterMs` (default CHECKPOINT_RETIRE_MS): the worker ended itself. */
  onIdle?: () => void;
  retireAfterMs?: number;
  /** Monotonic milliseconds (the journal's clock). */
  elapsed?: () => number;
}

/** What the journal's option `checkpointInWorker` may set (tests). */
export type CheckpointTuning = Pick<CheckpointWorkerOptions, 'intervalMs' | 'failWith' | 'stall' | 'retireAfterMs'>;

/**
 * The journal's checkpoints in a worker thread, off the event loop (issue 35): SQLite's automatic
 * checkpoint runs inside whichever commit crosses its bound, on the daemon's one thread, with a
 * disk sync of the database file. The daemon's connection turns it off (wal_autocheckpoint = 0)
 * and this worker's own connection does the work. At most one checkpoint runs at a time (the
 * worker is one thread and a checkpoint is one synchronous call there). Its failure is logged,
 * never fatal: `onFailed` lets the journal go back to checkpointing itself, and start a new worker
 * later (a failure is often passing: a disk full for a while).
 */
export class CheckpointWorker {
  private readonly worker: Worker;
  private readonly closedFlag = new Int32Array(new SharedArrayBuffer(4));
  private rows = 0;
  private asked = false;
  private ended = false;
  /** When a punch was last written or a batch delivered (elapsed ms). */
  private lastUsed: number;
  /** Checkpoints the worker completed (busy or not). */
  completed = 0;
  /** ... of which not busy (another checkpoint, e.g. another process's, held the file). */
  progressed = 0;
  /** The last completed checkpoint's result: frames in the WAL, frames copied into the database. */
  last: { busy: number; log: number; checkpointed: number } | undefined;

  constructor(
    journalPath: string,
    private readonly opts: CheckpointWorkerOptions,
  ) {
    this.lastUsed = this.elapsed();
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: DRIVER_FILE,
        path: canonicalJournalPath(journalPath),
        intervalMs: opts.intervalMs ?? CHECKPOINT_INTERVAL_MS,
        closed: this.closedFlag.buffer,
        fail: opts.failWith,
        stall: opts.stall === true,
      },
      // Only SQLite's pages are its work: a small heap is plenty.
      resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1, stackSizeMb: 1 },
    });
    this.worker.unref();
    this.worker.on('message', (m: WorkerMessage) => this.message(m));
    this.worker.on('error', (e) => this.fail(e.message));
    this.worker.on('exit', (code) => {
      if (!this.ended) this.fail(`the checkpoint thread ended (exit code ${code})`);
    });
  }

  /** Whether the worker does the checkpoints (false once it failed or closed). */
  get active(): boolean {
    return !this.ended;
  }

  /** Rows written on the main connection: past CHECKPOINT_KICK_ROWS, a checkpoint is asked for. */
  wrote(rows: number): void {
    if (this.ended) return;
    this.used();
    this.rows += rows;
    if (this.rows < CHECKPOINT_KICK_ROWS || this.asked) return;
    this.rows = 0;
    this.asked = true;
    this.worker.postMessage('checkpoint');
  }

  /** A batch delivered (or anything else written that keeps the worker busy): not idle. */
  used(): void {
    this.lastUsed = this.elapsed();
  }

  /**
   * Ends the worker before the journal closes: waits (synchronously, at most CLOSE_WAIT_MS) for a
   * checkpoint under way to end and the worker's connection to close, so that the journal's own
   * closing checkpoint (TRUNCATE) finds the file free.
   */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.worker.postMessage('close');
    Atomics.wait(this.closedFlag, 0, 0, CLOSE_WAIT_MS);
    void this.worker.terminate().catch(() => undefined);
  }

  private message(m: WorkerMessage): void {
    if (m.kind === 'done') {
      this.asked = false;
      this.completed++;
      if (!m.busy) {
        this.progressed++;
        this.opts.onProgress?.();
      }
      this.last = { busy: m.busy, log: m.log, checkpointed: m.checkpointed };
      const idle = this.elapsed() - this.lastUsed >= (this.opts.retireAfterMs ?? CHECKPOINT_RETIRE_MS);
      if (this.opts.onIdle && idle && !m.busy && m.log === m.checkpointed) {
        // Not waited for (close): the thread closes its connection and ends on its own, and a
        // checkpoint it may have begun meanwhile makes the main connection's wait at most busy.
        this.ended = true;
        this.worker.postMessage('close');
        this.opts.onIdle();
      }
      return;
    }
    this.fail(m.code ? `${m.code}: ${m.message}` : m.message);
  }

  private elapsed(): number {
    return this.opts.elapsed ? this.opts.elapsed() : performance.now();
  }

  private fail(why: string): void {
    if (this.ended) return;
    this.ended = true;
    this.opts.logger?.warn(
      { err: why },
      'the journal checkpoint thread failed; the journal checkpoints on its main thread until a new thread is started (nothing is lost; under heavy load the daemon answers a little more slowly)',
    );
    void this.worker.terminate().catch(() => undefined);
    this.opts.onFailed(why);
  }
}

type WorkerMessage =
  { kind: 'done'; busy: number; log: number; checkpointed: number } | { kind: 'error'; message: string; code?: string };
