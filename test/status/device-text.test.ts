import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { spawnDaemon, startStack, statusUrl } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A terminal's own words (its firmware and model text) with C1 controls (U+0085 NEL, U+009B CSI,
 * which some terminals obey), DEL, a bidirectional override and a zero-width space: whatever shows
 * them, the JSON outputs included (`status --json`, /status.json, the status log's status.json),
 * shows them written out, never raw, and bounded.
 */
const RAW = /[\u007f-\u009f\u200b\u202e]/u;

describe("a device's texts with C1 controls", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('reach status --json, terminals --json, /status.json, status.json and the text outputs escaped, never raw', async () => {
    const stack = await startStack({ terminals: 0 });
    cleanups.push(() => stack.stop());
    // What the firmware sends as UTF-8 bytes; the simulator writes its string as latin1 bytes.
    const said = `Ver 6.60\u0085\u009b2J\u007f\u202eFW\u200b${'x'.repeat(900)}`;
    const sim = await startTerminalSim({
      serialNumber: 'SN-C1',
      commKey: 808080,
      firmware: Buffer.from(said, 'utf8').toString('latin1'),
      users: [{ uid: 1, userId: '1001', name: 'A\u0085\u202eB\u009b' }],
      punches: [{ userId: '1001', logTime: '2026-11-28 08:00:00' }],
    });
    cleanups.push(() => sim.stop());
    stack.writeConfig([sim]);
    const d = spawnDaemon(stack.configPath);
    cleanups.push(async () => {
      d.child.kill('SIGTERM');
      await d.exited;
    });
    const url = await statusUrl(d);
    const json = async () => (await fetch(new URL('/status.json', url))).text();
    await waitFor(async () => (await json()).includes('Ver 6.60'), 20_000, 'the firmware in /status.json');

    const cli = async (...args: string[]) => (await runPunchgate(['--config', stack.configPath, ...args])).stdout;
    const outputs = {
      '/status.json': await json(),
      'status --json': await cli('status', '--json'),
      status: await cli('status'),
      terminals: await cli('terminals'),
      'terminals --json': await cli('terminals', '--json'),
      'status.json (status log)': readFileSync(stack.tmp.path('status.json'), 'utf8'),
      page: await (await fetch(url)).text(),
      '/metrics': await (await fetch(new URL('/metrics', url))).text(),
      'terminals users --json': await cli('terminals', 'users', 'gate-1', '--json'),
      'terminals users': await cli('terminals', 'users', 'gate-1'),
      'check --json': await cli('check', '--json'),
      'punches --json': await cli('punches', '--json'),
      'status --json --pretty-log': (await runPunchgate(['--config', stack.configPath, '--pretty', 'status', '--json']))
        .stdout,
      'the daemon log (JSON lines)': d.output(),
    };
    const raw = Object.entries(outputs)
      .filter(([, text]) => RAW.test(text))
      .map(
        ([where, text]) =>
          `${where}: ${JSON.stringify(RAW.exec(text)![0])} in ${JSON.stringify(text.slice(Math.max(0, RAW.exec(text)!.index - 60), RAW.exec(text)!.index + 20))}`,
      );
    expect(raw).toEqual([]);
    for (const where of ['/status.json', 'status --json', 'terminals --json', 'status.json (status log)'])
      expect(outputs[where as keyof typeof outputs], where).toContain('Ver 6.60');
    const fw = (JSON.parse(outputs['status --json']) as { terminals: Array<{ firmware: string }> }).terminals[0]!
      .firmware;
    expect(fw.startsWith('Ver 6.60\\x85\\x9b2J\\x7f\\u202eFW\\u200bxxx')).toBe(true);
    // Bounded: not the 900 characters the terminal sent.
    expect(fw.length).toBeLessThan(600);
  }, 60_000);
});
