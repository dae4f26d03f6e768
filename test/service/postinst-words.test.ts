/**
 * What the package's postinst says after it replaced another version. dpkg hands postinst only the
 * version it replaces; a downgrade (apt-get install --allow-downgrades punchgate=<older>, the
 * rollback of docs/fleet.md) was announced as "upgraded from <newer>" and a daemon started by hand
 * as running "the old version" (a fleet trial). The script runs here as built (maintainerScript),
 * with every command that would touch the machine replaced by a no-op on PATH; dpkg is the real one.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { maintainerScript } from '../../packaging/lib/deb.js';
import { tempDir } from '../helpers/tmp.js';

const NO_OPS = [
  'systemd-sysusers',
  'useradd',
  'getent',
  'mkdir',
  'chown',
  'chmod',
  'runuser',
  'rm',
  'install',
  'cat',
  'dpkg-statoverride',
  'systemctl',
  'deb-systemd-invoke',
];

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** postinst of `version`, run as `configure <old>` with no-op commands (and dpkg, unless `withDpkg` is false). */
function postinst(version: string, old: string, withDpkg = true): { status: number | null; out: string } {
  const tmp = tempDir('postinst-');
  cleanups.push(tmp.cleanup);
  const bin = join(tmp.dir, 'bin');
  spawnSync('/bin/mkdir', [bin]);
  for (const c of NO_OPS) {
    writeFileSync(join(bin, c), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, c), 0o755);
  }
  if (withDpkg) symlinkSync('/usr/bin/dpkg', join(bin, 'dpkg'));
  const script = join(tmp.dir, 'postinst');
  writeFileSync(script, maintainerScript(join(process.cwd(), 'packaging'), 'postinst', version));
  const r = spawnSync('/bin/sh', [script, 'configure', old], { encoding: 'utf8', env: { PATH: bin } });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('postinst after another version', () => {
  it('an upgrade says upgraded, and that a daemon started by hand runs the old version', () => {
    const r = postinst('0.1.1', '0.1.0');
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain(
      'punchgate: upgraded from 0.1.0. A punchgate run started by hand still runs the old version: restart it.',
    );
  });

  it('a downgrade says downgraded, from which version to which, and that the daemon still runs the newer one', () => {
    const r = postinst('0.1.0', '0.1.1');
    expect(r.status, r.out).toBe(0);
    expect(r.out).not.toContain('upgraded');
    expect(r.out).toContain(
      'punchgate: downgraded from 0.1.1 to 0.1.0. A punchgate run started by hand still runs 0.1.1: restart it.',
    );
  });

  it('Debian version order: 0.1.10 is newer than 0.1.9, 0.2.0~rc1 older than 0.2.0; the same version is a reinstall', () => {
    expect(postinst('0.1.10', '0.1.9').out).toContain('upgraded from 0.1.9.');
    expect(postinst('0.2.0~rc1', '0.2.0').out).toContain('downgraded from 0.2.0 to 0.2.0~rc1.');
    expect(postinst('0.1.0', '0.1.0').out).toContain('reinstalled from 0.1.0 to 0.1.0.');
  });

  it("without dpkg (the tarball's install.sh on another distribution) an install over another version reads as an upgrade", () => {
    expect(postinst('0.1.0', '0.1.1', false).out).toContain('punchgate: upgraded from 0.1.1.');
  });
});
