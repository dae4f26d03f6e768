import { describe, expect, it } from 'vitest';
import { startFrappeSim } from '../../src/sim/frappe/index.js';
import { keys, spawnDaemon, startStack } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { frappeSink } from '../helpers/frappe-sink.js';
import { waitFor } from '../helpers/wait.js';

const API_KEY = 'frappe-key-8d20c1';
const API_SECRET = 'frappe-secret-19fe7a';

/**
 * Terminals taken out of the config while their punches still waited for a sink: the punches went
 * out with the direction of a terminal punchgate knew nothing of (the device's state read the
 * usual way), not the one the terminal was set to: an exit's `direction: out` punches arrived as IN,
 * and a sink pairing check-in and check-out (Odoo by alternation, Frappe's "Strictly based on Log
 * Type") paired them wrong. The journal keeps each terminal's direction setting; a real daemon,
 * restarted on a config without the terminals, sends their waiting punches with it.
 */
describe('a terminal taken out of the config', () => {
  it('has its waiting punches sent with the direction it was set to, not the device’s state', async () => {
    const stack = await startStack({ terminals: 3 });
    const frappe = await startFrappeSim({
      keys: [{ key: API_KEY, secret: API_SECRET }],
      employees: ['4001', '4002'].map((c) => ({ employee_name: `E${c}`, fields: { attendance_device_id: c } })),
    });
    const codeOf = new Map(frappe.employees().map((e) => [e.name, e.fields.attendance_device_id!]));
    const erp = frappeSink(stack.tmp, frappe.url, { key: API_KEY, secret: API_SECRET });
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, { sinks: [erp] });
      // gate-1 is an exit; gate-2 records check-in (state 0) where its site means going out.
      Object.assign(c.terminals[0]!, { direction: 'out' });
      Object.assign(c.terminals[1]!, { directionStates: { '0': 'out' } });
    });
    const [gate1, gate2] = stack.terminals;
    frappe.setFaults({ down: true });
    let d = spawnDaemon(stack.configPath, [], { TZ: 'UTC' });
    try {
      // Both terminals record check-in (state 0) for every punch.
      gate1!.addPunch({ userId: '4001', logTime: '2026-11-23 17:00:00', state: 0 });
      gate1!.addPunch({ userId: '4002', logTime: '2026-11-23 17:01:00', state: 0 });
      gate2!.addPunch({ userId: '4001', logTime: '2026-11-23 18:00:00', state: 0 });
      await waitFor(() => keys(stack.hrms.attendance()).length === 3, 20_000, 'the punches at the seed HRMS');
      await waitFor(() => frappe.stats().requests > 0, 10_000, 'the Frappe sink trying while Frappe is down');
      d.child.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);

      // Both taken out of the config (gate-3 stays); Frappe back.
      stack.writeConfig(undefined, (c) => {
        Object.assign(c, { sinks: [erp] });
        c.terminals = c.terminals.filter((t) => t.name !== 'gate-1' && t.name !== 'gate-2');
      });
      frappe.setFaults({ down: false });
      d = spawnDaemon(stack.configPath, [], { TZ: 'UTC' });
      await waitFor(() => frappe.checkins().length === 3, 20_000, 'the punches at Frappe');
      const got = frappe
        .checkins()
        .map((c) => `${codeOf.get(c.employee)}@${c.time} ${c.log_type}`)
        .sort();
      expect(got).toEqual([
        '4001@2026-11-23 17:00:00 OUT',
        '4001@2026-11-23 18:00:00 OUT',
        '4002@2026-11-23 17:01:00 OUT',
      ]);
      d.child.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
      // `punches` shows the direction they were delivered with.
      const r = await runPunchgate(['--config', stack.configPath, 'punches', '--json', '--limit', '100']);
      expect(r.status).toBe(0);
      const shown = r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { terminal: string; direction: string | null; directionSetting: string })
        .filter((p) => p.terminal !== 'gate-3')
        .map((p) => `${p.terminal} ${p.direction} ${p.directionSetting}`)
        .sort();
      expect(shown).toEqual(['gate-1 out out', 'gate-1 out out', 'gate-2 out device']);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await frappe.stop();
      await stack.stop();
    }
  }, 60_000);
});
