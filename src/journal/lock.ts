import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Database } from './sqlite-driver.js';

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
 * The single-owner lock of a journal: an exclusive SQLite lock held on `<journal>.lock`
 * for the life of the process. SQLite's file locks die with the process, so a crash
 * never leaves a stale lock behind (unlike a PID file).
 */
export class OwnerLock {
  private constructor(private readonly db: Database) {}

  static acquire(journalPath: string): OwnerLock {
    const path = `${journalPath}.lock`;
    mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path, { timeout: 0 });
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
    } catch (e) {
      db.close();
      if ((e as { code?: string }).code === 'SQLITE_BUSY') throw new JournalLockedError(journalPath);
      throw e;
    }
    return new OwnerLock(db);
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
