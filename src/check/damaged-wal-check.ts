import { damagedWalAlerts } from '../status/damaged-wal.js';
import { warn, type CheckResult } from './types.js';

/**
 * A damaged write-ahead log kept beside the journal (status/damaged-wal.ts): a warning in the
 * status's words while the copy is there. None kept is no line: nothing to say.
 */
export function checkDamagedWals(journalPath: string): CheckResult[] {
  return damagedWalAlerts(journalPath).map((a) => warn('journal log', a.cause, a.fix));
}
