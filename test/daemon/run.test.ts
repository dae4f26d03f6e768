import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { COMM_KEY, keys, punchTimes, spawnDaemon, startStack, TOKEN, type DaemonProcess } from './stack.js';
import { waitFor } from '../helpers/wait.js';
import { expectNoSecret } from '../helpers/secret.js';

const nextTime = punchTimes('2026-11-22', 8);

describe('punchgate run (child process)', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const daemon = (configPath: string) => {
    const d = spawnDaemon(configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    return d;
  };

  it('carries punches from a terminal to the HRMS, and stops on SIGTERM with exit 0', async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    const t = stack.terminals[0]!;
    for (let i = 0; i < 30; i++) t.addPunch({ userId: String(1000 + (i % 7)), logTime: nextTime() });
    const d = daemon(stack.configPath);
    await waitFor(() => stack.hrms.attendance().length === 30, 15_000, 'all polled punches delivered');
    // Real-time punches while it runs.
    for (let i = 0; i < 5; i++) t.addPunch({ userId: '1042', logTime: nextTime() });
    await waitFor(() => stack.hrms.attendance().length === 35, 10_000, 'real-time punches delivered');
    expect(keys(stack.hrms.attendance())).toEqual(keys(t.punches()));
    expect(stack.hrms.attendance().every((p) => /^plant-t-[0-9a-f]{20}$/.test(p.devicelogId ?? ''))).toBe(true);
    // The status log is there and names the terminal.
    await waitFor(() => /gate-1\s+online/.test(safeRead(stack.tmp.path('status.txt'))), 15_000, 'status log');
    d.child.kill('SIGTERM');
    const started = Date.now();
    expect((await d.exited).code).toBe(0);
    // Not a hang: a loaded CI box may take seconds to close the journal and exit.
    expect(Date.now() - started).toBeLessThan(15_000);
    // The stop says what it leaves (it said only "punchgate stopped": a new-user trial).
    expect(d.output()).toContain('punchgate stopped: no punch waits to be delivered');
    // Secrets never appear in the output.
    expect(d.output()).not.toContain(TOKEN);
    expectNoSecret(d.output(), String(COMM_KEY));
  });

  it('SIGTERM during an HRMS request exits 0 quickly and loses nothing', async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    const t = stack.terminals[0]!;
    for (let i = 0; i < 50; i++) t.addPunch({ userId: String(2000 + i), logTime: nextTime() });
    // The HRMS would answer after 30 s (the stack's deadline is 25 s): an exit well before that did
    // not wait for the answer, with room for a loaded CI box (a 1.5 s answer against a 3 s bound
    // failed by chance).
    stack.hrms.setFaults({ latencyMs: 30_000 });
    const d = daemon(stack.configPath);
    await waitFor(() => stack.hrms.requests() > 0, 10_000, 'a request in flight');
    const started = Date.now();
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The batch in flight went back to the queue, and the last line says so.
    expect(d.output()).toContain(
      'punchgate stopped: 50 punches wait in the journal to be delivered (pending 50): kept, and sent when punchgate run starts again',
    );
    stack.hrms.setFaults({ latencyMs: 0 });
    const d2 = daemon(stack.configPath);
    await waitFor(() => stack.hrms.attendance().length === 50, 15_000, 'everything delivered after restart');
    expect(keys(stack.hrms.attendance())).toEqual(keys(t.punches()));
    d2.child.kill('SIGTERM');
    expect((await d2.exited).code).toBe(0);
  });

  it('a second signal exits at once, and the next start delivers everything', async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    const t = stack.terminals[0]!;
    for (let i = 0; i < 10; i++) t.addPunch({ userId: String(3000 + i), logTime: nextTime() });
    // As above: an answer 30 s away, a bound that a loaded CI box keeps.
    stack.hrms.setFaults({ latencyMs: 30_000 });
    const d = daemon(stack.configPath);
    await waitFor(() => stack.hrms.requests() > 0, 10_000, 'a request in flight');
    d.child.kill('SIGTERM');
    d.child.kill('SIGTERM');
    const started = Date.now();
    await d.exited;
    expect(Date.now() - started).toBeLessThan(10_000);
    stack.hrms.setFaults({ latencyMs: 0 });
    const d2 = daemon(stack.configPath);
    await waitFor(() => stack.hrms.attendance().length === 10, 15_000, 'delivered after restart');
    d2.child.kill('SIGTERM');
    await d2.exited;
  });

  it('SIGHUP adds a terminal without a restart, and keeps the running config when the new one is invalid', async () => {
    const stack = await startStack({ terminals: 2 });
    cleanups.push(() => stack.stop());
    const [a, b] = stack.terminals as [(typeof stack.terminals)[0], (typeof stack.terminals)[0]];
    stack.writeConfig([a]);
    a.addPunch({ userId: '1', logTime: nextTime() });
    b.addPunch({ userId: '2', logTime: nextTime() });
    const d: DaemonProcess = daemon(stack.configPath);
    await waitFor(() => stack.hrms.attendance().length === 1, 10_000, 'terminal A delivered');
    // An invalid config: reported, the running one kept.
    writeFileSync(stack.configPath, 'site: [not valid\n');
    d.child.kill('SIGHUP');
    await waitFor(
      () => /does not load .*punchgate keeps running on the config it loaded/.test(d.output()),
      15_000,
      'reload failure reported',
    );
    a.addPunch({ userId: '3', logTime: nextTime() });
    await waitFor(() => stack.hrms.attendance().length === 2, 10_000, 'still running on the old config');
    stack.writeConfig([a, b]);
    d.child.kill('SIGHUP');
    await waitFor(() => stack.hrms.attendance().length === 3, 10_000, 'terminal B added and delivered');
    expect(keys(stack.hrms.attendance())).toEqual(keys([...a.punches(), ...b.punches()]));
    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  });

  it('refuses a second run on the same journal with a clear message', async () => {
    const stack = await startStack();
    cleanups.push(() => stack.stop());
    const d = daemon(stack.configPath);
    await waitFor(() => /punchgate running/.test(d.output()), 10_000, 'first daemon running');
    const second = daemon(stack.configPath);
    const r = await second.exited;
    expect(r.code).toBe(75);
    expect(second.output()).toMatch(/already in use by another punchgate run/);
    d.child.kill('SIGTERM');
    await d.exited;
  });
});

function safeRead(p: string): string {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}
