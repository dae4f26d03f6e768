import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus } from '../../src/status/index.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

describe('the busy-journal alert with push terminals', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let journal: Journal;
  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-s', clock, mode: 'owner' });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  const config = (terminals: Record<string, unknown>[]) =>
    parseConfig(
      {
        site: 'plant-s',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        adms: { listen: '127.0.0.1:0' },
        terminals,
      },
      tmp.dir,
    );

  it('says the push terminals keep their punches and send them again, not only "0 punches held in memory"', () => {
    const r = buildStatus(
      journal,
      config([
        { name: 'lobby', kind: 'adms', serial: 'CQZ7231' },
        { name: 'dock', kind: 'adms', serial: 'CQZ7232' },
        { name: 'gate-1', kind: 'zk', host: '10.0.0.1' },
      ]),
      clock.now(),
      { live: { journalBusySince: clock.now() - 40_000, heldPunches: 0 } },
    );
    const busy = r.alertItems.find((a) => a.kind === 'journal-busy')!;
    expect(busy.cause).toBe(
      'journal busy for 40 s (another process holds it): 0 punches held in memory, written as soon as it is free; ' +
        'push terminals lobby, dock keep their punches (each upload is answered "try later") and send them again once it is free',
    );
  });

  it('one push terminal in the singular; none: the words as before', () => {
    const one = buildStatus(journal, config([{ name: 'lobby', kind: 'adms', serial: 'CQZ7231' }]), clock.now(), {
      live: { journalBusySince: clock.now() - 5_000, heldPunches: 1 },
    });
    expect(one.alertItems.find((a) => a.kind === 'journal-busy')!.cause).toContain(
      '1 punch held in memory, written as soon as it is free; push terminal lobby keeps its punches (each upload is answered "try later") and sends them again once it is free',
    );
    const none = buildStatus(journal, config([{ name: 'gate-1', kind: 'zk', host: '10.0.0.1' }]), clock.now(), {
      live: { journalBusySince: clock.now() - 5_000, heldPunches: 3 },
    });
    expect(none.alertItems.find((a) => a.kind === 'journal-busy')!.cause).toBe(
      'journal busy for 5 s (another process holds it): 3 punches held in memory, written as soon as it is free',
    );
  });
});
