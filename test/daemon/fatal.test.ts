import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { startStack } from './stack.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A journal that cannot grow (a file-size limit stands in for a full disk): the daemon must
 * end with one clear line and a non-zero exit, so that systemd restarts it, and never spin.
 */
describe('fatal journal conditions', () => {
  it('exits 74 with one clear line when the journal cannot be written', async () => {
    const stack = await startStack();
    try {
      const t = stack.terminals[0]!;
      for (let i = 0; i < 3000; i++)
        t.addPunch({
          userId: String(10_000 + i),
          logTime: `2026-11-2${1 + Math.floor(i / 1440)} ${String(Math.floor((i % 1440) / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
        });
      // The journal exists (made as the daemon makes it at its first start); it must not grow.
      Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-t', mode: 'owner' }).close();
      // ulimit -f in 512-byte blocks: the journal may not grow past ~96 KiB. SIGXFSZ is ignored so
      // the write fails with EFBIG instead of killing the process.
      const child = spawn(
        'sh',
        [
          '-c',
          `trap '' XFSZ; ulimit -f 192; exec "${process.execPath}" dist/punchgate.js run --config "${stack.configPath}"`,
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, NOTIFY_SOCKET: '' },
        },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
      await waitFor(() => child.exitCode !== null, 20_000, 'the daemon exits');
      expect(await exited).toBe(74);
      const fatalLines = out.split('\n').filter((l) => /"level":60/.test(l));
      expect(fatalLines).toHaveLength(1);
      // One line: the path, what is wrong, and what to do.
      expect(fatalLines[0]).toMatch(
        /fatal: the journal \S+journal\.db cannot (grow|be written)[^"]*\(SQLITE_(FULL|IOERR)[^"]*: (free space|check the disk)/,
      );
    } finally {
      await stack.stop();
    }
  });
});
