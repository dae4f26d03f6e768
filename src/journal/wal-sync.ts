import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';
import { canonicalJournalPath } from './journal-file.js';

/**
 * The disk sync of the deliverer's transaction (a batch's settle with the next claim), done off
 * the event loop: the transaction commits without a sync of its own (synchronous NORMAL: in the
 * WAL, in order, safe from a crash of the process), then the WAL file is synced in libuv's thread
 * pool while the next request is on the wire. Still one disk sync per batch, but the event loop
 * does not wait for it.
 *
 * What it costs: a power cut in the moment between the commit and the sync loses that batch's
 * settle, exactly as a power cut a moment earlier (before the commit) would: its punches are
 * inflight under a process that is gone, go back to the queue at the next start and are sent
 * again, and the HRMS answers "already there" (by devicelogId). A punch's journalling (ingest)
 * keeps its own synchronous commit.
 *
 * When the WAL file cannot be opened, or a sync fails, `available` says no and the transaction
 * commits with its own sync (synchronous FULL), as before.
 */
export class WalSync {
  /** The WAL file, opened at the first use (tried again while it cannot be); null: a sync failed. */
  private fd: number | null | undefined;
  private running = false;
  private again = false;
  private closed = false;
  /** Syncs completed (for tests). */
  done = 0;

  constructor(
    private readonly journalPath: string,
    private readonly onError: (e: unknown) => void,
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
    if (typeof fd !== 'number' || this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    fsync(fd, (err) => {
      this.running = false;
      if (this.closed) return;
      if (err) {
        this.fd = null; // from now on each commit syncs itself
        this.onError(err);
        return;
      }
      this.done++;
      if (this.again) {
        this.again = false;
        this.request();
      }
    });
  }

  /** Before the journal closes: a last sync (waited for) and the file let go. */
  close(): void {
    const fd = this.fd;
    this.closed = true;
    this.fd = null;
    if (typeof fd !== 'number') return;
    try {
      fsyncSync(fd);
    } catch {
      // the journal's own close checkpoints and syncs what matters
    }
    closeSync(fd);
  }
}
