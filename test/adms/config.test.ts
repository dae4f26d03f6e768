import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load.js';
import { checkTerminalConfig } from '../../src/sources/build.js';

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

describe('config of push terminals', () => {
  it('reads adms.listen and push terminals with their defaults', () => {
    const c = parseConfig(
      {
        ...base,
        adms: { listen: '0.0.0.0:8081' },
        terminals: [
          {
            name: 'lobby',
            kind: 'adms',
            serial: 'CQZ7232160001',
            timezone: 'Europe/Berlin',
            allowFrom: ['192.168.10.0/24'],
          },
        ],
      },
      '/etc/punchgate',
    );
    expect(c.adms).toEqual({
      listen: '0.0.0.0:8081',
      delay: 10,
      errorDelay: 30,
      realtime: true,
      maxBodyBytes: 2 * 1024 * 1024,
      maxConnections: 1024,
      maxConnectionsPerAddress: 64,
      requestTimeoutMs: 30_000,
      keptUploads: { maxBytes: 64 * 1024 * 1024, maxAgeDays: 30 },
    });
    expect(c.terminals[0]).toEqual({
      name: 'lobby',
      kind: 'adms',
      serial: 'CQZ7232160001',
      timezone: 'Europe/Berlin',
      allowFrom: ['192.168.10.0/24'],
      enabled: true,
    });
  });

  it('says what is wrong, path by path', () => {
    expect(problems({ ...base, terminals: [{ name: 'lobby', kind: 'adms', serial: 'CQZ1' }] })).toEqual([
      'terminals[0] (lobby).kind: a push terminal (kind: adms) needs the receiver: set adms.listen, e.g. 0.0.0.0:8081',
    ]);
    expect(
      problems({
        ...base,
        adms: { listen: '8081' },
        terminals: [
          { name: 'a', kind: 'adms' },
          { name: 'b', kind: 'adms', serial: 'SN 1', allowFrom: ['192.168.10.0/33', 'lobby'] },
          { name: 'c', kind: 'adms', serial: 'CQZ1', host: '10.0.0.1' },
        ],
      }),
    ).toEqual([
      "terminals[0] (a).serial: is required: the terminal's serial number, as its System Info shows it and the SN= it sends (e.g. CQZ7232160001)",
      'terminals[1] (b).serial: must be the serial number the terminal sends, e.g. CQZ7232160001, got the text "SN 1"',
      'terminals[1] (b).allowFrom[0]: must be an address or a network such as 192.168.10.0/24, got the text "192.168.10.0/33"',
      'terminals[1] (b).allowFrom[1]: must be an address or a network such as 192.168.10.0/24, got the text "lobby"',
      'terminals[2] (c).host: unknown key (the keys here are: name, timezone, enabled, direction, directionStates, sinks, kind, serial, allowFrom, punchEvents, pushDialect, encoding)',
      'adms.listen: must be HOST:PORT such as 0.0.0.0:8081 or [::]:8081, got the text "8081"',
    ]);
    expect(
      problems({
        ...base,
        adms: { listen: '[::]:8081' },
        terminals: [
          { name: 'a', kind: 'adms', serial: 'cqz1' },
          { name: 'b', kind: 'adms', serial: 'CQZ1' },
        ],
      }),
    ).toEqual(['terminals[1] (b).serial: serial CQZ1 is already the serial of terminal "a"']);
    // A host that is no address: told in adms.listen's own form, not the status page's 9330 and
    // false (which adms.listen does not take), as a new-user trial was.
    expect(problems({ ...base, adms: { listen: 'box.plant.lan:8081' } })).toEqual([
      'adms.listen: "box.plant.lan" is not an IP address: must be HOST:PORT such as 0.0.0.0:8081 or [::]:8081, got the text "box.plant.lan:8081"',
    ]);
    expect(
      problems({
        ...base,
        adms: { listen: '[::]:8081', keptUploads: { maxBytes: 10, maxAgeDays: 0 } },
        terminals: [
          { name: 'a', kind: 'adms', serial: 'CQZ1', punchEvents: [] },
          { name: 'b', kind: 'adms', serial: 'CQZ2', punchEvents: [0, 'face'] },
        ],
      }),
    ).toEqual([
      'terminals[0] (a).punchEvents: must list at least one event code (leave punchEvents out for the default)',
      'terminals[1] (b).punchEvents[1]: must be a number, got the text "face"',
      'adms.keptUploads.maxBytes: must be at least 65536, got the number 10',
      'adms.keptUploads.maxAgeDays: must be at least 1, got the number 0',
    ]);
  });

  it('the demo config has a push terminal and its receiver', () => {
    const c = loadConfig('config/demo.yaml', checkTerminalConfig);
    expect(c.adms?.listen).toBe('127.0.0.1:18081');
    expect(c.terminals.find((t) => t.kind === 'adms')).toMatchObject({ name: 'lobby', serial: 'DEMOPUSH0001' });
  });
});
