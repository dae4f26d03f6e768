import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/ports.js';
import { startHrmsSim } from '../../src/sim/hrms/index.js';
import { spawnDaemon, startStack, TOKEN } from './stack.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The HRMS comes back after an outage: the log says what its first answer (the probe's empty test
 * batch) was. The probe counts any answer but a 5xx as "up"; the log said "an empty test batch was
 * accepted" over a 401 when the token had been changed meanwhile (a new-user trial).
 */
describe('punchgate run when the HRMS answers again', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('with a wrong token: says the token was refused, never that the test batch was accepted', async () => {
    const port = await freePort();
    const stack = await startStack({
      hrms: { port },
      // A long backoff: only the probe (every 200 ms) asks the HRMS while it is away.
      delivery: { probeIntervalMs: 200, retry: { baseMs: 60_000, maxMs: 60_000 }, authRetryMs: 200 },
    });
    cleanups.push(() => stack.stop());
    writeFileSync(stack.tmp.path('token'), `${TOKEN}\n`);
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const t = stack.terminals[0]!;
    t.addPunch({ userId: '1001', logTime: '2026-11-22 08:00:00' });
    await waitFor(() => stack.hrms.attendance().length === 1, 20_000, 'the first punch delivered');

    await stack.hrms.stop();
    t.addPunch({ userId: '1002', logTime: '2026-11-22 08:01:00' });
    await waitFor(() => /HRMS delivery to \S+ failed, will retry/.test(d.output()), 20_000, 'the HRMS away');
    writeFileSync(stack.tmp.path('token'), 'a-wrong-token\n');
    const back = await startHrmsSim({ tokens: [TOKEN], port });
    cleanups.push(() => back.stop());

    await waitFor(() => /the HRMS answers again/.test(d.output()), 20_000, 'the HRMS back');
    await waitFor(() => /AUTH FAILED/.test(d.output()), 20_000, 'the refused token said');
    const line = /.*the HRMS answers again.*/.exec(d.output())![0];
    expect(line).not.toContain('accepted');
    expect(line).toMatch(/but it refused the token of an empty test batch \(.*401.*\)/);
    expect(d.output()).not.toContain('a-wrong-token');
    expect(back.attendance()).toHaveLength(0);
  }, 60_000);
});
