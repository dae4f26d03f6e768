import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';
import { terminalSecrets } from '../../src/sources/build.js';

const base = { site: 'plant-d', journal: { path: 'j.db' }, hrms: { baseUrl: 'https://hr.example.com' } };
const problems = (terminal: Record<string, unknown>) => {
  try {
    parseConfig({ ...base, terminals: [{ name: 'front-door', kind: 'dahua', ...terminal }] }, '/etc/punchgate');
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

describe('dahua terminal config', () => {
  it('takes host, port, tls, username, passwordFile, timezone, schedule and realtime; fills defaults; resolves the password file', () => {
    const c = parseConfig(
      {
        ...base,
        terminals: [
          {
            name: 'front-door',
            kind: 'dahua',
            host: '192.168.1.108',
            passwordFile: 'front-door.pass',
            timezone: 'Asia/Kolkata',
            realtime: true,
          },
        ],
      },
      '/etc/punchgate',
    );
    expect(c.terminals[0]).toMatchObject({
      kind: 'dahua',
      host: '192.168.1.108',
      tls: false,
      username: 'admin',
      passwordFile: '/etc/punchgate/front-door.pass',
      schedule: '* * * * *',
      realtime: true,
      pageSize: 500,
      recordClock: 'local',
      userApi: 'auto',
      enabled: true,
    });
    expect(c.terminals[0]).not.toHaveProperty('port');
  });

  it('refuses what it cannot use, naming the key', () => {
    expect(problems({})).toEqual([expect.stringMatching(/host/)]);
    expect(problems({ host: 'x', port: 70000 }).join()).toMatch(/port/);
    expect(problems({ host: 'x', tlsFingerprint: 'sha256:' + 'ab:'.repeat(31) + 'ab' }).join()).toMatch(
      /tlsFingerprint.*needs tls: true/,
    );
    expect(problems({ host: 'x', recordClock: 'gmt' }).join()).toMatch(/recordClock/);
    expect(problems({ host: 'x', userApi: 'isapi' }).join()).toMatch(/userApi/);
    expect(problems({ host: 'x', password: 'secret' }).join()).toMatch(/password/);
  });

  it('its password is among the secrets scrubbed from text', () => {
    const c = parseConfig({ ...base, terminals: [{ name: 'front-door', kind: 'dahua', host: 'x' }] }, '/etc/punchgate');
    expect(terminalSecrets(c.terminals, { PUNCHGATE_TERMINAL_FRONT_DOOR_PASSWORD: 'Dahua-secret-9' })).toEqual([
      'Dahua-secret-9',
    ]);
  });
});
