import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptLaunch, unitEnvironment, unitNodeArgs } from '../../bench/lib/unit.js';
import { waitFor } from '../helpers/wait.js';

/**
 * `punchgate` typed in a shell (an import, a flush, a status) runs through the CLI's `#!` line.
 * That line gives node the memory settings of the systemd unit, so that an admin's one-shot
 * commands have the memory figures BENCHMARKS.md measures with the unit's settings.
 */
const script = join(process.cwd(), 'dist/punchgate.js');

describe('the CLI script', () => {
  it('the bundle keeps the #! line of src/cli/main.ts and is executable, as npm installs it', () => {
    const firstLine = (file: string) => readFileSync(file, 'utf8').split('\n', 1)[0];
    expect(firstLine(script)).toBe(firstLine('src/cli/main.ts'));
    expect(() => accessSync(script, constants.X_OK)).not.toThrow();
  });

  it('its #! line has the memory settings of the systemd unit', () => {
    const unit = unitEnvironment();
    const { env, nodeArgs } = scriptLaunch();
    const { NODE_ENV: _production, NODE_OPTIONS, ...unitMemory } = unit;
    expect(env).toEqual(unitMemory);
    expect(Object.keys(env)).toContain('MALLOC_MMAP_THRESHOLD_');
    expect(nodeArgs).toEqual([...unitNodeArgs(), ...(NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)]);
  });

  it('run as a shell runs it, node gets those settings (this machine has env -S)', async () => {
    // The script's `node` is the one on PATH: this runtime's.
    const child = spawn(script, ['sim', 'hrms', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    });
    try {
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await waitFor(() => /listening on http/.test(out), 20_000, 'the HRMS simulator to listen');
      const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0');
      const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      const { env, nodeArgs } = scriptLaunch();
      for (const [k, v] of Object.entries(env)) expect(environ).toContain(`${k}=${v}`);
      expect(argv.slice(1, 1 + nodeArgs.length)).toEqual(nodeArgs);
      expect(argv[1 + nodeArgs.length]).toBe(script);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
