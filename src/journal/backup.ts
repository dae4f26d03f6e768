import { closeSync, constants, fdatasyncSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describeJournalFailure, isBusyJournalError, JournalBusyError, JournalUnusableError } from './errors.js';
import { BACKUP_APPLICATION_ID } from './backup-mark.js';
import { sealBackup } from './backup-seal.js';
import { emptyJournalError, refuseForeign } from './open-db.js';
import { Database } from './sqlite-driver.js';
import { asFolderWriter } from '../util/folder-writer.js';
import { refuseJournalFiles, targetFailure } from './backup-target.js';

export { BackupTargetError } from './backup-target.js';

/**
 * Pages copied per step of the online backup (4 MB at SQLite's default 4 KB pages). After each
 * step the copy is synced: the disk never has more than a step of the backup's data to write
 * back, so the daemon's own syncs (one per journal write) never queue behind hundreds of
 * megabytes (measured: the daemon's longest write 480 ms without, 130 ms with; BENCHMARKS.md).
 */
const PAGES_PER_STEP = 1024;

/** What a journal file holds, for the messages of backup and restore. */
export interface JournalSummary {
  /** Schema version (`PRAGMA user_version`). */
  schema: number;
  punches: number;
  /**
   * Punches some sink still owes (pending, in flight, refused for now, quarantined, or not taken
   * in yet by a sink of the config), whichever sink it is: the default sink's state in punches,
   * every other sink's in sink_deliveries.
   */
  waiting: number;
  /** Punches a sink refused for good (dead) and no sink still owes: not delivered either. */
  dead: number;
  /** Punches claimed by a process for delivery when the file was written. */
  inflight: number;
  /** Sinks of the config besides the default one, when the file was written (their words say "every sink"). */
  otherSinks: number;
  /** The sites its punches were journalled under. */
  sites: string[];
  /** The newest log time, or null with no punch. */
  newest: string | null;
  bytes: number;
}

/**
 * Whether a punch is owed to, or refused for good by, a sink other than the default one: its row
 * of sink_deliveries (looked up per punch on the small index of undelivered rows), or a punch
 * above the cursor of a sink that has not taken it in yet. Only the sinks of the config count: a
 * sink taken out of it is owed nothing more (its punches are not sent). A journal older than the
 * sinks has none of this.
 */
function otherSinkTerms(db: Database): { owed: string; dead: string; sinks: number } {
  const has = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sinks'`).get();
  if (!has) return { owed: '0', dead: '0', sinks: 0 };
  const sinks = (
    db.prepare(`SELECT count(*) AS n FROM sinks WHERE active = 1 AND is_default = 0`).get() as { n: number }
  ).n;
  const active = `(SELECT name FROM sinks WHERE active = 1 AND is_default = 0)`;
  const row = (states: string) =>
    `EXISTS (SELECT 1 FROM sink_deliveries d INDEXED BY sink_undelivered WHERE d.punch_id = p.id
      AND d.state <> 'delivered' AND d.state ${states} AND d.sink IN ${active})`;
  return {
    owed: `(${row(`<> 'dead'`)} OR p.id > (SELECT coalesce(min(cursor), 9007199254740991) FROM sinks WHERE active = 1 AND is_default = 0))`,
    dead: row(`= 'dead'`),
    sinks,
  };
}

/** Counts a journal's punches by what they wait for: one pass over the table, no sorting. */
export function summarize(db: Database, path: string): JournalSummary {
  const other = otherSinkTerms(db);
  const r = db
    .prepare(
      `SELECT count(*) AS punches, coalesce(sum(owed), 0) AS waiting, coalesce(sum(dead AND NOT owed), 0) AS dead,
          coalesce(sum(state = 'inflight'), 0) AS inflight,
          max(log_time) AS newest, min(site) AS first, max(site) AS last
        FROM (SELECT p.state, p.log_time, p.site, p.state NOT IN ('delivered', 'dead', 'not_routed') OR ${other.owed} AS owed,
            p.state = 'dead' OR ${other.dead} AS dead
          FROM punches p)`,
    )
    .get() as Omit<JournalSummary, 'schema' | 'sites' | 'bytes' | 'otherSinks'> & {
    first: string | null;
    last: string | null;
  };
  const sites =
    r.first === null
      ? []
      : r.first === r.last
        ? [r.first]
        : (db.prepare('SELECT DISTINCT site FROM punches ORDER BY site').all() as { site: string }[]).map(
            (x) => x.site,
          );
  return {
    schema: db.pragma('user_version', { simple: true }) as number,
    punches: r.punches,
    waiting: r.waiting,
    dead: r.dead,
    inflight: r.inflight,
    otherSinks: other.sinks,
    sites,
    newest: r.newest,
    bytes: statSync(path).size,
  };
}

/** A backup written in a file of its own, with its summary and how long it took. */
export interface BackupResult extends JournalSummary {
  path: string;
  ms: number;
}

/**
 * A consistent copy of the journal in one file, while the daemon runs. SQLite's online backup
 * copies the journal in steps from one read transaction: a snapshot, never half of a write, with
 * what is still in the write-ahead log; in WAL mode a reader never blocks the daemon's writes.
 * (Without the one transaction, every write of the daemon between two steps would restart the
 * copy from the start.) The copy is made beside `target` as `<target>.partial-<pid>`, mode 0600
 * (it holds employees' codes and the fingerprint templates of removed users), set to a single
 * file (rollback journal mode, no -wal beside it), checked (`quick_check`), synced, and then
 * renamed to `target`: `target` is a whole backup or absent, never half of one.
 *
 * It holds the journal and nothing else: no token, no config, no comm key (the journal keeps none).
 */
export async function backupJournal(journalPath: string, target: string): Promise<BackupResult> {
  const started = performance.now();
  refuseJournalFiles(journalPath, target);
  let src: Database;
  try {
    if (statSync(journalPath).size === 0) throw emptyJournalError(journalPath);
    src = new Database(journalPath, { readonly: true, fileMustExist: true, timeout: 5000 });
  } catch (e) {
    if (e instanceof JournalUnusableError) throw e;
    if ((e as { code?: string }).code === 'ENOENT')
      throw new JournalUnusableError(
        journalPath,
        'does not exist',
        'punchgate run creates it at its first start: check that this command uses the same config (journal.path) as the service',
      );
    throw describeJournalFailure(journalPath, e);
  }
  const partial = join(dirname(target), `${basename(target)}.partial-${process.pid}`);
  let summary: JournalSummary;
  try {
    try {
      refuseForeign(src, journalPath);
    } catch (e) {
      throw describeJournalFailure(journalPath, e);
    }
    // Run as root into a folder the service user owns: made, and on failure removed, as that user (folder-writer.ts).
    summary = await asFolderWriter(dirname(target), async () => {
      try {
        return await writeCopy(src, journalPath, target, partial);
      } catch (e) {
        removeLeftovers(partial);
        throw e;
      }
    });
  } finally {
    src.close();
  }
  return { ...summary, path: target, ms: performance.now() - started };
}

/**
 * Removes what a failed copy left, never failing itself: a failure here (ENOTDIR when the target's
 * "folder" is a file) hid the copy's own error behind a bare errno, with exit 1.
 */
function removeLeftovers(partial: string): void {
  for (const f of [partial, `${partial}-journal`, `${partial}-wal`, `${partial}-shm`])
    try {
      rmSync(f, { force: true });
    } catch {
      // nothing there to remove, or nowhere to look: the copy's own error says why
    }
}

/** The copy made at `partial`, synced step by step, sealed and renamed to `target`. */
async function writeCopy(src: Database, journalPath: string, target: string, partial: string): Promise<JournalSummary> {
  // The copy's file exists (with its mode) before SQLite writes into it; synced after each step.
  // Made new, never through a link: a name planted in the folder (a link to a root file, when
  // root runs the backup into the service user's folder) is removed, not written through.
  let fd: number;
  try {
    rmSync(partial, { force: true });
    fd = openSync(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (e) {
    throw targetFailure(target, e);
  }
  try {
    try {
      src.exec('BEGIN');
      // The read transaction starts at the first read: from here on the snapshot is fixed.
      src.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (e) {
      if (isBusyJournalError(e)) throw new JournalBusyError(journalPath);
      throw describeJournalFailure(journalPath, e);
    }
    try {
      await src.backup(partial, {
        progress: () => {
          fdatasyncSync(fd);
          return PAGES_PER_STEP;
        },
      });
    } catch (e) {
      throw failureOf(e, journalPath, target);
    } finally {
      if (src.inTransaction) src.exec('COMMIT');
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const summary = sealCopy(partial, target, journalPath);
  renameSync(partial, target);
  syncFolder(dirname(target));
  return summary;
}

/** Makes the copy a single file (no -wal), checks it, seals it (backup-seal.ts) and counts what it holds. */
function sealCopy(partial: string, target: string, journalPath: string): JournalSummary {
  let db: Database | undefined;
  try {
    db = new Database(partial, { fileMustExist: true });
    // SQLite's own small page cache, as the journal uses (the check reads every page once).
    db.pragma('cache_size = -2000');
    db.pragma('journal_mode = DELETE');
    db.pragma(`application_id = ${BACKUP_APPLICATION_ID}`);
    const problems = copyProblems(db);
    // One line, as every refusal (the nightly timer's journal shows it): SQLite's check lists a
    // problem per cell, twenty lines for one torn page (found by a damaged-journal trial). The
    // copy is page for page: what it found is in the journal, which the line names.
    if (problems.length > 0)
      throw new JournalUnusableError(
        journalPath,
        `is damaged: the backup just made of it (${target}, not kept) fails SQLite's check with ${problems.length} problem${problems.length === 1 ? '' : 's'} (${problems.slice(0, 2).join('; ')})`,
        'keep the backups you have (an older one is the way back), and mend the journal: punchgate check says how',
        'SQLITE_CORRUPT',
      );
    // A digest of what it holds, checked by restore: a byte changed inside a row later is found.
    sealBackup(db);
    return summarize(db, partial);
  } catch (e) {
    if (e instanceof JournalUnusableError) throw e;
    throw targetFailure(target, e);
  } finally {
    db?.close();
  }
}

/**
 * What SQLite's check finds in the copy, one problem a line. A page it cannot even read (zeroed)
 * stops the check with SQLITE_CORRUPT: a problem of the copy too, so of the journal it was copied
 * from page for page, never "cannot write the backup" (found by a damaged-journal trial).
 */
function copyProblems(db: Database): string[] {
  try {
    return (db.pragma('quick_check') as { quick_check: string }[])
      .flatMap((r) => r.quick_check.split('\n'))
      .filter((l) => l !== 'ok' && !/^\*\*\* in database/.test(l));
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    if (!/^SQLITE_(CORRUPT|NOTADB)/.test(code)) throw e;
    return [`${code}: ${e instanceof Error ? e.message : String(e)}`];
  }
}

function failureOf(e: unknown, journalPath: string, target: string): Error {
  const code = (e as { code?: string }).code ?? '';
  // SQLite reports both sides' errors on the backup: a full disk or an unwritable folder is the target's.
  // So is an I/O error that is not a read: the journal is opened read-only, only the copy is written
  // (a bare SQLITE_IOERR, the backup's usual word, blamed the journal for a backup disk over its limit).
  if (/^SQLITE_(FULL|CANTOPEN|READONLY|PERM)/.test(code) || /^E/.test(code)) return targetFailure(target, e);
  if (/^SQLITE_IOERR/.test(code) && !/^SQLITE_IOERR_(SHORT_)?READ/.test(code)) return targetFailure(target, e);
  if (isBusyJournalError(e)) return new JournalBusyError(journalPath);
  return describeJournalFailure(journalPath, e);
}

/** Makes a rename in `dir` durable (its entry is written), as far as the file system allows. */
export function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems cannot sync a folder; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
