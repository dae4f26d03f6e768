import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { canonicalJournalPath } from './journal-file.js';
import { Database } from './sqlite-driver.js';
import { ensurePrivateFile, notPlainFile } from '../util/private-file.js';
import { JournalUnusableError } from './errors.js';

/** A lock file that is a link (or not a plain file): never followed, never replaced (a live holder may hold what it names). */
export class UnsafeLockFileError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`the lock file ${path} ${problem}: punchgate never follows it`);
    this.name = 'UnsafeLockFileError';
  }
}

/** Thrown when another `punchgate run` already owns the journal. */
export class JournalLockedError extends Error {
  constructor(path: string) {
    super(
      `the journal ${path} is already in use by another punchgate run (stop it first, or use another journal.path)`,
    );
    this.name = 'JournalLockedError';
  }
}

/**
 * An exclusive SQLite lock held on a small file for the life of the process. SQLite's file
 * locks die with the process, so a crash never leaves a stale lock behind (unlike a PID file),
 * and other processes (and other connections of this one) see it.
 */
export class FileLock {
  private constructor(
    readonly path: string,
    private readonly db: Database,
  ) {}

  /**
   * Takes the lock, or returns undefined when another holds it. Throws UnsafeLockFileError when
   * the name is a link or not a plain file: SQLite would open (and create) whatever it points at,
   * and a restore run as root hands the lock file to the service user.
   */
  static tryAcquire(path: string): FileLock | undefined {
    mkdirSync(dirname(path), { recursive: true });
    ensurePrivateFile(path);
    const unsafe = notPlainFile(path);
    if (unsafe) throw new UnsafeLockFileError(path, unsafe);
    const db = new Database(path, { timeout: 0 });
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
    } catch (e) {
      db.close();
      if ((e as { code?: string }).code === 'SQLITE_BUSY') return undefined;
      throw e;
    }
    return new FileLock(path, db);
  }

  /**
   * Whether a process holds the lock on `path`, asked without taking it: a read needs a shared
   * lock, which the holder's exclusive lock refuses. No file: nobody holds it. A file this user
   * cannot read counts as held (never take a live process's work away on a guess).
   */
  static isHeld(path: string): boolean {
    if (!existsSync(path)) return false;
    let db: Database | undefined;
    try {
      db = new Database(path, { readonly: true, fileMustExist: true, timeout: 0 });
      db.pragma('schema_version');
      return false;
    } catch {
      return true;
    } finally {
      db?.close();
    }
  }

  get held(): boolean {
    return this.db.open;
  }

  release(): void {
    if (!this.db.open) return;
    try {
      this.db.exec('ROLLBACK');
    } finally {
      this.db.close();
    }
  }
}

/**
 * The single-owner lock of a journal (`<journal>.lock`): one `punchgate run` per journal file,
 * whatever path names it (the lock is beside the file's real name, see canonicalJournalPath).
 */
export class OwnerLock {
  private constructor(private readonly lock: FileLock) {}

  static pathFor(journalPath: string): string {
    return `${canonicalJournalPath(journalPath)}.lock`;
  }

  static acquire(journalPath: string): OwnerLock {
    let lock: FileLock | undefined;
    try {
      lock = FileLock.tryAcquire(OwnerLock.pathFor(journalPath));
    } catch (e) {
      if (!(e instanceof UnsafeLockFileError)) throw e;
      throw new JournalUnusableError(
        journalPath,
        `cannot be locked: its lock file ${e.path} ${e.problem}, which punchgate never follows (it would write where the link points)`,
        `remove it (rm ${e.path}; punchgate makes a plain file in its place), and find out who put it there`,
      );
    }
    if (!lock) throw new JournalLockedError(journalPath);
    return new OwnerLock(lock);
  }

  /** Whether a `punchgate run` owns the journal now. */
  static isHeld(journalPath: string): boolean {
    return FileLock.isHeld(OwnerLock.pathFor(journalPath));
  }

  /**
   * The process id of the `punchgate run` that holds the lock, as Linux lists file locks
   * (/proc/locks: the write lock on the lock file's inode); undefined where that cannot be read.
   */
  static holderPid(journalPath: string, locks = '/proc/locks'): number | undefined {
    try {
      const ino = statSync(OwnerLock.pathFor(journalPath)).ino;
      for (const line of readFileSync(locks, 'utf8').split('\n')) {
        const m = /^\d+:\s+POSIX\s+ADVISORY\s+WRITE\s+(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/i.exec(line);
        if (m && Number(m[2]) === ino && Number(m[1]) > 0) return Number(m[1]);
      }
    } catch {
      // not Linux, or no lock file: the pid is only a help
    }
    return undefined;
  }

  release(): void {
    this.lock.release();
  }
}
