import { readLastBackup } from '../journal/last-backup.js';
import { localTimeOf } from '../util/local-time.js';
import type { Alert, BackupStatus } from './types.js';

const DAY = 86_400_000;

/** The last backup as the status shows it, read from its record each time (the daemon keeps nothing of it). */
export function backupStatus(journalPath: string, alertAfterDays: number): BackupStatus {
  const r = readLastBackup(journalPath);
  if (r.kind === 'made') return { lastAt: r.backup.at, path: r.backup.path, punches: r.backup.punches, alertAfterDays };
  return {
    lastAt: null,
    path: null,
    punches: null,
    alertAfterDays,
    ...(r.kind === 'unreadable' ? { unreadable: r.why } : {}),
  };
}

/** `last backup: 2026-11-30 04:30:12 +01:00, /var/lib/punchgate/backups/....db (48,213 punches)`, or why none shows. */
export function backupLine(b: BackupStatus): string {
  if (b.unreadable) return `last backup: not known: ${b.unreadable}`;
  if (!b.lastAt) return 'last backup: none recorded on this box (punchgate backup; docs/backup.md)';
  return `last backup: ${localTimeOf(b.lastAt)}, ${b.path} (${(b.punches ?? 0).toLocaleString('en-US')} punches)`;
}

const BACKUP_FIX =
  'see why the nightly backup stopped: systemctl list-timers punchgate-backup.timer and journalctl -u punchgate-backup -n 20; ' +
  'make one now: sudo -u punchgate punchgate backup /var/lib/punchgate/backups --keep 14';

/**
 * The alert of a backup older than `alertAfterDays`, once backups were made on this box (a box
 * never backed up by punchgate may be saved otherwise: that is said in the status line, not alerted).
 * A record that cannot be read is one too: the last backup is then not known.
 */
export function backupAlert(b: BackupStatus, now: number): Alert | undefined {
  if (b.unreadable)
    return {
      kind: 'backup-unknown',
      cause: `when the journal was last backed up is not known: ${b.unreadable}`,
      fix: `the next punchgate backup writes it again; ${BACKUP_FIX}`,
    };
  if (!b.lastAt || b.alertAfterDays <= 0) return undefined;
  const age = now - Date.parse(b.lastAt);
  // A record dated ahead of the clock (made while the box's clock ran ahead, later set right) would
  // never grow old enough to alert: the backups could stop for as long as the clock was ahead, unsaid.
  if (age < -DAY) {
    const days = Math.floor(-age / DAY);
    return {
      kind: 'backup-unknown',
      cause: `the last backup's record is dated ${localTimeOf(b.lastAt)}, ${days} ${days === 1 ? 'day' : 'days'} ahead of this box's clock (the clock ran ahead when it was made, or is behind now): whether backups still run cannot be told from it`,
      fix: `check the box's clock (timedatectl); the next punchgate backup records it again; ${BACKUP_FIX}`,
    };
  }
  if (age <= b.alertAfterDays * DAY) return undefined;
  const days = Math.floor(age / DAY);
  return {
    kind: 'backup-old',
    cause: `the last backup of the journal is ${days} ${days === 1 ? 'day' : 'days'} old (${localTimeOf(b.lastAt)}, ${b.path}; journal.backupAlertAfterDays: ${b.alertAfterDays}): punches since then are in no backup`,
    fix: BACKUP_FIX,
  };
}
