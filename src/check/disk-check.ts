import { existsSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { errorText, fail, pass, warn, type CheckResult } from './types.js';

const MiB = 1024 * 1024;
/** Below this the journal may soon fail with SQLITE_FULL: the daemon would exit. */
export const DISK_FAIL_BYTES = 16 * MiB;
/** Below this an HRMS outage of a few days could fill the disk. */
export const DISK_WARN_BYTES = 256 * MiB;

function human(bytes: number): string {
  if (bytes >= 1024 * MiB) return `${(bytes / (1024 * MiB)).toFixed(1)} GiB`;
  return `${Math.floor(bytes / MiB)} MiB`;
}

/** Free space where the journal lives (what an unprivileged writer can use). */
export function checkDisk(journalPath: string, statfs: typeof statfsSync = statfsSync): CheckResult {
  let dir = dirname(journalPath);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  let free: number;
  try {
    const s = statfs(dir);
    free = Number(s.bavail) * Number(s.bsize);
  } catch (e) {
    return warn('disk', `cannot read the free space of ${dir}: ${errorText(e)}`);
  }
  const fix = `free space on the file system of ${dir} (old logs, packages: apt-get clean, journalctl --vacuum-size=100M), or move journal.path to a larger disk`;
  if (free < DISK_FAIL_BYTES)
    return fail('disk', `only ${human(free)} free at ${dir}: the journal cannot take new punches for long`, fix);
  if (free < DISK_WARN_BYTES) return warn('disk', `only ${human(free)} free at ${dir}`, fix);
  return pass('disk', `${human(free)} free at ${dir}`);
}
