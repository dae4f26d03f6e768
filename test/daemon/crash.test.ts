import { describe, expect, it } from 'vitest';
import { keys, spawnDaemon, startStack } from './stack.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Kills the daemon with SIGKILL at random moments, 20 times, while the simulated terminal
 * keeps punching and the simulated HRMS fails now and then. At the end every punch the
 * terminal recorded has reached the HRMS, and only punches of a batch that was in flight at
 * a kill (or whose answer was lost to a reset) arrived twice.
 */
describe('crash safety', () => {
  it('survives 20 SIGKILLs without losing a punch', async () => {
    const stack = await startStack({ delivery: { batchSize: 10 } });
    const t = stack.terminals[0]!;
    let n = 0;
    const punchTimer = setInterval(() => {
      n++;
      t.addPunch({
        userId: String(1000 + (n % 13)),
        logTime: `2026-11-22 ${String(6 + Math.floor(n / 3600)).padStart(2, '0')}:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}`,
      });
    }, 15);
    // Fails now and then: 503s before processing, and resets after recording (outcome unknown).
    stack.hrms.setFaults({ errorRate: 0.15, resetRate: 0.1, resetAfterProcessing: true, seed: 42 });
    try {
      for (let kill = 0; kill < 20; kill++) {
        const d = spawnDaemon(stack.configPath);
        await new Promise((r) => setTimeout(r, 250 + Math.floor(Math.random() * 600)));
        d.child.kill('SIGKILL');
        await d.exited;
      }
      clearInterval(punchTimer);
      stack.hrms.setFaults({ errorRate: 0, resetRate: 0 });
      const d = spawnDaemon(stack.configPath);
      const expected = keys(t.punches());
      await waitFor(
        () => keys(stack.hrms.attendance()).length === expected.length,
        30_000,
        'every punch delivered after the kills',
      );
      expect(keys(stack.hrms.attendance())).toEqual(expected);
      // The HRMS recorded each punch once; repeats were answered "already exists".
      expect(stack.hrms.attendance().length).toBe(expected.length);
      const duplicates = stack.hrms.received().filter((p) => p.outcome === 'duplicate').length;
      // At most one batch (10) in flight per kill, plus the batches whose answer a reset lost
      // (10 % of requests on average; 25 % allowed).
      const lostAnswers = Math.ceil(stack.hrms.requests() * 0.25);
      expect(duplicates).toBeLessThanOrEqual((20 + lostAnswers) * 10);
      // A stop signal before the daemon installed its handlers would kill it the default way.
      await waitFor(() => d.output().includes('punchgate running'), 10_000, 'the last daemon running');
      d.child.kill('SIGTERM');
      const exit = await d.exited;
      expect(exit, d.output().slice(-2000)).toEqual({ code: 0, signal: null });
    } finally {
      clearInterval(punchTimer);
      await stack.stop();
    }
  }, 120_000);
});
