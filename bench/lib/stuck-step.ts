/**
 * A step of the package tests (dpkg, apt, a CLI run as the service user) that did not end in its
 * time: what was still running then, and every process it left, ended. Each step runs in a
 * session of its own (spawn's `detached`), so its whole tree is found by the session id, whatever
 * process groups a maintainer script's `timeout` or `runuser` made inside it; a child that
 * outlived its parent and holds the output pipe would otherwise keep the test waiting on it.
 */
import { spawnSync } from 'node:child_process';

/**
 * How long a step may take unless its caller says less: lintian, a package build or an Ansible run
 * take minutes on a loaded CI box; below the tests' 900 s, so that a step that hangs is named.
 */
export const STEP_TIMEOUT_MS = 600_000;

/** The processes of session `sid` now: pid, parent, age, state, the kernel function each waits in, command. */
function sessionProcesses(sid: number): string {
  const r = spawnSync('ps', ['-o', 'pid,ppid,pgid,etimes,stat,wchan:32,user,args', '--forest', '-s', String(sid)], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return (r.stdout ?? '').trimEnd() || '(none left)';
}

/** Ends every process still in session `sid` (SIGKILL), twice over: one may fork while the first round runs. */
function killSession(sid: number): void {
  for (let round = 0; round < 2; round++) {
    const r = spawnSync('ps', ['-o', 'pid=', '-s', String(sid)], { encoding: 'utf8', timeout: 10_000 });
    for (const pid of (r.stdout ?? '')
      .split('\n')
      .map(Number)
      .filter((p) => p > 0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
}

/**
 * The error of a step that ran past `ms`: names the step, lists what was still running in its
 * session (with the kernel wait of each: `fifo_open`, `pipe_read`, `do_wait`...) and its output
 * so far, after ending all of it.
 */
export function stuckStepError(step: string, ms: number, sid: number | undefined, output: string): Error {
  const running = sid === undefined ? '(not started)' : sessionProcesses(sid);
  if (sid !== undefined) killSession(sid);
  return new Error(
    `${step}: still running after ${ms / 1000} s, ended with everything it started.\n` +
      `Running then:\n${running}\nIts output so far:\n${output.slice(-4000) || '(none)'}`,
  );
}
