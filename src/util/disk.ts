import { existsSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';

const MiB = 1024 * 1024;
/** Below this the journal may soon fail with SQLITE_FULL: the daemon would exit. */
export const DISK_FAIL_BYTES = 16 * MiB;
/** Below this an HRMS outage of a few days could fill the disk. */
export const DISK_WARN_BYTES = 256 * MiB;

/** "120 MiB", "3.5 GiB"; below a MiB "300 KiB" or "512 bytes": a nearly full disk never reads "0 MiB free". */
export function humanBytes(bytes: number): string {
  if (bytes >= 1024 * MiB) return `${(bytes / (1024 * MiB)).toFixed(1)} GiB`;
  if (bytes >= MiB) return `${Math.floor(bytes / MiB)} MiB`;
  return bytes >= 1024 ? `${Math.floor(bytes / 1024)} KiB` : `${Math.max(0, Math.floor(bytes))} bytes`;
}

/** The deepest existing folder on the way to `path`'s folder (where the file is, or would be). */
export function existingFolderOf(path: string): string {
  let dir = dirname(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Free bytes an unprivileged writer can use on the file system of `path` (throws when it cannot tell). */
export function freeBytesAt(path: string, statfs: typeof statfsSync = statfsSync): number {
  const s = statfs(existingFolderOf(path));
  return Number(s.bavail) * Number(s.bsize);
}
