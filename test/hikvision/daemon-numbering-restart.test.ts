import { describe, expect, it } from 'vitest';
import { keys, spawnDaemon } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { hikDaemonStack } from './daemon-stack.js';
import { expectedPunches, startSim } from './helpers.js';

describe('punchgate run with a Hikvision terminal that numbers its events from 1 again', () => {
  it('delivers every pass of the new numbering, also those numbered at or below where it had read', async () => {
    const sim = await startSim(200, { startMs: Date.now() - 6 * 3_600_000 });
    const s = await hikDaemonStack(sim.url, { terminal: { realtime: false } });
    try {
      const before = expectedPunches(sim.events());
      let d = spawnDaemon(s.configPath);
      await waitFor(() => keys(s.hrms.attendance()).length >= before.length, 60_000, 'the first passes delivered');
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
      const cursor = s.cursor()!;
      expect(cursor).toBeGreaterThan(200);

      // While punchgate is stopped the terminal is reset: its log numbers from 1 again, and more
      // events come than the read position it had (passes and door events, dated after the old ones).
      sim.clearLog();
      const base = Date.now() - 2 * 3_600_000;
      const wall = (ms: number) => new Date(ms + 5.5 * 3_600_000).toISOString().slice(0, 19) + '+05:30';
      const added = Math.ceil((cursor + 50) / 2);
      for (let i = 0; i < added; i++) {
        sim.addEvents([
          { major: 5, minor: 75, employeeNoString: `R${i}`, attendanceStatus: 'checkIn', time: wall(base + i * 2000) },
          { major: 5, minor: 21, doorNo: 1, time: wall(base + i * 2000 + 1000) },
        ]);
      }
      expect(sim.events().at(-1)!.serialNo).toBeGreaterThan(cursor);
      const after = expectedPunches(sim.events());
      const all = [...before, ...after].sort();

      d = spawnDaemon(s.configPath);
      await waitFor(() => keys(s.hrms.attendance()).length >= all.length, 60_000, 'every pass delivered').catch(
        (e: Error) => {
          throw new Error(
            `${e.message}: ${keys(s.hrms.attendance()).length} of ${all.length}\n${d.output().slice(-3000)}`,
          );
        },
      );
      expect(keys(s.hrms.attendance())).toEqual(all);
      expect(s.hrms.attendance().length).toBe(all.length);
      expect(d.output()).toMatch(/event numbers started again/);
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      await sim.stop();
      await s.stop();
    }
  }, 150_000);
});
