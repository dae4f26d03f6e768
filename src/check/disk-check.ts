import type { statfsSync } from 'node:fs';
import { DISK_FAIL_BYTES, DISK_WARN_BYTES, existingFolderOf, freeBytesAt, humanBytes as human } from '../util/disk.js';
import { errorText, fail, pass, warn, type CheckResult } from './types.js';

export { DISK_FAIL_BYTES, DISK_WARN_BYTES };

/** Free space where the journal lives (what an unprivileged writer can use). */
export function checkDisk(journalPath: string, statfs?: typeof statfsSync): CheckResult {
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
  return pass('disk', `${human(free)} free at ${dir}`);
}
