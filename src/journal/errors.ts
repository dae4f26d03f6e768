import {
  accessSync,
  closeSync,
  constants,
  lstatSync,
  openSync,
  readlinkSync,
  rmSync,
  statSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { freeBytesAt } from '../util/disk.js';
import { recoverFix } from './recover-recipe.js';

const codeOf = (e: unknown): string | undefined => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** SQLite errors after which the journal cannot keep its promise: the process should exit. */
export function isFatalJournalError(e: unknown): boolean {
  if (e instanceof JournalUnusableError) return true;
  const code = codeOf(e);
  return code !== undefined && /^SQLITE_(FULL|IOERR|READONLY|CORRUPT|NOTADB|CANTOPEN|PERM)/.test(code);
}

/**
 * Another connection holds the journal's write lock (a one-shot command, a backup, an sqlite3
 * shell). Temporary: the write is kept and tried again, never a reason to exit.
 */
export function isBusyJournalError(e: unknown): boolean {
  const code = codeOf(e);
  return code !== undefined && /^SQLITE_(BUSY|LOCKED)/.test(code);
}

/** sysexits EX_IOERR: the journal cannot be used. */
export const JOURNAL_UNUSABLE_EXIT = 74;

/**
 * The end of a fix that only `punchgate run` can keep (systemd starts it again); a one-shot command
 * says "run it again" instead (reportError in cli/common.ts): an import stopped by a full disk told
 * the admin it would start again by itself.
 */
export const RESTARTS_ITSELF = 'punchgate starts again by itself';

/** A journal error's message for a one-shot command, which nothing starts again. */
export function oneShotMessage(e: JournalUnusableError): string {
  return e.message.endsWith(`; ${RESTARTS_ITSELF}`)
    ? `${e.message.slice(0, -RESTARTS_ITSELF.length)}then run the command again`
    : e.message;
}

/**
 * The journal cannot be used as it is: missing (for a command other than `punchgate run`),
 * empty, not a punchgate journal, damaged, unwritable, read-only or on a full disk. The message
 * is one line with the path and what to do; commands exit 74 with it.
 */
export class JournalUnusableError extends Error {
  readonly exitCode = JOURNAL_UNUSABLE_EXIT;
  constructor(
    readonly path: string,
    /** What is wrong, after the path (`is on a read-only file system (EROFS)`): check says it too. */
    readonly problem: string,
    readonly fix: string,
    readonly code?: string,
  ) {
    super(`the journal ${path} ${problem}: ${fix}`);
    this.name = 'JournalUnusableError';
  }
}

/** The journal stayed locked by another process longer than a command waits (exit 75, try again). */
export class JournalBusyError extends Error {
  readonly code = 'SQLITE_BUSY';
  constructor(readonly path: string) {
    super(
      `the journal ${path} is busy: another process holds its write lock (an import, a backup, an sqlite3 shell); try again in a moment; if it lasts, find the process (fuser -v ${path}) and end it`,
    );
    this.name = 'JournalBusyError';
  }
}

const ownerFix = (path: string) =>
  `make ${dirname(path)} and the journal files writable for the user punchgate runs as (under systemd keep journal.path in /var/lib/punchgate; by hand: chown -R punchgate: ${dirname(path)} && chmod -R u+rwX ${dirname(path)}), or run the command as that user: sudo -u punchgate punchgate ...`;

/** The errno of access(2) on `path` for `mode`, or undefined when it is allowed. */
function denied(path: string, mode: number): string | undefined {
  try {
    accessSync(path, mode);
    return undefined;
  } catch (e) {
    return codeOf(e) ?? 'EACCES';
  }
}

/** `owner 0 (root), mode 0644` of a file, for a message that says why this user may not write it. */
function ownerOf(path: string): string {
  try {
    const st = statSync(path);
    const user = st.uid === 0 ? ' (root)' : '';
    return `owned by uid ${st.uid}${user}, mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}`;
  } catch {
    return 'owner unknown';
  }
}

/**
 * A symbolic link where SQLite keeps the journal's own side files (`-wal`, `-shm`, `-journal`).
 * SQLite opens them without following links (SQLITE_OPEN_NOFOLLOW) and fails: the cause to name
 * is the link, not this user's permissions. Nobody makes such a link but someone who wants a
 * command run as root to write where it points (the service user may write the folder), so the
 * fix is to remove it and find out who made it. The journal file itself may be a link.
 */
export function plantedLink(path: string, code: string): JournalUnusableError | undefined {
  for (const { side, st } of sideFilesPresent(path)) {
    if (!st.isSymbolicLink()) continue;
    let target = '?';
    try {
      target = readlinkSync(side);
    } catch {
      // gone meanwhile: the link is still what to name
    }
    return new JournalUnusableError(
      path,
      `cannot be opened: ${side} is a symbolic link (to ${target}, made by uid ${st.uid}), and punchgate never follows a link beside its journal (${code})`,
      `remove the link (rm ${side}) and find out who made it: a link there is no punchgate or SQLite file, and may be planted to make a command run as root write elsewhere; then run the command again`,
      code,
    );
  }
  return undefined;
}

/** The journal's side files (`-wal`, `-shm`, `-journal`) that exist, each as lstat sees it (no link followed). */
function* sideFilesPresent(path: string): Generator<{ side: string; st: Stats }> {
  for (const side of [`${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    let st: Stats;
    try {
      st = lstatSync(side);
    } catch {
      continue; // not there: nothing to say of it
    }
    yield { side, st };
  }
}

/** What lstat says a node is, in words, for a side file that is no file SQLite made. */
function kindOf(st: {
  isFIFO(): boolean;
  isSocket(): boolean;
  isDirectory(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a folder';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a plain file';
}

/**
 * A FIFO, socket, folder or device where SQLite keeps the journal's side files (`-wal`, `-shm`,
 * `-journal`): SQLite makes plain files there and nothing else. A FIFO at the log's name blocked
 * the daemon's start for good (its read of the log waited for a writer: no line, deaf to
 * SIGTERM), so every open asks first, and refuses without opening it. As with a planted link,
 * whoever may write the journal's folder put it there: remove it and find out who.
 */
export function oddSideFile(path: string): JournalUnusableError | undefined {
  for (const { side, st } of sideFilesPresent(path)) {
    if (st.isFile() || st.isSymbolicLink()) continue;
    return new JournalUnusableError(
      path,
      `cannot be opened: ${side} is ${kindOf(st)} (made by uid ${st.uid}), not a file SQLite made, and punchgate never opens it`,
      `remove it (rm ${side}) and find out who made it: SQLite keeps only plain files beside the journal; then start punchgate again`,
      'ENOTFILE',
    );
  }
  return undefined;
}

/**
 * Why this process cannot read or write the journal, asked of the file system itself
 * (access(2) answers for this user, and says EROFS for a read-only file system), so that the one
 * line names the real cause: a read-only mount, a file or a folder of another user. Undefined
 * when the file system allows everything (the failure is elsewhere).
 */
export function journalAccessProblem(path: string, code: string): JournalUnusableError | undefined {
  const planted = plantedLink(path, code);
  if (planted) return planted;
  const dir = dirname(path);
  const fileExists = denied(path, constants.F_OK) === undefined;
  const rofs = [fileExists ? denied(path, constants.W_OK) : undefined, denied(dir, constants.W_OK)].includes('EROFS');
  if (rofs)
    return new JournalUnusableError(
      path,
      `is on a read-only file system (${code})`,
      `remount it read-write (mount -o remount,rw on the file system of ${dir}), or move journal.path to a writable disk; ${RESTARTS_ITSELF}`,
      code,
    );
  if (denied(dir, constants.X_OK) || (fileExists && denied(path, constants.R_OK)))
    return new JournalUnusableError(
      path,
      `cannot be read by this user (${fileExists && denied(dir, constants.X_OK) === undefined ? ownerOf(path) : `its folder ${dir} is ${ownerOf(dir)}`}; ${code})`,
      ownerFix(path),
      code,
    );
  if (fileExists && denied(path, constants.W_OK))
    return new JournalUnusableError(
      path,
      `cannot be written by this user (the file is ${ownerOf(path)}; ${code})`,
      ownerFix(path),
      code,
    );
  if (denied(dir, constants.W_OK))
    return new JournalUnusableError(
      path,
      `cannot be written by this user: its folder ${dir} is ${ownerOf(dir)} (SQLite keeps the journal's -wal and -shm files beside it; ${code})`,
      ownerFix(path),
      code,
    );
  for (const side of [`${path}-wal`, `${path}-shm`]) {
    if (denied(side, constants.F_OK) === undefined && denied(side, constants.W_OK))
      return new JournalUnusableError(
        path,
        `cannot be written by this user: ${side} is ${ownerOf(side)} (${code})`,
        ownerFix(path),
        code,
      );
  }
  return undefined;
}

/**
 * The journal's file system is read-only now (access(2) says EROFS): after an I/O error of a write,
 * the kernel made it so under the running daemon (ext4's errors=remount-ro), which SQLite reports
 * only as a write error. Said as what it is, found by a trial with a disk gone read-only.
 */
function wentReadOnly(path: string): boolean {
  if (denied(path, constants.W_OK) === 'EROFS' || denied(dirname(path), constants.W_OK) === 'EROFS') return true;
  // Newer kernels mark ext4 `emergency_ro` without making the mount read-only: access(2) allows
  // the write, and only a write says EROFS. A file made new (never through a link) and removed.
  const probe = join(dirname(path), `.${basename(path)}.write-probe-${process.pid}`);
  try {
    closeSync(openSync(probe, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
  } catch (e) {
    return codeOf(e) === 'EROFS';
  }
  rmSync(probe, { force: true });
  return false;
}

/**
 * The journal's file system refuses writes as a whole (mounted read-only, or ext4's emergency_ro,
 * which only a write reveals), in words that name it and a fix that ends with RESTARTS_ITSELF:
 * mended outside, the next start goes on. Undefined when a write beside the journal works.
 */
export function readOnlyFileSystemProblem(path: string, code: string): JournalUnusableError | undefined {
  if (!wentReadOnly(path)) return undefined;
  return new JournalUnusableError(
    path,
    `is on a read-only file system (${code}): the kernel refuses writes to it, as it does after a disk error (errors=remount-ro)`,
    `check the disk (journalctl -k or dmesg names the error; fsck it), then remount it read-write (mount -o remount,rw on the file system of ${dirname(path)}) or move journal.path to a sound disk; ${RESTARTS_ITSELF}`,
    code,
  );
}

/** Less than a megabyte free where the journal lives: an I/O error there is the disk being full. */
function nearlyNoRoom(path: string): boolean {
  try {
    return freeBytesAt(path) < 1024 * 1024;
  } catch {
    return false;
  }
}

/** Damage no restart mends: the file must be recovered or restored by hand (damagedJournal's fix). */
export function isJournalDamage(e: JournalUnusableError): boolean {
  return e.code !== undefined && /^SQLITE_(CORRUPT|NOTADB)/.test(e.code);
}

/**
 * A journal problem mended outside punchgate that needs no one to start it again (room freed on a
 * full disk, a file system remounted read-write, a disk's error gone): its fix ends with
 * RESTARTS_ITSELF. `punchgate run` ends on it with 75, which the unit restarts; on any other (a
 * damaged file, another program's file, a file of another user, a FIFO at its side files, its disk
 * not mounted) with 74, which the unit does not restart, as each restart would stop again on it.
 */
export function restartsItself(e: JournalUnusableError): boolean {
  return e.message.endsWith(`; ${RESTARTS_ITSELF}`);
}

/** What `punchgate run` adds to a journal problem's line that no restart mends, and what starts it. */
export const NOT_RESTARTED_WORDS = `A restart does not mend this: systemd does not start punchgate again (exit ${JOURNAL_UNUSABLE_EXIT}) until it is mended; then sudo systemctl start punchgate`;

/** The journal's pages are damaged (`detail` says how it was found): recover or restore it. */
export function damagedJournal(path: string, detail: string, code = 'SQLITE_CORRUPT'): JournalUnusableError {
  return new JournalUnusableError(path, `is damaged (${detail})`, recoverFix(path), code);
}

/** Names an SQLite (or file system) failure of the journal in one line with the path and the fix. */
export function describeJournalFailure(path: string, e: unknown): JournalUnusableError {
  if (e instanceof JournalUnusableError) return e;
  const code = codeOf(e) ?? 'error';
  const text = e instanceof Error ? e.message : String(e);
  if (/^SQLITE_NOTADB/.test(code))
    return new JournalUnusableError(
      path,
      'is not a SQLite database (SQLITE_NOTADB)',
      `point journal.path at the punchgate journal; if this is it, it is damaged: ${recoverFix(path)}`,
      code,
    );
  if (/^SQLITE_CORRUPT/.test(code)) return damagedJournal(path, `${code}: ${text}`, code);
  if (
    /^SQLITE_FULL/.test(code) ||
    /EFBIG|ENOSPC|file too large/i.test(text) ||
    (/^SQLITE_IOERR/.test(code) && nearlyNoRoom(path))
  )
    return new JournalUnusableError(
      path,
      `cannot grow: the disk is full (${code})`,
      `free space on its file system (apt-get clean, journalctl --vacuum-size=100M, old files), or move journal.path to a larger disk; ${RESTARTS_ITSELF}`,
      code,
    );
  if (/^SQLITE_(READONLY|CANTOPEN|PERM|AUTH)/.test(code) || /^E(ACCES|PERM|ROFS)$/.test(code)) {
    const access = journalAccessProblem(path, code);
    if (access) return access;
    // access(2) allowed the write, yet SQLite could not open or write: a file system that refuses
    // only a write tried (ext4's emergency_ro after a disk error). The same temporary trouble as
    // under the running daemon, not a matter of owners: a restart found it so and ended with 74,
    // which systemd does not restart, after the first stop had said "starts again by itself"
    // (a new-user trial).
    const readOnly = readOnlyFileSystemProblem(path, code);
    if (readOnly) return readOnly;
  }
  if (/^SQLITE_READONLY/.test(code))
    return new JournalUnusableError(
      path,
      `is read-only (${code})`,
      `remount its file system read-write (mount -o remount,rw), or ${ownerFix(path)}`,
      code,
    );
  if (/^SQLITE_(CANTOPEN|PERM|AUTH)/.test(code) || /^E(ACCES|PERM|ROFS)$/.test(code))
    return new JournalUnusableError(path, `cannot be opened or written by this user (${code})`, ownerFix(path), code);
  if (/^SQLITE_IOERR/.test(code) && wentReadOnly(path))
    return new JournalUnusableError(
      path,
      `cannot be written: its file system went read-only while punchgate wrote (${code}: ${text}); the kernel does that after a disk error (errors=remount-ro)`,
      `check the disk (journalctl -k or dmesg names the error; fsck it), then remount it read-write (mount -o remount,rw on the file system of ${dirname(path)}) or move journal.path to a sound disk; ${RESTARTS_ITSELF}`,
      code,
    );
  if (/^SQLITE_IOERR/.test(code))
    return new JournalUnusableError(
      path,
      `cannot be written: the disk reports an I/O error (${code}: ${text})`,
      `check the disk (dmesg, df -h, a full or failing device); ${RESTARTS_ITSELF}`,
      code,
    );
  return new JournalUnusableError(path, `cannot be used (${code}: ${text})`, `check the file and its folder`, code);
}
