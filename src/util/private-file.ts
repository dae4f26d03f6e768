import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Files beside the journal hold punches (personal data) or the site's settings: they are the
 * service user's alone, 0600, whatever umask punchgate was started with (systemd's unit sets
 * UMask=0077; a `punchgate run` started by hand from root's shell has 022, which would leave
 * SQLite's and Node's files 0644). The mode is set on the open file itself (fchmod), so neither
 * the umask nor a file left by an earlier crash decides it, and O_NOFOLLOW never writes through
 * a link planted at that name.
 */
export const PRIVATE_MODE = 0o600;

/**
 * Makes `path` an empty 0600 file unless something is there already (left as it is). Called
 * before SQLite opens a database it would create itself: SQLite then keeps the file's mode, and
 * makes the database's -wal, -shm and -journal files with the same mode.
 */
export function ensurePrivateFile(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, PRIVATE_MODE);
  } catch (e) {
    if ((e as { code?: string }).code === 'EEXIST') return;
    throw e;
  }
  try {
    fchmodSync(fd, PRIVATE_MODE);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `path` whole with `text` (a temporary file, then a rename: a reader never sees half), 0600,
 * owned by `owner` when given (root handing a file to the service user).
 * The temporary name is made new (O_EXCL): whatever another user left there (a link, or a FIFO,
 * whose open blocked a root daemon for good, deaf to SIGTERM: found by an adversarial trial) is
 * removed first, and never opened.
 */
export function writePrivateFile(path: string, text: string, owner?: { uid: number; gid: number }): void {
  writeFileWhole(path, text, PRIVATE_MODE, owner);
}

/**
 * The same for a file anyone may read (a config without secrets: `import-config --output`): a
 * new temporary file renamed over `path`, so a link planted at `path` is replaced, never followed
 * (root writing through it would overwrite the link's target).
 */
export function writeFileWhole(path: string, text: string, mode: number, owner?: { uid: number; gid: number }): void {
  const tmp = `${path}.tmp`;
  rmSync(tmp, { force: true });
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    mode,
  );
  try {
    try {
      fchmodSync(fd, mode);
      // Handed over on the open file, before it takes its name: a chown by name after the rename
      // follows whatever the folder's owner put there meanwhile (a link to /etc/shadow, which root
      // then gave away: found by an adversarial trial racing `sudo punchgate import-config`).
      if (owner) fchownSync(fd, owner.uid, owner.gid);
      // writeSync may write less than asked (a disk that fills: the next write then fails); a
      // short write renamed into place would be a truncated file taken as whole.
      const bytes = Buffer.from(text, 'utf8');
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    // A full disk: the half-written temporary file goes, the file under its name stays as it was.
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Why `path` is not a plain file of its own (a symbolic link, a hard link to another name, a
 * device or a folder), or undefined when it is one or is not there. A name in a folder the
 * service user can write may be such a thing planted for a command run as root to follow.
 */
export function notPlainFile(path: string): string | undefined {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return undefined;
  }
  if (st.isSymbolicLink()) {
    let target = '?';
    try {
      target = readlinkSync(path);
    } catch {
      // gone meanwhile: still not followed
    }
    return `is a symbolic link (to ${target})`;
  }
  if (!st.isFile()) return 'is not a plain file';
  if (st.nlink > 1) return `has ${st.nlink} names (hard links)`;
  return undefined;
}

/**
 * Hands the plain file `path` to uid:gid, never through a link: opened with O_NOFOLLOW and
 * changed on the open file (fchown), refused when it is not a plain file with one name.
 */
export function chownPlainFile(path: string, uid: number, gid: number): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.nlink > 1)
      throw new Error(`${path} is not a plain file with one name: its owner is left as it is`);
    fchownSync(fd, uid, gid);
  } finally {
    closeSync(fd);
  }
}

/**
 * Hands the folder `path` (just made by root) to uid:gid, never through whatever was put at its name
 * since: opened with O_NOFOLLOW | O_DIRECTORY and changed on the open folder (fchown). A chown by name
 * followed a link the owner of the parent folder swapped in between the mkdir and the chown, and
 * gave away the link's target (found by an adversarial trial).
 */
export function chownNewFolder(path: string, uid: number, gid: number): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    fchownSync(fd, uid, gid);
  } finally {
    closeSync(fd);
  }
}

/**
 * The first symbolic link on `path` (any folder on the way, or the name itself) that a user other
 * than root owns, when the caller is root; undefined otherwise. Root following such a link writes
 * where that user chose (the kernel's fs.protected_symlinks rule, which covers only sticky
 * world-writable folders, applied to every folder). Links root owns (/var/run -> /run) are fine.
 */
export function foreignLinkOnPath(
  path: string,
  uid: number | undefined = process.getuid?.(),
): { link: string; owner: number; target: string } | undefined {
  if (uid !== 0) return undefined;
  let at = '/';
  for (const part of resolve(path).split('/').filter(Boolean)) {
    at = join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      return undefined; // not there yet: nothing further on the way exists either
    }
    if (!st.isSymbolicLink()) continue;
    let target = '?';
    try {
      target = readlinkSync(at);
    } catch {
      // gone meanwhile
    }
    if (st.uid !== 0) return { link: at, owner: st.uid, target };
    try {
      at = realpathSync(at);
    } catch {
      return undefined; // a root link to nowhere: nothing is written through it
    }
  }
  return undefined;
}

/**
 * Takes the group and other bits off a file of this user that exists already: the journal an older
 * punchgate made (before its files were 0600 whatever the umask) stayed 0644 after an upgrade, with
 * its -wal and -shm, while a new box's is 0600. Only bits are taken away, never added.
 *
 * By path, never by opening the file: closing any descriptor of a file drops every POSIX lock this
 * process holds on it, SQLite's included (a connection of this process may have it open). A link,
 * anything but a plain file, a file of another user, and (as root) a file in a folder that others
 * may write (where a name could be swapped for a link between the look and the change) are left.
 */
export function makeExistingFilePrivate(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return; // absent
  }
  if (!st.isFile() || (st.mode & 0o077) === 0) return;
  const uid = process.geteuid?.();
  if (uid === undefined || st.uid !== uid) return;
  if (uid === 0) {
    const dir = lstatSync(dirname(path));
    if (dir.uid !== 0 || (dir.mode & 0o022) !== 0) return;
  }
  chmodSync(path, st.mode & 0o700);
}
