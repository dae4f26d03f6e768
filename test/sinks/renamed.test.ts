import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { DEFAULT_DIRECTION_RULE } from '../../src/punch/direction.js';
import { sinkPunchContext } from '../../src/sinks/build.js';
import { renamedTerminals } from '../../src/sinks/renamed.js';

/**
 * Found by an adversarial trial: gate-1 (Europe/Berlin) renamed gate-a by a reload while punches
 * journalled as gate-1 were owed to Odoo; they went out in the box's zone (09:05 Berlin sent as
 * 09:05 UTC) and with no direction rule. The same device under its new name gives both.
 */
describe('a renamed terminal’s owed punches', () => {
  const config = parseConfig({
    site: 'plant-a',
    journal: { path: '/tmp/j.db' },
    hrms: { baseUrl: 'https://hr.example.com', tokenFile: '/tmp/t' },
    adms: { listen: '127.0.0.1:0' },
    terminals: [
      { name: 'gate-a', kind: 'zk', host: '10.0.0.5', timezone: 'Europe/Berlin', direction: 'in' },
      { name: 'lobby', kind: 'adms', serial: 'CQZ1', timezone: 'Asia/Kolkata' },
    ],
  });

  it('take the zone and direction of the configured terminal that is the same device', () => {
    let reads = 0;
    let now = 0;
    const known = new Map([
      ['gate-1', 'SN-GATE'],
      ['gate-a', 'SN-GATE'],
      ['old-lobby', 'cqz1'],
      ['gone', 'SN-GONE'],
    ]);
    const renamed = renamedTerminals(
      config.terminals,
      () => (reads++, known),
      () => now,
    );
    const ctx = sinkPunchContext(config.terminals, renamed);
    expect(ctx.timezoneOf('gate-1')).toBe('Europe/Berlin');
    expect(ctx.directionOf({ terminal: 'gate-1', punchState: 1 })).toBe('in');
    // A push terminal's serial in the config, in any letter case.
    expect(ctx.timezoneOf('old-lobby')).toBe('Asia/Kolkata');
    // A terminal removed for good: no zone (the box's), as before.
    expect(ctx.timezoneOf('gone')).toBeUndefined();
    // Names in the config never read the journal; an unknown one reads it at most once a minute.
    expect(ctx.timezoneOf('gate-a')).toBe('Europe/Berlin');
    const before = reads;
    ctx.timezoneOf('gone');
    expect(reads).toBe(before);
    now += 60_000;
    ctx.timezoneOf('gone');
    expect(reads).toBe(before + 1);
    // Without the journal's devices (the old behaviour), the old name has no zone.
    expect(sinkPunchContext(config.terminals).timezoneOf('gate-1')).toBeUndefined();
    // A terminal taken out keeps the zone the journal remembers for it; the config's zone wins for one configured.
    const remembered = new Map([
      ['gone', 'America/Chicago'],
      ['gate-a', 'Asia/Tokyo'],
    ]);
    const kept = sinkPunchContext(config.terminals, renamed, (t) => remembered.get(t));
    expect(kept.timezoneOf('gone')).toBe('America/Chicago');
    expect(kept.timezoneOf('gate-a')).toBe('Europe/Berlin');
    expect(kept.timezoneOf('gate-1')).toBe('Europe/Berlin');
    // ...and the direction rule it had; the config's rule wins for one configured, or renamed.
    const exit = { setting: 'out' as const, states: DEFAULT_DIRECTION_RULE.states };
    const directed = sinkPunchContext(config.terminals, renamed, undefined, () => exit);
    expect(directed.directionOf({ terminal: 'gone', punchState: 0 })).toBe('out');
    expect(directed.directionOf({ terminal: 'gate-a', punchState: 1 })).toBe('in');
    expect(directed.directionOf({ terminal: 'gate-1', punchState: 1 })).toBe('in');
    expect(kept.directionOf({ terminal: 'gone', punchState: 0 })).toBe('in');
  });
});
