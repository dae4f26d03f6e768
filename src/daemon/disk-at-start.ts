import type { Logger } from '../util/logger.js';
import { ALERT } from '../status/alert-words.js';
import { DISK_FAIL_BYTES, DISK_WARN_BYTES, freeBytesAt } from '../util/disk.js';

/**
 * Says at start when the journal's disk is already low on space: the status alerted on it, but
 * the log said nothing until then (a new-admin trial). The words are the status's alert, with the
 * free space and the threshold the daemon judges by. Returns the free bytes (null: unknown).
 */
export function warnLowDiskAtStart(
  journalPath: string,
  logger: Logger,
  freeBytes: (path: string) => number = freeBytesAt,
): number | null {
  let free: number;
  try {
    free = freeBytes(journalPath);
  } catch {
    return null; // cannot tell: the status and check say so in their own lines
  }
  if (free >= DISK_WARN_BYTES) return free;
  const a = ALERT.disk(free, free < DISK_FAIL_BYTES);
  logger.warn(
    { freeBytes: free, thresholdBytes: DISK_WARN_BYTES, failBelowBytes: DISK_FAIL_BYTES, journal: journalPath },
    `${a.cause} (the daemon warns below ${DISK_WARN_BYTES / (1024 * 1024)} MiB): ${a.fix}`,
  );
  return free;
}
