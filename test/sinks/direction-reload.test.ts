import { describe, expect, it } from 'vitest';
import { startFrappeSim } from '../../src/sim/frappe/index.js';
import { punchTimes, spawnDaemon, startStack } from '../daemon/stack.js';
import { frappeSink } from '../helpers/frappe-sink.js';
import { waitFor } from '../helpers/wait.js';

const API_KEY = 'frappe-key-71d0c2';
const API_SECRET = 'frappe-secret-9a44e1';
const CODES = ['3001', '3002', '3003', '3004'];

/**
 * Found by an integrator's rehearsal (helper C4): punches refused by Odoo as check-outs with no
 * open attendance, the terminals set to `direction: alternate` and the config reloaded, then
 * `punches retry --sink odoo`: Odoo was sent the same check-outs again. docs/direction.md says a
 * changed setting applies to every punch not yet delivered once the service has read the config;
 * the reload rebuilt delivery only when a sink, the delivery settings or a terminal's sinks or zone
 * changed, so the sinks kept the direction of the last start. Counted at the Frappe simulator:
 * punches waiting while Frappe is down, `direction: out` set and reloaded, every one an OUT.
 */
describe('a direction changed by a reload', () => {
  it('applies to the punches still waiting for a sink', async () => {
    const stack = await startStack({ terminals: 1, delivery: { batchSize: 10, probeIntervalMs: 200 } });
    const frappe = await startFrappeSim({
      keys: [{ key: API_KEY, secret: API_SECRET }],
      employees: CODES.map((c) => ({ employee_name: `E${c}`, fields: { attendance_device_id: c } })),
    });
    const withSink = (direction?: string) =>
      stack.writeConfig(undefined, (c) => {
        Object.assign(c, { sinks: [frappeSink(stack.tmp, frappe.url, { key: API_KEY, secret: API_SECRET })] });
        if (direction) Object.assign(c.terminals[0]!, { direction });
      });
    withSink();
    const [t1] = stack.terminals as [(typeof stack.terminals)[0]];
    const time = punchTimes('2026-11-25', 9);
    // The device's state: check-in (0) and check-out (1) in turn.
    for (let i = 0; i < 8; i++) t1.addPunch({ userId: CODES[i % CODES.length]!, logTime: time(), state: i % 2 });

    frappe.setFaults({ down: true });
    const d = spawnDaemon(stack.configPath);
    try {
      await waitFor(() => stack.hrms.attendance().length === 8, 20_000, 'every punch at the seed HRMS');
      await waitFor(() => frappe.stats().requests > 0, 10_000, 'the Frappe sink trying while Frappe is down');
      expect(frappe.checkins()).toHaveLength(0);

      // The admin sets the terminal to an exit and reloads (systemctl reload: SIGHUP).
      withSink('out');
      d.child.kill('SIGHUP');
      await waitFor(() => d.output().includes('config reloaded'), 20_000, 'the reload');

      frappe.setFaults({ down: false });
      await waitFor(() => frappe.checkins().length === 8, 20_000, 'every punch an Employee Checkin');
      expect(frappe.checkins().map((c) => c.log_type)).toEqual(Array(8).fill('OUT'));

      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await frappe.stop();
      await stack.stop();
    }
  }, 90_000);
});
