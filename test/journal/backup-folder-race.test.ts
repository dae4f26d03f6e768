import { chownSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

/**
 * `punchgate backup /var/lib/punchgate/backups` run as root when that folder is missing: root makes
 * it and hands it to the journal folder's owner, the service user, who owns the parent and so may
 * move the new folder away and put a link at its name between the mkdir and the chown. A chown by
 * name then gave the link's target (a root file standing for /etc/shadow) to the service user (found
 * by an adversarial trial). Here mkdir is wrapped so that the swap is always made right after it.
 */
const race = vi.hoisted(() => ({ victim: '', folder: '' }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const mkdirSync = ((path: string, opts?: unknown) => {
    const made = real.mkdirSync(path, opts as never);
    if (race.victim && String(path) === race.folder) {
      real.renameSync(path, `${path}.moved`);
      real.symlinkSync(race.victim, path);
    }
    return made;
  }) as typeof real.mkdirSync;
  return { ...real, default: { ...real, mkdirSync }, mkdirSync };
});

const { makeBackupFolder } = await import('../../src/journal/backup-folder.js');

describe.skipIf(process.getuid?.() !== 0)('backup run as root makes the backups folder', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir('punchgate-backup-folder-race-');
    mkdirSync(tmp.path('state'));
    chownSync(tmp.path('state'), 65534, 65534);
    writeFileSync(tmp.path('shadow'), 'root:secret\n', { mode: 0o600 });
    race.victim = tmp.path('shadow');
    race.folder = tmp.path('state/backups');
  });
  afterEach(() => {
    race.victim = '';
    tmp.cleanup();
  });

  it('never hands the target of a link swapped in after the mkdir to the service user', () => {
    expect(() => makeBackupFolder(tmp.path('state/backups'), tmp.path('state/journal.db'))).toThrow();
    expect(statSync(tmp.path('shadow')).uid).toBe(0);
    expect(readFileSync(tmp.path('shadow'), 'utf8')).toBe('root:secret\n');
  });

  it('hands a folder made undisturbed to the journal folder’s owner', () => {
    race.victim = '';
    expect(makeBackupFolder(tmp.path('state/backups'), tmp.path('state/journal.db'))).toBe(true);
    const st = statSync(tmp.path('state/backups'));
    expect(st.uid).toBe(65534);
    expect(st.mode & 0o777).toBe(0o700);
  });
});
