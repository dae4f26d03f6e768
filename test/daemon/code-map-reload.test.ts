import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { spawnDaemon, startStack } from './stack.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A punch of a card the code map did not hold when it was read waits under card:<number>. The
 * admin adds the card to the map and reloads: the waiting punch goes out under the map in force
 * when it is delivered, the employee's code (it went out as card:<number>, which an HRMS without
 * a roster keeps for good). A punch journalled under a code keeps it. Real daemon, real reload,
 * the HRMS simulator counting which code arrived.
 */
describe('a code map reload and the punches waiting under card:<number>', () => {
  it('gives the waiting punches of the cards now mapped their codes; the others stay as journalled', async () => {
    const stack = await startStack({
      terminals: 0,
      // Backed off for minutes once the HRMS fails, no probe: the punches wait, not in flight.
      delivery: { retry: { baseMs: 600_000, maxMs: 600_000 }, probeIntervalMs: 0 },
      extraTerminals: [
        // A reader not plugged in: it keeps trying to open its device, its code map is read.
        { name: 'door', kind: 'serial', path: '/dev/ttyUSB-punchgate-absent', format: 'card', codeMap: 'cards.csv' },
      ],
    });
    cleanups.push(() => stack.stop());
    const map = stack.tmp.path('cards.csv');
    writeFileSync(map, 'card,biometriccode\n0004521000,1042\n');
    // Read before: card 2 and card 3 unknown then, card 0004521000 mapped (journalled as 1042).
    const j = Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-t', mode: 'owner' });
    j.ingest([
      { terminal: 'door', biometricCode: 'card:0000000002', logTime: '2026-11-29 08:00:00' },
      { terminal: 'door', biometricCode: 'card:0000000003', logTime: '2026-11-29 08:01:00' },
      { terminal: 'door', biometricCode: '1042', logTime: '2026-11-29 08:02:00' },
    ]);
    j.close();

    stack.hrms.setFaults({ errorRate: 1 });
    const d = spawnDaemon(stack.configPath);
    cleanups.push(async () => {
      if (d.child.exitCode === null) d.child.kill('SIGTERM');
      await d.exited;
    });
    await waitFor(() => /HRMS delivery to \S+ failed, will retry/.test(d.output()), 20_000, 'the failure');

    // The admin adds card 2 and gives card 0004521000 to another person; then reloads.
    writeFileSync(map, 'card,biometriccode\n0004521000,1077\n2,2042\n');
    d.child.kill('SIGHUP');
    await waitFor(
      () =>
        d.output().includes('terminal door: 1 waiting punch of an unknown card now has the code its code map gives'),
      30_000,
      'the waiting punch remapped',
    );

    stack.hrms.setFaults({ errorRate: 0 });
    const flush = await runPunchgate(['--config', stack.configPath, 'flush']);
    expect(flush.status, flush.stderr).toBe(0);
    const codes = stack.hrms
      .attendance()
      .map((a) => String((a as { biometriccode?: unknown }).biometriccode))
      .sort();
    expect(codes).toEqual(['1042', '2042', 'card:0000000003']);
  }, 90_000);
});
