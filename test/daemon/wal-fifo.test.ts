import { spawn, spawnSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';

/**
 * A FIFO at the journal's write-ahead log name (`journal.db-wal`): the service user may write the
 * journal's folder, and the daemon's start read the log to look for damage (damaged-wal.ts) with a
 * blocking open. Started by hand as root, it waited for a writer for good: no line, deaf to
 * SIGTERM. Now every command refuses it (its path and the fix), and nothing opens it.
 */
const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** The CLI as a child; SIGKILLed after `ms` (a blocked process ignores SIGTERM): exit null then. */
function runFor(args: string[], ms: number): Promise<{ status: number | null; out: string }> {
  const { PUNCHGATE_HRMS_TOKEN: _t, NOTIFY_SOCKET: _n, ...env } = process.env;
  const child = spawn(process.execPath, [join(process.cwd(), 'dist/punchgate.js'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ status: code, out });
    }),
  );
}

describe('a FIFO at the journal write-ahead log name', () => {
  // check says it as a failed check (exit 1), as every journal problem.
  it.each([
    ['run', 74],
    ['status', 74],
    ['check', 1],
  ])('%s refuses it (exit %i) with its path and the fix, and never blocks', async (command, exit) => {
    const s = cliSandbox({ status: { listen: false } });
    cleanups.push(s.tmp.cleanup);
    const wal = s.tmp.path('journal.db-wal');
    expect(spawnSync('mkfifo', [wal]).status).toBe(0);
    const r = await runFor(['--config', s.config, command], 20_000);
    expect(r.status, r.out).toBe(exit);
    expect(r.out).toContain(`${wal} is a FIFO`);
    expect(r.out).toContain(`rm ${wal}`);
    // Left as it was for whoever looks into it.
    expect(lstatSync(wal).isFIFO()).toBe(true);
  });
});
