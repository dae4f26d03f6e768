import { lstatSync } from 'node:fs';
import { backupContent } from './backup-folder.js';
import { BackupTargetError } from './backup-target.js';
import { Database } from './sqlite-driver.js';

/**
 * A backup is renamed over its target: named after a file that is not a backup (`/etc/shadow` as
 * root, a report, another site's backup), that file was gone without a word. Written over without
 * `force`: a backup of this site's journal that punchgate made, with its mark in the header (a
 * nightly `backup today.db`), or without it (made before the mark existed) when its content says
 * what it is: a single file of exactly punchgate's schema, this site's punches, every one of them
 * also in the journal now, so that the new backup holds all it held. A copy of a journal kept
 * aside (by restore, or by hand) that holds punches the journal no longer has (pruned, or never
 * there) is refused, as is anything else. A target that does not exist yet is free.
 */
export function refuseOverwrite(target: string, site: string, force: boolean, journalPath: string): void {
  if (force) return;
  let st;
  try {
    st = lstatSync(target);
  } catch {
    return; // nothing there (or nothing this user can see: the copy then says why it cannot write)
  }
  const content = st.isFile() ? backupContent(target, site) : undefined;
  if (content?.marked) return;
  const missing = content ? punchesNotIn(target, journalPath) : undefined;
  if (missing === 0) return;
  const what = st.isSymbolicLink()
    ? 'a symbolic link'
    : !st.isFile()
      ? 'not a regular file'
      : missing !== undefined && missing > 0
        ? `a copy of site ${site}'s journal without a backup's mark that holds ${missing.toLocaleString('en-US')} ${missing === 1 ? 'punch' : 'punches'} the journal no longer has (and the new backup would not)`
        : `a file of ${st.size.toLocaleString('en-US')} bytes that is not a punchgate backup of site ${site}`;
  throw new BackupTargetError(
    target,
    `it exists and is ${what}, and a backup replaces its target: name a new file, or a folder for dated backups ` +
      '(such as /var/lib/punchgate/backups); --force writes over it',
  );
}

/**
 * How many punches of `file` the journal does not hold, by a punch's identity (its device's serial
 * number, else its terminal's name; the code; the log time): the identity the journal keeps a punch
 * once by. Undefined when it cannot be told (then the file is not written over).
 */
function punchesNotIn(file: string, journalPath: string): number | undefined {
  let db: Database | undefined;
  try {
    db = new Database(journalPath, { readonly: true, fileMustExist: true, timeout: 5000 });
    // Attached read-only, as the connection is opened (SQLite gives an attached file the same flags).
    db.prepare('ATTACH DATABASE ? AS old').run(file);
    const r = db
      .prepare(
        `SELECT count(*) AS n FROM old.punches o WHERE NOT EXISTS (
           SELECT 1 FROM main.punches p WHERE p.device = o.device AND p.device <> ''
             AND p.log_time = o.log_time AND p.biometric_code = o.biometric_code)
         AND NOT EXISTS (
           SELECT 1 FROM main.punches p WHERE p.device = '' AND o.device = '' AND p.terminal = o.terminal
             AND p.log_time = o.log_time AND p.biometric_code = o.biometric_code)`,
      )
      .get() as { n: number };
    return r.n;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}
