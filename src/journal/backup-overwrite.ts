import { lstatSync } from 'node:fs';
import { isMarkedBackupOfSite } from './backup-folder.js';
import { BackupTargetError } from './backup-target.js';

/**
 * A backup is renamed over its target: named after a file that is not a backup (`/etc/shadow` as
 * root, a report, another site's backup), that file was gone without a word. Only a backup of this
 * site's journal that punchgate made (its mark in the header: a copy of a
 * journal without it is not written over either) is written over (a nightly `backup today.db`); anything else
 * is refused unless `force`. A target that does not exist yet is free.
 */
export function refuseOverwrite(target: string, site: string, force: boolean): void {
  if (force) return;
  let st;
  try {
    st = lstatSync(target);
  } catch {
    return; // nothing there (or nothing this user can see: the copy then says why it cannot write)
  }
  if (st.isFile() && isMarkedBackupOfSite(target, site)) return;
  const what = st.isSymbolicLink()
    ? 'a symbolic link'
    : st.isFile()
      ? `a file of ${st.size.toLocaleString('en-US')} bytes that is not a punchgate backup of site ${site}`
      : 'not a regular file';
  throw new BackupTargetError(
    target,
    `it exists and is ${what}, and a backup replaces its target: name a new file, or a folder for dated backups ` +
      '(such as /var/lib/punchgate/backups); --force writes over it',
  );
}
