import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load.js';
import { checkTerminalConfig } from '../../src/sources/build.js';
import { tempDir } from '../helpers/tmp.js';

const base = {
  site: 'plant-a',
  journal: { path: 'j.db' },
  hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
};
const problems = (raw: unknown) => {
  try {
    parseConfig(raw, '/etc/punchgate');
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

describe('config', () => {
  it('accepts the shipped example and demo configs', () => {
    expect(loadConfig('config/punchgate.example.yaml', checkTerminalConfig).terminals).toHaveLength(2);
    expect(loadConfig('config/demo.yaml', checkTerminalConfig).terminals[0]!.kind).toBe('zk');
  });

  it('the shipped example loads alone where the package and install.md put it (/etc/punchgate: no file beside it)', () => {
    const dir = tempDir();
    try {
      writeFileSync(dir.path('punchgate.yaml'), readFileSync('config/punchgate.example.yaml'));
      expect(loadConfig(dir.path('punchgate.yaml'), checkTerminalConfig).terminals).toHaveLength(2);
    } finally {
      dir.cleanup();
    }
  });

  it('fills defaults and resolves relative paths against the config file', () => {
    const c = parseConfig(base, '/etc/punchgate');
    expect(c.journal.path).toBe('/etc/punchgate/j.db');
    expect(c.hrms!.tokenFile).toBe('/etc/punchgate/token');
    expect(c.hrms!.attendancePath).toBe('/api.php/hrm/syncattendanceshiftwise/fetchBulkAttendanceFromAttendanceServer');
    expect(c.hrms!.timeoutMs).toBe(30000);
    expect(c.delivery.batchSize).toBe(200);
    expect(c.journal.retentionDays).toBe(400);
    expect(c.hrms!.userPath).toBe('/api.php/system/hrms/updateUser');
    expect(c.status.path).toBe('/etc/punchgate/status.txt');
  });

  it('reports every problem as "path: message", terminals named by their name', () => {
    expect(problems({ ...base, hrms: { baseUrl: 'http://hr.example.com' } })).toEqual([
      'hrms.baseUrl: must be an https:// URL (http:// is accepted for loopback hosts, or with hrms.allowInsecureHttp: true)',
    ]);
    expect(problems({ ...base, hrms: { baseUrl: 'http://hr.example.com', allowInsecureHttp: true } })).toEqual([]);
    expect(problems({ ...base, hrms: { baseUrl: 'http://127.0.0.1:8080' } })).toEqual([]);
    expect(
      problems({
        ...base,
        site: 'a b',
        delivery: { batchSize: 0 },
        terminals: [
          { name: 'g', kind: 'zk' },
          { name: 'g', kind: 'zk', host: 'x', schedule: 'often' },
        ],
      }),
    ).toEqual([
      'site: must be 1-32 letters, digits, "_" or "-", got the text "a b"',
      'delivery.batchSize: must be at least 1, got the number 0',
      "terminals[0] (g).host: is required: the terminal's IP address or host name (e.g. 192.168.1.201)",
      'terminals[1] (g).schedule: must be a cron expression such as "* * * * *" (every minute), got the text "often"',
      'terminals[1] (g).name: duplicate terminal name "g": terminals[0] has it already; give each terminal its own name',
    ]);
    const pth = problems({ ...base, journal: { path: 'x', pth: 'y' } });
    expect(pth).toHaveLength(1);
    expect(pth[0]).toMatch(/^journal\.pth: unknown key \(the keys here are: path, retentionDays, .*\)$/);
    expect(problems({ ...base, terminals: [{ name: 'g', kind: 'modem' }] })).toEqual([
      'terminals[0] (g).kind: must be one of "zk", "serial", "hikvision", "adms", "dahua", "biotime", got the text "modem"',
    ]);
    expect(problems({ ...base, terminals: [{ name: 'g', kind: 'zk', host: 'h', timezone: 'Mars/Base' }] })).toEqual([
      'terminals[0] (g).timezone: must be an IANA time zone name such as Europe/Berlin, got the text "Mars/Base"',
    ]);
    // A zone a letter off is named (found by a new-user trial).
    expect(problems({ ...base, terminals: [{ name: 'g', kind: 'zk', host: 'h', timezone: 'Europe/Berln' }] })).toEqual([
      'terminals[0] (g).timezone: must be an IANA time zone name such as Europe/Berlin, got the text "Europe/Berln" (did you mean "Europe/Berlin"?)',
    ]);
  });

  it('exits 78 with path: message lines on a bad config, and names YAML syntax errors with their line', () => {
    const tmp = tempDir();
    try {
      const f = tmp.path('bad.yaml');
      writeFileSync(f, 'site: plant-a\njournal:\n  path: x.db\nhrms:\n  baseUrl: ftp://hr\n');
      const r = spawnSync(process.execPath, ['dist/punchgate.js', '--config', f, 'status'], { encoding: 'utf8' });
      expect(r.status).toBe(78);
      expect(r.stderr).toContain('hrms.baseUrl: must be an https:// URL');
      writeFileSync(f, 'site: [plant\n');
      const r2 = spawnSync(process.execPath, ['dist/punchgate.js', '--config', f, 'status'], { encoding: 'utf8' });
      expect(r2.status).toBe(78);
      expect(r2.stderr).toMatch(/bad\.yaml:\d+: /);
      const r3 = spawnSync(process.execPath, ['dist/punchgate.js', '--config', tmp.path('missing.yaml'), 'status'], {
        encoding: 'utf8',
      });
      expect(r3.status).toBe(78);
      expect(r3.stderr).toMatch(/cannot read the config file \(ENOENT\)/);
    } finally {
      tmp.cleanup();
    }
  });
});
