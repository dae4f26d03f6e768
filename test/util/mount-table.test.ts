import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { linkedPath, unmountedMountPointOf } from '../../src/util/mount-table.js';
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
    const t = tables(ROOT_ONLY);
    expect(unmountedMountPointOf('/mnt/usb/punchgate/journal.db', t)).toEqual({ point: '/mnt/usb', by: t.fstab });
    // The deepest one, its escaped space read back.
    expect(unmountedMountPointOf('/mnt/usb/deep disk/journal.db', tables(WITH_USB))?.point).toBe('/mnt/usb/deep disk');
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

// A mount unit as systemd.mount(5) describes it: named after its mount point, Where= in [Mount].
const UNIT = `[Unit]
Description=The journal disk
# Where=/not/this (a comment)

[Mount]
What=/dev/disk/by-label/JOURNAL
Where=/srv/journal-disk
Type=ext4

[Install]
WantedBy=multi-user.target
`;

describe('unmountedMountPointOf: systemd mount units and links', () => {
  function unitBox(mountinfo: string) {
    const tmp = tempDir('punchgate-units-');
    cleanups.push(tmp.cleanup);
    writeFileSync(tmp.path('fstab'), 'UUID=0a1b / ext4 errors=remount-ro 0 1\n');
    writeFileSync(tmp.path('mountinfo'), mountinfo);
    mkdirSync(tmp.path('system'));
    mkdirSync(tmp.path('generator'));
    writeFileSync(tmp.path('system/srv-journal\\x2ddisk.mount'), UNIT);
    // A generator's unit with its Where= quoted; a masked unit (empty); a service with Where= is no mount.
    writeFileSync(tmp.path('generator/media-card.mount'), '[Mount]\nWhat=/dev/mmcblk1p1\nWhere="/media/card"\n');
    writeFileSync(tmp.path('system/media-masked.mount'), '');
    writeFileSync(tmp.path('system/other.service'), '[Mount]\nWhere=/opt\n');
    return {
      tmp,
      tables: {
        fstab: tmp.path('fstab'),
        mountinfo: tmp.path('mountinfo'),
        unitDirs: [tmp.path('system'), tmp.path('generator'), tmp.path('missing')],
      },
    };
  }

  it('names a mount unit’s Where= above a path when nothing is mounted there', () => {
    const { tmp, tables } = unitBox(ROOT_ONLY);
    expect(unmountedMountPointOf('/srv/journal-disk/punchgate/journal.db', tables)).toEqual({
      point: '/srv/journal-disk',
      by: tmp.path('system/srv-journal\\x2ddisk.mount'),
    });
    expect(unmountedMountPointOf('/media/card/journal.db', tables)?.point).toBe('/media/card');
    expect(unmountedMountPointOf('/opt/journal.db', tables)).toBeUndefined();
    // Without the unit folders (the tables before this version): nothing to say.
    expect(unmountedMountPointOf('/srv/journal-disk/journal.db', { ...tables, unitDirs: [] })).toBeUndefined();
  });

  it('says nothing once the unit’s disk is mounted', () => {
    const { tables } = unitBox(`${ROOT_ONLY}41 22 8:33 / /srv/journal-disk rw shared:10 - ext4 /dev/sdb1 rw\n`);
    expect(unmountedMountPointOf('/srv/journal-disk/punchgate/journal.db', tables)).toBeUndefined();
  });

  it('follows a link in the path to the mount point where it leads', () => {
    const { tmp, tables } = unitBox(ROOT_ONLY);
    // The journal's folder a link onto a folder of the disk, absent while the disk is not mounted.
    mkdirSync(tmp.path('var/lib'), { recursive: true });
    mkdirSync(tmp.path('disk'));
    symlinkSync(tmp.path('disk/punchgate'), tmp.path('var/lib/punchgate'));
    const unit = tmp.path('system/disk.mount');
    writeFileSync(unit, `[Mount]\nWhere=${tmp.path('disk')}\n`);
    const journal = tmp.path('var/lib/punchgate/journal.db');
    expect(linkedPath(journal)).toBe(tmp.path('disk/punchgate/journal.db'));
    expect(unmountedMountPointOf(journal, tables)).toEqual({ point: tmp.path('disk'), by: unit });
    // A relative link, and links that go round: followed, and given up.
    symlinkSync('../disk', tmp.path('var/rel'));
    expect(linkedPath(tmp.path('var/rel/punchgate/journal.db'))).toBe(tmp.path('disk/punchgate/journal.db'));
    symlinkSync(tmp.path('loop-b'), tmp.path('loop-a'));
    symlinkSync(tmp.path('loop-a'), tmp.path('loop-b'));
    expect(linkedPath(tmp.path('loop-a/journal.db'))).toBe(tmp.path('loop-a/journal.db'));
  });
});
