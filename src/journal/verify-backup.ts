import { EXIT, ExitError } from '../util/exit-codes.js';
import { summarize, type JournalSummary } from './backup.js';
import { checkSeal, type SealCheck } from './backup-seal.js';
import { JournalUnusableError } from './errors.js';
import { SCHEMA_VERSION } from './migrations.js';
import { refuseForeign } from './open-db.js';
import { checkBackupFile, openBackup } from './restore.js';
import { schemaProblems } from './schema-check.js';

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
  checkBackupFile(path, journalPath);
  const db = openBackup(path);
  const refuse = (problem: string, code: number = EXIT.DATAERR) =>
    new ExitError(`${path} would not be restored: ${problem}`, code);
  try {
    let check: string;
    try {
      check = (db.pragma('integrity_check', { simple: true }) as string | undefined) ?? 'no answer';
    } catch (e) {
      check = e instanceof Error ? e.message : String(e);
    }
    if (check !== 'ok') throw refuse(`it is damaged (SQLite's integrity check: ${check}): use an older backup`);
    try {
      refuseForeign(db, path);
    } catch (e) {
      throw refuse(e instanceof JournalUnusableError ? 'it is not a punchgate journal' : String(e));
    }
    const schema = db.pragma('user_version', { simple: true }) as number;
    if (schema > SCHEMA_VERSION)
      throw refuse(`it was written by a newer punchgate (schema ${schema}; this one knows up to ${SCHEMA_VERSION})`);
    const foreign = schemaProblems(db);
    if (foreign.length > 0)
      throw refuse(`it holds a schema that is not punchgate's (${foreign.slice(0, 4).join('; ')})`, EXIT.IOERR);
    const seal = checkSeal(db);
    if (seal.state === 'changed')
      throw refuse(
        `${seal.why}: a byte of it was changed after it was written (a failing disk or copy): use another copy of it, or another backup`,
      );
    return { summary: summarize(db, path), seal };
  } finally {
    db.close();
  }
}
