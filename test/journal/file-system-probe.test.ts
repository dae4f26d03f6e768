import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { fileSystemStillWrites, probeFileSystem, probeFileSystemNow } from '../../src/journal/file-system-probe.js';
import { tempDir } from '../helpers/tmp.js';

const asRoot = process.getuid?.() === 0;
const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function folder() {
  const tmp = tempDir('punchgate-probe-');
  cleanups.push(tmp.cleanup);
  return tmp;
}

const probeName = `.j.db.sync-probe-${process.pid}`;
const asked = (path: string) => new Promise<NodeJS.ErrnoException | null>((resolve) => probeFileSystem(path, resolve));

describe('the file system probe after a disk sync', () => {
  it('takes a file beside the journal and leaves nothing behind', async () => {
    const tmp = folder();
    expect(await asked(tmp.path('j.db'))).toBeNull();
    expect(probeFileSystemNow(tmp.path('j.db'))).toBeNull();
    await fileSystemStillWrites(tmp.path('j.db'));
    expect(readdirSync(tmp.path('.'))).toEqual([]);
  });

  it('a probe left by a killed process is removed, and a link planted at its name is never followed', async () => {
    const tmp = folder();
    writeFileSync(tmp.path(probeName), '');
    expect(await asked(tmp.path('j.db'))).toBeNull();
    expect(existsSync(tmp.path(probeName))).toBe(false);
    writeFileSync(tmp.path('target'), 'keep me');
    symlinkSync(tmp.path('target'), tmp.path(probeName));
    expect(probeFileSystemNow(tmp.path('j.db'))).toBeNull();
    expect(readFileSync(tmp.path('target'), 'utf8')).toBe('keep me');
    expect(() => lstatSync(tmp.path(probeName))).toThrow(/ENOENT/);
  });

  it.skipIf(asRoot)('a folder this user may not write to cannot tell: the sync stands', async () => {
    const tmp = folder();
    mkdirSync(tmp.path('locked'), { mode: 0o500 });
    cleanups.push(() => spawnSync('chmod', ['700', tmp.path('locked')]));
    expect(await asked(tmp.path('locked/j.db'))).toBeNull();
  });

  // A real read-only file system: tmpfs mounted ro (root; the CI runs as root).
  it.skipIf(!asRoot)('a file system that went read-only refuses it (EROFS): the sync is not trusted', async () => {
    const tmp = folder();
    mkdirSync(tmp.path('ro'));
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', tmp.path('ro')]).status !== 0) return;
    cleanups.push(() => spawnSync('umount', [tmp.path('ro')]));
    expect((await asked(tmp.path('ro/j.db')))?.code).toBe('EROFS');
    expect(probeFileSystemNow(tmp.path('ro/j.db'))?.code).toBe('EROFS');
    await expect(fileSystemStillWrites(tmp.path('ro/j.db'))).rejects.toMatchObject({ code: 'EROFS' });
  });
});
