/**
 * `sim serial --link`: a SIGTERM sent to the process group reaches socat too, and socat's end may
 * be seen before the simulator's own signal. That is a clean stop (exit 0), not a failure (1 or 75).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runSimSerial } from '../../src/cli/commands/sim-serial.js';
import { EXIT } from '../../src/util/exit-codes.js';
import { requireSocat } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/tmp.js';

/** The socat process that serves `link` (its command line names it). */
function socatFor(link: string): number | undefined {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (cmd.startsWith('socat') && cmd.includes(link)) return Number(d);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

describe('sim serial: socat stopped with the simulator', () => {
  beforeAll(requireSocat);
  const dir = tempDir();
  afterEach(() => dir.cleanup());

  it('socat ending on SIGTERM while waiting for a reader is a clean stop', async () => {
    const link = dir.path('ttySTOP');
    const err: string[] = [];
    const run = runSimSerial(
      { format: 'regex', rate: 0, noise: 0, eol: 'crlf', baudRate: 9600, link },
      { out: () => {}, err: (t) => void err.push(t), until: new Promise(() => {}) },
    );
    await waitFor(
      () => existsSync(link) && err.join('').includes('waiting for a reader'),
      10_000,
      'the simulator waiting for a reader',
    );
    process.kill(socatFor(link)!, 'SIGTERM');
    expect(await run, err.join('')).toBe(EXIT.OK);
    expect(err.join('')).toContain('socat was stopped by a signal along with the simulator');
  });
});
