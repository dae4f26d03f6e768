import { mkdirSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { journalPlaceProblem } from '../../src/daemon/journal-place.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A box whose /etc/fstab mounts `<tmp>/usb` (real files in fstab(5) and proc(5) formats). */
function box(mounted: boolean) {
  const tmp = tempDir('punchgate-place-');
  cleanups.push(tmp.cleanup);
  mkdirSync(tmp.path('usb/punchgate'), { recursive: true });
  writeFileSync(
    tmp.path('fstab'),
    `UUID=0a1b / ext4 defaults 0 1\n/dev/sda1 ${tmp.path('usb')} ext4 defaults,nofail 0 2\n`,
  );
  writeFileSync(
    tmp.path('mountinfo'),
    `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n${mounted ? `40 22 8:17 / ${tmp.path('usb')} rw shared:9 - ext4 /dev/sda1 rw\n` : ''}`,
  );
  return { tmp, tables: { fstab: tmp.path('fstab'), mountinfo: tmp.path('mountinfo') } };
}

describe('journalPlaceProblem: the journal on a disk that did not come up', () => {
  it('refuses a journal under an fstab mount point with nothing mounted, whether a file is there or not', () => {
    const { tmp, tables } = box(false);
    const journal = tmp.path('usb/punchgate/journal.db');
    for (const made of [false, true]) {
      if (made) writeFileSync(journal, 'a journal made on the file system below');
      const p = journalPlaceProblem(journal, undefined, tables);
      expect(p?.exitCode).toBe(74);
      expect(p?.message).toContain(
        `the journal ${journal} lies under ${tmp.path('usb')}, which ${tables.fstab} mounts`,
      );
      expect(p?.message).toContain(`RequiresMountsFor=${tmp.path('usb')}`);
    }
  });

  it('says nothing once the disk is mounted, nor on a first start with no sign of a journal', () => {
    const { tmp, tables } = box(true);
    expect(
      journalPlaceProblem(tmp.path('usb/punchgate/journal.db'), tmp.path('usb/punchgate/status.txt'), tables),
    ).toBeUndefined();
    expect(
      journalPlaceProblem(tmp.path('elsewhere/journal.db'), tmp.path('elsewhere/status.txt'), tables),
    ).toBeUndefined();
  });
});
