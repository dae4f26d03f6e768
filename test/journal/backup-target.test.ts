import { mkdirSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { backupJournal } from '../../src/journal/backup.js';
import { ownBackupsFilling } from '../../src/journal/backup-folder.js';
import { folderProblem, targetFailure } from '../../src/journal/backup-target.js';
import { Journal } from '../../src/journal/index.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** The errno a file system gives, as Node reports it (a read-only disk cannot be mounted in a test). */
const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe('what a backup that cannot be written says (found by an adversarial trial)', () => {
  it('a read-only file system is said as such with its fix, not as a permission of this user', () => {
    const t = tempDir('punchgate-target-');
    cleanups.push(t.cleanup);
    const e = targetFailure(t.path('b.db'), errno('EROFS'));
    expect(e.message).toBe(
      `cannot write the backup ${t.path('b.db')}: the file system of ${t.dir} is mounted read-only (EROFS): remount it read-write (mount -o remount,rw), or write the backup to another disk`,
    );
    expect(e.message).not.toContain('run as the user');
  });

  it('a folder that cannot be made: a file on the way, or a missing folder, by the nearest part that exists', () => {
    const t = tempDir('punchgate-target-');
    cleanups.push(t.cleanup);
    writeFileSync(t.path('notes'), 'x');
    expect(folderProblem(t.path('notes/a/b'), 'ENOTDIR', true)).toBe(
      `${t.path('notes')} is a file, not a folder (ENOTDIR): name a folder, or move that file away`,
    );
    mkdirSync(t.path('d'));
    expect(targetFailure(t.path('d/x/b.db'), errno('ENOENT')).message).toContain(
      `the folder ${t.path('d/x')} does not exist`,
    );
    expect(targetFailure(t.path('b.db'), errno('ENOSPC')).message).toContain('the disk is full (ENOSPC)');
  });

  it('a full disk where the dated backups go names how many of them fill it and the oldest to remove: --keep never removes before a new one is written', async () => {
    const t = tempDir('punchgate-target-');
    cleanups.push(t.cleanup);
    const journal = t.path('journal.db');
    const j = Journal.open({ path: journal, site: 'plant-a', mode: 'owner' });
    j.ingest([{ terminal: 'gate-1', biometricCode: '1001', logTime: '2026-11-20 08:00:00' }]);
    mkdirSync(t.path('bk'));
    await backupJournal(journal, t.path('bk/punchgate-plant-a-20261120T043000Z.db'));
    j.ingest([{ terminal: 'gate-1', biometricCode: '1002', logTime: '2026-11-21 08:00:00' }]);
    j.close();
    await backupJournal(journal, t.path('bk/punchgate-plant-a-20261121T043000Z.db'));
    expect(targetFailure(t.path('bk/x.db'), errno('SQLITE_FULL')).diskFull).toBe(true);
    expect(ownBackupsFilling(t.path('bk'), 'plant-a')).toMatch(
      new RegExp(
        `^; the folder holds 2 backups of plant-a \\([\\d.]+ MB\\): --keep removes older ones only after a new one is written, so remove the oldest by hand \\(rm ${t.path('bk/punchgate-plant-a-20261120T043000Z.db')}\\), or keep fewer$`,
      ),
    );
    expect(ownBackupsFilling(t.path('bk'), 'plant-b')).toBe('');
  });

  it("an I/O error of the copy is the backup disk's, not the journal's (the journal is only read)", () => {
    const e = targetFailure('/mnt/usb/b.db', errno('SQLITE_IOERR'));
    expect(e.message).toContain(
      'cannot write the backup /mnt/usb/b.db: the disk of /mnt/usb reports an I/O error (SQLITE_IOERR)',
    );
  });
});
