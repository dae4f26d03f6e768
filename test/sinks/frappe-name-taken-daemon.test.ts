import { describe, expect, it } from 'vitest';
import { startFrappeSim } from '../../src/sim/frappe/index.js';
import { keys, punchTimes, spawnDaemon, startStack } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { frappeSink } from '../helpers/frappe-sink.js';
import { sinkPunches } from '../helpers/sink-punches.js';
import { waitFor } from '../helpers/wait.js';

const API_KEY = 'frappe-key-77a1c0';
const API_SECRET = 'frappe-secret-19be42';
const CODES = ['3001', '3002', '3003'];

/** `punchgate punches --sink erp --json`: each punch's state for the sink. */
const sinkStates = async (configPath: string): Promise<string[]> =>
  (await sinkPunches(configPath, 'erp', 100)).map((r) => r.state);

/**
 * Frappe's naming series of Employee Checkin behind its check-ins (a restore, an import): every
 * new check-in meets a taken name, 409 DuplicateEntryError, whatever the punch. Through a real
 * `punchgate run`: the punches wait in the journal, none refused or dead, none doubled, the status
 * says the fix; once the series is moved on, each punch is one Employee Checkin.
 */
describe('Frappe sink through the daemon, the naming series behind', () => {
  it('holds the punches with the fix said, then delivers each once', async () => {
    const stack = await startStack({ terminals: 1, delivery: { batchSize: 10, probeIntervalMs: 200 } });
    const frappe = await startFrappeSim({
      keys: [{ key: API_KEY, secret: API_SECRET }],
      employees: CODES.map((c) => ({ employee_name: `E${c}`, fields: { attendance_device_id: c } })),
    });
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, {
        sinks: [frappeSink(stack.tmp, frappe.url, { key: API_KEY, secret: API_SECRET }, { concurrency: 2 })],
      });
    });
    const t = stack.terminals[0]!;
    const time = punchTimes('2026-11-25', 9);
    const d = spawnDaemon(stack.configPath);
    try {
      t.addPunch({ userId: CODES[0]!, logTime: time(), state: 0 });
      await waitFor(() => frappe.checkins().length === 1, 20_000, 'the first check-in');
      frappe.setFaults({ seriesBehind: true });
      for (let i = 0; i < 6; i++) t.addPunch({ userId: CODES[i % CODES.length]!, logTime: time(), state: i % 2 });
      await waitFor(() => /Employee Checkin naming series is behind/.test(d.output()), 20_000, 'the fix logged');
      const calls = frappe.stats().checkinCalls;
      await waitFor(() => frappe.stats().checkinCalls > calls, 20_000, 'tried again');
      const status = await runPunchgate(['--config', stack.configPath, 'status']);
      expect(status.stdout).toMatch(/Update Series Counter/);
      // Held, not refused: no punch rejected or dead while the site cannot name a check-in.
      const states = await sinkStates(stack.configPath);
      expect(states.filter((s) => s === 'delivered')).toHaveLength(1);
      expect(states.filter((s) => s === 'rejected' || s === 'dead')).toEqual([]);
      expect(frappe.checkins()).toHaveLength(1);

      frappe.setFaults({ seriesBehind: false });
      await waitFor(() => frappe.checkins().length >= 7, 20_000, 'every punch a check-in');
      await waitFor(
        async () => (await sinkStates(stack.configPath)).every((s) => s === 'delivered'),
        20_000,
        'every punch delivered for sink erp',
      );
      const codeOf = new Map(frappe.employees().map((e) => [e.name, e.fields.attendance_device_id!]));
      const got = frappe
        .checkins()
        .map((c) => `${codeOf.get(c.employee)}@${c.time}`)
        .sort();
      expect(got).toEqual(keys(t.punches()));
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await frappe.stop();
      await stack.stop();
    }
  }, 90_000);
});
