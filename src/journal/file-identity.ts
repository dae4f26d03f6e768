import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { canonicalJournalPath } from './journal-file.js';
import { JournalUnusableError } from './errors.js';

/**
 * Which of the journal's files is no longer the one this process writes; `overwritten`: the
 * journal file is still the same file, but its bytes were written over in place (truncated, or
 * another file copied over it), under the pages the open connection holds in the write-ahead log.
 */
export type GoneFile = 'journal' | 'wal' | 'overwritten';

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
  size: number;
}

function identityOf(path: string): Identity | undefined {
  try {
    const st = statSync(path);
    return { dev: st.dev, ino: st.ino, size: st.size };
  } catch {
    return undefined;
  }
}

/** SQLite's file header: its length and its first 16 bytes. */
const HEADER_BYTES = 100;
const SQLITE_MAGIC = 'SQLite format 3\0';

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
  /**
   * The largest size the journal file had at a look. In write-ahead-log mode only a checkpoint
   * writes the journal file, and it never makes it smaller (punchgate never vacuums the journal in
   * place): a file that shrank was written over by someone else, in place, where a check of its
   * identity sees nothing (logrotate's copytruncate, `> journal.db`, `truncate`, or `cp` of a smaller
   * file, a backup, over it). SQLite then reads the pages not in its log from that file, and its
   * checkpoints lay the log's pages over it: found by a trial (`cp` of a backup over the running
   * daemon's journal), the daemon answered OK and said nothing while the journal was damaged.
   */
  private journalBytes: number;
  /**
   * The journal file, open for reading its header, for as long as the connection: never closed
   * before it (a process's close of any descriptor of a file drops every POSIX lock it holds on
   * it, SQLite's among them).
   */
  private fd: number | undefined;
  private readonly header = Buffer.alloc(HEADER_BYTES);

  /**
   * `readHeader`: the process holds the journal for good (the daemon, its owner) and reads the
   * header too. A one-shot command does not: two journals of one file open in a process (a test,
   * a command) would have the close of one drop the other's locks with this descriptor.
   */
  constructor(path: string, readHeader = false) {
    this.file = canonicalJournalPath(path);
    this.journal = identityOf(this.file);
    this.journalBytes = this.journal?.size ?? 0;
    try {
      this.fd = readHeader ? openSync(this.file, 'r') : undefined;
    } catch {
      this.fd = undefined;
    }
  }

  /** Once the connection is closed. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /**
   * Whether the journal file's header is no longer a journal's in write-ahead-log mode (as every
   * journal punchgate opens is): a file copied over it in place, often a backup, which is in the
   * rollback mode (bytes 18 and 19 of SQLite's header are 1 there, 2 in WAL mode), or no SQLite
   * file at all. Read only once the file is long enough to hold the header.
   */
  private headerChanged(size: number): boolean {
    if (this.fd === undefined || size < HEADER_BYTES) return false;
    try {
      if (readSync(this.fd, this.header, 0, HEADER_BYTES, 0) < HEADER_BYTES) return false;
    } catch {
      return false;
    }
    return this.header.toString('latin1', 0, 16) !== SQLITE_MAGIC || this.header[18] !== 2 || this.header[19] !== 2;
  }

  /** Undefined while both files are the ones opened; otherwise which is gone, said with its path and fix. */
  problem(path: string): JournalFileGoneError | undefined {
    const now = identityOf(this.file);
    const shrank = now !== undefined && now.size < this.journalBytes;
    if (this.journal && now && same(now, this.journal) && (shrank || this.headerChanged(now.size)))
      return new JournalFileGoneError(
        path,
        'overwritten',
        `was written over in place while punchgate run was writing it: ${shrank ? `it holds ${now.size} bytes where it held ${this.journalBytes}` : "its header is no longer the journal's"} (truncated, or another file copied over it: logrotate's copytruncate, truncate, > or cp onto the journal)`,
        `find out what wrote it and stop it (a logrotate rule or a cleaner on ${dirname(this.file)}); never copy a file over the journal: punchgate restore puts a backup in place (docs/backup.md); then restore the newest backup and import the terminals' logs since it`,
      );
    if (now && now.size > this.journalBytes) this.journalBytes = now.size;
    if (this.journal && !same(now, this.journal)) {
      const what = now ? 'was replaced by another file' : 'was deleted';
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
