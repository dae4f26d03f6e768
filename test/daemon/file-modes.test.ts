import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unitNodeArgs } from '../../bench/lib/unit.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { punchTimes, startStack, unitEnvironment } from './stack.js';

/**
 * Started as the no-systemd docs say, from root's shell (umask 022), punchgate still makes every
 * file beside the journal 0600: the journal and the -wal and -shm files SQLite makes, the lock,
 * the status log and its JSON twin, the last good config, and a backup. The test runs the real
 * daemon and commands in a shell with umask 022, and stats every file they left.
 */
describe('file modes under umask 022', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** `sh -c 'umask 022; exec node ... dist/punchgate.js ARGS'`, as an admin's shell starts it. */
  const withUmask022 = (args: string[]) => {
    const child = spawn(
      '/bin/sh',
      ['-c', 'umask 022; exec "$@"', 'sh', process.execPath, ...unitNodeArgs(), 'dist/punchgate.js', ...args],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...unitEnvironment(), NOTIFY_SOCKET: '', PUNCHGATE_HRMS_TOKEN: '' },
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    return { child, output: () => out, exited };
  };

  it('journal, -wal, -shm, lock, status.txt, status.json, the last good config, a backup (its folder 0700), a restored journal and the one kept aside are 0600', async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    const at = punchTimes('2026-11-28', 9);
    for (let i = 0; i < 10; i++) stack.terminals[0]!.addPunch({ userId: String(5000 + i), logTime: at() });
    // The files the test itself wrote (config, token) are not punchgate's.
    const ours = new Set(readdirSync(stack.tmp.dir));

    const d = withUmask022(['run', '--config', stack.configPath]);
    cleanups.push(async () => {
      if (d.child.exitCode === null) d.child.kill('SIGTERM');
      await d.exited;
    });
    await waitFor(() => stack.hrms.attendance().length === 10, 30_000, `10 punches delivered:\n${d.output()}`);
    await waitFor(() => existsSync(stack.tmp.path('status.json')), 10_000, 'the status log');
    // The folder made by the backup itself (the documented nightly command), under umask 022.
    const backups = stack.tmp.path('backups');
    const backup = withUmask022(['backup', backups, '--keep', '14', '--config', stack.configPath]);
    expect(await backup.exited, backup.output()).toBe(0);
    expect((statSync(backups).mode & 0o777).toString(8)).toBe('700');
    const running = readdirSync(stack.tmp.dir);
    expect(running).toEqual(expect.arrayContaining(['journal.db', 'journal.db-wal', 'journal.db-shm', 'status.json']));

    const modes = (dir: string, skip: Set<string>): Record<string, string> =>
      Object.fromEntries(
        readdirSync(dir)
          .filter((f) => !skip.has(f) && statSync(join(dir, f)).isFile())
          .map((f) => [f, (statSync(join(dir, f)).mode & 0o777).toString(8)]),
      );
    const found = { ...modes(stack.tmp.dir, ours), ...modes(backups, new Set()) };
    expect(Object.keys(found).length, JSON.stringify(found)).toBeGreaterThanOrEqual(6);
    expect(
      Object.keys(found).some((f) => f.startsWith('punchgate-')),
      'a backup',
    ).toBe(true);
    for (const [f, mode] of Object.entries(found)) expect(mode, f).toBe('600');

    // And once it stopped (the WAL folded back): nothing it leaves is readable by others.
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    for (const [f, mode] of Object.entries(modes(stack.tmp.dir, ours))) expect(mode, f).toBe('600');
    // A flush (its claim file) and a restore (the restored journal, the one kept aside) under umask
    // 022 as well, the daemon stopped as restore asks.
    const flush = withUmask022(['flush', '--max-wait', '5', '--config', stack.configPath]);
    expect(await flush.exited, flush.output()).toBe(0);
    const file = join(backups, readdirSync(backups)[0]!);
    const restore = withUmask022(['restore', '--force', file, '--config', stack.configPath]);
    expect(await restore.exited, restore.output()).toBe(0);
    const after = modes(stack.tmp.dir, ours);
    expect(
      Object.keys(after).some((f) => f.includes('.before-restore-')),
      JSON.stringify(after),
    ).toBe(true);
    for (const [f, mode] of Object.entries(after)) expect(mode, f).toBe('600');
    const status = await runPunchgate(['--config', stack.configPath, 'status']);
    expect(status.status).toBe(0);
  }, 60_000);
});
