import type { statfsSync } from 'node:fs';
import { DISK_FAIL_BYTES, DISK_WARN_BYTES, existingFolderOf, freeBytesAt, humanBytes as human } from '../util/disk.js';
import { ALERT } from '../status/alert-words.js';
import { diskIsSlow } from '../status/alerts.js';
import type { DiskSyncFigures } from '../status/types.js';
import { errorText, fail, pass, warn, type CheckResult } from './types.js';

export { DISK_FAIL_BYTES, DISK_WARN_BYTES };

/**
 * Free space where the journal lives (what an unprivileged writer can use), and, where the daemon
 * runs, how long it said the disk took to sync lately (`diskSync`, its status.json): a disk slow
 * to sync is the same warning the status gives.
 */
export function checkDisk(journalPath: string, statfs?: typeof statfsSync, diskSync?: DiskSyncFigures): CheckResult {
  const dir = existingFolderOf(journalPath);
  let free: number;
  try {
    free = freeBytesAt(journalPath, statfs);
  } catch (e) {
    return warn('disk', `cannot read the free space of ${dir}: ${errorText(e)}`);
  }
  const fix = `free space on the file system of ${dir} (old logs, packages: apt-get clean, journalctl --vacuum-size=100M), or move journal.path to a larger disk`;
  if (free < DISK_FAIL_BYTES)
    return fail('disk', `only ${human(free)} free at ${dir}: the journal cannot take new punches for long`, fix);
  if (free < DISK_WARN_BYTES) return warn('disk', `only ${human(free)} free at ${dir}`, fix);
  if (diskSync && diskIsSlow(diskSync)) {
    const slow = ALERT.journalDiskSlow(diskSync);
    return warn('disk', `${human(free)} free at ${dir}, but ${slow.cause}`, slow.fix);
  }
  const pace = diskSync
    ? `; nine syncs in ten took ${(diskSync.p90Ms / 1000).toFixed(2)} s or less over the last ${diskSync.windowMinutes} min`
    : '';
  return pass('disk', `${human(free)} free at ${dir}${pace}`);
}
