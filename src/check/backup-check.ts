import { backupAlert, backupLine, backupStatus } from '../status/backup.js';
import { pass, warn, type CheckResult } from './types.js';

/**
 * The last backup `punchgate backup` recorded beside the journal: the status's alert (older than
 * journal.backupAlertAfterDays, or a record that cannot be read) is a warning here, in its words.
 * None recorded is no warning: the box may be backed up otherwise; the line says so.
 */
export function checkBackup(journalPath: string, alertAfterDays: number, now: number): CheckResult {
  const b = backupStatus(journalPath, alertAfterDays);
  const alert = backupAlert(b, now);
  return alert ? warn('backup', alert.cause, alert.fix) : pass('backup', backupLine(b));
}
