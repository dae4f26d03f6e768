import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * A new-user trial: the first status of the demo, at the daemon's second 0, told the admin to check
 * a push terminal's power and network, though it had not had the time to call. Within its first
 * interval (three Delay periods, 30 s at delay 10) since punchgate run started it is waiting for
 * its first call; after that, the fix as before.
 */
describe('a push terminal that has not called yet', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let journal: Journal;
  const start = Date.UTC(2026, 11, 1, 8, 0, 0);
  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(start);
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-s', clock, mode: 'owner' });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  const config = () =>
    parseConfig(
      {
        site: 'plant-s',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        adms: { listen: '127.0.0.1:0', delay: 10 },
        terminals: [{ name: 'lobby', kind: 'adms', serial: 'CQZ7231' }],
      },
      tmp.dir,
    );
  const statusAt = (now: number, startedAt?: number) =>
    buildStatus(journal, config(), now, {
      live: { journalBusySince: null, heldPunches: 0, ...(startedAt !== undefined ? { startedAt } : {}) },
    });

  it('is waiting for its first call within its interval since the daemon started, not a fault', () => {
    const r = statusAt(start, start);
    const lobby = r.terminals.find((t) => t.name === 'lobby')!;
    expect(lobby.problem!.cause).toMatch(/^waiting for its first call \(punchgate run started at /);
    expect(lobby.problem!.fix).toMatch(/^nothing to do yet: it should call by /);
    expect(formatStatus(r)).not.toMatch(/power and network/);
    expect(r.runningSince).toBe(new Date(start).toISOString());
    // Still so one second before the interval ends.
    expect(statusAt(start + 29_000, start).terminals[0]!.problem!.cause).toMatch(/^waiting for its first call/);
  });

  it('once its interval has passed, or with no daemon start known, the fix to check it', () => {
    for (const r of [statusAt(start + 30_000, start), statusAt(start)]) {
      const lobby = r.terminals.find((t) => t.name === 'lobby')!;
      expect(lobby.problem).toEqual({
        cause: 'it has not called this box yet',
        fix: "check its power and network, and that its Cloud Server Setting names this box's address and adms.listen port",
      });
    }
  });
});
