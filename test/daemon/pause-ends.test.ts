import { renameSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { HrmsSimOptions } from '../../src/sim/hrms/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { keys, punchTimes, spawnDaemon, startStack, TOKEN } from './stack.js';

/**
 * A paused delivery ends as soon as its cause is gone, not when its timer runs out: a token
 * file fixed after a refused token is tried at once (the default authRetryMs is 3 minutes), and
 * a `punchgate flush` that got punches through (beside the daemon) ends the daemon's backoff.
 * Real daemon, real HRMS simulator; punches counted there, none twice.
 */
describe('a paused delivery ends when its cause is gone', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const setup = async (delivery: Record<string, unknown>, token: string, hrms?: HrmsSimOptions) => {
    const stack = await startStack({ delivery, ...(hrms ? { hrms } : {}) });
    cleanups.push(() => stack.stop());
    writeFileSync(stack.tmp.path('token'), `${token}\n`);
    const d = spawnDaemon(stack.configPath);
    cleanups.push(async () => {
      if (d.child.exitCode === null) d.child.kill('SIGTERM');
      await d.exited;
    });
    return { stack, d };
  };

  for (const [name, write] of [
    ['rewritten in place', (path: string) => writeFileSync(path, `${TOKEN}\n`)],
    [
      'the same length, replaced by a rename',
      (path: string) => {
        writeFileSync(`${path}.new`, `${TOKEN}\n`);
        // Same size as the wrong one: only the inode and the times tell.
        renameSync(`${path}.new`, path);
      },
    ],
  ] as const) {
    it(`a token file fixed (${name}) after a refused token: tried at once, not after authRetryMs (3 min)`, async () => {
      const wrong = 'x'.repeat(TOKEN.length);
      const { stack, d } = await setup({ authRetryMs: 180_000 }, wrong);
      const t = stack.terminals[0]!;
      const at = punchTimes('2026-11-28', 6);
      for (let i = 0; i < 30; i++) t.addPunch({ userId: String(3000 + i), logTime: at() });
      await waitFor(() => /AUTH FAILED/.test(d.output()), 20_000, 'the refused token');
      const refused = stack.hrms.requests();
      expect(stack.hrms.attendance()).toHaveLength(0);
      // The unchanged file is looked at (once a second) but not tried again: the status log is
      // rewritten four times (300 ms apart) meanwhile, and no request more reaches the HRMS.
      await statusRewrites(stack.tmp.path('status.txt'), 4);
      expect(stack.hrms.requests()).toBe(refused);

      const fixedAt = Date.now();
      write(stack.tmp.path('token'));
      // Far sooner than authRetryMs (3 min); the bound leaves room for a loaded CI box.
      await waitFor(() => stack.hrms.attendance().length === 30, 40_000, 'the 30 punches with the fixed token');
      const took = Date.now() - fixedAt;
      expect(took, 'a fixed token is tried within seconds').toBeLessThan(40_000);
      expect(d.output()).toContain('the HRMS token changed: delivery tries the new one at once');
      expect(keys(stack.hrms.attendance())).toHaveLength(30);
      expect(stack.hrms.requests()).toBeGreaterThan(refused);
      // Punches that arrive later go out at once too: the pause is over.
      for (let i = 0; i < 5; i++) t.addPunch({ userId: String(3100 + i), logTime: at() });
      await waitFor(() => stack.hrms.attendance().length === 35, 15_000, 'later punches');
      expect(keys(stack.hrms.attendance())).toHaveLength(35);
    }, 120_000);
  }

  it('a flush that delivers beside the daemon ends its backoff: later punches go out at once', async () => {
    // The HRMS fails: the daemon backs off for minutes (no probing to cut it short).
    const { stack, d } = await setup(
      { retry: { baseMs: 240_000, maxMs: 240_000 }, probeIntervalMs: 0, alertAfterMinutes: 1 },
      TOKEN,
    );
    stack.hrms.setFaults({ errorRate: 1 });
    const t = stack.terminals[0]!;
    const at = punchTimes('2026-11-28', 8);
    for (let i = 0; i < 20; i++) t.addPunch({ userId: String(4000 + i), logTime: at() });
    await waitFor(() => /HRMS delivery to \S+ failed, will retry/.test(d.output()), 20_000, 'the failure');
    await waitFor(
      async () => {
        const r = await runPunchgate(['--config', stack.configPath, 'punches', '--state', 'undelivered', '--count']);
        return r.stdout.trim() === '20';
      },
      20_000,
      '20 punches journalled',
    );

    stack.hrms.setFaults({ errorRate: 0 });
    const flush = await runPunchgate(['--config', stack.configPath, 'flush']);
    expect(flush.status, flush.stderr).toBe(0);
    expect(stack.hrms.attendance()).toHaveLength(20);

    const after = Date.now();
    for (let i = 0; i < 10; i++) t.addPunch({ userId: String(4100 + i), logTime: at() });
    // Far sooner than the 4 min backoff; the bound leaves room for a loaded CI box.
    await waitFor(() => stack.hrms.attendance().length === 30, 40_000, 'the punches after the flush');
    expect(Date.now() - after).toBeLessThan(40_000);
    expect(d.output()).toContain('punches were delivered by another process (punchgate flush) during the pause');
    expect(keys(stack.hrms.attendance())).toHaveLength(30);
  }, 120_000);

  it('a flush whose punches the HRMS all refused ends the backoff too: the HRMS answers again', async () => {
    // Since a batch refused wholly is no success (lastSuccessAt kept), such a flush left the
    // daemon's backoff running for its 4 minutes: the HRMS answered it, so the pause is over.
    const known = Array.from({ length: 10 }, (_, i) => String(5100 + i));
    const { stack, d } = await setup(
      { retry: { baseMs: 240_000, maxMs: 240_000 }, probeIntervalMs: 0, alertAfterMinutes: 1 },
      TOKEN,
      {
        roster: 'employees',
        employees: known.map((code) => ({
          username: `u${code}`,
          name: `U ${code}`,
          email: `u${code}@example.com`,
          biometriccode: code,
        })),
      },
    );
    stack.hrms.setFaults({ errorRate: 1 });
    const t = stack.terminals[0]!;
    const at = punchTimes('2026-11-28', 9);
    // Codes the HRMS does not know: each punch is refused once it answers.
    for (let i = 0; i < 20; i++) t.addPunch({ userId: String(5000 + i), logTime: at() });
    await waitFor(() => /HRMS delivery to \S+ failed, will retry/.test(d.output()), 20_000, 'the failure');
    await waitFor(
      async () => {
        const r = await runPunchgate(['--config', stack.configPath, 'punches', '--state', 'undelivered', '--count']);
        return r.stdout.trim() === '20';
      },
      20_000,
      '20 punches journalled',
    );

    stack.hrms.setFaults({ errorRate: 0 });
    const flush = await runPunchgate(['--config', stack.configPath, 'flush']);
    expect(flush.stdout).toContain('flush: 0 delivered, 0 already recorded, 20 rejected');
    expect(stack.hrms.attendance()).toHaveLength(0);

    const after = Date.now();
    for (const code of known) t.addPunch({ userId: code, logTime: at() });
    // Far sooner than the 4 min backoff; the bound leaves room for a loaded CI box.
    await waitFor(() => stack.hrms.attendance().length === 10, 40_000, 'the punches after the flush');
    expect(Date.now() - after).toBeLessThan(40_000);
    expect(d.output()).toContain('the HRMS answered another process (punchgate flush) during the pause');
    expect(keys(stack.hrms.attendance())).toHaveLength(10);
  }, 120_000);
});

/** Waits until the status log has been rewritten `n` times (a wait that lets the daemon's timers run). */
async function statusRewrites(path: string, n: number): Promise<void> {
  const seen = new Set<number>();
  await waitFor(
    () => {
      try {
        seen.add(statSync(path).mtimeMs);
      } catch {
        // not written yet
      }
      return seen.size > n;
    },
    15_000,
    `${n} rewrites of ${path}`,
  );
}
