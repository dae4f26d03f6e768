import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';

// A new-user trial wrote `adress:` for a ZK terminal's address: the message listed all 21 keys
// of a terminal instead of naming host.
const problems = (terminal: Record<string, unknown>) => {
  try {
    parseConfig({ site: 'plant-a', journal: { path: 'j.db' }, terminals: [terminal] }, '/etc/punchgate');
    return [];
  } catch (e) {
    return (e as ConfigError).problems;
  }
};

describe("a terminal's address under another name", () => {
  it('is answered with host where the terminal takes one', () => {
    for (const key of ['adress', 'address', 'ip', 'IP_Address', 'hostname'])
      expect(problems({ name: 'gate-1', kind: 'zk', [key]: '192.168.1.201' }), key).toContain(
        `terminals[0] (gate-1).${key}: unknown key: did you mean host?`,
      );
  });

  it('is not answered with host where the terminal has none (Hikvision takes url)', () => {
    const found = problems({ name: 'door', kind: 'hikvision', address: '192.168.1.64', username: 'admin' });
    expect(found.join('\n')).not.toContain('did you mean host');
  });
});
