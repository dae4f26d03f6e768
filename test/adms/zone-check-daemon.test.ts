import { afterEach, describe, expect, it } from 'vitest';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { waitFor } from '../helpers/wait.js';
import { startPushDaemon } from './daemon-stack.js';

/**
 * A push terminal learns its zone (`TimeZone=`) only from the option block it reads at start.
 * When the zone the gateway would tell it changes (here: its `timezone` changed in the config and
 * reloaded; a DST change does the same), the daemon sends it `CHECK` once: it reads its options
 * again and learns the new offset. The punches across it reach the HRMS once each.
 */
const SN = 'ZONE7232160001';

describe('a push terminal told a zone that is no longer today’s', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('is sent CHECK once, learns the new offset, and no punch is delivered twice', async () => {
    const {
      stack,
      d,
      stop: stopAll,
    } = await startPushDaemon({ terminals: [{ name: 'lobby', serial: SN, timezone: 'Asia/Kolkata' }] });
    stop = stopAll;
    const sim: PushTerminalSim = startPushTerminalSim({
      server: stack.url,
      serial: SN,
      punches: 30,
      timeMode: 'sequence',
      timezone: 'Asia/Kolkata',
      delayMs: 30,
      errorDelayMs: 50,
    });
    const stopDaemon = stop;
    stop = async () => {
      await sim.stop();
      await stopDaemon();
    };
    await waitFor(() => stack.hrms.attendance().length === 30, 20_000, 'the first punches delivered');
    expect(sim.stats().timeZone).toBe('330');
    expect(sim.stats().handshakes).toBe(1);

    stack.writeConfig([{ name: 'lobby', serial: SN, timezone: 'UTC' }]);
    d.child.kill('SIGHUP');
    sim.addPunches(5);
    await waitFor(() => sim.stats().timeZone === '0', 20_000, 'the new offset told');
    sim.addPunches(5);
    await waitFor(() => stack.hrms.attendance().length >= 40 && sim.backlog() === 0, 20_000, 'every punch delivered');

    const checks = sim.commands().filter((c) => c.command === 'CHECK');
    expect(checks.map((c) => c.returnCode)).toEqual([0]);
    expect(sim.stats().handshakes).toBe(2);
    const delivered = stack.hrms.attendance().map((p) => `${p.biometriccode}@${p.logDate}`);
    expect(delivered).toHaveLength(40);
    expect(new Set(delivered).size).toBe(40);
    expect(d.output()).toMatch(/was told UTC\+05:30 when it last read its options; its zone is UTC\+00:00 now/);
  }, 60_000);
});
