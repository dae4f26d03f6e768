import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { foreignLinkOnPath } from '../util/private-file.js';
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

/**
 * Run as root, a journal reached through a symbolic link another user owns (the service user's
 * `journal.db` made a link, or a folder of its on the way) is refused: root would open, write,
 * lock and deliver from whatever the link points at (a journal or backup of root's elsewhere: found
 * by a trial of the service user's links, where `sudo punchgate flush` wrote the -wal, -shm and
 * settled punches of a root-only journal). Links root owns are followed (a moved /var/lib).
 */
export function foreignLinkToJournal(path: string): JournalUnusableError | undefined {
  const link = foreignLinkOnPath(path);
  if (!link) return undefined;
  return new JournalUnusableError(
    path,
    `is reached through ${link.link}, a symbolic link (to ${link.target}) owned by uid ${link.owner}, not root`,
    `root does not open a journal through another user's link (it may lead to any file root may write); point journal.path at the real file if it is meant, or remove the link (rm ${link.link}) and restore the journal from a backup (punchgate restore)`,
    'ELOOP',
  );
}

/** A file's identity as /proc/locks writes it: `major:minor:inode` (hex device numbers). */
function lockKeyOf(path: string): string | undefined {
  try {
    const st = statSync(path, { bigint: true });
    // glibc's dev_t encoding (makedev): the major in bits 8-19 and 32-43, the minor in 0-7 and 20-31.
    const major = ((st.dev >> 8n) & 0xfffn) | ((st.dev >> 32n) & ~0xfffn);
    const minor = (st.dev & 0xffn) | ((st.dev >> 12n) & ~0xffn);
    return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/** Process ids holding a POSIX lock on each file key, as Linux lists them (undefined: not readable). */
function lockHolders(locks: string): Map<string, Set<number>> | undefined {
  let text: string;
  try {
    text = readFileSync(locks, 'utf8');
  } catch {
    return undefined;
  }
  const out = new Map<string, Set<number>>();
  for (const line of text.split('\n')) {
    // `1: POSIX  ADVISORY  READ 13719 fe:00:2162766 1073741826 1073742335` (blocked waiters start `->`).
    const m = /^\d+:\s+POSIX\s+\S+\s+\S+\s+(\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/i.exec(line);
    if (!m) continue;
    const key = `${m[2]!.toLowerCase().padStart(2, '0')}:${m[3]!.toLowerCase().padStart(2, '0')}:${m[4]}`;
    let pids = out.get(key);
    if (!pids) out.set(key, (pids = new Set()));
    pids.add(Number(m[1]));
  }
  return out;
}

/**
 * Other processes that have the journal file itself open through SQLite, by the file's device and
 * inode (not by a name): SQLite holds a lock on the file for as long as a connection in WAL mode
 * is open. `elsewhere` are those that opened it by another name (a single-file bind mount, a hard
 * link made after they opened it): they hold no lock on the `-shm` file beside this name, so they
 * keep another write-ahead log. Linux only (/proc/locks); elsewhere nothing is known (empty lists).
 */
export function journalOpeners(path: string, locks = '/proc/locks'): { all: number[]; elsewhere: number[] } {
  const real = canonicalJournalPath(path);
  const file = lockKeyOf(real);
  const holders = file ? lockHolders(locks) : undefined;
  if (!file || !holders) return { all: [], elsewhere: [] };
  const shmKey = lockKeyOf(`${real}-shm`);
  const here = (shmKey && holders.get(shmKey)) || new Set<number>();
  const all = [...(holders.get(file) ?? [])].filter((pid) => pid !== process.pid);
  return { all, elsewhere: all.filter((pid) => !here.has(pid)) };
}

/**
 * Refuses a journal that another process has open by another name (see journalOpeners): two
 * write-ahead logs for one file lose punches and can damage it. Called once this process holds
 * its own locks (after a first read), so of two processes opening at once at least one sees the
 * other. A process caught between its lock on the file and the one on its `-shm` is given a moment.
 */
export function refuseOpenElsewhere(path: string, locks = '/proc/locks'): void {
  let elsewhere = journalOpeners(path, locks).elsewhere;
  for (let i = 0; i < 5 && elsewhere.length > 0; i++) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    elsewhere = journalOpeners(path, locks).elsewhere;
  }
  if (elsewhere.length === 0) return;
  throw new JournalUnusableError(
    path,
    `is open in another process (pid ${elsewhere.join(', ')}) by another name: the same file reached through a bind mount or another link, with a write-ahead log of its own, so punches could be lost or sent twice and the file damaged`,
    `stop that process (ps -p ${elsewhere[0]} -o pid,args), and give every punchgate command the same journal.path (no bind mount of the file itself: mount its folder instead)`,
    'EBUSY',
  );
}
