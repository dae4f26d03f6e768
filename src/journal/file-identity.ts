import { statSync } from 'node:fs';
import { canonicalJournalPath } from './journal-file.js';
import { JournalUnusableError } from './errors.js';

/** Which of the journal's files is no longer the one this process writes. */
export type GoneFile = 'journal' | 'wal';

/** The journal file, or its write-ahead log, was deleted or replaced under a process writing it. */
export class JournalFileGoneError extends JournalUnusableError {
  constructor(
    path: string,
    readonly gone: GoneFile,
    problem: string,
    fix: string,
  ) {
    super(path, problem, fix, 'FILE_GONE');
    this.name = 'JournalFileGoneError';
  }
}

interface Identity {
  dev: number;
  ino: number;
}

function identityOf(path: string): Identity | undefined {
  try {
    const st = statSync(path);
    return { dev: st.dev, ino: st.ino };
  } catch {
    return undefined;
  }
}

const same = (a: Identity | undefined, b: Identity) => a !== undefined && a.dev === b.dev && a.ino === b.ino;

/**
 * Whether the files under the journal's names are still the ones this process opened. SQLite
 * keeps writing to a journal file, or a write-ahead log, that someone deleted (rm, a cleaner of
 * old files) or replaced (cp, mv) while it is open: its commits succeed, its syncs succeed, and
 * every punch written from then on is in a file that is gone once the process ends. A terminal
 * must not be told such a punch is kept. Two stat calls after each write (microseconds) tell.
 *
 * The write-ahead log is known from the first write that finds it; SQLite itself removes it only
 * when the last connection closes, never under a connection that writes.
 */
export class JournalFileIdentity {
  private readonly file: string;
  private readonly journal: Identity | undefined;
  private wal: Identity | undefined;

  constructor(path: string) {
    this.file = canonicalJournalPath(path);
    this.journal = identityOf(this.file);
  }

  /** Undefined while both files are the ones opened; otherwise which is gone, said with its path and fix. */
  problem(path: string): JournalFileGoneError | undefined {
    if (this.journal && !same(identityOf(this.file), this.journal)) {
      const what = identityOf(this.file) ? 'was replaced by another file' : 'was deleted';
      return new JournalFileGoneError(
        path,
        'journal',
        `${what} while punchgate run was writing it (rm, mv or cp on the journal, or a cleaner of old files)`,
        'find out what removed it and stop it; punchgate saves what the open journal held before it exits (the log names where) and starts again by itself',
      );
    }
    const walPath = `${this.file}-wal`;
    const wal = identityOf(walPath);
    if (this.wal === undefined) {
      this.wal = wal;
      return undefined;
    }
    if (same(wal, this.wal)) return undefined;
    return new JournalFileGoneError(
      path,
      'wal',
      `lost its write-ahead log (${walPath}, which holds the newest punches): it ${wal ? 'was replaced by another file' : 'was deleted'} while punchgate run was writing it`,
      'never remove the -wal or -shm files beside the journal (they are part of it); find out what removed it and stop it; punchgate copies what the log held into the journal before it exits and starts again by itself',
    );
  }
}
