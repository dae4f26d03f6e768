import { EXIT, ExitError } from '../util/exit-codes.js';
import { summarize, type JournalSummary } from './backup.js';
import { inspectBackup } from './backup-checks.js';
import type { SealCheck } from './backup-seal.js';
import { SCHEMA_VERSION } from './migrations.js';
import { openBackupSource, refuseForeignBackupLink } from './backup-source.js';
import { checkBackupFile } from './restore.js';

export interface VerifiedBackup {
  summary: JournalSummary;
  seal: SealCheck;
}

/**
 * `punchgate restore --check FILE`: the checks restore makes of a backup, without restoring it
 * and without the journal (a backup copied off the box can be checked where it is): SQLite's
 * integrity check, a punchgate journal of exactly its schema, and its seal (backup-seal.ts), so
 * that a byte changed inside a row is found before the day the backup is needed. Read only.
 * A damaged or changed backup is an ExitError (65, as restore says it); a backup without a seal
 * passes with `seal.state` none, for the caller to say it could not be verified.
 */
export function verifyBackup(path: string, journalPath: string): VerifiedBackup {
  refuseForeignBackupLink(path);
  checkBackupFile(path, journalPath);
  const db = openBackupSource(path);
  const refuse = (problem: string, code: number = EXIT.DATAERR) =>
    new ExitError(`${path} would not be restored: ${problem}`, code);
  try {
    const found = inspectBackup(db, path);
    if (found.kind === 'damaged')
      throw refuse(`it is damaged (SQLite's integrity check: ${found.detail}): use an older backup`);
    if (found.kind === 'not-journal') throw refuse(found.detail);
    if (found.kind === 'newer')
      throw refuse(
        `it was written by a newer punchgate (schema ${found.schema}; this one knows up to ${SCHEMA_VERSION})`,
      );
    if (found.kind === 'foreign-schema')
      throw refuse(`it holds a schema that is not punchgate's (${found.problems.slice(0, 4).join('; ')})`, EXIT.IOERR);
    const seal = found.seal;
    if (seal.state === 'changed')
      throw refuse(
        `${seal.why}: a byte of it was changed after it was written (a failing disk or copy): use another copy of it, or another backup`,
      );
    return { summary: summarize(db, path), seal };
  } finally {
    db.close();
  }
}
