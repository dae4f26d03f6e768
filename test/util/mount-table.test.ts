import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { unmountedMountPointOf } from '../../src/util/mount-table.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

// The formats as fstab(5) and proc(5) (/proc/[pid]/mountinfo) describe them.
const FSTAB = `# /etc/fstab: static file system information.
UUID=0a1b / ext4 errors=remount-ro 0 1
UUID=77aa none swap sw 0 0
/dev/sda1 /mnt/usb ext4 defaults,nofail 0 2
LABEL=data /mnt/usb/deep\\040disk ext4 noauto 0 2
`;
const ROOT_ONLY = `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
23 22 0:21 / /proc rw,nosuid shared:2 - proc proc rw
`;
const WITH_USB = `${ROOT_ONLY}40 22 8:17 / /mnt/usb rw,relatime shared:9 - ext4 /dev/sda1 rw
`;

function tables(mountinfo: string) {
  const tmp = tempDir('punchgate-mounts-');
  cleanups.push(tmp.cleanup);
  writeFileSync(tmp.path('fstab'), FSTAB);
  writeFileSync(tmp.path('mountinfo'), mountinfo);
  return { fstab: tmp.path('fstab'), mountinfo: tmp.path('mountinfo') };
}

describe('unmountedMountPointOf', () => {
  it('names the fstab mount point above a path when nothing is mounted there', () => {
    expect(unmountedMountPointOf('/mnt/usb/punchgate/journal.db', tables(ROOT_ONLY))).toBe('/mnt/usb');
    // The deepest one, its escaped space read back.
    expect(unmountedMountPointOf('/mnt/usb/deep disk/journal.db', tables(WITH_USB))).toBe('/mnt/usb/deep disk');
  });

  it('says nothing when it is mounted, for a path on the root file system, or without the tables', () => {
    expect(unmountedMountPointOf('/mnt/usb/punchgate/journal.db', tables(WITH_USB))).toBeUndefined();
    expect(unmountedMountPointOf('/var/lib/punchgate/journal.db', tables(ROOT_ONLY))).toBeUndefined();
    expect(unmountedMountPointOf('/mnt/usbstick/journal.db', tables(ROOT_ONLY))).toBeUndefined();
    expect(
      unmountedMountPointOf('/mnt/usb/journal.db', { fstab: '/nonexistent/fstab', mountinfo: '/nonexistent/m' }),
    ).toBeUndefined();
  });
});
