import { describe, expect, it } from 'vitest';
import { startPushTerminalSim, type PushSimRecord } from '../../src/sim/push-terminal/index.js';
import { spawnDaemon } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';

const SN = 'CQZ7232160001';
const key = (r: PushSimRecord) => `${r.pin}@${r.logTime}`;

/**
 * `punchgate run` is SIGKILLed at random moments (12 and 8 times), while a simulated push terminal
 * uploads thousands of punches. Every punch the terminal was told OK for reaches the HRMS, and
 * the terminal never sends again what it was told OK for: OK comes only after the commit of the
 * punches and of the stamp the terminal resumes from.
 */
describe.each([
  { protocol: 'attendance' as const, punches: 3000, kills: 12 },
  // Security PUSH has no stamp: the terminal resends what it was not told OK for, and the journal keeps each pass once.
  { protocol: 'security' as const, punches: 1500, kills: 8 },
])('push terminal ($protocol protocol) through punchgate run under SIGKILL', ({ protocol, punches, kills }) => {
  it('loses no acknowledged punch and makes the terminal resend nothing it was told OK for', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'lobby', serial: SN }] });
    const sim = startPushTerminalSim({
      server: stack.url,
      serial: SN,
      protocol,
      users: 20,
      punches,
      batchSize: 50,
      delayMs: 200,
      errorDelayMs: 40,
      requestTimeoutMs: 2000,
      timeMode: 'sequence',
      faults: { seed: 7 },
    });
    // New punches keep coming (5 every 20 ms) as long as the terminal holds fewer than it started
    // with: every kill finds thousands waiting to upload, however fast this machine is, and the
    // work left after the kills does not grow with the time they took (on a loaded machine an
    // unbounded stream left 14,000 to upload and deliver at the end, for the same proof).
    const punching = setInterval(() => {
      if (sim.backlog() < punches) sim.addPunches(5);
    }, 20);
    try {
      let ackedBeforeKills = 0;
      const recordsAtStart = sim.records().length;
      for (let kill = 0; kill < kills; kill++) {
        const handshakesBefore = sim.stats().handshakes;
        const d = spawnDaemon(stack.configPath);
        // Killed while the terminal uploads: at a random moment after the terminal came back to
        // this daemon (waiting for its handshake, not a fixed time, keeps a loaded machine from
        // killing a daemon the terminal never reached).
        await waitFor(() => d.output().includes('push terminal receiver listening'), 20_000, 'receiver up');
        await waitFor(() => sim.stats().handshakes > handshakesBefore, 20_000, 'terminal handshake');
        await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 600)));
        d.child.kill('SIGKILL');
        await d.exited;
        ackedBeforeKills = sim.acked().length;
      }
      clearInterval(punching);
      expect(ackedBeforeKills).toBeGreaterThan(0);
      // Punches came in while the daemons were killed. (Whether the terminal had any waiting at the
      // very moment of a kill depends on the machine: a quiet one uploads each new punch at once.)
      expect(sim.records().length).toBeGreaterThan(recordsAtStart);
      const d = spawnDaemon(stack.configPath);
      try {
        await waitFor(() => sim.backlog() === 0, 60_000, 'every punch uploaded');
        const expected = sim.passes().map(key).sort();
        const delivered = () => new Set(stack.hrms.attendance().map((p) => `${p.biometriccode}@${p.logDate}`));
        await waitFor(() => delivered().size === expected.length, 60_000, 'every punch delivered');
        // Every punch reached the HRMS, once: those the terminal saw acknowledged, and those whose
        // OK was lost to a kill (stored all the same: the next handshake's stamp skipped them).
        expect([...delivered()].sort()).toEqual(expected);
        const acked = sim.acked().map(key);
        expect(acked.length).toBeGreaterThan(expected.length / 2);
        expect(acked.filter((k) => !delivered().has(k))).toEqual([]);
        expect(stack.hrms.attendance()).toHaveLength(expected.length);
        // The terminal never had to send again what it had been told OK for.
        expect(sim.stats().resentAfterOk).toBe(0);
        // It came back to every daemon started (each kill cost it its connection).
        expect(sim.stats().handshakes).toBeGreaterThanOrEqual(kills);
        await waitFor(() => d.output().includes('punchgate running'), 10_000, 'daemon running');
      } finally {
        d.child.kill('SIGTERM');
        const exit = await d.exited;
        expect(exit, d.output().slice(-3000)).toEqual({ code: 0, signal: null });
      }
    } finally {
      clearInterval(punching);
      await sim.stop();
      await stack.stop();
    }
  }, 180_000);
});
