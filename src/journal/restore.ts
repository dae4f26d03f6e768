import { asFolderWriter } from '../util/folder-writer.js';
import { badBackup, openBackupSource, refuseForeignBackupLink } from './backup-source.js';
import {
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { EXIT, ExitError } from '../util/exit-codes.js';
import { chownPlainFile } from '../util/private-file.js';
import { summarize, syncFolder, type JournalSummary } from './backup.js';
import { inspectBackup } from './backup-checks.js';
import { removeSeal, type SealCheck } from './backup-seal.js';
import { ClaimHolder } from './claim-holder.js';
import { describeJournalFailure, JournalUnusableError } from './errors.js';
import { journalOpeners, otherNamesProblem } from './journal-file.js';
import { JournalLockedError, OwnerLock } from './lock.js';
import { recountPunches } from './punch-counts.js';
import { SCHEMA_VERSION } from './migrations.js';
import { refuseForeign } from './open-db.js';
import { foreignSchemaFix } from './schema-check.js';
import { Database } from './sqlite-driver.js';
import { firstFew } from '../util/first-few.js';

export interface RestoreOptions {
  journalPath: string;
  backupPath: string;
  /** The config's site: a backup of another site is refused unless `force`. */
  site: string;
  /**
   * Replace a journal that holds punches not delivered yet (it is kept aside all the same), restore
   * another site's backup, or one whose content no longer matches its seal (the only copy there is).
   */
  force?: boolean;
  /** Names the file the replaced journal is kept as. */
  now: Date;
}

export interface RestoreResult {
  restored: JournalSummary;
  /** Punches claimed for delivery in the backup (by a process of the old box): back in the queue. */
  returnedClaims: number;
  /**
   * The backup's seal (backup-seal.ts): `ok` its content is as written; `none` it carries none (made
   * before backups were sealed, or a copy of a stopped journal): it cannot be verified; `changed`
   * restored with force although its content is not as written.
   */
  seal: SealCheck;
  /** The replaced journal, and where it is kept (null: there was none). */
  replaced: { summary: JournalSummary | null; keptAs: string } | null;
  /** The write-ahead log of a journal that was gone, found beside its name: where it is kept. */
  lostLogKeptAs?: string;
}

/**
 * Puts a backup (`punchgate backup`, or a copy of a stopped journal) in the journal's place.
 * Nothing is replaced before the backup is checked: it is copied beside the journal and the copy
 * must pass SQLite's integrity check, be a punchgate journal and have a schema this punchgate
 * knows (an older one is upgraded by `punchgate run`). The daemon must be stopped: its run lock is
 * held for the whole restore, so it cannot start half way. A journal with punches not yet
 * delivered is not replaced unless `force`; a replaced journal is always kept beside it
 * (`<journal>.before-restore-<time>`), never deleted. The copy takes the journal's place in one
 * rename. Claims in the backup belonged to processes of the old box: they go back to the queue,
 * and claim files of processes that are gone are removed, so `punchgate run` starts clean.
 */
export async function restoreJournal(o: RestoreOptions): Promise<RestoreResult> {
  refuseForeignBackupLink(o.backupPath);
  checkBackupFile(o.backupPath, o.journalPath);
  // Read as the caller (root may restore a backup only root can read), or as the owner of the
  // backup's folder (backup-source.ts); the journal's folder is written as its owner when root
  // runs this (folder-writer.ts).
  const src = openBackupSource(o.backupPath);
  try {
    return await asFolderWriter(dirname(o.journalPath), () => restoreFrom(src, o));
  } finally {
    src.close();
  }
}

async function restoreFrom(src: Database, o: RestoreOptions): Promise<RestoreResult> {
  const { journalPath, backupPath } = o;
  let lock: OwnerLock;
  try {
    lock = OwnerLock.acquire(journalPath);
  } catch (e) {
    if (e instanceof JournalLockedError)
      throw new ExitError(
        `punchgate run is using the journal ${journalPath}: stop it first (sudo systemctl stop punchgate), then run the restore again`,
        EXIT.TEMPFAIL,
      );
    throw describeJournalFailure(journalPath, e);
  }
  const copy = join(dirname(journalPath), `${basename(journalPath)}.restore-${process.pid}`);
  try {
    ownLikeFolder(journalPath, [OwnerLock.pathFor(journalPath)]);
    refuseSharedFile(journalPath);
    const live = ClaimHolder.list(journalPath).filter((id) => ClaimHolder.isAlive(journalPath, id));
    if (live.length > 0)
      throw new ExitError(
        `another punchgate process (punchgate flush, pid ${live.map((id) => id.split('-')[0]).join(', ')}) is delivering punches from the journal ${journalPath}: let it finish, then run the restore again`,
        EXIT.TEMPFAIL,
      );
    await copyBackup(src, backupPath, copy, journalPath);
    const { summary: restored, returnedClaims, seal } = checkCopy(copy, backupPath, o);
    const current = existsSync(journalPath) ? inspectCurrent(journalPath) : null;
    if (current && !o.force) refuseToReplace(journalPath, current);
    matchOwner(copy, journalPath);
    let replaced: RestoreResult['replaced'] = null;
    if (current) replaced = { summary: current.summary, keptAs: keepAside(journalPath, o.now) };
    const lostLogKeptAs = current ? undefined : keepLostLog(journalPath, o.now);
    // The one step that changes what punchgate run opens: the checked copy takes the journal's name.
    renameSync(copy, journalPath);
    syncFolder(dirname(journalPath));
    for (const id of ClaimHolder.list(journalPath)) ClaimHolder.forget(journalPath, id);
    return { restored, returnedClaims, seal, replaced, ...(lostLogKeptAs ? { lostLogKeptAs } : {}) };
  } finally {
    for (const f of [copy, `${copy}-journal`, `${copy}-wal`, `${copy}-shm`]) rmSync(f, { force: true });
    lock.release();
  }
}

/**
 * The run lock is named after the journal's path; the file itself may have other ways in (a hard
 * link, a bind mount of the file) that a daemon may be using. Refused: a journal with other names
 * (replacing one name would leave the daemon on the old file), and a journal any other process
 * has open, whatever the name it used (SQLite's own lock on the file, by device and inode).
 */
function refuseSharedFile(journalPath: string): void {
  let st;
  try {
    st = statSync(journalPath);
  } catch {
    return;
  }
  const names = otherNamesProblem(journalPath, st);
  if (names) throw new JournalUnusableError(journalPath, names.problem, names.fix, 'EMLINK');
  const open = journalOpeners(journalPath).all;
  if (open.length > 0)
    throw new ExitError(
      `the journal ${journalPath} is open in another process (pid ${open.join(', ')}${journalOpeners(journalPath).elsewhere.length > 0 ? ', through another name of the same file' : ''}): stop it first (sudo systemctl stop punchgate; ps -p ${open[0]} -o pid,args), then run the restore again`,
      EXIT.TEMPFAIL,
    );
}

/** The backup file must be readable, and whole in itself (not a journal in use with its -wal beside it). */
export function checkBackupFile(path: string, journalPath: string): void {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new ExitError(`cannot read the backup ${path}: ${(e as { code?: string }).code ?? String(e)}`, EXIT.NOINPUT);
  }
  if (!st.isFile()) throw new ExitError(`the backup ${path} is not a file`, EXIT.NOINPUT);
  // Said as what it is: "not a punchgate journal" sent the admin looking for the wrong file, when
  // an empty file is a backup whose run never wrote it (stopped, or the disk was full).
  if (st.size === 0) throw new ExitError(emptyBackupWords(path), EXIT.DATAERR);
  const journal = existsSync(journalPath) ? statSync(journalPath) : undefined;
  if (journal && journal.ino === st.ino && journal.dev === st.dev)
    throw new ExitError(`${path} is the journal itself (journal.path), not a backup of it`, EXIT.DATAERR);
  if (existsSync(`${path}-wal`))
    throw new ExitError(
      `${path} has a write-ahead log beside it (${path}-wal): it is a journal in use or a copy of one, not a whole backup; make one with punchgate backup (it works while punchgate runs)`,
      EXIT.DATAERR,
    );
}

/**
 * The refusal of a 0-byte backup: what leaves one, and what to try. punchgate backup never leaves
 * one (its copy is renamed into place whole): an empty file is a copy that failed or a full disk.
 */
export function emptyBackupWords(path: string): string {
  return (
    `${path} cannot be restored: it is empty (0 bytes), a backup that was never written into it ` +
    '(a copy with cp, scp or rsync that failed, or a disk that was full; punchgate backup itself never leaves an empty file); ' +
    'nothing was changed: restore another backup (ls -l its folder: a whole one is a few hundred KB or more), ' +
    'and check the free space where it was written (df -h)'
  );
}

/** Copies the backup beside the journal through SQLite (mode 0600, as the service's journal). */
async function copyBackup(src: Database, backupPath: string, copy: string, journalPath: string): Promise<void> {
  try {
    // Made new, never through a link planted under the copy's name in the journal's folder.
    rmSync(copy, { force: true });
    closeSync(openSync(copy, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
    await src.backup(copy);
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    if (/^SQLITE_(NOTADB|CORRUPT)/.test(code)) throw badBackup(backupPath, e);
    throw describeJournalFailure(journalPath, e);
  }
}

/**
 * Checks the copy (whole, a punchgate journal, a schema this punchgate knows, of this site),
 * returns the claims in it to the queue, and makes it a single file; returns what it holds.
 */
function checkCopy(
  copy: string,
  backupPath: string,
  o: RestoreOptions,
): { summary: JournalSummary; returnedClaims: number; seal: SealCheck } {
  const refuse = (problem: string) =>
    new ExitError(`${backupPath} cannot be restored: ${problem}; nothing was changed`, EXIT.DATAERR);
  const db = new Database(copy, { fileMustExist: true });
  try {
    db.pragma('cache_size = -2000');
    const found = inspectBackup(db, backupPath);
    if (found.kind === 'damaged')
      throw refuse(`it is damaged (SQLite's integrity check: ${found.detail}): use an older backup`);
    if (found.kind === 'not-journal') throw refuse(found.detail);
    if (found.kind === 'newer')
      throw refuse(
        `it was written by a newer punchgate (schema ${found.schema}; this one knows up to ${SCHEMA_VERSION}): install that punchgate version or a newer one first`,
      );
    if (found.kind === 'foreign-schema') {
      const foreign = found.problems;
      throw new ExitError(
        `${backupPath} cannot be restored: it holds a schema that is not punchgate's (${firstFew(foreign, 4, undefined, '; ')}), and another program's objects can change or drop punches; nothing was changed: ${foreignSchemaFix(backupPath)}`,
        EXIT.IOERR,
      );
    }
    const { schema, seal } = found;
    if (seal.state === 'changed' && !o.force)
      throw refuse(
        `${seal.why}: a byte of it was changed after it was written (a failing disk or copy), so it may hold other punches than were journalled: use another backup (an older one, or another copy of this one); --force restores it anyway`,
      );
    // The mark that tells a backup from a journal (backup.ts), and its seal, are not the journal's.
    db.pragma('application_id = 0');
    removeSeal(db);
    db.pragma('journal_mode = DELETE');
    // Claims of the old box's processes: back to the state they were claimed from, as `punchgate
    // run` does at its start for processes that are gone (schema 1 journals have no claimed_by).
    const returnedClaims = db
      .prepare(
        `UPDATE punches SET state = coalesce(claimed_from, 'pending'), claimed_from = NULL WHERE state = 'inflight'`,
      )
      .run().changes;
    if (returnedClaims > 0 && schema >= 3) db.exec(`UPDATE punches SET claimed_by = NULL WHERE claimed_by IS NOT NULL`);
    // The kept counts (punch-counts.ts) are counted again from the rows, always: they follow the
    // claims just returned, and a file recovered from a damaged journal (recover-recipe.ts) keeps
    // the damaged journal's counts while rows on its damaged pages are gone (the status said 2,000
    // delivered of 1,977 rows; found by a damaged-journal trial). One pass, once per restore.
    recountPunches(db);
    const summary = summarize(db, copy);
    const otherSite = summary.sites.length > 0 && !summary.sites.includes(o.site);
    if (otherSite && !o.force)
      throw refuse(
        `its punches are of site ${summary.sites.join(', ')}, and this config's site is ${o.site}: check that it is this box's backup (or set site: in the config); --force restores it anyway`,
      );
    return { summary, returnedClaims, seal };
  } finally {
    db.close();
  }
}

interface Current {
  summary: JournalSummary | null;
  /** Why it could not be read (a damaged journal), when it could not. */
  unreadable?: string;
  /** The error itself: an SQLite one says what is wrong with the file and how to save its punches. */
  error?: unknown;
}

/** What the journal to be replaced holds (read only: nothing is changed before the decision). */
function inspectCurrent(journalPath: string): Current {
  let db: Database | undefined;
  try {
    db = new Database(journalPath, { readonly: true, fileMustExist: true, timeout: 5000 });
    refuseForeign(db, journalPath);
    return { summary: summarize(db, journalPath) };
  } catch (e) {
    return { summary: null, unreadable: e instanceof Error ? e.message : String(e), error: e };
  } finally {
    db?.close();
  }
}

/** Folds the journal's write-ahead log into its file, so that the file kept aside is whole by itself. */
function foldLog(journalPath: string): boolean {
  let db: Database | undefined;
  try {
    db = new Database(journalPath, { fileMustExist: true, timeout: 5000 });
    db.pragma('wal_checkpoint(TRUNCATE)');
    return (db.pragma('journal_mode = DELETE', { simple: true }) as string) === 'delete';
  } catch {
    return false;
  } finally {
    db?.close();
  }
}

function refuseToReplace(journalPath: string, current: Current): void {
  const s = current.summary;
  if (s && s.waiting === 0 && s.dead === 0) return;
  // A journal SQLite cannot read (damaged, not a database) cannot be delivered from: punchgate run
  // stops on it too. Said as run and check say it (74), with the way to save what it holds first.
  const code = (current.error as { code?: unknown } | undefined)?.code;
  if (!s && typeof code === 'string' && /^SQLITE_/.test(code)) {
    const failure = describeJournalFailure(journalPath, current.error);
    throw new ExitError(
      `the journal ${journalPath} ${failure.problem}: it may hold punches not delivered, and punchgate run cannot start on it; ${failure.fix}; nothing was changed`,
      EXIT.IOERR,
    );
  }
  const what = s
    ? `holds ${(s.waiting + s.dead).toLocaleString('en-US')} punches not delivered${s.otherSinks > 0 ? ' to every sink' : ''} (${s.waiting.toLocaleString('en-US')} waiting, ${s.dead.toLocaleString('en-US')} refused for good)`
    : `cannot be read (${current.unreadable}), so it may hold punches not delivered`;
  throw new ExitError(
    `the journal ${journalPath} ${what}: deliver them first (start punchgate and wait until punchgate status shows none waiting), or restore with --force (the journal is then kept beside it as ${basename(journalPath)}.before-restore-<time>)`,
    EXIT.TEMPFAIL,
  );
}

/**
 * Keeps the replaced journal as `<journal>.before-restore-<time>` (a hard link: the journal's own
 * name is then replaced in one rename). A journal that could not be folded into one file keeps
 * its write-ahead log beside the kept copy; none is left beside the journal's name, where SQLite
 * would apply it to the restored file.
 */
function keepAside(journalPath: string, now: Date): string {
  const folded = foldLog(journalPath);
  const kept = `${journalPath}.before-restore-${stampOf(now)}`;
  try {
    linkSync(journalPath, kept);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw describeJournalFailure(journalPath, e);
    copyFileSync(journalPath, kept);
    const fd = openSync(kept, 'r');
    fsyncSync(fd);
    closeSync(fd);
  }
  if (existsSync(`${journalPath}-wal`)) {
    if (folded) rmSync(`${journalPath}-wal`);
    else renameSync(`${journalPath}-wal`, `${kept}-wal`);
  }
  rmSync(`${journalPath}-shm`, { force: true });
  return kept;
}

/**
 * The journal is gone but its write-ahead log is beside its name (lost-journal.ts): SQLite would
 * lay that log's pages over the restored file at its first open, a file they were never written
 * for (found by a damaged-journal trial: the restore "succeeded" on top of a stale log). Kept
 * aside under a name SQLite pairs with no file: it holds the lost journal's last writes.
 */
function keepLostLog(journalPath: string, now: Date): string | undefined {
  const wal = `${journalPath}-wal`;
  let bytes = 0;
  try {
    bytes = statSync(wal).size;
  } catch {
    return undefined;
  }
  rmSync(`${journalPath}-shm`, { force: true });
  if (bytes === 0) {
    rmSync(wal, { force: true });
    return undefined;
  }
  const kept = `${journalPath}.lost-wal-${stampOf(now)}`;
  renameSync(wal, kept);
  return kept;
}

const stampOf = (now: Date) =>
  now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

const runAsRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Run as root (sudo punchgate restore): the restored journal keeps the owner and mode of the one
 * it replaces (or its folder's owner), so that the service's user can open it.
 */
function matchOwner(copy: string, journalPath: string): void {
  if (!runAsRoot()) return;
  const ref = existsSync(journalPath) ? statSync(journalPath) : statSync(dirname(journalPath));
  chownPlainFile(copy, ref.uid, ref.gid);
  if (existsSync(journalPath)) chmodSync(copy, ref.mode & 0o777);
}

/** Run as root: files the restore made beside the journal (its run lock) belong to the folder's owner, as the service's own do. */
function ownLikeFolder(journalPath: string, files: readonly string[]): void {
  if (!runAsRoot()) return;
  const ref = statSync(dirname(journalPath));
  for (const f of files) if (existsSync(f)) chownPlainFile(f, ref.uid, ref.gid);
}
