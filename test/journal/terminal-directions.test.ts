import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { directionRuleOf } from '../../src/punch/direction.js';
import { keptDirectionOf, ruleOfKept } from '../../src/punch/kept-direction.js';
import { tempDir } from '../helpers/tmp.js';

const terminals = parseConfigText(
  `site: plant-a
journal:
  path: j.db
hrms:
  baseUrl: https://hr.example.com
adms:
  listen: 127.0.0.1:0
terminals:
  - { name: exit, kind: zk, host: 10.0.0.1, direction: out }
  - { name: lobby, kind: zk, host: 10.0.0.2, directionStates: { '0': out, '2': none } }
  - { name: door, kind: adms, serial: CQZ1 }
`,
  'punchgate.yaml',
  '/tmp',
).terminals;

describe('the direction setting each terminal had (terminal_directions)', () => {
  const tmp = tempDir();
  afterEach(() => tmp.cleanup());

  it('keeps a terminal taken out of the config, follows a changed setting, and outlives a restart', () => {
    const path = tmp.path('journal.db');
    let j = Journal.open({ path, site: 'plant-a', mode: 'owner' });
    j.rememberTerminalDirections(
      terminals.map((t) => ({ terminal: t.name, ...keptDirectionOf(t) })),
      1000,
    );
    // exit taken out; lobby set to `direction: in`.
    j.rememberTerminalDirections([{ terminal: 'lobby', direction: 'in', states: '{}' }], 2000);
    j.close();
    j = Journal.open({ path, site: 'plant-a', mode: 'owner' });
    const kept = j.terminalDirections();
    expect(kept.get('exit')).toEqual({ terminal: 'exit', direction: 'out', states: '{}' });
    expect(kept.get('lobby')).toEqual({ terminal: 'lobby', direction: 'in', states: '{}' });
    const setAt = () => j.db.prepare('SELECT terminal, set_at FROM terminal_directions ORDER BY terminal').all();
    const before = setAt();
    expect(before).toEqual([
      { terminal: 'door', set_at: 1000 },
      { terminal: 'exit', set_at: 1000 },
      { terminal: 'lobby', set_at: 2000 },
    ]);
    // The same settings again (every start and reload): nothing written.
    j.rememberTerminalDirections([{ terminal: 'lobby', direction: 'in', states: '{}' }], 3000);
    expect(setAt()).toEqual(before);
    j.close();
  });

  it('gives back the rule the config made, states included', () => {
    for (const t of terminals) expect(ruleOfKept(keptDirectionOf(t))).toEqual(directionRuleOf(t));
    expect(keptDirectionOf(terminals[1]!).states).toBe('{"0":"out","2":"none"}');
  });

  it('takes a row it did not write for none (the rule of a terminal not in the config)', () => {
    expect(ruleOfKept({ direction: 'sideways', states: '{}' })).toBeUndefined();
    expect(ruleOfKept({ direction: 'device', states: 'not json' })).toBeUndefined();
    expect(ruleOfKept({ direction: 'device', states: '[1]' })).toBeUndefined();
    expect(ruleOfKept({ direction: 'device', states: '{"x":"in"}' })).toBeUndefined();
    expect(ruleOfKept({ direction: 'device', states: '{"1":"up"}' })).toBeUndefined();
  });
});
