import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/**
 * A journal on a disk that a systemd mount unit (not /etc/fstab) mounts, reached through a link
 * (/var/lib/punchgate -> the disk's folder), the disk not come up: the mount check knew /etc/fstab
 * and the path as written only, so the daemon went on to make an empty journal, or failed on the
 * dangling link in other words. A real `punchgate run`, shown the box's tables in a folder of the
 * test's (PUNCHGATE_TEST_MOUNT_TABLES), refuses with 74, the unit, the real path and the fix.
 */
describe('punchgate run on a journal whose systemd-mounted disk did not come up', () => {
  it('refuses with 74, naming the link, the unit and how to mount it', async () => {
    const tmp = tempDir('punchgate-mount-unit-');
    cleanups.push(tmp.cleanup);
    const tables = tmp.path('tables');
    mkdirSync(`${tables}/system`, { recursive: true });
    writeFileSync(`${tables}/fstab`, 'UUID=0a1b / ext4 errors=remount-ro 0 1\n');
    writeFileSync(`${tables}/mountinfo`, '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n');
    const disk = tmp.path('disk');
    mkdirSync(disk);
    const unit = `${tables}/system/disk.mount`;
    writeFileSync(
      unit,
      `[Unit]\nDescription=Journal disk\n\n[Mount]\nWhat=/dev/disk/by-label/JOURNAL\nWhere=${disk}\n`,
    );
    // The journal's folder: a link onto the disk's folder, missing while the disk is not mounted.
    mkdirSync(tmp.path('var/lib'), { recursive: true });
    symlinkSync(`${disk}/punchgate`, tmp.path('var/lib/punchgate'));
    const journal = tmp.path('var/lib/punchgate/journal.db');
    const config = tmp.path('punchgate.yaml');
    writeFileSync(
      config,
      stringify({
        site: 'plant-a',
        journal: { path: journal },
        hrms: { baseUrl: 'http://127.0.0.1:9' },
        status: { listen: false },
        terminals: [],
      }),
    );

    const r = await runPunchgate(['--config', config, 'run'], {
      env: { PUNCHGATE_TEST_MOUNT_TABLES: tables },
      timeoutMs: 60_000,
    });
    expect(r.status, r.stdout + r.stderr).toBe(74);
    const out = r.stdout + r.stderr;
    expect(out).toContain(
      `the journal ${journal} (through a link: it is ${disk}/punchgate/journal.db) lies under ${disk}, which the systemd unit ${unit} mounts, but nothing is mounted there now`,
    );
    expect(out).toContain('mount it (sudo systemctl start disk.mount;');
    expect(out).toContain(`RequiresMountsFor=${disk}`);
    // Nothing made on the file system below.
    expect(existsSync(`${disk}/punchgate`)).toBe(false);

    // `punchgate check` says the same, with the same 74 of a journal problem.
    const c = await runPunchgate(['--config', config, 'check'], {
      env: { PUNCHGATE_TEST_MOUNT_TABLES: tables },
      timeoutMs: 60_000,
    });
    expect(c.stdout + c.stderr).toContain(`which the systemd unit ${unit} mounts`);
  }, 60_000);
});
