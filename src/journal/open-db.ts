import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Database } from './sqlite-driver.js';
import { migrate } from './migrations.js';

/**
 * Opens the journal file with the durability settings punchgate promises:
 * WAL, and synchronous=FULL so that a punch acknowledged to its source survives
 * a power cut, not only a process crash (better-sqlite3 defaults WAL to NORMAL).
 */
export function openJournalDb(path: string, opts: { readonly?: boolean } = {}): Database {
  if (!opts.readonly) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, {
    readonly: opts.readonly ?? false,
    fileMustExist: opts.readonly ?? false,
    timeout: 5000,
  });
  try {
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      // SQLite's own default page cache (2 MB) instead of better-sqlite3's 16 MB: the box is small,
      // and the queue's hot pages (the newest rows and the queue index) fit easily.
      db.pragma('cache_size = -2000');
      migrate(db);
    }
    db.pragma('foreign_keys = ON');
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}
