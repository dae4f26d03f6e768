import { statSync } from 'node:fs';
import { EXIT, ExitError } from './exit-codes.js';

/**
 * Run as root, a command that makes files in a folder another user owns (`punchgate backup` into
 * the service's backup folder, `punchgate restore` into its journal folder) makes them as that
 * user: its effective uid, gid and groups for the time of the work.
 *
 * Why: that user may rename anything in its folder at any moment. Opening a new file with
 * O_EXCL | O_NOFOLLOW guards the open, but SQLite opens the file again by its name (the backup's
 * steps, its rollback journal), and the user can put a link to a root file under that name in
 * between: an adversarial trial won that race and had root write a journal over a root-only file
 * (3 restores in 5). As the folder's owner, whatever a planted link points at is written with
 * that user's rights, which the user has anyway.
 *
 * A folder root owns that others may write (group or world, without the sticky bit) has no one
 * user to act as: refused. CLI commands only: the effective ids are the whole process's.
 */
export async function asFolderWriter<T>(
  folder: string,
  work: () => Promise<T>,
  uid: number | undefined = process.getuid?.(),
): Promise<T> {
  if (uid !== 0 || !process.seteuid || !process.setegid || !process.setgroups || !process.getgroups) return work();
  let st;
  try {
    st = statSync(folder);
  } catch {
    return work(); // not there or not readable: the work says so in its own words
  }
  if (st.uid === 0) {
    if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0)
      throw new ExitError(
        `${folder} is root's but other users may write in it (mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}): ` +
          'root does not make files where another user can swap them for links; chmod go-w it, or pick a folder of the service user',
        EXIT.IOERR,
      );
    return work();
  }
  const groups = process.getgroups();
  process.setgroups([st.gid]);
  process.setegid(st.gid);
  process.seteuid(st.uid);
  try {
    return await work();
  } finally {
    process.seteuid(0);
    process.setegid(0);
    process.setgroups(groups);
  }
}
