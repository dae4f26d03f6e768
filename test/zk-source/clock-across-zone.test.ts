import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { wallClockAt } from '../../src/punch.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { deviceNoteAlerts } from '../../src/status/dahua.js';
import { captureLogger } from '../serial/helpers.js';
import { journalFixture, zkConfig } from './helpers.js';

/**
 * syncClock with a config `timezone` that is not the zone the terminal runs in: the terminal showed
 * the right local time (Asia/Kolkata), the config says Asia/Dubai, so its clock reads 1 h 30 min
 * ahead of the box's Dubai time and punchgate sets it to Dubai time. Every punch after that is
 * 1 h 30 min off, and the next poll sees no skew: said when it is set, in the log and the status.
 * An ordinary drift is set as before, with no alert.
 */
describe('ZK: syncClock across a time zone difference', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function pollOnce(terminalClock: string) {
    const sim = await startTerminalSim({ clock: terminalClock });
    const fx = journalFixture();
    cleanups.push(() => sim.stop(), fx.cleanup);
    const log = captureLogger('debug');
    const deps = sourceDepsFor(fx.journal, log.logger, { now: () => Date.now() }, () => {});
    const cfg = zkConfig(sim.port, { syncClock: true, timezone: 'Asia/Dubai', skewThresholdSeconds: 30 });
    const r = await pollTerminal(cfg, deps);
    expect(r.ok).toBe(true);
    const again = await pollTerminal({ ...cfg, syncClock: false }, deps);
    expect(Math.abs(again.skewSeconds!)).toBeLessThan(20); // set either way (20: room for a loaded box)
    const warnings = log.entries.filter((e) => e.level === 40).map((e) => e.msg);
    const alerts = deviceNoteAlerts(fx.journal, { terminals: [cfg] } as unknown as Config, Date.now());
    return { warnings, alerts };
  }

  it('a clock set from whole (half) hours off is said with the fix', async () => {
    const { warnings, alerts } = await pollOnce(wallClockAt(Date.now(), 'Asia/Kolkata'));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^terminal gate-1: its clock was 1 h 30 min ahead of the box's time in Asia\/Dubai, a time zone's difference, and punchgate set it to that time \(syncClock is on\): .*set timezone for gate-1 in the config to the zone it runs in/,
      ),
    ]);
    expect(alerts).toEqual([
      expect.objectContaining({
        kind: 'zk-clock',
        cause: expect.stringMatching(
          /^terminal gate-1: its clock was 1 h 30 min ahead of the box's time in Asia\/Dubai/,
        ),
        fix: expect.stringMatching(/the punches it records now are 1 h 30 min off/),
      }),
    ]);
  });

  it('a clock that drifted 17 minutes is set with no alert', async () => {
    const { warnings, alerts } = await pollOnce(wallClockAt(Date.now() - 17 * 60_000, 'Asia/Dubai'));
    expect(warnings).toEqual([]);
    expect(alerts).toEqual([]);
  });
});
