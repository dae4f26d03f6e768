import { spawn, type ChildProcess } from 'node:child_process';
import { unitEnvironment } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';

export interface SimProcess {
  url: string;
  child: ChildProcess;
  /** What it printed so far. */
  out: () => string;
  /** Its admin API (`/__sim/ROUTE`, no authentication): state, events, firmware, drop-streams... */
  admin: <T = Record<string, unknown>>(method: 'GET' | 'POST', route: string, body?: unknown) => Promise<T>;
}

/**
 * `punchgate sim hikvision --port 0 --password PASSWORD ARGS` as a child process of the built CLI,
 * once it says where it listens. The caller kills it.
 */
export async function startSimProcess(args: string[], password: string): Promise<SimProcess> {
  const child = spawn(
    process.execPath,
    ['dist/punchgate.js', 'sim', 'hikvision', '--port', '0', '--password', password, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...unitEnvironment() } },
  );
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const re = /listening on (http:\/\/127\.0\.0\.1:\d+) /;
  await waitFor(() => re.test(out) || child.exitCode !== null, 30_000, `the simulator's listening line: ${out}`);
  const url = re.exec(out)?.[1];
  if (!url) throw new Error(`the simulator did not start: ${out}`);
  return {
    url,
    child,
    out: () => out,
    admin: async <T>(method: 'GET' | 'POST', route: string, body?: unknown) => {
      const res = await fetch(`${url}/__sim/${route}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return (await res.json()) as T;
    },
  };
}
