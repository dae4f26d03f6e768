import { dirname } from 'node:path';
import { asFolderWriter } from '../util/folder-writer.js';
import { writePrivateFile } from '../util/private-file.js';
import { readSmallPlainFile, SmallFileRefused } from '../util/small-file.js';

/**
 * The last backup `punchgate backup` wrote, kept in a small file beside the journal
 * (`<journal>.last-backup.json`) so that `punchgate status`, `status --json`, the status page and
 * `punchgate check` can say when the journal was last saved, and warn when that is long ago. Nothing
 * said it before: a nightly timer that had failed for weeks was found only when a backup was needed.
 * The daemon never writes it and needs to know nothing of backups: each command reads it as it is.
 * Beside the journal, not in the backup folder: a backup may go anywhere, the journal's place is
 * known to every command (and named after the journal, a backup is never written over it).
 */
export interface LastBackup {
  /** When it was written (the box clock, ISO). */
  at: string;
  /** Where it was written (an absolute path). */
  path: string;
  punches: number;
  /** The newest log time in it, or null with no punch. */
  newest: string | null;
  bytes: number;
}

/** The record's file, beside the journal. */
export const lastBackupFile = (journalPath: string): string => `${journalPath}.last-backup.json`;

/**
 * Records a backup just written. Run as root into the service's folder, written as the folder's
 * owner (folder-writer.ts), so that the service user's next backup can replace it.
 */
export async function recordBackup(journalPath: string, b: LastBackup): Promise<void> {
  await asFolderWriter(dirname(journalPath), () =>
    Promise.resolve(writePrivateFile(lastBackupFile(journalPath), `${JSON.stringify(b, null, 2)}\n`)),
  );
}

/** What the record says: none (no backup recorded yet), the last backup, or why it cannot be read. */
export type LastBackupRecord =
  { kind: 'none' } | { kind: 'made'; backup: LastBackup } | { kind: 'unreadable'; why: string };

/** A record is a few hundred bytes: anything far larger is no record punchgate wrote. */
const MAX_RECORD_BYTES = 64 * 1024;

export function readLastBackup(journalPath: string): LastBackupRecord {
  const file = lastBackupFile(journalPath);
  let text: string;
  try {
    // Root reads it (status, check, restore) from the service user's folder: a link, a FIFO or a
    // huge file at its name is said as not a record, never followed, waited on or read whole.
    text = readSmallPlainFile(file, MAX_RECORD_BYTES);
  } catch (e) {
    if (e instanceof SmallFileRefused) return { kind: 'unreadable', why: e.message };
    const code = (e as { code?: string }).code ?? String(e);
    return code === 'ENOENT' ? { kind: 'none' } : { kind: 'unreadable', why: `${file}: ${code}` };
  }
  try {
    const b = JSON.parse(text) as Partial<LastBackup>;
    if (typeof b.at !== 'string' || !Number.isFinite(Date.parse(b.at)) || typeof b.path !== 'string')
      throw new Error('no time or path in it');
    return {
      kind: 'made',
      backup: {
        at: b.at,
        path: b.path,
        punches: typeof b.punches === 'number' ? b.punches : 0,
        newest: typeof b.newest === 'string' ? b.newest : null,
        bytes: typeof b.bytes === 'number' ? b.bytes : 0,
      },
    };
  } catch (e) {
    return {
      kind: 'unreadable',
      why: `${file} is not a backup record (${e instanceof Error ? e.message : String(e)})`,
    };
  }
}
