import { lookup } from 'node:dns/promises';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';

/**
 * A terminal's address typed as its own menu shows it (`192.168.001.020`), cut short or with an
 * octet out of range. The system's resolver reads the first as octal and the second with zeros
 * filled in, so punchgate would have polled another device without a word; the third was said only
 * at the first poll, as a host name not found (found by a new-user trial).
 */
const problems = (host: string) => {
  try {
    parseConfig(
      {
        site: 'plant-a',
        journal: { path: 'j.db' },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 't' },
        terminals: [{ name: 'gate-1', kind: 'zk', host }],
      },
      '/etc/punchgate',
    );
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

describe("a terminal's IP address written wrong", () => {
  it('with leading zeros (as a terminal menu shows it): read as the decimal it means, not as octal', async () => {
    // What the resolver and the URL parser make of it: another device.
    expect((await lookup('127.000.000.010')).address).toBe('127.0.0.8');
    expect(new URL('https://192.168.001.064').host).toBe('192.168.1.52');
    const config = parseConfig(
      {
        site: 'plant-a',
        journal: { path: 'j.db' },
        hrms: { baseUrl: 'https://192.168.001.064:8443/hr', tokenFile: 't' },
        terminals: [
          { name: 'gate-1', kind: 'zk', host: '192.168.001.020' },
          { name: 'gate-2', kind: 'zk', host: '192.168.001.201' },
          { name: 'reception', kind: 'hikvision', url: 'http://010.000.000.009', passwordFile: 'p' },
        ],
      },
      '/etc/punchgate',
    );
    expect(config.hrms?.baseUrl).toBe('https://192.168.1.64:8443/hr');
    expect(config.terminals.map((t) => ('host' in t ? t.host : 'url' in t ? t.url : ''))).toEqual([
      '192.168.1.20',
      '192.168.1.201',
      'http://10.0.0.9',
    ]);
  });

  it('cut short, out of range or all digits: refused, saying what an address is', async () => {
    expect((await lookup('127.1')).address).toBe('127.0.0.1');
    for (const host of ['192.168.1', '192.168.1.256', '192.168.1.2011', '3232235777', '192.168.1.20.']) {
      expect(problems(host), host).toEqual([
        `terminals[0] (gate-1).host: must be an IP address of four numbers from 0 to 255 (e.g. 192.168.1.201), or a host name, got the text "${host}"`,
      ]);
    }
  });

  it('in a server address (the HRMS, a Hikvision terminal): the same, as written, before the URL parser reads it', () => {
    const said = (raw: object) => {
      try {
        parseConfig({ site: 'plant-a', journal: { path: 'j.db' }, ...raw }, '/etc/punchgate');
        return [];
      } catch (e) {
        return (e as ConfigError).problems;
      }
    };
    expect(
      said({
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 't' },
        terminals: [{ name: 'reception', kind: 'hikvision', url: 'http://192.168.1', passwordFile: 'p' }],
      }),
    ).toEqual([
      'terminals[0] (reception).url: must be an IP address of four numbers from 0 to 255 (e.g. 192.168.1.201), or a host name, got the text "http://192.168.1"',
    ]);
  });

  it('takes a plain address and a host name as they are', () => {
    for (const host of ['192.168.1.201', '10.0.0.5', 'gate-1.plant.lan', 'localhost', '::1', 'fe80::1'])
      expect(problems(host), host).toEqual([]);
  });
});
