import { isBusyJournalError, isFatalJournalError } from '../journal/errors.js';
import type { IngestOptions, IngestResult, PunchSink } from '../journal/types.js';
import type { Punch } from '../punch.js';
import { backoffDelay } from '../util/backoff.js';
import type { Logger } from '../util/logger.js';
import { journalReadAgain } from './journal-synced-apart.js';

/** Punches one source keeps in memory at most while the journal cannot take them (about 3 MB). */
export const PUNCH_BUFFER_CAPACITY = 10_000;
/** While the journal refuses, the held punches are tried again after 100 ms, doubling to 2 s. */
const RETRY = { baseMs: 100, maxMs: 2000 };
/** How long stopping waits for a busy journal to take the held punches. */
const STOP_WAIT_MS = 10_000;

export interface BufferedPunch {
  punch: Punch;
}

export interface PunchBufferOptions<T extends BufferedPunch> {
  sink: PunchSink;
  /** Read at each write (a terminal's serial number may be learnt meanwhile). */
  ingestOptions: () => IngestOptions;
  /**
   * The terminal keeps every punch in its own log, which a poll reads again (ZK real-time events):
   * each write's disk sync is made beside the event loop, waited for by no one (journalReadAgain).
   * Absent: each write syncs before it returns (a serial line's punch exists nowhere else).
   */
  readAgainByPoll?: boolean;
  log: Logger;
  capacity?: number;
  /** The punches of one write are in the journal (new, duplicate or quarantined). */
  onWritten?: (items: readonly T[], result: IngestResult) => void;
  /** The journal failed or recovered: `error` is null again once it takes punches. */
  onJournalError?: (error: string | null) => void;
  /** A failure retrying cannot mend (disk full, read-only, damaged): the daemon exits. */
  onFatal?: (e: unknown) => void;
  /** The buffer is full: stop reading if the input can wait (a serial device). */
  onFull?: () => void;
  /** There is room again after `onFull`. */
  onRoom?: () => void;
}

/**
 * The one way a source that cannot read its punches again (serial lines, real-time events,
 * pushed batches) hands them to the journal. Each `add` is written at once, in one transaction.
 * When the journal cannot take them (another process holds its write lock, a failure), they are
 * kept here in arrival order, reading goes on, and they are written, oldest first, as soon as
 * the journal takes them again. The memory is bounded: beyond `capacity` the source is told to
 * stop reading (`onFull`) and `add` refuses what does not fit (it says how many).
 */
export class PunchBuffer<T extends BufferedPunch> {
  private held: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private full = false;
  private stopped = false;
  private refusedSince = 0;
  private readonly capacity: number;

  constructor(private readonly o: PunchBufferOptions<T>) {
    this.capacity = o.capacity ?? PUNCH_BUFFER_CAPACITY;
  }

  /** Punches received but not yet in the journal. */
  get size(): number {
    return this.held.length;
  }

  /** True while the buffer is full (the source was told to stop reading). */
  get isFull(): boolean {
    return this.full;
  }

  /** True while waiting to retry a refused write. */
  get waiting(): boolean {
    return this.timer !== undefined;
  }

  /** Queues the punches of one read and writes them now unless a retry is pending; returns how many were refused (buffer full). */
  add(items: readonly T[]): number {
    if (items.length === 0) return 0;
    this.stopped = false;
    const room = Math.max(0, this.capacity - this.held.length);
    const taken = items.length <= room ? items : items.slice(0, room);
    const refused = items.length - taken.length;
    this.held.push(...taken);
    if (refused > 0) this.noteRefused(refused);
    if (!this.waiting) this.write();
    else if (this.held.length >= this.capacity) this.markFull();
    return refused;
  }

  /**
   * Stops, after a last attempt: while the journal is only busy, waits (without blocking) up to
   * `waitMs` for it. Returns what the journal never took, which the caller reports.
   */
  async stop(waitMs = STOP_WAIT_MS): Promise<T[]> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    // On the monotonic clock: a step of the box clock neither cuts nor stretches the wait.
    const deadline = performance.now() + waitMs;
    let error: unknown = this.write();
    for (let n = 0; this.held.length > 0 && isBusyJournalError(error) && performance.now() < deadline; n++) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(backoffDelay(n, RETRY), deadline - performance.now())),
      );
      error = this.write();
    }
    const left = this.held;
    this.held = [];
    if (left.length > 0)
      this.o.log.error(
        { punches: left.length, first: describe(left[0]!), last: describe(left.at(-1)!) },
        'stopping with punches the journal did not take: they are lost unless the terminal still has them',
      );
    return left;
  }

  /** Writes everything held in one transaction; returns the error when the journal refused. */
  private write(): unknown {
    this.timer = undefined;
    if (this.held.length === 0) return undefined;
    const batch = this.held;
    let result: IngestResult;
    try {
      const punches = batch.map((q) => q.punch);
      result = this.o.readAgainByPoll
        ? journalReadAgain(this.o.sink, punches, this.o.ingestOptions())
        : this.o.sink.ingest(punches, this.o.ingestOptions());
    } catch (e) {
      this.failed(e);
      return e;
    }
    this.held = this.held.length === batch.length ? [] : this.held.slice(batch.length);
    if (this.failures > 0) {
      this.o.log.info(
        { punches: batch.length, attempts: this.failures },
        'the journal takes punches again: the held punches are written',
      );
      this.failures = 0;
      this.o.onJournalError?.(null);
    }
    if (this.full && this.held.length < this.capacity) {
      this.full = false;
      this.o.onRoom?.();
    }
    this.o.onWritten?.(batch, result);
    return undefined;
  }

  private failed(e: unknown): void {
    const message = `journal: ${e instanceof Error ? e.message : String(e)}`;
    if (this.failures === 0) {
      const busy = isBusyJournalError(e);
      const fields = { error: message, held: this.held.length };
      if (busy)
        this.o.log.warn(fields, 'journal busy (another process holds it): holding punches in memory, reading on');
      else this.o.log.error(fields, 'journal refused punches: holding them in memory, reading on');
    }
    this.o.onJournalError?.(message);
    if (isFatalJournalError(e)) this.o.onFatal?.(e);
    if (this.held.length >= this.capacity) this.markFull();
    const delay = backoffDelay(this.failures++, RETRY);
    if (!this.stopped) {
      this.timer = setTimeout(() => this.write(), delay);
    }
  }

  private markFull(): void {
    if (this.full) return;
    this.full = true;
    this.o.log.error(
      { held: this.held.length },
      'punch buffer full while the journal cannot take punches: reading paused where the input can wait',
    );
    this.o.onFull?.();
  }

  private noteRefused(n: number): void {
    this.refusedSince += n;
    this.o.log.error(
      { refused: n, refusedInAll: this.refusedSince },
      'punch buffer full: punches refused (a terminal that keeps its log gives them again at the next poll)',
    );
  }
}

function describe(item: BufferedPunch): string {
  return `${item.punch.biometricCode} ${item.punch.logTime}`;
}
