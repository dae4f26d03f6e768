import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';
import { tempDir } from '../helpers/tmp.js';

// A new-user trial wrote the HRMS's whole endpoint (or its /api.php) as hrms.baseUrl: the config
// loaded, `check --config-only` passed, and every batch went to the path twice (a 404 at run time).
const base = { site: 'plant-a', journal: { path: 'j.db' } };
const problems = (raw: unknown) => {
  try {
    parseConfig(raw, '/etc/punchgate');
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};
const ENDPOINT = '/api.php/hrm/syncattendanceshiftwise/fetchBulkAttendanceFromAttendanceServer';

describe('a server address written with the API path punchgate adds', () => {
  it('is refused for the HRMS, whole or in part, naming the address to write', () => {
    for (const tail of [ENDPOINT, '/api.php', '/api.php/', '/api.php/hrm', '/api.php/system/hrms']) {
      const found = problems({ ...base, hrms: { baseUrl: `https://hr.example.com/hr${tail}` } });
      expect(found, tail).toHaveLength(1);
      expect(found[0]).toMatch(/^hrms\.baseUrl: must be the server's address without the API path/);
      expect(found[0]).toContain(`got one ending in "${tail.replace(/\/$/, '')}"`);
      expect(found[0]).toContain('write https://hr.example.com/hr');
    }
  });

  it('keeps a path prefix of the HRMS, and checks against a custom attendancePath', () => {
    expect(problems({ ...base, hrms: { baseUrl: 'https://hr.example.com/hr/' } })).toEqual([]);
    expect(problems({ ...base, hrms: { baseUrl: 'https://hr.example.com/api' } })).toEqual([]);
    expect(
      problems({ ...base, hrms: { baseUrl: 'https://hr.example.com/punches', attendancePath: '/punches/bulk' } }),
    ).toHaveLength(1);
  });

  it('is refused for sinks of every kind', () => {
    const found = problems({
      ...base,
      sinks: [
        { name: 'seed', kind: 'hrms', baseUrl: `https://hr.example.com${ENDPOINT}` },
        {
          name: 'erp',
          kind: 'frappe',
          baseUrl: 'https://erp.example.com/api/method',
          apiKeyFile: 'k',
          apiSecretFile: 's',
        },
        { name: 'odoo', kind: 'odoo', baseUrl: 'https://odoo.example.com/web', database: 'db', apiKeyFile: 'k' },
      ],
    });
    expect(found).toEqual([
      expect.stringMatching(/^sinks\[0\] \(seed\)\.baseUrl: .*write https:\/\/hr\.example\.com$/),
      expect.stringMatching(/^sinks\[1\] \(erp\)\.baseUrl: .*"\/api\/method".*write https:\/\/erp\.example\.com$/),
      expect.stringMatching(/^sinks\[2\] \(odoo\)\.baseUrl: .*"\/web".*write https:\/\/odoo\.example\.com$/),
    ]);
  });

  it('punchgate check --config-only says it with file:line and exits 78', () => {
    const tmp = tempDir();
    try {
      const f = tmp.path('punchgate.yaml');
      writeFileSync(
        f,
        `site: plant-a\njournal:\n  path: j.db\nhrms:\n  baseUrl: http://127.0.0.1:8080${ENDPOINT}\n  tokenFile: token\n`,
      );
      const r = spawnSync(process.execPath, ['dist/punchgate.js', '--config', f, 'check', '--config-only'], {
        encoding: 'utf8',
      });
      expect(r.status).toBe(78);
      expect(r.stdout + r.stderr).toContain(
        `punchgate.yaml:5: hrms.baseUrl: must be the server's address without the API path`,
      );
      expect(r.stdout + r.stderr).toContain('write http://127.0.0.1:8080');
    } finally {
      tmp.cleanup();
    }
  });
});
