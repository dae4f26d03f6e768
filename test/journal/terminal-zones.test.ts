import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { tempDir } from '../helpers/tmp.js';

describe('the zone each terminal had (terminal_zones)', () => {
  const tmp = tempDir();
  afterEach(() => tmp.cleanup());

  it('keeps a terminal taken out of the config, follows a changed zone, and outlives a restart', () => {
    const path = tmp.path('journal.db');
    let j = Journal.open({ path, site: 'plant-a', mode: 'owner' });
    j.rememberTerminalZones(
      [
        { terminal: 'gate-1', timezone: 'Asia/Kolkata' },
        { terminal: 'lobby', timezone: 'Europe/Berlin' },
      ],
      1000,
    );
    // gate-1 taken out; lobby moved to another zone.
    j.rememberTerminalZones([{ terminal: 'lobby', timezone: 'Europe/Lisbon' }], 2000);
    j.close();
    j = Journal.open({ path, site: 'plant-a', mode: 'owner' });
    expect(j.terminalZones()).toEqual(
      new Map([
        ['gate-1', 'Asia/Kolkata'],
        ['lobby', 'Europe/Lisbon'],
      ]),
    );
    const setAt = () => j.db.prepare('SELECT terminal, set_at FROM terminal_zones ORDER BY terminal').all();
    expect(setAt()).toEqual([
      { terminal: 'gate-1', set_at: 1000 },
      { terminal: 'lobby', set_at: 2000 },
    ]);
    // The same zones again (every start and reload): nothing written.
    j.rememberTerminalZones([{ terminal: 'lobby', timezone: 'Europe/Lisbon' }], 3000);
    expect(setAt()).toEqual([
      { terminal: 'gate-1', set_at: 1000 },
      { terminal: 'lobby', set_at: 2000 },
    ]);
    j.close();
  });
});
