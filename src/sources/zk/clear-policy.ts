import { wallClockAt } from '../../punch.js';
import type { ZkAttendance } from '../../sources/zk/protocol/index.js';
import type { DeliveryCheck } from '../types.js';

export interface ClearDecision {
  clear: boolean;
  reason: string;
}

/**
 * `clearAfterDays`: a terminal's log is cleared only when every record on it is in the
 * journal and delivered, and its oldest record is older than N days. The caller must
 * still re-read the record count just before clearing (it may have grown).
 */
export function decideClear(args: {
  terminal: string;
  device: string;
  records: readonly ZkAttendance[];
  clearAfterDays: number | undefined;
  timezone: string | undefined;
  now: number;
  check: DeliveryCheck;
}): ClearDecision {
  const { records, clearAfterDays } = args;
  if (!clearAfterDays) return { clear: false, reason: 'clearAfterDays is off' };
  if (records.length === 0) return { clear: false, reason: 'the log is empty' };
  const oldest = records.reduce((min, r) => (r.logTime < min ? r.logTime : min), records[0]!.logTime);
  const cutoff = wallClockAt(args.now - clearAfterDays * 86_400_000, args.timezone);
  if (oldest >= cutoff)
    return { clear: false, reason: `oldest record ${oldest} is not older than ${clearAfterDays} days` };
  const delivered = args.check.deliveredAmong(
    args.terminal,
    args.device,
    records.map((r) => ({ biometricCode: r.userId, logTime: r.logTime })),
  );
  if (delivered !== records.length) {
    return { clear: false, reason: `${records.length - delivered} of ${records.length} records are not delivered yet` };
  }
  return { clear: true, reason: `all ${records.length} records delivered; oldest ${oldest}` };
}
