import { statSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * `sudo punchgate import-config frappe-sync ... --secrets-dir /etc/punchgate`, as the migration page
 * says: found by a new-user trial, the key and secret were root's 0600 files, which the service (user
 * punchgate) cannot read, while the command said "readable by the punchgate user". Run as root they
 * are handed to the service user; where it does not exist yet, the output says so with the chown.
 */
const KEY = 'c0ffee1234abcd5';
const SECRET = 'f00dbabe9876zyx';
const SETTINGS = `ERPNEXT_API_KEY = '${KEY}'
ERPNEXT_API_SECRET = '${SECRET}'
ERPNEXT_URL = 'https://erp.example.com'
ERPNEXT_VERSION = 14
devices = [
    {'device_id':'test_1','ip':'192.168.0.209', 'punch_direction': None, 'clear_from_device_on_fetch': False, 'latitude':0.0000,'longitude':0.0000},
]
`;

describe.skipIf(process.getuid?.() !== 0)('import-config run as root: the secret files', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir('punchgate-import-owner-');
    writeFileSync(tmp.path('local_config.py'), SETTINGS);
  });
  afterEach(() => tmp.cleanup());

  const run = (...extra: string[]) =>
    runPunchgate([
      'import-config',
      'frappe-sync',
      tmp.path('local_config.py'),
      '--secrets-dir',
      tmp.path('etc'),
      '--output',
      tmp.path('punchgate.yaml'),
      ...extra,
    ]);

  it('are handed to the service user (here nobody for punchgate), 0600, and the folder made for them too', async () => {
    const r = await run('--owner', 'nobody');
    expect(r.status, r.stderr).toBe(0);
    for (const f of ['etc', 'etc/frappe-api-key', 'etc/frappe-api-secret']) {
      const s = statSync(tmp.path(f));
      expect(s.uid, f).toBe(65534);
    }
    expect(statSync(tmp.path('etc/frappe-api-key')).mode & 0o777).toBe(0o600);
    expect(r.stderr).toContain('(mode 0600, owned by nobody, the user punchgate runs as)');
    expect(r.stderr + r.stdout).not.toContain(KEY);
    expect(r.stderr + r.stdout).not.toContain(SECRET);
  });

  it('stay root’s when the user does not exist yet, and the output gives the chown to run', async () => {
    const r = await run('--owner', 'no-such-user-here');
    expect(r.status, r.stderr).toBe(0);
    expect(statSync(tmp.path('etc/frappe-api-key')).uid).toBe(0);
    expect(r.stderr).toContain(
      `owned by root: there is no user no-such-user-here yet; once the package has made it: sudo chown no-such-user-here: ${tmp.path('etc/frappe-api-key')} ${tmp.path('etc/frappe-api-secret')}`,
    );
    expect(r.stderr).not.toContain('readable by the punchgate user');
  });
});
