import { describe, expect, it } from 'vitest';
import { startFrappeSim } from '../../src/sim/frappe/index.js';
import type { StatusReport } from '../../src/status/types.js';
import { keys, punchTimes, spawnDaemon, startStack } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { frappeSink } from '../helpers/frappe-sink.js';
import { waitFor } from '../helpers/wait.js';

const API_KEY = 'frappe-key-51d0c2';
const API_SECRET = 'frappe-secret-8a6e4f';
const CODES = ['5001', '5002', '5003', '5004'];

/** The built CLI, asynchronously: the simulators in this process keep answering meanwhile. */
const cli = (configPath: string, ...args: string[]) => runPunchgate(['--config', configPath, ...args]);
const erpOf = async (configPath: string) => {
  const st = JSON.parse((await cli(configPath, 'status', '--json')).stdout) as StatusReport;
  return st.sinks!.find((s) => s.name === 'erp')!;
};

/**
 * The seed HRMS and a Frappe sink behind a real `punchgate run` (issue 32). Frappe is down for the
 * whole first run, a SIGKILL and a restart included: the seed HRMS gets every punch all the same,
 * once each, while every punch waits for Frappe in the journal. Frappe back: it gets every punch
 * once. Then the journal is replayed (the backup taken while Frappe was down is restored, as on a
 * replaced box): every punch goes to Frappe again, is answered "already has a log", and Frappe
 * still holds each once.
 */
describe('a Frappe sink beside the seed HRMS', () => {
  it('Frappe down for a whole run never holds up the seed HRMS; back, and after a replayed journal, each punch once', async () => {
    const stack = await startStack({ terminals: 2, delivery: { batchSize: 10, probeIntervalMs: 200 } });
    const frappe = await startFrappeSim({
      keys: [{ key: API_KEY, secret: API_SECRET }],
      employees: CODES.map((c) => ({ fields: { attendance_device_id: c } })),
      faults: { down: true },
    });
    const codeOf = new Map(frappe.employees().map((e) => [e.name, e.fields.attendance_device_id!]));
    const checkinKeys = () =>
      frappe
        .checkins()
        .map((c) => `${codeOf.get(c.employee)}@${c.time}`)
        .sort();
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, { sinks: [frappeSink(stack.tmp, frappe.url, { key: API_KEY, secret: API_SECRET })] });
    });
    const [t1, t2] = stack.terminals as [(typeof stack.terminals)[0], (typeof stack.terminals)[0]];
    const time = punchTimes('2026-11-25', 13);
    const punch = (n: number) => {
      for (let i = 0; i < n; i++)
        (i % 3 === 0 ? t2 : t1).addPunch({ userId: CODES[i % CODES.length]!, logTime: time(), state: i % 2 });
    };
    const all = () => keys([...t1.punches(), ...t2.punches()]);
    let d = spawnDaemon(stack.configPath);
    try {
      punch(30);
      await waitFor(() => keys(stack.hrms.attendance()).length === 30, 20_000, 'the seed HRMS delivering');
      // Killed and started again, Frappe still down: the seed HRMS goes on.
      d.child.kill('SIGKILL');
      await d.exited;
      d = spawnDaemon(stack.configPath);
      punch(20);
      await waitFor(() => keys(stack.hrms.attendance()).length === 50, 20_000, 'the seed HRMS after the restart');
      expect(keys(stack.hrms.attendance())).toEqual(all());
      expect(stack.hrms.attendance()).toHaveLength(50);
      await waitFor(async () => (await erpOf(stack.configPath)).delivery.failingSince != null, 10_000, 'erp failing');
      const erp = await erpOf(stack.configPath);
      expect(erp.punches.pending + erp.punches.inflight).toBe(50);
      expect(erp.punches.delivered).toBe(0);
      expect(frappe.stats().requests).toBeGreaterThan(0);
      expect(frappe.checkins()).toHaveLength(0);
      // The nightly backup, every punch still waiting for Frappe in it.
      const backup = await cli(stack.configPath, 'backup', stack.tmp.path('nightly-backup.db'));
      expect(backup.status, backup.stderr).toBe(0);

      // Frappe back: every punch once.
      frappe.setFaults({ down: false });
      await waitFor(
        async () => (await erpOf(stack.configPath)).punches.delivered === 50,
        20_000,
        'every punch delivered to erp',
      );
      expect(checkinKeys()).toEqual(all());
      expect(frappe.checkins()).toHaveLength(50);

      // The journal replayed: the backup restored, every punch sent to Frappe again.
      d.child.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
      const restore = await cli(stack.configPath, 'restore', stack.tmp.path('nightly-backup.db'));
      expect(restore.status, restore.stderr).toBe(0);
      expect((await erpOf(stack.configPath)).punches.delivered).toBe(0);
      const calls = frappe.stats().checkinCalls;
      d = spawnDaemon(stack.configPath);
      await waitFor(
        async () => (await erpOf(stack.configPath)).punches.delivered === 50,
        20_000,
        'erp settled after the replay',
      );
      expect(frappe.stats().checkinCalls - calls).toBeGreaterThanOrEqual(50);
      expect(checkinKeys()).toEqual(all());
      expect(frappe.checkins()).toHaveLength(50);
      expect(stack.hrms.attendance()).toHaveLength(50);
      d.child.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await frappe.stop();
      await stack.stop();
    }
  }, 90_000);
});
