import { checkSeal, type SealCheck } from './backup-seal.js';
import { JournalUnusableError } from './errors.js';
import { SCHEMA_VERSION } from './migrations.js';
import { refuseForeign } from './open-db.js';
import { schemaProblems } from './schema-check.js';
import type { Database } from './sqlite-driver.js';

/**
 * What `restore` and `restore --check` find in a backup before they trust it, in order: whole
 * (SQLite's integrity check), a punchgate journal, of a schema this punchgate knows, exactly
 * punchgate's schema, and (when all that holds) its seal. One list of checks; each command words
 * the refusal its own way (restore offers --force where it may).
 */
export type BackupFinding =
  | { kind: 'damaged'; detail: string }
  | { kind: 'not-journal'; detail: string }
  | { kind: 'newer'; schema: number }
  | { kind: 'foreign-schema'; problems: string[] }
  | { kind: 'readable'; schema: number; seal: SealCheck };

export function inspectBackup(db: Database, path: string): BackupFinding {
  let check: string;
  try {
    check = (db.pragma('integrity_check', { simple: true }) as string | undefined) ?? 'no answer';
  } catch (e) {
    check = e instanceof Error ? e.message : String(e);
  }
  if (check !== 'ok') return { kind: 'damaged', detail: check };
  try {
    refuseForeign(db, path);
  } catch (e) {
    return {
      kind: 'not-journal',
      detail: e instanceof JournalUnusableError ? 'it is not a punchgate journal' : String(e),
    };
  }
  // Before the schema and the seal: a newer punchgate may seal its backups in a way this one does not know.
  const schema = db.pragma('user_version', { simple: true }) as number;
  if (schema > SCHEMA_VERSION) return { kind: 'newer', schema };
  // Exactly the schema punchgate makes at its version: a trigger or view of anyone else's would
  // act on every punch journalled after a restore.
  const problems = schemaProblems(db);
  if (problems.length > 0) return { kind: 'foreign-schema', problems };
  // The rows as they were written: the integrity check sees the file's structure, not a byte
  // changed inside a row (an employee code, a time), which the seal's digest does.
  return { kind: 'readable', schema, seal: checkSeal(db) };
}
