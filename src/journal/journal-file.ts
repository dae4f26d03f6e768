import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { JournalUnusableError } from './errors.js';

/** Symbolic links followed at most (as the kernel's own limit, ELOOP). */
const MAX_LINKS = 40;

/**
 * The journal file's one name: `..`, `.` and symbolic links (of the file and of every folder on
 * the way) resolved. The run lock (`<journal>.lock`) and the claim holders' files
 * (`<journal>.claim-*`) are named after it, so that every process that opens the same file,
 * through whatever path, meets the same locks: a second `punchgate run` through a symlink is
 * refused, and a `flush` through one sees the daemon's claims as held.
 *
 * A folder reached through a bind mount is the same folder, so its lock files are the same files.
 * A second name of the file itself (a hard link) cannot be resolved to this one, and is refused
 * where the journal is opened (refuseOtherNames). A file that does not exist yet is named by its
 * resolved folder (and a dangling symlink by where it points: SQLite creates the file there).
 */
export function canonicalJournalPath(path: string): string {
  let p = resolve(path);
  for (let i = 0; i < MAX_LINKS; i++) {
    try {
      return realpathSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return p;
    }
    let st: Stats;
    try {
      st = lstatSync(p);
    } catch {
      // No file at all: its folder's real name, and its own name.
      return join(realFolder(dirname(p)), basename(p));
    }
    if (!st.isSymbolicLink()) return p;
    p = resolve(dirname(p), readlinkSync(p));
  }
  return p;
}

function realFolder(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * Refuses a journal file that has more than one name (a hard link). SQLite keeps the journal's
 * write-ahead log (`-wal`) and its index (`-shm`) beside the name it was opened by: a process that
 * opens the same file by another name reads and writes another log, sees punches in flight as
 * free, and can damage the file (sqlite.org/howtocorrupt.html, "multiple links to the same file").
 * No name can be told from another, so none is used until only one is left.
 */
export function refuseOtherNames(path: string, st: Stats): void {
  const p = otherNamesProblem(path, st);
  if (p) throw new JournalUnusableError(path, p.problem, p.fix, 'EMLINK');
}

/** Why a journal file with other names cannot be used, and the fix (undefined: it has one name). */
export function otherNamesProblem(path: string, st: Stats): { problem: string; fix: string } | undefined {
  if (st.nlink <= 1) return undefined;
  return {
    problem: `has ${st.nlink} names (hard links to the same file): SQLite keeps the journal's write-ahead log beside the name it is opened by, so each name would be a journal of its own, punches in flight could be sent twice and the file damaged`,
    fix: `remove every other name and keep only journal.path (list them: find / -xdev -samefile ${path}); to keep a copy, use sqlite3 ${path} ".backup copy.db" or cp, never ln`,
  };
}
