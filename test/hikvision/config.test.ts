import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';
import { DEFAULT_HIKVISION_MINORS, terminalPasswordEnv } from '../../src/config/terminals.js';

const base = { site: 'plant-a', journal: { path: 'j.db' }, hrms: { baseUrl: 'https://hr.example.com' } };
const problems = (terminal: Record<string, unknown>) => {
  try {
    parseConfig({ ...base, terminals: [{ name: 'reception', kind: 'hikvision', ...terminal }] }, '/etc/punchgate');
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

describe('hikvision terminal config', () => {
  it('takes the names of the issue, fills defaults and resolves files against the config folder', () => {
    const c = parseConfig(
      {
        ...base,
        terminals: [
          {
            name: 'reception',
            kind: 'hikvision',
            url: 'https://192.168.1.64',
            username: 'admin',
            passwordFile: 'reception.pass',
            schedule: '*/2 * * * *',
            timezone: 'Europe/Berlin',
            tlsFingerprint: 'sha256:' + 'ab:'.repeat(31) + 'ab',
            caFile: 'hik-ca.pem',
          },
        ],
      },
      '/etc/punchgate',
    );
    const t = c.terminals[0]!;
    expect(t).toMatchObject({
      kind: 'hikvision',
      url: 'https://192.168.1.64',
      username: 'admin',
      passwordFile: '/etc/punchgate/reception.pass',
      caFile: '/etc/punchgate/hik-ca.pem',
      schedule: '*/2 * * * *',
      timezone: 'Europe/Berlin',
      tlsFingerprint: 'AB:'.repeat(31) + 'AB',
      minors: [...DEFAULT_HIKVISION_MINORS],
      realtime: false,
      syncClock: false,
      enabled: true,
    });
  });

  it('accepts a fingerprint without colons or prefix, in any case', () => {
    const c = parseConfig(
      { ...base, terminals: [{ name: 'r', kind: 'hikvision', url: 'https://h', tlsFingerprint: 'cd'.repeat(32) }] },
      '/',
    );
    expect(c.terminals[0]).toMatchObject({ tlsFingerprint: 'CD:'.repeat(31) + 'CD' });
  });

  it('refuses what cannot work, naming the key', () => {
    expect(problems({ url: 'ftp://192.168.1.64' })).toEqual([
      'terminals[0] (reception).url: must be an http:// or https:// URL, got the text "ftp://192.168.1.64"',
    ]);
    expect(problems({ url: 'https://h', tlsFingerprint: 'sha256:12:34' })[0]).toMatch(
      /^terminals\[0\] \(reception\)\.tlsFingerprint: must be a SHA-256 certificate fingerprint/,
    );
    expect(problems({ url: 'http://h', tlsFingerprint: 'ab'.repeat(32) })).toEqual([
      'terminals[0] (reception).tlsFingerprint: needs an https:// url (the device is reached over plain http)',
    ]);
    expect(problems({ url: 'https://h', minors: [] })).toEqual([
      'terminals[0] (reception).minors: must list at least one minor',
    ]);
    expect(problems({ url: 'https://h', password: 'x' })).toEqual([
      'terminals[0] (reception).password: unknown key: did you mean passwordFile?',
    ]);
    expect(problems({})).toEqual([
      "terminals[0] (reception).url: is required: the terminal's web address, as its web page is opened (e.g. https://192.168.1.64)",
    ]);
  });

  it('names the password variable after the terminal', () => {
    expect(terminalPasswordEnv('reception')).toBe('PUNCHGATE_TERMINAL_RECEPTION_PASSWORD');
    expect(terminalPasswordEnv('gate-1.b')).toBe('PUNCHGATE_TERMINAL_GATE_1_B_PASSWORD');
  });

  it('listen: true needs the receiver (adms.listen), and allowFrom when its url names a host', () => {
    const parse = (adms: boolean, terminal: Record<string, unknown>) => {
      try {
        parseConfig(
          {
            ...base,
            ...(adms ? { adms: { listen: '0.0.0.0:8081' } } : {}),
            terminals: [{ name: 'reception', kind: 'hikvision', ...terminal }],
          },
          '/etc/punchgate',
        );
        return [];
      } catch (e) {
        return (e as ConfigError).problems;
      }
    };
    expect(parse(true, { url: 'http://192.168.1.64', listen: true })).toEqual([]);
    expect(parse(false, { url: 'http://192.168.1.64', listen: true }).join('\n')).toMatch(
      /terminals\[0\] \(reception\)\.listen.*needs the receiver: set adms\.listen/,
    );
    expect(parse(true, { url: 'http://door.lan', listen: true }).join('\n')).toMatch(
      /allowFrom.*must list the address the terminal posts from/,
    );
    expect(parse(true, { url: 'http://door.lan', listen: true, allowFrom: ['192.168.1.0/24'] })).toEqual([]);
    expect(parse(true, { url: 'http://192.168.1.64', listen: true, allowFrom: ['not an address'] }).join('\n')).toMatch(
      /allowFrom.*must be an address or a network/,
    );
    // Without listen, neither is asked for.
    expect(parse(false, { url: 'http://door.lan' })).toEqual([]);
  });
});
