/**
 * A push terminal whose clock runs 2 h ahead (a zone never set) and whose network was down, through
 * the real daemon (dist/punchgate.js as a child process) to the HRMS simulator. Once its offset is
 * recognised, it uploads what it recorded during the outage in one go: the first of those punches
 * is dated about now on its clock (it was recorded 2 h ago), the rest up to 2 h ahead. That first
 * punch is no sign that its clock was set right: every punch reaches the HRMS as recorded, none is
 * held, and the clock alert stays. A single wild punch after that is still held.
 */
import { describe, expect, it } from 'vitest';
import { startPushTerminalSim } from '../../src/sim/push-terminal/index.js';
import type { StatusReport } from '../../src/status/types.js';
import { keys, spawnDaemon, statusUrl } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';

const MINUTE = 60_000;

describe('a push terminal 2 h ahead after an outage, through punchgate run', () => {
  it('its backlog (the first punch dated now, the last 2 h ahead) is delivered as recorded; its offset stays', async () => {
    const stack = await startPushStack({
      terminals: [{ name: 'lobby', serial: 'LOBBY0002' }],
      status: { listen: '127.0.0.1:0' },
    });
    const d = spawnDaemon(stack.configPath);
    // The terminal's own clock source: shifted back only while it records the outage's punches.
    let shiftMs = 0;
    const sim = startPushTerminalSim({
      server: stack.url,
      serial: 'LOBBY0002',
      timezone: 'UTC',
      clockOffsetSeconds: 7200,
      delayMs: 100,
      errorDelayMs: 100,
      clock: { now: () => Date.now() + shiftMs },
    });
    try {
      const url = await statusUrl(d);
      const status = async () => (await (await fetch(`${url}status.json`)).json()) as StatusReport;
      // Live punches until its offset is recognised and they are delivered.
      for (const pin of ['7101', '7102', '7103']) {
        sim.punch(pin);
        await waitFor(() => sim.pending() === 0, 10_000, `punch ${pin} pushed`);
      }
      await waitFor(() => stack.hrms.attendance().length === 3, 20_000, 'the live punches delivered');
      await waitFor(
        async () => (await status()).alertItems.some((a) => a.kind === 'clock-skew'),
        10_000,
        'the clock alert',
      );

      // What it recorded over the last two hours, one every 20 minutes, uploaded at once.
      for (let k = 0; k <= 6; k++) {
        shiftMs = -120 * MINUTE + k * 20 * MINUTE;
        sim.punch(`72${k}0`);
      }
      shiftMs = 0;
      const expected = keys(sim.records().map((r) => ({ userId: r.pin, logTime: r.logTime })));
      expect(expected).toHaveLength(10);
      await waitFor(() => sim.pending() === 0, 10_000, 'the backlog pushed');
      await waitFor(() => stack.hrms.attendance().length === 10, 20_000, 'the backlog delivered');
      // Each with the time its clock recorded.
      expect(keys(stack.hrms.attendance())).toEqual(expected);

      const st = await status();
      expect(st.punches.quarantined).toBe(0);
      expect(st.alertItems.some((a) => a.kind === 'quarantined-future')).toBe(false);
      expect(st.alertItems.filter((a) => a.kind === 'clock-skew')).toHaveLength(1);
      expect(d.output()).not.toMatch(/pushes punches dated about now again/);

      // A single wild punch (its clock jumped 300 days for a moment) is still held, its offset said;
      // the next live punch goes as before.
      shiftMs = 300 * 24 * 60 * MINUTE;
      sim.punch('7999');
      shiftMs = 0;
      sim.punch('7104');
      await waitFor(() => sim.pending() === 0, 10_000, 'the wild and the live punch pushed');
      await waitFor(() => stack.hrms.attendance().length === 11, 20_000, 'the live punch delivered');
      await waitFor(async () => (await status()).punches.quarantined === 1, 10_000, 'the wild punch held');
      const held = (await status()).alertItems.find((a) => a.kind === 'quarantined-future');
      expect(held?.cause).toMatch(/^terminal lobby: 1 punch quarantined as in the future, .* the newest \+2\d{7} s/);
      expect(stack.hrms.attendance().some((p) => p.biometriccode === '7999')).toBe(false);
    } finally {
      await sim.stop();
      d.child.kill('SIGTERM');
      await d.exited;
      await stack.stop();
    }
  }, 90_000);
});
