import { existsSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/ports.js';
import { startPushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { spawnDaemon, startStack } from './stack.js';

/**
 * A box clock stepped back an hour leaves every terminal an hour "ahead" of it, push terminals
 * too: their punches, pushed with the real time, are journalled and delivered at once, not
 * quarantined as in the future, and no offset is learned for a terminal whose clock was right.
 * The daemon's wall clock is stepped with libfaketime (monotonic left alone, as `date -s` does);
 * the push terminal, the HRMS and the test keep the real clock. Counted at the simulated HRMS.
 */
const LIBFAKETIME = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib']
  .map((d) => `${d}/faketime/libfaketime.so.1`)
  .find((p) => existsSync(p));

describe('a box clock stepped back, with a push terminal', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('its punches after the step are delivered at once, none quarantined, no offset blamed on it', async () => {
    expect(LIBFAKETIME, 'libfaketime (Debian package faketime)').toBeDefined();
    const admsPort = await freePort();
    const stack = await startStack({ terminals: 0 });
    cleanups.push(() => stack.stop());
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, { adms: { listen: `127.0.0.1:${admsPort}`, delay: 1, errorDelay: 1 } });
      c.terminals.push({ name: 'lobby', kind: 'adms', serial: 'STEPPUSH01', timezone: 'UTC' });
    });
    const offset = stack.tmp.path('faketime');
    writeFileSync(offset, '+0\n');
    const d = spawnDaemon(stack.configPath, [], {
      LD_PRELOAD: LIBFAKETIME!,
      FAKETIME_TIMESTAMP_FILE: offset,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
      TZ: 'UTC',
    });
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const lobby = startPushTerminalSim({
      server: `http://127.0.0.1:${admsPort}`,
      serial: 'STEPPUSH01',
      timezone: 'UTC',
      delayMs: 100,
      errorDelayMs: 100,
    });
    cleanups.push(() => lobby.stop());
    const codes = () => stack.hrms.received().map((p) => p.biometriccode);
    const pushed = async (pin: string) => {
      lobby.punch(pin);
      await waitFor(() => lobby.pending() === 0, 15_000, `punch ${pin} pushed\n${d.output().slice(-2000)}`);
    };

    await pushed('7001');
    await waitFor(() => codes().includes('7001'), 20_000, `7001 at the HRMS\n${d.output().slice(-2000)}`);

    writeFileSync(offset, '-1h\n');
    await waitFor(() => /the box clock stepped back 1 h at /.test(d.output()), 10_000, 'the step back in the log');
    // One at a time: the first would be held until three agree on an offset (the terminal's, as it would seem).
    await pushed('7002');
    await waitFor(() => codes().includes('7002'), 10_000, `7002 delivered at once\n${d.output().slice(-2000)}`);
    await pushed('7003');
    await waitFor(() => codes().includes('7003'), 10_000, `7003 delivered at once\n${d.output().slice(-2000)}`);

    const s = JSON.parse((await runPunchgate(['--config', stack.configPath, 'status', '--json'])).stdout) as {
      alerts: string[];
      punches: { quarantined: number };
    };
    expect(s.punches.quarantined).toBe(0);
    expect(s.alerts.filter((a) => /^terminal lobby|quarantined/.test(a))).toEqual([]);
    expect(d.output()).not.toMatch(/punches with an implausible time quarantined|steadily: its clock is off/);
    expect([...codes()].sort()).toEqual(['7001', '7002', '7003']);
    expect(
      stack.hrms
        .attendance()
        .map((p) => p.biometriccode)
        .sort(),
    ).toEqual(['7001', '7002', '7003']);

    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  }, 90_000);
});
