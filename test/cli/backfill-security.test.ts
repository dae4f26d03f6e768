import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { systemClock } from '../../src/util/clock.js';
import { cliSandbox } from '../helpers/cli.js';

/**
 * Found by an adversarial trial: a backfill of a Security PUSH terminal queued `DATA QUERY
 * ATTLOG`, which that firmware answers -1002 (unsupported): the admin was told it was queued, and
 * nothing would ever come. It is refused with what to do instead; attendance terminals still get it.
 */
describe('terminals backfill and the protocol of the terminal', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  it('refuses a Security PUSH terminal (78) and queues nothing; queues an attendance terminal’s', async () => {
    box = cliSandbox({
      adms: { listen: '127.0.0.1:0' },
      terminals: [
        { name: 'gate', kind: 'adms', serial: 'SPEEDFACE01' },
        { name: 'lobby', kind: 'adms', serial: 'LOBBY0001' },
      ],
    });
    const j = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    new PushStore(j.db, j, systemClock).saveRegistration({
      terminal: 'gate',
      serial: 'SPEEDFACE01',
      protocol: 'security',
      updatedAt: Date.now(),
    });
    j.close();
    const refused = await box.cli('terminals', 'backfill', 'gate', '--from', '2026-11-01');
    expect(refused.status, refused.stderr).toBe(78);
    expect(refused.stderr).toContain('gate speaks Security PUSH, whose firmware takes no ATTLOG query');
    expect(refused.stderr).toContain('punchgate import --terminal gate');
    expect((await box.cli('terminals', 'commands', 'gate')).stdout).toContain('no commands for gate yet');
    const queued = await box.cli('terminals', 'backfill', 'lobby', '--from', '2026-11-01');
    expect(queued.status, queued.stderr).toBe(0);
    expect(queued.stdout).toContain('queued a backfill of 2026-11-01');
  });
});
