import { lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

/**
 * `sudo punchgate import-config ... --secrets-dir D` run again on a D this command made (and handed to
 * the service user) on an earlier run: found by an adversarial trial, the service user, replacing
 * D/frappe-api-key by a link in a loop, won the race between the rename and root's chown by name
 * within a few runs, and root handed it the link's target (a root file standing for /etc/shadow).
 * Here the rename is wrapped so that the link is always there right after it: the race always won.
 */
const race = vi.hoisted(() => ({ victim: '' }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const renameSync: typeof real.renameSync = (from, to) => {
    real.renameSync(from, to);
    if (race.victim && String(to).endsWith('frappe-api-key')) {
      real.unlinkSync(to);
      real.symlinkSync(race.victim, to);
    }
  };
  return { ...real, default: { ...real, renameSync }, renameSync };
});

const { runImportFrappeSync } = await import('../../src/cli/commands/import-config.js');

const SETTINGS = `ERPNEXT_API_KEY = 'c0ffee1234abcd5'
ERPNEXT_API_SECRET = 'f00dbabe9876zyx'
ERPNEXT_URL = 'https://erp.example.com'
ERPNEXT_VERSION = 14
devices = [
    {'device_id':'test_1','ip':'192.168.0.209', 'punch_direction': None, 'clear_from_device_on_fetch': False, 'latitude':0.0000,'longitude':0.0000},
]
`;

describe.skipIf(process.getuid?.() !== 0)('import-config run as root into a folder the service user owns', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir('punchgate-import-race-');
    writeFileSync(tmp.path('local_config.py'), SETTINGS);
    writeFileSync(tmp.path('shadow'), 'root:secret\n', { mode: 0o600 });
    race.victim = tmp.path('shadow');
  });
  afterEach(() => {
    race.victim = '';
    tmp.cleanup();
  });

  it('never hands the target of a link swapped in after the rename to the service user', () => {
    const io = { out: () => {}, err: () => {} };
    const code = runImportFrappeSync(
      tmp.path('local_config.py'),
      { secretsDir: tmp.path('etc'), output: tmp.path('punchgate.yaml'), owner: 'nobody' },
      io,
    );
    expect(code).toBe(0);
    expect(lstatSync(tmp.path('etc/frappe-api-key')).isSymbolicLink()).toBe(true); // the race was won
    const victim = statSync(tmp.path('shadow'));
    expect(victim.uid).toBe(0);
    expect(readFileSync(tmp.path('shadow'), 'utf8')).toBe('root:secret\n');
    // The files it wrote are still the service user's, 0600.
    const secret = statSync(tmp.path('etc/frappe-api-secret'));
    expect(secret.uid).toBe(65534);
    expect(secret.mode & 0o777).toBe(0o600);
  });
});
