/**
 * The package tests' steps (bench/lib/package-box.ts) end in their time: a step that hangs, or
 * leaves a process holding its output, fails naming itself, what still ran and its output, and
 * nothing it started is left running; a service that does not stop on SIGTERM is killed and said.
 * Quick, no root, no package.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { sh, shAsync, start, stop } from '../../bench/lib/package-box.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

const tmp = tempDir('punchgate-package-box-');
afterAll(() => tmp.cleanup());

/** Whether a process runs (a zombie waiting for its parent to reap it does not). */
const running = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** A step whose own process ends at once, leaving a child that holds its output for 40 s. */
const leavesAChild = (pidFile: string) => ['-c', `echo started; sleep 40 & echo $! >${pidFile}`];

describe('a package test step (sh, shAsync)', () => {
  it('sh: past its time, fails naming the step, what still ran and its output, and ends it all', async () => {
    const pidFile = tmp.path('sync.pid');
    const began = Date.now();
    let error: Error | undefined;
    try {
      sh('sh', leavesAChild(pidFile), { timeoutMs: 1000 });
    } catch (e) {
      error = e as Error;
    }
    expect(Date.now() - began).toBeLessThan(20_000);
    expect(error?.message).toMatch(/^sh -c echo started; sleep 40 .*: still running after 1 s/);
    expect(error?.message).toMatch(/Running then:\n[\s\S]*sleep 40/);
    expect(error?.message).toMatch(/Its output so far:\nstarted\n/);
    const child = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !running(child), 10_000, "the step's child to be ended");
  });

  it('shAsync: the same', async () => {
    const pidFile = tmp.path('async.pid');
    await expect(shAsync('sh', leavesAChild(pidFile), { timeoutMs: 1000 })).rejects.toThrow(
      /still running after 1 s[\s\S]*sleep 40[\s\S]*Its output so far:\nstarted\n/,
    );
    const child = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !running(child), 10_000, "the step's child to be ended");
  });

  it('a step that ends in its time: its status and output, as before', async () => {
    expect(sh('sh', ['-c', 'echo out; echo err >&2; exit 3'], { timeoutMs: 10_000 })).toEqual({
      status: 3,
      out: 'out\n',
      err: 'err\n',
      all: 'out\nerr\n',
    });
    expect((await shAsync('sh', ['-c', 'echo out; exit 4'], { timeoutMs: 10_000 })).status).toBe(4);
  });
});

describe('stopping a started service (stop)', () => {
  it('one that ignores SIGTERM is killed after its time, and the error says so with its output', async () => {
    const p = start('sh', ['-c', 'trap "" TERM; echo up; while :; do sleep 1; done']);
    await waitFor(() => p.output() === 'up\n', 10_000, 'the service to start');
    await expect(stop(p, 1000)).rejects.toThrow(/still ran 1 s after SIGTERM \(killed now\); its last output:\nup\n/);
    await waitFor(() => p.child.exitCode !== null || p.child.signalCode !== null, 10_000, 'it to be killed');
  });
});
