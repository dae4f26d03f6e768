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
  const owner = otherOwner(folder, uid, 'make files');
  if (!owner) return work();
  const back = actAs(owner);
  try {
    return await work();
  } finally {
    back();
  }
}

/**
 * Run as root, a command that reads a file in a folder another user owns (`punchgate restore FILE`
 * of a backup in the service's backup folder) opens it as that user, as a writer does; `work` gets
 * that uid (undefined when the ids were not switched).
 *
 * Why: that user may put a link at the file's name at any moment, between root's look and SQLite's
 * open by name, and root would read whatever the link points at (a file only root may read) into a
 * journal that user then reads. As the folder's owner, a link leads only where that user may read
 * anyway. Synchronous: the ids are switched back before anything else of this process runs.
 */
export function asFolderReader<T>(
  folder: string,
  work: (actingUid: number | undefined) => T,
  uid: number | undefined = process.getuid?.(),
): T {
  const owner = otherOwner(folder, uid, 'read files');
  if (!owner) return work(undefined);
  const back = actAs(owner);
  try {
    return work(owner.uid);
  } finally {
    back();
  }
}

/**
 * The owner to act as in `folder` when the caller is root and another user owns it; undefined to
 * go on as the caller. A root folder others may write (without the sticky bit) is refused.
 */
function otherOwner(folder: string, uid: number | undefined, doing: string): { uid: number; gid: number } | undefined {
  if (uid !== 0 || !process.seteuid || !process.setegid || !process.setgroups || !process.getgroups) return undefined;
  let st;
  try {
    st = statSync(folder);
  } catch {
    return undefined; // not there or not readable: the work says so in its own words
  }
  if (st.uid !== 0) return { uid: st.uid, gid: st.gid };
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0)
    throw new ExitError(
      `${folder} is root's but other users may write in it (mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}): ` +
        `root does not ${doing} where another user can swap them for links; chmod go-w it, or pick a folder of the service user`,
      EXIT.IOERR,
    );
  return undefined;
}

/** Takes on `owner`'s effective ids (root's process); returns the way back to root. */
function actAs(owner: { uid: number; gid: number }): () => void {
  const groups = process.getgroups!();
  process.setgroups!([owner.gid]);
  process.setegid!(owner.gid);
  process.seteuid!(owner.uid);
  return () => {
    process.seteuid!(0);
    process.setegid!(0);
    process.setgroups!(groups);
  };
}
