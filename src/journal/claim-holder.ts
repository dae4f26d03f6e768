import { randomBytes } from 'node:crypto';
import { readdirSync, unlinkSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { canonicalJournalPath } from './journal-file.js';
import { FileLock } from './lock.js';

/**
 * Who holds a claim. Every process that claims punches for delivery (`punchgate run`, each
 * `punchgate flush`) holds an exclusive lock on its own small file beside the journal,
 * `<journal>.claim-<pid>-<start>-<random>`, and names it in the rows it claims (claimed_by).
 * `<journal>` is the file's real name (canonicalJournalPath): a process that opened the journal
 * through a symlink or `..` looks for the same holder files as the daemon.
 * The lock dies with the process, however it ends, so a claim is stale exactly when its
 * holder's lock can be taken: only then may anyone return it to the queue. A live process's
 * claims are never touched, however long its request takes.
 */
export class ClaimHolder {
  private constructor(
    readonly id: string,
    private readonly lock: FileLock,
  ) {}

  static create(journalPath: string, now: number): ClaimHolder {
    const id = `${process.pid}-${now.toString(36)}-${randomBytes(3).toString('hex')}`;
    const path = ClaimHolder.pathFor(journalPath, id);
    const lock = FileLock.tryAcquire(path);
    // A fresh random name: nobody else can hold it.
    if (!lock) throw new Error(`cannot lock ${path}`);
    return new ClaimHolder(id, lock);
  }

  static pathFor(journalPath: string, id: string): string {
    return `${canonicalJournalPath(journalPath)}.claim-${id}`;
  }

  /** Whether the process that made the claims `id` is still alive (legacy rows have no holder: gone). */
  static isAlive(journalPath: string, id: string | null): boolean {
    if (id === null || !/^[\w-]+$/.test(id)) return false;
    return FileLock.isHeld(ClaimHolder.pathFor(journalPath, id));
  }

  /**
   * Removes the lock file of a holder that is gone (its claims were returned), and the rollback
   * journal SQLite keeps beside it while the lock is held (left by a holder that crashed: 512 bytes
   * a crash, piling up beside the journal).
   */
  static forget(journalPath: string, id: string | null): void {
    if (id === null || !/^[\w-]+$/.test(id)) return;
    const path = ClaimHolder.pathFor(journalPath, id);
    for (const file of [path, `${path}-journal`]) {
      try {
        unlinkSync(file);
      } catch {
        // already gone, or not ours to remove: harmless
      }
    }
  }

  /** Ids of the holder files beside the journal (live or left by a crash). */
  static list(journalPath: string): string[] {
    const real = canonicalJournalPath(journalPath);
    const prefix = `${basename(real)}.claim-`;
    try {
      return readdirSync(dirname(real))
        .filter((f) => f.startsWith(prefix) && !/-(wal|shm|journal)$/.test(f))
        .map((f) => f.slice(prefix.length));
    } catch {
      return [];
    }
  }

  /** Lets go of the lock and removes the file (every claim of this process was returned). */
  release(journalPath: string): void {
    this.lock.release();
    ClaimHolder.forget(journalPath, this.id);
  }

  /** Lets go of the lock but keeps the file: claims are still recorded under it (a crash stand-in in tests). */
  abandon(): void {
    this.lock.release();
  }
}
