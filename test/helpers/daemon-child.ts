import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** A TCP port free on 127.0.0.1 a moment ago (for a config that names its port before the daemon starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * `punchgate ARGS` from dist/ as a child process, its stdout and stderr gathered in one text; the
 * HRMS token and systemd's notify socket of the test's environment left out. Killed and awaited by
 * the cleanup pushed onto `cleanups` (the test's afterEach runs them).
 */
export function spawnPunchgate(args: string[], cleanups: Array<() => unknown>) {
  const { PUNCHGATE_HRMS_TOKEN: _t, NOTIFY_SOCKET: _n, ...env } = process.env;
  const c = spawn(process.execPath, [join(process.cwd(), 'dist/punchgate.js'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let out = '';
  c.stdout.on('data', (d: Buffer) => (out += d.toString()));
  c.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => c.on('exit', (code) => r(code)));
  cleanups.push(async () => {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await exited;
  });
  return { c, exited, out: () => out };
}
