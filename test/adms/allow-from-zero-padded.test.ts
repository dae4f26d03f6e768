import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { AdmsTerminalConfig } from '../../src/config/terminals.js';
import { attlog, http, startReceiver } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * `allowFrom` written as the terminal's menu shows its address (`192.168.001.020`): the config was
 * refused whole ("must be an address or a network"), though a terminal's host and a server's
 * address with the same numbers have been read as the decimal they mean (zeroPaddedIPv4). Now
 * read so here too, networks included; the real receiver then takes a push from that address.
 */
const parsed = (allowFrom: string[], kind: 'adms' | 'hikvision' = 'adms') =>
  parseConfig(
    {
      site: 'plant-a',
      journal: { path: 'j.db' },
      hrms: { baseUrl: 'https://hr.example.com', tokenFile: 't' },
      adms: { listen: '127.0.0.1:0' },
      terminals: [
        kind === 'adms'
          ? { name: 'lobby', kind, serial: 'CQZ7232160009', allowFrom }
          : { name: 'lobby', kind, url: 'http://192.168.1.64', listen: true, allowFrom },
      ],
    },
    '/etc/punchgate',
  ).terminals[0] as AdmsTerminalConfig;

describe('allowFrom with zero-padded IPv4 numbers', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('is read as the decimal it means, for an address and a network, for a push and a Hikvision terminal', () => {
    const want = ['192.168.1.20', '10.0.0.0/8', '192.168.10.0/24', 'fd00::/64'];
    const written = ['192.168.001.020', '010.000.000.000/8', ' 192.168.010.000/24', 'fd00::/64'];
    expect(parsed(written).allowFrom).toEqual(want);
    expect(parsed(written, 'hikvision').allowFrom).toEqual(want);
  });

  it('a push from the address so written is taken by the real receiver', async () => {
    r = await startReceiver({ terminals: [{ ...parsed(['127.000.000.001']), enabled: true }] });
    const ok = await http(
      r.url,
      'POST',
      '/iclock/cdata?SN=CQZ7232160009&table=ATTLOG&Stamp=1',
      attlog(['7\t2026-11-01 08:00:00']),
    );
    expect(ok).toEqual({ status: 200, body: 'OK:1' });
    expect(r.journal.queries.list().map((p) => p.terminal)).toEqual(['lobby']);
  });

  it('an address out of range is still refused', () => {
    expect(() => parsed(['192.168.001.256'])).toThrow(/allowFrom.*must be an address or a network/);
  });
});
