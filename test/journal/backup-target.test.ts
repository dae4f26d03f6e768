import { mkdirSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { folderProblem, targetFailure } from '../../src/journal/backup-target.js';
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
});
