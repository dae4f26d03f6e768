import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { canonicalJournalPath } from './journal-file.js';

/**
 * Where a backup may go, and what to say when it cannot go there. Kept apart from the copy itself
 * (backup.ts): these are the words a site admin reads at 04:30 in the backup timer's log.
 */

/** The backup cannot be written where it was asked (a missing folder, permissions, a full disk). */
export class BackupTargetError extends Error {
  constructor(
    readonly path: string,
    reason: string,
    /** The disk is full: the folder's own older backups may be what fills it. */
    readonly diskFull = false,
  ) {
    super(`cannot write the backup ${path}: ${reason}`);
    this.name = 'BackupTargetError';
  }
}

/** The target's folder by its real name (links resolved), and the target's own name in it. */
function realTarget(target: string): string | undefined {
  try {
    return join(realpathSync(dirname(resolve(target))), basename(target));
  } catch {
    return undefined; // no such folder: the copy says so in its own words
  }
}

/**
 * Refuses a target that is the journal, or one of the files beside it that belong to it (its
 * write-ahead log, shared memory, lock, claim files, a journal kept aside by restore or saved by
 * the daemon). The copy is renamed over its target: named `journal.db` (a slip, or a tab
 * completion), it replaced the live journal under the running daemon, which found its file gone
 * and stopped (found by an adversarial trial); named `journal.db-wal`, it would put a database
 * where SQLite looks for the journal's log. By the real names, so another spelling of the same
 * path (`./`, `..`, a linked folder) or another hard link to the journal is refused too.
 */
export function refuseJournalFiles(journalPath: string, target: string): void {
  const journal = canonicalJournalPath(journalPath);
  const real = realTarget(target);
  let sameFile = false;
  try {
    const [a, b] = [statSync(journal), statSync(target)];
    sameFile = a.dev === b.dev && a.ino === b.ino;
  } catch {
    // one of them does not exist: then it is not the same file
  }
  // Its own files are those beside it named after it (not a folder such as journal.db.backups/).
  const name = basename(journal);
  const ownFile =
    real !== undefined &&
    dirname(real) === dirname(journal) &&
    (basename(real) === name || basename(real).startsWith(`${name}-`) || basename(real).startsWith(`${name}.`));
  if (sameFile || ownFile)
    throw new BackupTargetError(
      target,
      `it is ${sameFile || real === journal ? 'the journal itself' : `one of the journal's own files (beside ${journal})`}, ` +
        "and a backup is renamed over its target: name a file or folder of the backups' own, " +
        'such as /var/lib/punchgate/backups',
    );
}

/** What stands in the way of a folder that cannot be made or written: the nearest part of its path that exists. */
function nearestExisting(path: string): string {
  let p = resolve(path);
  for (;;) {
    try {
      statSync(p);
      return p;
    } catch {
      const up = dirname(p);
      if (up === p) return p;
      p = up;
    }
  }
}

/**
 * Why `folder` cannot be written in (or, `making`, be made), in words with the fix. Node's recursive mkdir answers ENOENT
 * on a read-only file system, and a file where a folder is meant answers ENOTDIR: both are found
 * out from the nearest part of the path that exists.
 */
export function folderProblem(folder: string, code: string, making = false): string {
  const near = nearestExisting(folder);
  let isFolder = true;
  try {
    isFolder = statSync(near).isDirectory();
  } catch {
    // cannot tell: judged by the code alone
  }
  if (!isFolder || code === 'ENOTDIR')
    return `${near} is a file, not a folder (${code || 'ENOTDIR'}): name a folder, or move that file away`;
  // A file's folder that is not there is said so; a folder being made finds out why below.
  if (code === 'ENOENT' && !making) return `the folder ${folder} does not exist`;
  let access = '';
  try {
    accessSync(near, constants.W_OK);
  } catch (e) {
    access = (e as { code?: string }).code ?? '';
  }
  if (code === 'EROFS' || access === 'EROFS')
    return `the file system of ${near} is mounted read-only (EROFS): remount it read-write (mount -o remount,rw), or write the backup to another disk`;
  if (/^(EACCES|EPERM)$/.test(code) || /^(EACCES|EPERM)$/.test(access))
    return `this user may not write in ${near} (${code || access}): pick a folder it owns, or run as the user punchgate runs as`;
  if (code === 'ENOENT') return `the folder ${folder} does not exist`;
  return '';
}

/** The error of a backup that could not be written at `target`, with its cause in words and the fix. */
export function targetFailure(target: string, e: unknown): BackupTargetError {
  const code = (e as { code?: string }).code ?? '';
  const text = e instanceof Error ? e.message : String(e);
  if (code === 'ENOSPC' || /^SQLITE_FULL/.test(code))
    return new BackupTargetError(target, `the disk is full (${code}): free space, or write the backup elsewhere`, true);
  if (/^(ENOENT|ENOTDIR|EACCES|EPERM|EROFS)$/.test(code) || /^SQLITE_(CANTOPEN|READONLY|PERM)/.test(code)) {
    const said = folderProblem(dirname(target), /^SQLITE_/.test(code) ? '' : code);
    if (said) return new BackupTargetError(target, said);
    return new BackupTargetError(
      target,
      `this user may not write in ${dirname(target)} (${code}): pick a folder it owns, or run as the user punchgate runs as`,
    );
  }
  if (/^SQLITE_IOERR/.test(code))
    return new BackupTargetError(
      target,
      `the disk of ${dirname(target)} reports an I/O error (${code}): it may be full, over a file size limit, or failing (df -h, dmesg); write the backup elsewhere, and if that fails too, run punchgate check (the journal may be what cannot be read)`,
    );
  return new BackupTargetError(target, `${code || 'error'}: ${text}`);
}
