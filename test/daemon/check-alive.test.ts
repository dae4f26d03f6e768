import { statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { spawnDaemon, startStack, statusUrl } from './stack.js';

/**
 * `punchgate check` (and `--quick`, the container health check) knows whether `punchgate run`
 * runs from the process that holds the journal's lock, not from the age of its status log: a
 * daemon killed a moment ago left a status log that still looks fresh, and check fails at once.
 * Real daemon child process, real CLI.
 */
describe('check knows whether the daemon runs', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('running: PASS with its pid; SIGKILLed: FAIL at once, its status log written a moment before', async () => {
    // The status log rewritten every 60 s, as by default: its age alone says nothing for a minute.
    const stack = await startStack({ status: { intervalMs: 60_000 } });
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    await statusUrl(d);
    const statusLog = stack.tmp.path('status.txt');
    await waitFor(() => statSync(statusLog, { throwIfNoEntry: false }) !== undefined, 15_000, 'the status log');

    const daemonLine = (out: string) => out.split('\n').find((l) => / daemon: /.test(l)) ?? out;
    const quick = await runPunchgate(['--config', stack.configPath, 'check', '--quick']);
    expect(quick.status, quick.stdout).toBe(0);
    expect(daemonLine(quick.stdout)).toMatch(
      new RegExp(`^PASS daemon: punchgate run is running \\(pid ${d.child.pid} holds the journal lock\\)`),
    );
    // The whole check says it too (it does not fail for a daemon that runs).
    const full = await runPunchgate(['--config', stack.configPath, 'check']);
    expect(daemonLine(full.stdout)).toMatch(
      /^PASS daemon: punchgate run is running \(pid \d+ holds the journal lock\)/,
    );

    // A power cut of the process: no chance to say anything, its status log fresh.
    d.child.kill('SIGKILL');
    await d.exited;
    const age = Date.now() - statSync(statusLog).mtimeMs;
    expect(age).toBeLessThan(60_000);
    const dead = await runPunchgate(['--config', stack.configPath, 'check', '--quick']);
    expect(dead.status, dead.stdout).toBe(1);
    expect(daemonLine(dead.stdout)).toMatch(
      /^FAIL daemon: punchgate run is not running: nothing holds the journal lock \S+journal\.db\.lock \(status log written \d+ s ago\) — start it: sudo systemctl start punchgate/,
    );
    // The whole check warns (it often runs before the first start), and status raises the alert.
    const fullDead = await runPunchgate(['--config', stack.configPath, 'check']);
    expect(daemonLine(fullDead.stdout)).toMatch(/^WARN daemon: punchgate run is not running/);
    const status = await runPunchgate(['--config', stack.configPath, 'status']);
    expect(status.stdout).toContain('! punchgate run is not running (nothing holds the journal lock');

    // Started again: PASS again, with the new process's pid.
    const d2 = spawnDaemon(stack.configPath);
    cleanups.push(() => d2.child.exitCode === null && d2.child.kill('SIGKILL'));
    await statusUrl(d2);
    const again = await runPunchgate(['--config', stack.configPath, 'check', '--quick']);
    expect(again.status, again.stdout).toBe(0);
    expect(daemonLine(again.stdout)).toContain(`(pid ${d2.child.pid} holds the journal lock)`);
    d2.child.kill('SIGTERM');
    expect((await d2.exited).code).toBe(0);
  }, 90_000);
});
