import { close, closeSync, constants, open, openSync, unlink, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Whether the journal's file system still takes writes, asked after a disk sync and before anyone
 * is told that what it synced is kept.
 *
 * Why a sync's success is not enough: Linux ext4 mounted errors=remount-ro (Debian's default for
 * the root file system) can end an fsync with success when a disk error aborts the file system's
 * own journal while that fsync runs, and the data it wrote is then not on the disk: a loop-mounted
 * ext4 on Linux 6.18, its error raised while a push terminal uploaded, answered one upload of 10
 * OK in about 1 run of 30 (strace: `fsync(wal) = 0` taking 6.5 ms instead of 1.5, begun as the
 * error was raised; after fsck the WAL ended before that upload's commit). Once that journal has
 * aborted, every change of a file system's metadata fails (EROFS, from the moment of the abort,
 * even before the kernel marks the mount read-only), and an abort that could undo the sync came
 * before the sync ended: a file made new beside the journal after the sync tells it. Other file
 * systems that fail as a whole (XFS shut down, Btrfs aborted) refuse it too (EIO, EROFS).
 *
 * The probe is a file of its own (`.journal.db.sync-probe-<pid>`), made with O_EXCL and
 * O_NOFOLLOW (never through a link someone planted) and removed at once.
 */

/** The codes by which a file system says it failed as a whole. */
const FAILED = new Set(['EROFS', 'EIO']);

/** Whether `e` says the file system failed (null: it took the probe, or the probe cannot tell). */
function failure(e: NodeJS.ErrnoException | null): NodeJS.ErrnoException | null {
  // No right to make a file there, no inode left, a name too long: the probe cannot tell, and the
  // sync's own answer stands (the journal's own writes say those things soon enough).
  return e && typeof e.code === 'string' && FAILED.has(e.code) ? e : null;
}

function probePath(journalPath: string): string {
  return join(dirname(journalPath), `.${basename(journalPath)}.sync-probe-${process.pid}`);
}

const PROBE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Calls back with the error when the journal's file system failed, null otherwise. In the thread
 * pool (three small metadata calls), never on the event loop.
 */
export function probeFileSystem(journalPath: string, done: (failed: NodeJS.ErrnoException | null) => void): void {
  const probe = probePath(journalPath);
  open(probe, PROBE_FLAGS, 0o600, (e, fd) => {
    // Left by a process killed between making and removing it: removing it asks the file system too.
    if (e?.code === 'EEXIST') return unlink(probe, (u) => done(failure(u)));
    if (e) return done(failure(e));
    close(fd, () => unlink(probe, () => done(null)));
  });
}

/** The same, at once (the journal's close, which answers its last waiters synchronously). */
export function probeFileSystemNow(journalPath: string): NodeJS.ErrnoException | null {
  const probe = probePath(journalPath);
  try {
    closeSync(openSync(probe, PROBE_FLAGS, 0o600));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code !== 'EEXIST') return failure(err);
    try {
      unlinkSync(probe);
      return null;
    } catch (u) {
      return failure(u as NodeJS.ErrnoException);
    }
  }
  try {
    unlinkSync(probe);
  } catch {
    // made, so the file system took it: removing it is tidiness, not the answer
  }
  return null;
}

/** probeFileSystem as a promise: resolves when the file system still takes writes, rejects when it failed. */
export function fileSystemStillWrites(journalPath: string): Promise<void> {
  return new Promise((resolve, reject) =>
    probeFileSystem(journalPath, (failed) => (failed ? reject(failed) : resolve())),
  );
}
