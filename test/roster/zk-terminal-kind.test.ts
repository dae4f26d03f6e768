import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { zkTerminal } from '../../src/roster/terminals.js';

/**
 * restore-user and copy-templates on a terminal that is in the config but not a ZK one say what it
 * is and what works for it (a new-user trial was told "no zk terminal of that name in the config"
 * for a Hikvision terminal, and looked for a typo).
 */
describe('zkTerminal: the terminal a ZK-only command names', () => {
  const config = {
    terminals: [
      { name: 'gate-1', kind: 'zk', host: '127.0.0.1' },
      { name: 'reception', kind: 'hikvision', url: 'http://127.0.0.1' },
      { name: 'push-1', kind: 'adms', serial: 'X1' },
    ],
  } as unknown as Config;

  it('a ZK terminal is returned', () => {
    expect(zkTerminal(config, 'gate-1', 'restore-user').name).toBe('gate-1');
  });

  it('a Hikvision terminal: named as one, with the roster as the way back (exit 78)', () => {
    expect(() => zkTerminal(config, 'reception', 'restore-user')).toThrow(
      expect.objectContaining({
        exitCode: 78,
        message:
          'restore-user reception: reception is a hikvision terminal, not a zk one; restore-user writes to ZK terminals only: put the person back on reception through the roster (their row active again, then terminals sync-users) and give back the cards terminals backups lists',
      }),
    );
  });

  it('copy-templates to a push terminal: templates go between ZK terminals only', () => {
    expect(() => zkTerminal(config, 'push-1', '--to')).toThrow(
      'push-1 is an adms terminal, not a zk one; fingerprint templates are copied between ZK terminals (kind: zk) only',
    );
  });

  it('a name the config does not have: no terminal of that name', () => {
    expect(() => zkTerminal(config, 'gate-9', 'restore-user')).toThrow(
      'restore-user gate-9: no terminal of that name in the config',
    );
  });
});
