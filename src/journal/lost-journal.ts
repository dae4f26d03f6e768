import { statSync } from 'node:fs';
import { JournalUnusableError } from './errors.js';
import { lastBackupFile, readLastBackup } from './last-backup.js';

/**
 * Before `punchgate run` makes a new journal where none is: is there a sign that one was here and
 * is gone (a failing SD card that lost the file, an `rm`, a cleaner)? Then a new, empty journal
 * would forget every punch the old one still owed without a word, and the daemon would go on as
 * on a first start (found by a damaged-journal trial: it did, with the owed punches' backup and
 * write-ahead log beside it). The signs are files only a journal that lived here leaves: its
 * write-ahead log with frames in it (SQLite would also lay its pages over the new file: "damaged"
 * at once, and the log, the only copy of the last punches, written to), and the record of a
 * backup of it (last-backup.ts). The refusal says what was there and the two ways on: restore, or
 * start empty on purpose by moving the sign away. Nothing is made or changed.
 */
export function lostJournalProblem(path: string): JournalUnusableError | undefined {
  const wal = `${path}-wal`;
  const walBytes = sizeOf(wal);
  const record = readLastBackup(path);
  const restore =
    record.kind === 'made'
      ? `restore the newest backup (the last one recorded is ${record.backup.path}, written ${record.backup.at}: punchgate restore ${record.backup.path}; see backup.md), then import the terminals' logs since it`
      : `restore the newest backup (punchgate restore FILE; see backup.md), then import the terminals' logs since it`;
  if (walBytes > 0)
    return new JournalUnusableError(
      path,
      `does not exist, but its write-ahead log ${wal} (${walBytes} bytes) is there: the journal was lost or removed since punchgate last wrote it (a failing card, an rm), with the punches it still owed; a new journal would take that log's pages and be damaged, so none was made`,
      `${restore} (restore keeps the log aside as ${path}.lost-wal-<time>: it holds the lost journal's last writes); to start with a new, empty journal on purpose, move the log away (mv ${wal} ${path}.lost-wal) and start punchgate`,
    );
  if (record.kind === 'made')
    return new JournalUnusableError(
      path,
      `does not exist, but ${lastBackupFile(path)} records a backup of it (${record.backup.punches.toLocaleString('en-US')} punches, ${record.backup.at}): the journal was lost or removed (a failing card, an rm), with the punches it still owed, so no new one was made`,
      `${restore}; to start with a new, empty journal on purpose, remove ${lastBackupFile(path)} and start punchgate`,
    );
  return undefined;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
