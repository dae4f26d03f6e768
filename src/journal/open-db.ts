import { existsSync, linkSync, mkdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { Database } from './sqlite-driver.js';
import { ensurePrivateFile, makeExistingFilePrivate } from '../util/private-file.js';
import { migrate, SCHEMA_VERSION } from './migrations.js';
import { firstFew } from '../util/first-few.js';
import { removeLeftoverNewFiles } from './leftover-new-files.js';
import { lostJournalProblem } from './lost-journal.js';
import {
  describeJournalFailure,
  isBusyJournalError,
  journalAccessProblem,
  JournalBusyError,
  JournalUnusableError,
  oddSideFile,
} from './errors.js';
import { canonicalJournalPath, refuseOpenElsewhere, refuseOtherNames } from './journal-file.js';
import { refuseForeignSchema } from './schema-check.js';
import { schemaVersionProblem } from './schema-version.js';
import { SchemaTextError } from './state-check.js';

/** The tables every punchgate journal has had since its first version. */
const OWN_TABLES = ['punches', 'terminals', 'delivery_state'];
/** The WAL is cut back to this size after a checkpoint (it otherwise keeps its largest size). */
export const WAL_SIZE_LIMIT_BYTES = 32 * 1024 * 1024;

export interface OpenDbOptions {
  /** Only `punchgate run`: make a new journal where no file exists. */
  create: boolean;
  /** Only `punchgate run`: bring an older journal's schema up to date. */
  migrate: boolean;
  readonly: boolean;
  /** How long a statement waits for another process's write lock while opening (migration, recovery). */
  openTimeoutMs: number;
  /** ... and afterwards. */
  busyTimeoutMs: number;
  /** Told before each step of an older journal's upgrade (schema `from` to `from + 1`, of `target`). */
  onMigrationStep?: (from: number, target: number) => void;
}

/** A journal file of 0 bytes, as every command says it (open, backup): never taken over, what to do. */
export function emptyJournalError(path: string): JournalUnusableError {
  return new JournalUnusableError(
    path,
    'is empty (0 bytes): it is not a punchgate journal, and punchgate never replaces a file it did not make',
    `if a crash or a full disk left it, restore the journal from a backup; if you are sure it held nothing, remove it (rm ${path}) and punchgate run makes a new one`,
  );
}

/**
 * Opens the journal with the durability settings punchgate promises: WAL, and
 * synchronous=FULL so that a punch acknowledged to its source survives a power cut, not only
 * a process crash (better-sqlite3 defaults WAL to NORMAL).
 *
 * A journal is never silently replaced: only `punchgate run` creates one, only where no file
 * exists, and atomically (made aside, then linked into place); an existing file that is empty
 * or not a punchgate journal is refused, as is one with a schema this punchgate does not run.
 * Every refusal is a JournalUnusableError (one line: the path and what to do).
 */
export function openJournalDb(path: string, opts: OpenDbOptions): Database {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile())
      throw new JournalUnusableError(
        path,
        'is not a file',
        'point journal.path at a file, e.g. /var/lib/punchgate/journal.db',
      );
    refuseOtherNames(path, st);
    size = st.size;
  } catch (e) {
    if (e instanceof JournalUnusableError) throw e;
    if ((e as { code?: string }).code !== 'ENOENT') throw describeJournalFailure(path, e);
    // A journal that was here and is gone: said by every command, never "run creates it".
    const lost = lostJournalProblem(path);
    if (lost) throw lost;
    if (!opts.create)
      throw new JournalUnusableError(
        path,
        'does not exist',
        'punchgate run creates it at its first start: start the service first, and check that this command uses the same config (journal.path) as the service',
      );
    createJournal(path);
    size = statSync(path).size;
  }
  if (size === 0) throw emptyJournalError(path);
  // The daemon's open: what an earlier start killed while it made the journal left beside it (and
  // beside the real file, where the probe files are made, when the journal's path is a link).
  if (opts.create && !opts.readonly) {
    removeLeftoverNewFiles(path);
    const real = canonicalJournalPath(path);
    if (real !== path) removeLeftoverNewFiles(real);
  }

  // A FIFO or the like at a side file's name: SQLite (and the daemon's log check) would open it.
  const odd = oddSideFile(path);
  if (odd) throw odd;

  let db: Database;
  try {
    db = new Database(path, { readonly: opts.readonly, fileMustExist: true, timeout: opts.openTimeoutMs });
  } catch (e) {
    throw describeJournalFailure(path, e);
  }
  // SQLite opens a file it may not write read-only without a word; every write would then fail
  // later ("attempt to write a readonly database", exit 1). A command that writes is refused now,
  // with the cause the file system gives (access(2) answers for this user).
  const access = opts.readonly ? undefined : journalAccessProblem(path, 'SQLITE_READONLY');
  if (access) {
    db.close();
    throw access;
  }
  try {
    refuseForeign(db, path);
    // The read above took this connection's locks on the file: now another process that has the
    // same file open by another name (a bind mount of the file) can be seen, and sees this one.
    refuseOpenElsewhere(path);
    // Exactly punchgate's schema: another program's trigger or view could change or drop punches.
    refuseForeignSchema(db, path);
    // A newer punchgate's journal is refused before anything below can write to it (switching a
    // journal in another mode to WAL rewrites its header): "left untouched" is then true.
    refuseNewerSchema(db, path);
    // The daemon's open: a journal an older punchgate left readable by others is made 0600 like a
    // new one, before the WAL pragma below makes any -wal or -shm with its mode.
    if (opts.migrate && !opts.readonly)
      for (const f of [path, `${path}-wal`, `${path}-shm`]) makeExistingFilePrivate(f);
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      // SQLite's own default page cache (2 MB) instead of better-sqlite3's 16 MB: the box is small,
      // and the queue's hot pages (the newest rows and the queue index) fit easily.
      db.pragma('cache_size = -2000');
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    }
    checkVersion(db, path, opts.migrate, opts.onMigrationStep);
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs))}`);
  } catch (e) {
    db.close();
    if (isBusyJournalError(e)) throw new JournalBusyError(path);
    throw describeJournalFailure(path, e);
  }
  return db;
}

/** Refuses a SQLite file that is not a punchgate journal (another program's database). */
export function refuseForeign(db: Database, path: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  const tables = new Set(
    (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name),
  );
  if (version === 0 || !OWN_TABLES.every((t) => tables.has(t))) {
    throw new JournalUnusableError(
      path,
      `is not a punchgate journal (a SQLite file without punchgate's tables${tables.size > 0 ? `; it has ${firstFew([...tables], 3)}` : ''})`,
      'point journal.path at the punchgate journal, or move this file away so that punchgate run can make a new journal there',
    );
  }
}

function refuseNewerSchema(db: Database, path: string): void {
  const problem = schemaVersionProblem(db.pragma('user_version', { simple: true }) as number);
  if (problem?.kind === 'newer') throw new JournalUnusableError(path, problem.problem, problem.fix);
}

function checkVersion(
  db: Database,
  path: string,
  mayMigrate: boolean,
  onStep?: (from: number, target: number) => void,
): void {
  const problem = schemaVersionProblem(db.pragma('user_version', { simple: true }) as number);
  if (!problem) return;
  if (problem.kind === 'newer' || !mayMigrate) throw new JournalUnusableError(path, problem.problem, problem.fix);
  try {
    migrate(db, onStep);
  } catch (e) {
    if (!(e instanceof SchemaTextError)) throw e;
    throw new JournalUnusableError(
      path,
      `cannot be upgraded to schema ${SCHEMA_VERSION}: ${e.message}`,
      `put that text back as punchgate wrote it (sqlite3 ${path} '.schema ${e.table}' shows it), or use a backup made by punchgate backup; the journal is left as it was`,
      'SCHEMA',
    );
  }
}

/**
 * Makes a new journal at `path`: built and migrated in a file beside it, then linked into place,
 * which fails if a file appeared there meanwhile (that file is then opened and judged as any other).
 * A crash half way leaves only the `.new-<pid>` file, never a half-made journal at `path`.
 */
function createJournal(path: string): void {
  const tmp = `${path}.new-${process.pid}`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    try {
      unlinkSync(tmp);
    } catch {
      // none left by an earlier crash
    }
    // 0600 before SQLite writes a page: the journal, its -wal and -shm (which SQLite makes with
    // the database's mode) hold personal data, whatever umask started this process.
    ensurePrivateFile(tmp);
    const db = new Database(tmp);
    try {
      // Built with a rollback journal, not the WAL: each of its commits is in the file itself, so
      // the file linked into place is whole. In WAL mode a full disk let close() leave the last
      // commits in the -wal beside the temporary name, and an incomplete file became the journal
      // (found by an adversarial trial: "damaged" at every start after). The open that follows
      // turns the WAL on, as at every open.
      db.pragma('journal_mode = DELETE');
      db.pragma('synchronous = FULL');
      migrate(db);
    } finally {
      db.close();
    }
    try {
      linkSync(tmp, path);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EEXIST') return;
      // A file system without hard links (some network and USB ones): a rename, checked just before.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw e;
      if (!existsSync(path)) renameSync(tmp, path);
    } finally {
      if (existsSync(tmp)) unlinkSync(tmp);
    }
  } catch (e) {
    // Nothing half made stays behind (a full disk would otherwise keep its space).
    for (const f of [tmp, `${tmp}-journal`, `${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true });
    throw describeJournalFailure(path, e);
  }
}
