import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalUnusableError } from '../../src/journal/errors.js';
import { Journal } from '../../src/journal/journal.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A command that journalled with SQLite's own sync (an import) asks the file system before it says
 * what it kept: on a real ext4 disk made read-only by its error, `confirmWritable` refuses with the
 * journal's words for that (exit 75's kind, with fsck and the remount as the fix), and on a sound
 * one it passes. Root, a loop device and ext4 (skipped otherwise).
 */
const asRoot = process.getuid?.() === 0;
const tools = ['mkfs.ext4', 'losetup'].every((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0);
const sh = (cmd: string) => spawnSync('sh', ['-c', cmd], { encoding: 'utf8' });
const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

describe.skipIf(!asRoot || !tools)('Journal.confirmWritable on a disk that fails', () => {
  it('passes on a sound disk, and refuses with the read-only words once the kernel made it read-only', () => {
    const tmp = tempDir('punchgate-confirm-');
    cleanups.push(tmp.cleanup);
    const img = tmp.path('disk.img');
    const disk = tmp.path('disk');
    mkdirSync(disk);
    expect(sh(`truncate -s 32M ${img} && mkfs.ext4 -q -F ${img}`).status).toBe(0);
    if (sh(`mount -o loop,errors=remount-ro ${img} ${disk}`).status !== 0) return; // no loop devices here
    cleanups.push(() => sh(`umount ${disk}`));
    const trigger = `/sys/fs/ext4/${sh(`findmnt -no SOURCE ${disk}`).stdout.trim().replace('/dev/', '')}/trigger_fs_error`;
    if (!existsSync(trigger)) return;

    const j = Journal.open({ path: join(disk, 'journal.db'), site: 'plant-a', mode: 'owner' });
    cleanups.push(() => {
      try {
        j.close();
      } catch {
        // its disk is read-only: closing may fail to checkpoint
      }
    });
    j.confirmWritable();
    writeFileSync(trigger, 'x');
    let refusal: unknown;
    try {
      j.confirmWritable();
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toBeInstanceOf(JournalUnusableError);
    expect((refusal as Error).message).toContain('went read-only while punchgate wrote');
    expect((refusal as Error).message).toContain('fsck');
  });
});
