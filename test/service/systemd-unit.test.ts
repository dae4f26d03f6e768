import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { requireTool, section, verifyUnits } from './unit-file.js';

const UNIT_PATH = join(process.cwd(), 'systemd/punchgate.service');
const UNIT = readFileSync(UNIT_PATH, 'utf8');
const EXEC_START = '/usr/bin/node --optimize-for-size /usr/bin/punchgate run --config /etc/punchgate/punchgate.yaml';
const EXEC_RELOAD_CHECK = '/usr/bin/node /usr/bin/punchgate check --config-only --config /etc/punchgate/punchgate.yaml';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const service = section(UNIT, 'Service');
const values = (key: string) => service.filter(([k]) => k === key).map(([, v]) => v);
const value = (key: string) => {
  const v = values(key);
  if (v.length !== 1) throw new Error(`${key}= appears ${v.length} times in [Service]`);
  return v[0]!;
};

/** verifyUnits on the shipped unit, or on a changed text of it. */
function verify(text: string): { status: number | null; findings: string[]; output: string } {
  return verifyUnits({ 'punchgate.service': text }, (c) => cleanups.push(c));
}

describe('systemd/punchgate.service', () => {
  it('passes systemd-analyze verify without a single warning', () => {
    requireTool('systemd-analyze');
    const r = verify(UNIT);
    expect(r.findings, r.output).toEqual([]);
    expect(r.status, r.output).toBe(0);
  });

  it('the verification really reads the unit: a mistake in it is reported', () => {
    requireTool('systemd-analyze');
    const r = verify(UNIT.replace(/^Type=notify$/m, 'Type=notify-ish\nWatchdogSecs=60s'));
    expect(r.findings.join('\n')).toContain('notify-ish');
    expect(r.findings.join('\n')).toContain("Unknown key 'WatchdogSecs'");
  });

  it('carries the required directives', () => {
    const expected: Record<string, string> = {
      Type: 'notify',
      NotifyAccess: 'main',
      WatchdogSec: '60s',
      ExecStart: EXEC_START,
      Restart: 'on-failure',
      RestartSec: '5s',
      TimeoutStopSec: '30s',
      User: 'punchgate',
      SupplementaryGroups: 'dialout',
      StateDirectory: 'punchgate',
      ConfigurationDirectory: 'punchgate',
      LoadCredential: 'token:/etc/punchgate/token',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      NoNewPrivileges: 'yes',
      DevicePolicy: 'closed',
      RestrictAddressFamilies: 'AF_UNIX AF_INET AF_INET6',
      CapabilityBoundingSet: '',
      LockPersonality: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectControlGroups: 'yes',
      RestrictRealtime: 'yes',
      SystemCallArchitectures: 'native',
      UMask: '0077',
    };
    for (const [k, v] of Object.entries(expected)) expect(`${k}=${value(k)}`).toBe(`${k}=${v}`);
    // A reload checks the config before it signals: systemd runs ExecReload= lines in order and stops at a failure.
    expect(values('ExecReload')).toEqual([EXEC_RELOAD_CHECK, '/bin/kill -HUP $MAINPID']);
    expect(values('DeviceAllow')).toEqual(expect.arrayContaining(['char-ttyS rw', 'char-ttyUSB rw', 'char-ttyACM rw']));
    // The memory flags of BENCHMARKS.md; quoted, since systemd splits an unquoted value at spaces.
    expect(values('Environment')).toEqual([
      'NODE_ENV=production',
      '"NODE_OPTIONS=--max-semi-space-size=4"',
      'MALLOC_ARENA_MAX=2',
      'MALLOC_MMAP_THRESHOLD_=32768',
    ]);
    // The stop timeout outlasts the daemon's own 20 s stop bound.
    expect(Number.parseInt(value('TimeoutStopSec'), 10)).toBeGreaterThan(20);
    // The watchdog is pinged every WATCHDOG_USEC/2 = 30 s, within the minute of a poll.
    expect(Number.parseInt(value('WatchdogSec'), 10)).toBeGreaterThanOrEqual(30);
  });

  it('a bad config (78) and a journal no restart mends (74) are not restarted; a full disk or a file system gone read-only (75) is', () => {
    expect(value('RestartPreventExitStatus').split(/\s+/).sort()).toEqual(['74', '78']);
  });

  it('systemctl reload fails on a config that does not load, before the daemon is signalled, with file:line', () => {
    const dir = tempDir('punchgate-reload-');
    cleanups.push(dir.cleanup);
    const config = join(dir.dir, 'punchgate.yaml');
    // The unit's first ExecReload= line as systemd runs it, pointed at this checkout and a config here.
    const argv = (values('ExecReload')[0] ?? '')
      .split(' ')
      .map((a) =>
        a === '/usr/bin/node'
          ? process.execPath
          : a === '/usr/bin/punchgate'
            ? join(process.cwd(), 'dist/punchgate.js')
            : a === '/etc/punchgate/punchgate.yaml'
              ? config
              : a,
      );
    const good = 'site: plant-u\njournal:\n  path: journal.db\nhrms:\n  baseUrl: https://hr.example.com\n';
    writeFileSync(config, good);
    const ok = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 20_000 });
    expect(ok.status, `${ok.stdout}${ok.stderr}`).toBe(0);
    // A typo in a key: the reload job fails (not 0), the line is named, nothing else was tried.
    writeFileSync(config, good.replace('baseUrl', 'baseURL'));
    const bad = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 20_000 });
    expect(bad.status).toBe(78);
    expect(bad.stdout).toContain(`${config}:5: hrms.baseURL`);
    expect(bad.stdout).not.toMatch(/journal|terminal|hrms:/i);
  });

  it('a missing token file does not fail the start: SetCredential= gives the credential a default', () => {
    requireTool('systemd-analyze');
    // systemd uses SetCredential= for an ID whose LoadCredential= file does not exist (ENOENT).
    const id = (v: string) => v.slice(0, v.indexOf(':'));
    expect(values('LoadCredential').map(id)).toEqual(['token']);
    expect(values('SetCredential')).toEqual(['token:\\n']);
    // An empty value would be ignored as invalid syntax, and the start would fail again: verify says so.
    const empty = verify(UNIT.replace('SetCredential=token:\\n', 'SetCredential=token:'));
    expect(empty.findings.join('\n')).toContain('Invalid syntax, ignoring: token:');
    expect(verify(UNIT).findings).toEqual([]);
  });

  it('leaves out what would break Node or the serial devices', () => {
    // Node's JIT writes then executes code pages; PrivateDevices hides /dev/ttyUSB*.
    expect(values('MemoryDenyWriteExecute')).toEqual([]);
    expect(values('PrivateDevices')).toEqual([]);
    // PrivateUsers would map the dialout group away from the device files.
    expect(values('PrivateUsers')).toEqual([]);
    expect(values('DynamicUser')).toEqual([]);
  });

  it('is installed with a matching sysusers file and module list', () => {
    const sysusers = readFileSync(join(process.cwd(), 'systemd/punchgate.sysusers'), 'utf8');
    expect(sysusers).toMatch(/^u\s+punchgate\s+-\s+".*"\s+\/var\/lib\/punchgate\s+\/usr\/sbin\/nologin$/m);
    expect(sysusers).toMatch(/^m\s+punchgate\s+dialout$/m);
    const modules = readFileSync(join(process.cwd(), 'systemd/punchgate-modules.conf'), 'utf8');
    expect(modules.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual(['usbserial', 'cdc_acm']);
  });

  it('the files say where they are installed as docs/install.md installs and uninstalls them', () => {
    const install = readFileSync(join(process.cwd(), 'docs/install.md'), 'utf8');
    const uninstall = install.slice(install.indexOf('## Uninstall'));
    for (const file of ['punchgate.sysusers', 'punchgate-modules.conf']) {
      const text = readFileSync(join(process.cwd(), 'systemd', file), 'utf8');
      const target = /^# .*install as (\/\S+?)[,.]?(?:\s|$)/m.exec(text)?.[1];
      expect(target, file).toBeDefined();
      expect(install, file).toContain(`$PKG/systemd/${file} ${target}`);
      expect(uninstall, file).toContain(target);
    }
    expect(install).toContain('$PKG/systemd/punchgate.service /etc/systemd/system/punchgate.service');
    expect(uninstall).toContain('/etc/systemd/system/punchgate.service');
    // The backup units: their comment installs them as docs/backup.md does.
    const backup = readFileSync(join(process.cwd(), 'docs/backup.md'), 'utf8');
    const comment = readFileSync(join(process.cwd(), 'contrib/systemd/punchgate-backup.service'), 'utf8');
    const line = /^#\s+(install -m 0644 \$PKG\/contrib\/systemd\/\S+ \S+ \/etc\/systemd\/system\/)$/m.exec(
      comment,
    )?.[1];
    expect(line).toBeDefined();
    expect(backup).toContain(`sudo ${line}`);
  });

  it('the sysusers file is accepted by systemd-sysusers (dry run, nothing written)', () => {
    requireTool('systemd-sysusers');
    const r = spawnSync('systemd-sysusers', ['--dry-run', join(process.cwd(), 'systemd/punchgate.sysusers')], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    const output = `${r.stdout}${r.stderr}`;
    expect(r.status, output).toBe(0);
    expect(output).not.toMatch(/ignoring|failed|invalid/i);
  });
});
