import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keys, spawnDaemon } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { hikDaemonStack } from './daemon-stack.js';
import { expectedPunches, searches, startSim } from './helpers.js';

describe('punchgate run with a Hikvision terminal', () => {
  it('survives SIGKILLs: exactly the authentication passes reach the HRMS, with the device wall clock; each restart resumes from the journalled serial number', async () => {
    // 2,000 passes with their door events and failed tries (~5,000 events), device at +05:30.
    const sim = await startSim(2000, { startMs: Date.now() - 6 * 3_600_000 });
    const s = await hikDaemonStack(sim.url);
    let n = 0;
    // New passes for the first 20 s of kills (800, ~2,000 events): on a loaded machine the kills
    // take longer, and an unbounded stream only added work to read and deliver after them.
    const adder = setInterval(() => {
      if (n >= 800) return;
      n++;
      sim.addEvents([
        { major: 5, minor: n % 2 ? 75 : 38, employeeNoString: `L${n}`, attendanceStatus: 'checkIn' },
        { major: 5, minor: 21, doorNo: 1 },
        ...(n % 5 === 0 ? [{ major: 5, minor: 39 }] : []),
      ]);
    }, 25);
    try {
      const resumedAt: { cursor: number | undefined; begin: unknown }[] = [];
      for (let kill = 0; kill < 6; kill++) {
        const cursor = s.cursor();
        sim.clearRequests();
        const d = spawnDaemon(s.configPath);
        await waitFor(() => searches(sim).length > 0 || d.child.exitCode !== null, 20_000, 'the first event search');
        resumedAt.push({ cursor, begin: searches(sim)[0]!.beginSerialNo });
        // Every other run is killed only once it has committed progress (then a little later,
        // mid-read); the others at a random moment, often before their first commit.
        if (kill % 2 === 1) {
          await waitFor(() => (s.cursor() ?? 0) > (cursor ?? 0), 30_000, 'this run to commit some events');
        }
        await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 600)));
        d.child.kill('SIGKILL');
        await d.exited;
      }
      clearInterval(adder);
      // Every restart's first search began right after the serial number the journal held.
      for (const r of resumedAt) expect(r.begin).toBe(r.cursor ?? 1); // the last read, asked for again
      expect(resumedAt.filter((r) => r.cursor !== undefined).length).toBeGreaterThanOrEqual(3);

      const d = spawnDaemon(s.configPath);
      const expected = expectedPunches(sim.events());
      expect(expected.length).toBeGreaterThan(2000);
      await waitFor(() => keys(s.hrms.attendance()).length >= expected.length, 60_000, 'every pass delivered').catch(
        (e: Error) => {
          throw new Error(
            `${e.message}: ${keys(s.hrms.attendance()).length} of ${expected.length}\n${d.output().slice(-3000)}`,
          );
        },
      );
      await waitFor(() => d.output().includes('punchgate running'), 10_000, 'the last daemon running');
      // The HRMS has exactly the passes (no door event, no failure), each once, at the device's wall clock.
      expect(keys(s.hrms.attendance())).toEqual(expected);
      expect(s.hrms.attendance().length).toBe(expected.length);
      expect(sim.auth()).toMatchObject({ failures: 0, lockouts: 0 });
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      clearInterval(adder);
      await sim.stop();
      await s.stop();
    }
  }, 180_000);

  it('under --jitless (no WebAssembly), says plainly what to change instead of crashing', async () => {
    const sim = await startSim(5);
    const s = await hikDaemonStack(sim.url);
    try {
      const d = spawnDaemon(s.configPath, [], { NODE_OPTIONS: '--jitless' });
      const status = s.tmp.path('status.txt');
      await waitFor(
        () => existsSync(status) && /WebAssembly/.test(readFileSync(status, 'utf8')),
        20_000,
        'the status naming the problem',
      );
      expect(readFileSync(status, 'utf8')).toMatch(/remove --jitless/);
      expect(d.child.exitCode).toBeNull();
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      await sim.stop();
      await s.stop();
    }
  }, 60_000);
});
