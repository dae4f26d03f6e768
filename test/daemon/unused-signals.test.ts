import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { spawnDaemon, startStack, statusUrl } from './stack.js';

/**
 * Signals punchgate has no use for, sent as other daemons' habits ("reopen the logs", "dump"):
 * SIGUSR1 opened Node's debugger on 127.0.0.1:9229 (any user of the box could then run code in the
 * daemon, with its token), SIGUSR2 killed the daemon without its clean stop. Now each is said in
 * the log and the daemon goes on collecting and delivering.
 */
describe('punchgate run sent SIGUSR1 and SIGUSR2', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('opens no debugger, keeps running, loses no punch', async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    // While it starts too (its first line is the config's: the journal is not open yet).
    await waitFor(() => d.output().length > 0, 20_000, 'the first log line');
    const early = setInterval(() => d.child.kill('SIGUSR1'), 10);
    await statusUrl(d).finally(() => clearInterval(early));
    const t = stack.terminals[0]!;

    for (const [i, signal] of (['SIGUSR1', 'SIGUSR2'] as const).entries()) {
      d.child.kill(signal);
      await waitFor(() => d.output().includes(`${signal}: punchgate does nothing on this signal`), 10_000, signal);
      t.addPunch({ userId: '1001', logTime: `2026-11-20 09:0${i}:00` });
      await waitFor(() => stack.hrms.attendance().length === i + 1 || d.child.exitCode !== null, 20_000, 'delivered');
      expect(d.child.exitCode).toBeNull();
      expect(d.child.signalCode).toBeNull();
    }
    expect(d.output()).not.toContain('Debugger listening');
    expect(d.output()).toContain('systemctl reload punchgate reloads the config');

    d.child.kill('SIGTERM');
    expect(await d.exited).toEqual({ code: 0, signal: null });
    expect(stack.hrms.attendance()).toHaveLength(2);
  }, 60_000);
});
