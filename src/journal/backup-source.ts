import { dirname, resolve } from 'node:path';
import { EXIT, ExitError } from '../util/exit-codes.js';
import { asFolderReader } from '../util/folder-writer.js';
import { foreignLinkOnPath } from '../util/private-file.js';
import { Database } from './sqlite-driver.js';

/**
 * Opens the backup `punchgate restore` (or `restore --check`) reads, read-only. Run as root, never
 * where the service user chose: a link another user owns on its path (its backups folder swapped
 * for a link, a link planted at the file's name) is refused, and a file in a folder another user
 * owns is opened as that user (folder-writer.ts), since that user may swap the file for a link
 * after any look. Root following such a link copied a file only root may read into the journal
 * folder, the service user's (a known left-out of earlier rounds). Links root owns are followed.
 * SQLite keeps the file open: what it reads later comes from the file opened here.
 */
export function openBackupSource(backupPath: string): Database {
  refuseForeignBackupLink(backupPath);
  const folder = dirname(resolve(backupPath));
  return asFolderReader(folder, (actingUid) => {
    try {
      return new Database(backupPath, { readonly: true, fileMustExist: true });
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      if (actingUid !== undefined && /^SQLITE_(CANTOPEN|PERM)|^(EACCES|EPERM)$/.test(code))
        throw new ExitError(
          `${backupPath} cannot be read by uid ${actingUid}, the owner of its folder ${folder}: root reads a backup there as that user ` +
            '(who could put a link to any file at its name); give it to that user ' +
            `(chown ${actingUid} ${backupPath}) or move it to a folder of root's; nothing was changed`,
          EXIT.IOERR,
        );
      throw badBackup(backupPath, e);
    }
  });
}

/**
 * Run as root: a symbolic link another user owns on the backup's path is refused (74), before
 * anything of what it points at is looked at (its type and size included).
 */
export function refuseForeignBackupLink(backupPath: string): void {
  const link = foreignLinkOnPath(backupPath);
  if (link)
    throw new ExitError(
      `${backupPath}: ${link.link} is a symbolic link (to ${link.target}) owned by uid ${link.owner}, not root: ` +
        "root does not read a backup through another user's link (it may lead to a file only root may read); " +
        'name the real file if it is meant, or remove the link; nothing was changed',
      EXIT.IOERR,
    );
}

/** A backup SQLite cannot open or read as a database: said as a bad backup (65), nothing changed. */
export function badBackup(path: string, e: unknown): ExitError {
  const code = (e as { code?: string }).code;
  const text = e instanceof Error ? e.message : String(e);
  return new ExitError(
    `${path} cannot be restored: it is not a readable SQLite file (${code ?? 'error'}: ${text}); nothing was changed: use another backup`,
    EXIT.DATAERR,
  );
}
