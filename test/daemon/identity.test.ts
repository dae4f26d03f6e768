import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { keys, spawnDaemon, startStack } from './stack.js';

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

const time = (i: number) =>
  `2026-11-22 07:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;

/**
 * A punch is known by its device's serial number: renaming a terminal in the config, or listing
 * one device twice, sends nothing twice (real child processes, the terminal simulator).
 */
describe('the identity of a terminal', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('a terminal renamed in the config re-sends nothing of its log', async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    const t = stack.terminals[0]!;
    for (let i = 0; i < 40; i++) t.addPunch({ userId: String(1000 + (i % 9)), logTime: time(i) });
    const first = spawnDaemon(stack.configPath);
    cleanups.push(() => first.child.exitCode === null && first.child.kill('SIGKILL'));
    await waitFor(() => stack.hrms.attendance().length === 40, 20_000, 'the log delivered');
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const requests = stack.hrms.requests();

    // The admin renames gate-1 to door-1; the device (serial SN-1) is the same.
    stack.writeConfig(undefined, (c) => {
      (c.terminals[0] as { name: string }).name = 'door-1';
    });
    const second = spawnDaemon(stack.configPath);
    cleanups.push(() => second.child.exitCode === null && second.child.kill('SIGKILL'));
    const statusPath = stack.tmp.path('status.txt');
    // Two complete polls under the new name (the schedule is every second).
    await waitFor(() => /door-1\s+online\s+last poll/.test(read(statusPath)), 20_000, 'door-1 polled');
    const j = Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-t', mode: 'readonly' });
    const polled = () => j.terminals.get('door-1')?.lastSuccessAt ?? 0;
    const once = polled();
    await waitFor(() => polled() > once, 10_000, 'another poll of door-1');
    expect(j.counts()).toMatchObject({ pending: 0, inflight: 0, delivered: 40 });
    j.close();
    expect(stack.hrms.requests()).toBe(requests);
    expect(stack.hrms.received()).toHaveLength(40);
    // New punches are still collected under the new name.
    t.addPunch({ userId: '1042', logTime: time(50) });
    await waitFor(() => stack.hrms.attendance().length === 41, 15_000, 'a new punch delivered');
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 90_000);

  it('one device listed twice: each punch is sent once, and check and the status say so', async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    const t = stack.terminals[0]!;
    stack.writeConfig(undefined, (c) => {
      // A second entry pointing at the same device (a copy-paste left in the config).
      c.terminals.push({ ...(c.terminals[0] as object), name: 'gate-1-copy' } as (typeof c.terminals)[number]);
    });
    for (let i = 0; i < 20; i++) t.addPunch({ userId: String(2000 + i), logTime: time(i) });
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    await waitFor(() => stack.hrms.attendance().length === 20, 20_000, 'the log delivered');
    const statusPath = stack.tmp.path('status.txt');
    await waitFor(
      () => /terminals gate-1 and gate-1-copy answer with the same serial SN-1/.test(read(statusPath)),
      15_000,
      'the status names the two entries',
    );
    // Real-time punches too reach the HRMS once, though both entries receive them.
    for (let i = 20; i < 25; i++) t.addPunch({ userId: String(2000 + i), logTime: time(i) });
    await waitFor(() => stack.hrms.attendance().length === 25, 15_000, 'real-time punches delivered');
    expect(stack.hrms.received()).toHaveLength(25);
    expect(keys(stack.hrms.attendance())).toEqual(keys(t.punches()));

    const check = await runPunchgate(['--config', stack.configPath, 'check']);
    expect(check.stdout).toMatch(/WARN terminals: gate-1 and gate-1-copy answer with the same serial SN-1/);
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  }, 90_000);
});
