import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { unitNodeArgs } from '../../bench/lib/unit.js';
import { waitFor } from '../helpers/wait.js';
import { punchTimes, startStack, unitEnvironment } from './stack.js';

/**
 * Found by an adversarial trial: the service user made a FIFO at `status.txt.tmp` beside the
 * journal; a daemon started as root opened it to write the status log and blocked for good, deaf
 * to SIGTERM, no log line, the status page never up. The temporary name is now made new: what
 * another user left there is removed, never opened.
 */
describe('a FIFO planted at the status log temporary name', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('neither blocks the daemon nor stops its status log; SIGTERM stops it', async () => {
    const stack = await startStack({ status: { intervalMs: 300 } });
    cleanups.push(() => stack.stop());
    const at = punchTimes('2026-11-28', 9);
    for (let i = 0; i < 3; i++) stack.terminals[0]!.addPunch({ userId: String(7000 + i), logTime: at() });
    for (const name of ['status.txt.tmp', 'status.json.tmp'])
      expect(spawnSync('mkfifo', [stack.tmp.path(name)]).status).toBe(0);

    const child = spawn(
      process.execPath,
      [...unitNodeArgs(), 'dist/punchgate.js', 'run', '--config', stack.configPath],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...unitEnvironment(), NOTIFY_SOCKET: '', PUNCHGATE_HRMS_TOKEN: '' },
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // A blocked daemon ignores SIGTERM: the cleanup makes sure.
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    });

    await waitFor(() => stack.hrms.attendance().length === 3, 30_000, `3 punches delivered:\n${out}`);
    await waitFor(
      () => existsSync(stack.tmp.path('status.json')) && existsSync(stack.tmp.path('status.txt')),
      10_000,
      `the status log:\n${out}`,
    );
    expect(lstatSync(stack.tmp.path('status.txt')).isFile()).toBe(true);
    child.kill('SIGTERM');
    expect(await exited, out).toBe(0);
  });
});
