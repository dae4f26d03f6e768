/**
 * A simulator sent SIGTERM before it listens (still loading its data) stops cleanly, exit 0,
 * once it is up: it used to die of the signal (exit 143). Its data file is a FIFO that the test
 * holds open, so the signal lands, deterministically, while the simulator is still starting.
 */
import { spawn, execFileSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { join } from 'node:path';

const CLI = join(process.cwd(), 'dist/punchgate.js');

describe('sim terminal: SIGTERM while starting', () => {
  it('is a clean stop (exit 0), not death by the signal', async () => {
    const tmp = tempDir('punchgate-early-term-');
    try {
      const fifo = tmp.path('data.json');
      execFileSync('mkfifo', [fifo]);
      const child = spawn(process.execPath, [CLI, 'sim', 'terminal', '--port', '0', '--file', fifo], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<{ code: number | null; signal: string | null }>((r) =>
        child.on('exit', (code, signal) => r({ code, signal })),
      );
      // Resolves once the simulator opened the file: it is loaded, and blocked reading it.
      const writer = await open(fifo, 'w');
      child.kill('SIGTERM');
      await writer.write('{"users":[{"userId":"1","name":"A"}]}');
      await writer.close();
      expect(await exited, out).toEqual({ code: 0, signal: null });
      expect(out).toContain('listening on');
    } finally {
      tmp.cleanup();
    }
  });
});
