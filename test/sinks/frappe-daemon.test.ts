import { describe, expect, it } from 'vitest';
import { startFrappeSim, type SimCheckin } from '../../src/sim/frappe/index.js';
import { checkinUrl } from '../../src/sinks/frappe/options.js';
import { everythingWritten, keys, punchTimes, spawnDaemon, startStack } from '../daemon/stack.js';
import { frappeSink } from '../helpers/frappe-sink.js';
import { sinkPunches } from '../helpers/sink-punches.js';
import { waitFor } from '../helpers/wait.js';

const API_KEY = 'frappe-key-3e91ab';
const API_SECRET = 'frappe-secret-c47d20';
const CODES = ['3001', '3002', '3003', '3004', '3005'];
const UNKNOWN = '3999';

const checkinKeys = (cs: SimCheckin[], codeOf: Map<string, string>) =>
  cs.map((c) => `${codeOf.get(c.employee)}@${c.time}`).sort();

/**
 * A `kind: frappe` sink behind a real `punchgate run` (issue 32), counted at the Frappe simulator:
 * Frappe down while punches arrive (the seed HRMS takes them all the same), an unknown employee
 * refused with Frappe's message and the others delivered, a check-in already in Frappe (sent
 * before by another tool) delivered as a duplicate, the daemon SIGKILLed twice mid-delivery: in the
 * end every known punch is exactly one Employee Checkin, with the direction of its terminal
 * (gate-2 has `direction: in`), and the key and secret appear in nothing the daemon wrote.
 */
describe('Frappe sink through the daemon', () => {
  it('every punch once as an Employee Checkin through an outage, refusals, a duplicate and kills', async () => {
    const stack = await startStack({ terminals: 2, delivery: { batchSize: 10, probeIntervalMs: 200 } });
    const frappe = await startFrappeSim({
      keys: [{ key: API_KEY, secret: API_SECRET }],
      employees: CODES.map((c) => ({ employee_name: `E${c}`, fields: { attendance_device_id: c } })),
    });
    const codeOf = new Map(frappe.employees().map((e) => [e.name, e.fields.attendance_device_id!]));
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, {
        sinks: [frappeSink(stack.tmp, frappe.url, { key: API_KEY, secret: API_SECRET }, { concurrency: 4 })],
      });
      Object.assign(c.terminals[1]!, { direction: 'in' });
    });
    const [t1, t2] = stack.terminals as [(typeof stack.terminals)[0], (typeof stack.terminals)[0]];
    const time = punchTimes('2026-11-25', 9);
    // gate-1: the device's state (0 in, 1 out); gate-2 says OUT (state 1) but its config says in.
    const punch = (t: typeof t1, n: number, code = (i: number) => CODES[i % CODES.length]!) => {
      for (let i = 0; i < n; i++) t.addPunch({ userId: code(i), logTime: time(), state: t === t1 ? i % 2 : 1 });
    };

    // A check-in Frappe already has (another tool sent it): the same punch from gate-1 is a duplicate.
    const dupTime = time();
    const pre = await fetch(checkinUrl({ baseUrl: frappe.url, method: 'hrms' }), {
      method: 'POST',
      headers: { authorization: `token ${API_KEY}:${API_SECRET}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        employee_field_value: CODES[0],
        employee_fieldname: 'attendance_device_id',
        timestamp: dupTime,
        log_type: 'IN',
        device_id: 'gate-1',
      }),
    });
    expect(pre.status).toBe(200);
    t1.addPunch({ userId: CODES[0]!, logTime: dupTime, state: 0 });

    frappe.setFaults({ down: true });
    let d = spawnDaemon(stack.configPath);
    const outputs: string[] = [];
    try {
      // Frappe down: the seed HRMS takes every punch all the same; Frappe is tried and holds only the old one.
      punch(t1, 20);
      punch(t2, 10);
      t1.addPunch({ userId: UNKNOWN, logTime: time(), state: 0 });
      await waitFor(() => keys(stack.hrms.attendance()).length === 32, 20_000, 'every punch at the seed HRMS');
      await waitFor(() => frappe.stats().requests > 0, 10_000, 'the Frappe sink trying while Frappe is down');
      expect(frappe.checkins()).toHaveLength(1);

      // Frappe back, slowly: the daemon is killed twice while it delivers.
      frappe.setFaults({ down: false, latencyMs: 150 });
      punch(t1, 10);
      punch(t2, 6);
      for (let kill = 0; kill < 2; kill++) {
        const before = frappe.checkins().length;
        await waitFor(() => frappe.checkins().length > before + 3, 20_000, 'Frappe receiving check-ins');
        d.child.kill('SIGKILL');
        await d.exited;
        d = spawnDaemon(stack.configPath);
      }
      frappe.setFaults({ latencyMs: 0 });
      const all = [...t1.punches(), ...t2.punches()];
      const known = all.filter((p) => p.userId !== UNKNOWN);
      const expected = keys(known);
      await waitFor(() => frappe.checkins().length >= expected.length, 20_000, 'every known punch an Employee Checkin');
      await waitFor(
        async () => {
          const rows = await sinkPunches(stack.configPath, 'erp');
          return rows.length === all.length && rows.every((r) => r.state === 'delivered' || r.state === 'rejected');
        },
        20_000,
        'every punch settled for sink erp',
      );
      // Exactly once: one check-in per punch, none twice.
      const got = checkinKeys(frappe.checkins(), codeOf);
      expect(got).toEqual(expected);
      expect(new Set(got).size).toBe(got.length);
      // The direction: gate-1 as the device said, gate-2 always IN.
      const dirOf = new Map(frappe.checkins().map((c) => [`${codeOf.get(c.employee)}@${c.time}`, c.log_type]));
      for (const p of t1.punches().filter((x) => x.userId !== UNKNOWN))
        expect(dirOf.get(`${p.userId}@${p.logTime}`), `${p.userId}@${p.logTime}`).toBe(p.state === 1 ? 'OUT' : 'IN');
      for (const p of t2.punches()) expect(dirOf.get(`${p.userId}@${p.logTime}`)).toBe('IN');

      // The sink's own state of each punch: the unknown employee refused with Frappe's message.
      const rows = await sinkPunches(stack.configPath, 'erp');
      outputs.push(JSON.stringify(rows));
      const refused = rows.filter((r) => r.state === 'rejected');
      expect(refused.map((r) => r.biometricCode)).toEqual([UNKNOWN]);
      expect(refused[0]!.lastMessage).toMatch(/No Employee found/);
      const dup = rows.find((r) => r.biometricCode === CODES[0] && r.logTime === dupTime)!;
      expect(dup.state).toBe('delivered');
      expect(rows.filter((r) => r.state === 'delivered')).toHaveLength(known.length);

      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
      const written = everythingWritten(stack.tmp.path('.'), d, outputs);
      expect(written).not.toContain(API_KEY);
      expect(written).not.toContain(API_SECRET);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await frappe.stop();
      await stack.stop();
    }
  }, 90_000);
});
