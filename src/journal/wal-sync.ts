import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';
import { probeFileSystem, probeFileSystemNow } from './file-system-probe.js';
import { canonicalJournalPath } from './journal-file.js';

/**
 * Disk syncs of the journal's write-ahead log done off the event loop: a transaction commits
 * without a sync of its own (synchronous NORMAL: in the WAL, in order, safe from a crash of the
 * process), then the WAL file is synced in libuv's thread pool. The event loop does not wait for
 * the disk: on an SD card a sync takes 5 to 50 ms, and every terminal, scrape and delivery would
 * wait that long behind each one.
 *
 * Two users:
 * - Delivery's writes (a batch's settle, alone or with the next claim; punches returned to the
 *   queue): synced without anyone waiting (`request`). A power cut between the commit and the sync loses that
 *   batch's settle, exactly as a power cut a moment earlier (before the commit) would: its
 *   punches are inflight under a process that is gone, go back to the queue at the next start
 *   and are sent again, and the HRMS answers "already there" (by devicelogId).
 * - The push terminals' group commit (`synced`): a terminal is answered OK only once a sync that
 *   began after its upload's commit has ended, so the punches it is told are kept are on the
 *   disk. Uploads committed while a sync runs share the next one (a group commit across turns).
 * Other ingests keep their own synchronous commit.
 *
 * When the WAL file cannot be opened, `available` says no and the transaction commits with its
 * own sync (synchronous FULL), as before. When a sync fails, its waiters are refused (a terminal
 * is told to retry, never OK) and from then on every transaction syncs itself.
 *
 * A sync with waiters is trusted only when the file system still takes a new file after it
 * (file-system-probe.ts): ext4 can end an fsync with success for data it then drops, when a disk
 * error aborts it during that fsync. A failed probe counts as a failed sync.
 */
interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class WalSync {
  /** The WAL file, opened at the first use (tried again while it cannot be); null: a sync failed. */
  private fd: number | null | undefined;
  private running = false;
  private again = false;
  /** Waiting for a sync that has not begun yet (their commits came after the running one began). */
  private waiting: Waiter[] = [];
  /** Waiting for the sync under way. */
  private covered: Waiter[] = [];
  private closed = false;
  /** Told how long each completed sync took (seconds): the disk's own pace, for /metrics. */
  private readonly timed = new Set<(seconds: number) => void>();
  /** Syncs completed (for tests). */
  done = 0;

  constructor(
    private readonly journalPath: string,
    private readonly onError: (e: unknown) => void,
    /** The disk sync (fs.fsync; a stand-in in tests, which make it slow or fail). */
    private readonly syncFile: typeof fsync = fsync,
    /**
     * Asked after each sync, before its waiters are answered: an error when the file synced is no
     * longer the journal's (deleted under it, file-identity.ts). The waiters are then refused.
     */
    private readonly stillKept: () => unknown = () => undefined,
    /**
     * Asked after a sync that waiters wait for, before they are answered: the file system's
     * failure, or null (file-system-probe.ts; a stand-in in tests).
     */
    private readonly confirm: (done: (failed: NodeJS.ErrnoException | null) => void) => void = (done) =>
      probeFileSystem(canonicalJournalPath(journalPath), done),
    private readonly confirmNow: () => NodeJS.ErrnoException | null = () =>
      probeFileSystemNow(canonicalJournalPath(journalPath)),
  ) {}

  /** Whether a transaction may commit without its own sync (the WAL file can be synced here). */
  available(): boolean {
    if (this.fd === undefined && !this.closed) {
      try {
        this.fd = openSync(`${canonicalJournalPath(this.journalPath)}-wal`, 'r');
      } catch {
        // not there yet, or not readable: this commit syncs itself; tried again next time
      }
    }
    return typeof this.fd === 'number';
  }

  /** Syncs the WAL soon: at most one sync at a time, and one more after it for commits made meanwhile. */
  request(): void {
    const fd = this.fd;
    if (typeof fd !== 'number' || this.closed) {
      this.refuseAll(new Error('the journal cannot sync its write-ahead log'));
      return;
    }
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    // Every commit made before this point is in the file: this sync covers the waiters so far.
    this.covered = this.waiting;
    this.waiting = [];
    const began = performance.now();
    this.syncFile(fd, (err) => {
      if (this.closed) return void (this.running = false); // close() synced and answered them
      err ??= (this.stillKept() as NodeJS.ErrnoException | undefined) ?? null;
      if (err) return this.failed(err);
      const seconds = (performance.now() - began) / 1000;
      // Nobody to answer (delivery's writes): the probe's cost is spared, as a loss costs a resend.
      if (this.covered.length === 0) return this.succeeded(seconds);
      this.confirm((failed) => {
        if (this.closed) return void (this.running = false);
        if (failed) this.failed(failed);
        else this.succeeded(seconds);
      });
    });
  }

  /** The sync under way ended well: its waiters are answered, and the next one begins if any wait. */
  private succeeded(seconds: number): void {
    this.running = false;
    this.done++;
    const covered = this.covered;
    this.covered = [];
    for (const w of covered) w.resolve();
    this.tell(seconds);
    if (this.again || this.waiting.length > 0) {
      this.again = false;
      this.request();
    }
  }

  /** The sync under way failed: its waiters and all who wait are refused, and each commit syncs itself from now on. */
  private failed(err: unknown): void {
    this.running = false;
    this.fd = null;
    const covered = this.covered;
    this.covered = [];
    this.onError(err);
    for (const w of covered) w.reject(err);
    this.refuseAll(err);
  }

  /** Tells `listener` how long each completed sync took (seconds, thread pool wait included); returns how to stop. */
  onSynced(listener: (seconds: number) => void): () => void {
    this.timed.add(listener);
    return () => void this.timed.delete(listener);
  }

  /**
   * Resolves once a sync that began after this call has ended: what was committed before it is
   * on the disk. Rejects when that sync fails (or none can be made).
   */
  synced(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.request();
    });
  }

  /**
   * Tells the listeners a sync's time, after its waiters were answered. A listener that throws
   * (a figure for /metrics, never a reason to fail a sync) is dropped and not asked again.
   */
  private tell(seconds: number): void {
    for (const listener of this.timed)
      try {
        listener(seconds);
      } catch {
        this.timed.delete(listener);
      }
  }

  private refuseAll(e: unknown): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w.reject(e);
  }

  /** Before the journal closes: a last sync (waited for, and answering every waiter) and the file let go. */
  close(): void {
    const fd = this.fd;
    this.closed = true;
    this.fd = null;
    const waiters = [...this.covered, ...this.waiting];
    this.covered = [];
    this.waiting = [];
    let failure: unknown;
    if (typeof fd === 'number') {
      try {
        fsyncSync(fd);
      } catch (e) {
        // the journal's own close checkpoints and syncs what matters; the waiters are not told OK
        failure = e;
      }
      closeSync(fd);
      if (failure === undefined && waiters.length > 0) failure = this.confirmNow() ?? undefined;
    } else failure = new Error('the journal cannot sync its write-ahead log');
    for (const w of waiters)
      if (failure === undefined) w.resolve();
      else w.reject(failure);
  }
}
