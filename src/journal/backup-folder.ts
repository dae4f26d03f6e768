import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { BACKUP_APPLICATION_ID } from './backup-mark.js';
import { refuseForeign } from './open-db.js';
import { SCHEMA_VERSION } from './migrations.js';
import { schemaProblems } from './schema-check.js';
import { Database } from './sqlite-driver.js';
import { chownNewFolder } from '../util/private-file.js';

/**
 * A folder of dated backups (`punchgate backup FOLDER --keep N`). What is removed is decided by
 * what the files are and hold, never by a name or a clock alone (issue 30: with the box clock
 * behind, the backup just written sorted oldest by name and was removed; a file that only had a
 * backup's name was removed; a folder with such a name failed the run):
 * - only regular files with a backup's name (`punchgate-<site>-<UTC time>[-n].db`) that are
 *   backups made by punchgate (its mark, application_id, or, for backups made before the mark, a
 *   punchgate journal of exactly punchgate's schema), holding this site's punches (or none), are
 *   ever removed;
 * - they are ordered by what they hold (the newest punch's row id: row ids only grow), then by name;
 * - the backup just written is never removed, whatever it holds or is called.
 */

/** Site names are letters, digits, `_` and `-` (config schema): nothing to escape in a pattern. */
const namePattern = (site: string) => new RegExp(`^punchgate-${site}-\\d{8}T\\d{6}Z(-\\d+)?\\.db$`);

const stampOf = (now: Date) =>
  now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/** A new backup's file in `folder`: dated by the box clock, never the name of a file already there. */
export function newBackupPath(folder: string, site: string, now: Date): string {
  const base = `punchgate-${site}-${stampOf(now)}`;
  let path = join(folder, `${base}.db`);
  for (let n = 2; existsSync(path) || existsSync(`${path}.partial-${process.pid}`); n++)
    path = join(folder, `${base}-${n}.db`);
  return path;
}

/**
 * Makes the backup folder when it does not exist yet: mode 0700 (backups hold employees' codes and
 * fingerprint templates of removed users); run as root, owned like the journal's folder, so that
 * the service's own backups can go there too. Returns whether it was made.
 */
export function makeBackupFolder(folder: string, journalPath: string): boolean {
  if (existsSync(folder)) return false;
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    let ref;
    try {
      ref = statSync(dirname(journalPath));
    } catch {
      // no journal folder to take the owner from: root keeps it
    }
    if (ref) {
      try {
        chownNewFolder(folder, ref.uid, ref.gid);
      } catch {
        // Not the folder just made (a link or a file put at its name since): nothing is written there.
        throw new Error(
          `${folder} was replaced by another file or a link while it was being made: nothing was written there; find out who writes in ${dirname(folder)} (only root and the service user should)`,
        );
      }
    }
  }
  return true;
}

/**
 * What a backup file holds, for ordering (--keep) and for `backup FILE` writing over it
 * (backup-overwrite.ts): whether it carries the mark; undefined when it is not a backup of
 * `site` punchgate made (or, without the mark, a single-file journal of exactly its schema).
 */
export function backupContent(path: string, site: string): { newestRow: number; marked: boolean } | undefined {
  // The header first, read as bytes: SQLite is not let near a file in WAL mode (it would make a
  // -wal and -shm beside a file that is not ours). A backup is always a single file.
  const header = Buffer.alloc(100);
  try {
    const fd = openSync(path, 'r');
    try {
      if (readSync(fd, header, 0, 100, 0) < 100) return undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (!header.subarray(0, 16).equals(Buffer.from('SQLite format 3\0', 'latin1'))) return undefined;
  if (header[18] === 2 || header[19] === 2) return undefined;
  const marked = header.readUInt32BE(68) === BACKUP_APPLICATION_ID;
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: 1000 });
    refuseForeign(db, path);
    // Exactly punchgate's schema, marked or not (backups made before the mark carry none): a file
    // with the mark and another program's trigger is not one punchgate made. A schema newer than
    // this punchgate knows cannot be judged: only with the mark.
    if (schemaProblems(db).length > 0) return undefined;
    if (!marked && (db.pragma('user_version', { simple: true }) as number) > SCHEMA_VERSION) return undefined;
    // Another site's backup under this site's name is not this site's to remove (its newest punch says).
    const r = db.prepare('SELECT id, site FROM punches ORDER BY id DESC LIMIT 1').get() as
      { id: number; site: string } | undefined;
    if (r && r.site !== site) return undefined;
    return { newestRow: r?.id ?? 0, marked };
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

export interface Pruned {
  removed: string[];
  /** Files with a backup's name that are not backups punchgate made: left alone. */
  notBackups: string[];
}

/** A backup of this site in a folder, as --keep judges it. */
export interface FolderBackup {
  name: string;
  newestRow: number;
  bytes: number;
}

/**
 * The backups of `site` punchgate made in `folder`, newest first (by what they hold), `except` the
 * file at that path; and the files that only have a backup's name.
 */
export function listBackups(
  folder: string,
  site: string,
  except?: string,
): { backups: FolderBackup[]; notBackups: string[] } {
  const pattern = namePattern(site);
  const mine = except === undefined ? undefined : statSync(except);
  const backups: FolderBackup[] = [];
  const notBackups: string[] = [];
  for (const name of readdirSync(folder).filter((n) => pattern.test(n))) {
    const path = join(folder, name);
    let st;
    try {
      st = lstatSync(path);
    } catch {
      continue;
    }
    if (mine && st.ino === mine.ino && st.dev === mine.dev) continue;
    const content = st.isFile() ? backupContent(path, site) : undefined;
    if (content) backups.push({ name, ...content, bytes: st.size });
    else notBackups.push(name);
  }
  backups.sort((a, b) => b.newestRow - a.newestRow || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  return { backups, notBackups };
}

/** Keeps the `keep` newest backups of `site` in `folder`, `written` (just made) always among them. */
export function pruneBackups(folder: string, site: string, keep: number, written: string): Pruned {
  const { backups, notBackups } = listBackups(folder, site, written);
  const removed: string[] = [];
  for (const b of backups.slice(Math.max(0, keep - 1))) {
    rmSync(join(folder, b.name));
    removed.push(b.name);
  }
  return { removed, notBackups };
}

/**
 * A full disk where the dated backups go: --keep removes the old ones only after a new one is
 * written, so once they fill the disk every nightly run failed and none was ever removed (found by
 * an adversarial trial). Says how many there are and which one to remove by hand.
 */
export function ownBackupsFilling(folder: string, site: string): string {
  let backups;
  try {
    backups = listBackups(folder, site).backups;
  } catch {
    return '';
  }
  if (backups.length === 0) return '';
  const total = backups.reduce((n, b) => n + b.bytes, 0);
  const oldest = backups[backups.length - 1]!.name;
  return (
    `; the folder holds ${backups.length} ${backups.length === 1 ? 'backup' : 'backups'} of ${site} (${(total / 1_048_576).toFixed(1)} MB): ` +
    `--keep removes older ones only after a new one is written, so remove the oldest by hand (rm ${join(folder, oldest)}), or keep fewer`
  );
}
