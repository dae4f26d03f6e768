import { afterEach, describe, expect, it } from 'vitest';
import type { AttendanceAnswer } from '../../src/hrms/answer.js';
import { OdooSender } from '../../src/sinks/odoo/sender.js';
import type { SinkPunch } from '../../src/sinks/types.js';
import { DEFAULT_SIM_KEY, startOdooSim, type OdooSim } from '../../src/sim/odoo/index.js';

/**
 * Odoo 18+ closes an attendance left open past the schedule itself: _cron_auto_check_out
 * (addons/hr_attendance/models/hr_attendance.py, _cron_auto_check_out_tolerance and
 * _cron_auto_check_out_specific_time) writes a check_out of its own and out_mode
 * 'auto_check_out'. The employee's real check-out, delivered after the cron ran, replaces it.
 */
let open: Array<{ stop(): Promise<void> } | { close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.reverse()) await ('stop' in o ? o.stop() : o.close());
  open = [];
});

async function setup(version: number) {
  const sim = await startOdooSim({ version, employees: [{ name: 'Ann Lee', barcode: '1001' }] });
  open.push(sim);
  const sender = new OdooSender({ baseUrl: sim.url, database: 'odoo', login: 'punchgate', timeoutMs: 5000 });
  open.push(sender);
  return { sim, sender };
}

let seq = 0;
const punch = (logTime: string, direction?: 'in' | 'out'): SinkPunch => ({
  devicelogId: `d${++seq}`,
  biometricCode: '1001',
  logTime,
  terminal: 'gate',
  device: 'SN1',
  timezone: 'UTC',
  ...(direction ? { direction } : {}),
});

async function send(sender: OdooSender, ...p: SinkPunch[]) {
  const a: AttendanceAnswer = await sender.send(p, { token: DEFAULT_SIM_KEY });
  if (a.kind !== 'answered') throw new Error(`expected answered, got ${a.kind}: ${'message' in a ? a.message : ''}`);
  return a.results;
}

/** The cron of Odoo 18, run now: the open record closed at `at` (UTC), out_mode auto_check_out. */
async function autoCheckOut(sim: OdooSim, at: string) {
  const res = await fetch(`${sim.url}/__sim/auto-check-out`, {
    method: 'POST',
    body: JSON.stringify({ employee_id: 1, check_out: at }),
  });
  expect((await res.json()) as unknown[]).toHaveLength(1);
}

const rows = (sim: OdooSim) => sim.store.attendances.map((a) => [a.check_in, a.check_out || null, a.out_mode]);

describe.each([
  ['Odoo 18 (JSON-RPC)', 18],
  ['Odoo 19 (JSON-2)', 19],
] as const)("Odoo's automatic check-out through %s", (_name, version) => {
  it('an alternating punch after it is the real check-out: it replaces the automatic one, no record of its own', async () => {
    const { sim, sender } = await setup(version);
    expect((await send(sender, punch('2026-07-01 08:00:00')))[0]!.status).toBe(true);
    await autoCheckOut(sim, '2026-07-01 18:00:00');
    const r = await send(sender, punch('2026-07-01 19:10:00'));
    expect(r[0]).toMatchObject({ status: true });
    expect(r[0]!.message).toContain("in place of Odoo's automatic check-out at 2026-07-01 18:00:00 UTC");
    expect(rows(sim)).toEqual([['2026-07-01 08:00:00', '2026-07-01 19:10:00', 'manual']]);
    // Corrected, it is a punch's check-out: the next punch opens a record, sent again it is there.
    expect((await send(sender, punch('2026-07-01 19:10:00')))[0]!.message).toContain('already recorded in Odoo');
    expect((await send(sender, punch('2026-07-02 08:00:00')))[0]!.status).toBe(true);
    expect(rows(sim)).toEqual([
      ['2026-07-01 08:00:00', '2026-07-01 19:10:00', 'manual'],
      ['2026-07-02 08:00:00', null, 'manual'],
    ]);
  });

  it('an out punch earlier than the automatic check-out (delivered late) shortens it; never refused', async () => {
    const { sim, sender } = await setup(version);
    await send(sender, punch('2026-07-01 08:00:00', 'in'));
    await autoCheckOut(sim, '2026-07-01 17:00:00');
    const r = await send(sender, punch('2026-07-01 16:30:00', 'out'));
    expect(r[0]).toMatchObject({ status: true });
    expect(rows(sim)).toEqual([['2026-07-01 08:00:00', '2026-07-01 16:30:00', 'manual']]);
  });

  it('a record Odoo closed automatically longer ago than longestShiftHours is left alone', async () => {
    const { sim, sender } = await setup(version);
    await send(sender, punch('2026-07-01 08:00:00', 'in'));
    await autoCheckOut(sim, '2026-07-01 18:00:00');
    // The next morning: a new day's check-in, not yesterday's check-out.
    expect((await send(sender, punch('2026-07-02 07:55:00')))[0]!.status).toBe(true);
    expect(rows(sim)).toEqual([
      ['2026-07-01 08:00:00', '2026-07-01 18:00:00', 'auto_check_out'],
      ['2026-07-02 07:55:00', null, 'manual'],
    ]);
  });
});

describe('Odoo 16 (no out_mode)', () => {
  it('pairs as before: the read that names out_mode is refused once, then asked without it', async () => {
    const { sim, sender } = await setup(16);
    expect(
      (await send(sender, punch('2026-07-01 08:00:00'), punch('2026-07-01 17:00:00'))).map((x) => x.status),
    ).toEqual([true, true]);
    expect((await send(sender, punch('2026-07-02 08:00:00')))[0]!.status).toBe(true);
    expect(sim.store.attendances.map((a) => [a.check_in, a.check_out || null])).toEqual([
      ['2026-07-01 08:00:00', '2026-07-01 17:00:00'],
      ['2026-07-02 08:00:00', null],
    ]);
    // Three punches, three reads, and the one refused read of out_mode.
    expect(sim.stats.calls['hr.attendance.search_read']).toBe(4);
  });
});
