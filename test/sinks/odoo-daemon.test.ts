import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startOdooSim, type OdooSim } from '../../src/sim/odoo/index.js';
import { everythingWritten, keys, spawnDaemon, startStack } from '../daemon/stack.js';
import { sinkPunches } from '../helpers/sink-punches.js';
import { waitFor } from '../helpers/wait.js';

const API_KEY = 'odoo-key-9b27f5e1';
const CODES = ['4001', '4002', '4003', '4004'];
const REFUSED = '4005';
/** Punching on gate-2, which sends no direction: Odoo's records alternate within the longest shift. */
const UNDIRECTED = ['4011', '4012'];

const p2 = (n: number) => String(n).padStart(2, '0');
/** A Berlin wall time, `minutes` later (never across a DST change: the shifts start on the hour). */
const later = (local: string, minutes: number) =>
  `${local.slice(0, 14)}${p2(Number(local.slice(14, 16)) + minutes)}${local.slice(16)}`;
/**
 * The UTC time Odoo keeps for a Berlin wall time, by the calendar rather than by the code under
 * test: summer time (UTC+2) from 2026-03-29 03:00 to 2026-10-25 03:00 (the hour 02:00-03:00 that
 * happens twice taken as its first, summer-time occurrence; the spring-forward hour that does not
 * exist read with winter time: src/punch/wall-clock-utc.ts), winter time (UTC+1) otherwise.
 */
const utcOf = (local: string) => {
  const summer = local >= '2026-03-29 03:00:00' && local < '2026-10-25 03:00:00';
  const d = new Date(Date.parse(`${local.replace(' ', 'T')}Z`) - (summer ? 2 : 1) * 3600_000);
  return d.toISOString().slice(0, 19).replace('T', ' ');
};

/** Odoo's records as "code check_in -> check_out" (UTC). */
const records = (sim: OdooSim) => {
  const codeOf = new Map(sim.store.employees.map((e) => [e.id, e.barcode]));
  return sim.store.attendances
    .map((a) => `${codeOf.get(a.employee_id)} ${a.check_in} -> ${a.check_out || 'open'}`)
    .sort();
};

/**
 * A `kind: odoo` sink behind a real `punchgate run` (issue 32), counted at the Odoo simulator: a
 * terminal in Europe/Berlin with IN and OUT punches (day shifts, an overnight one, the spring-forward
 * and fall-back nights; a second terminal that sends no direction), Odoo down
 * while they arrive, one employee's attendances refused by Odoo, the daemon SIGKILLed twice
 * mid-delivery, two answers lost after Odoo wrote: Odoo ends with exactly the expected check-in/check-out pairs in UTC, none twice,
 * none crossed; the refused employee's first punch is `rejected` with Odoo's message, the later ones
 * held behind it (pending); the API key is in nothing
 * the daemon wrote.
 */
describe('Odoo sink through the daemon', () => {
  it('the expected UTC pairs, once each, through an outage, a refusal and kills', async () => {
    const stack = await startStack({ terminals: 2, delivery: { batchSize: 10, probeIntervalMs: 200 } });
    const odoo = await startOdooSim({
      apiKeys: [API_KEY],
      employees: [...CODES, ...UNDIRECTED, REFUSED].map((c) => ({ name: `E${c}`, barcode: c })),
      faults: { refuseCodes: [REFUSED] },
    });
    writeFileSync(stack.tmp.path('odoo.key'), `${API_KEY}\n`);
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, {
        sinks: [
          {
            name: 'odoo',
            kind: 'odoo',
            baseUrl: odoo.url,
            database: 'odoo',
            api: 'json2',
            apiKeyFile: stack.tmp.path('odoo.key'),
            concurrency: 4,
            timeoutMs: 20_000,
            longestShiftHours: 12,
          },
        ],
      });
      Object.assign(c.terminals[0]!, { timezone: 'Europe/Berlin' });
      Object.assign(c.terminals[1]!, { timezone: 'Europe/Berlin', direction: 'none' });
    });
    const [t1, t2] = stack.terminals as [(typeof stack.terminals)[0], (typeof stack.terminals)[0]];
    // Shifts per employee in Berlin time (employee e punches e minutes later): day shifts, a break,
    // an overnight shift, the spring-forward night, the fall-back night with a check-out in the
    // hour that happens twice.
    const shifts: Array<[string, string]> = [
      ['2026-03-28 22:00:00', '2026-03-29 06:00:00'],
      ['2026-10-24 22:00:00', '2026-10-25 02:30:00'],
      ['2026-10-25 05:00:00', '2026-10-25 13:00:00'],
      ['2026-11-23 08:00:00', '2026-11-23 16:30:00'],
      ['2026-11-24 07:45:00', '2026-11-24 12:00:00'],
      ['2026-11-24 12:30:00', '2026-11-24 17:10:00'],
      ['2026-11-25 22:00:00', '2026-11-26 06:05:00'],
      ['2026-11-26 09:00:00', '2026-11-26 15:00:00'],
    ];
    const punches: Array<{ code: string; local: string; state: number }> = [];
    [...CODES, ...UNDIRECTED].forEach((code, e) => {
      for (const [i, o] of shifts) {
        punches.push({ code, local: later(i, e), state: 0 });
        // gate-2's terminal says "in" (state 0) for every punch: `direction: none` ignores it.
        punches.push({ code, local: later(o, e), state: UNDIRECTED.includes(code) ? 0 : 1 });
      }
    });
    for (const [i] of shifts.slice(3, 6)) punches.push({ code: REFUSED, local: i, state: 0 });
    punches.sort((a, b) => a.local.localeCompare(b.local));
    const expected = [...CODES, ...UNDIRECTED]
      .flatMap((code, e) => shifts.map(([i, o]) => `${code} ${utcOf(later(i, e))} -> ${utcOf(later(o, e))}`))
      .sort();
    // The calendar rule above, checked on the two nights (an hour less, an hour more).
    expect(expected).toContain('4001 2026-03-28 21:00:00 -> 2026-03-29 04:00:00');
    expect(expected).toContain('4001 2026-10-24 20:00:00 -> 2026-10-25 00:30:00');
    expect(expected).toContain('4001 2026-10-25 04:00:00 -> 2026-10-25 12:00:00');
    const half = Math.floor(punches.length / 2);
    const add = (ps: typeof punches) =>
      ps.forEach((p) =>
        (UNDIRECTED.includes(p.code) ? t2 : t1).addPunch({ userId: p.code, logTime: p.local, state: p.state }),
      );

    odoo.setFaults({ down: true });
    let d = spawnDaemon(stack.configPath);
    const outputs: string[] = [];
    try {
      // Odoo down: the first half reaches the seed HRMS, none Odoo.
      add(punches.slice(0, half));
      await waitFor(() => keys(stack.hrms.attendance()).length === half, 20_000, 'the first half at the seed HRMS');
      await waitFor(() => odoo.stats.requests > 0, 10_000, 'the Odoo sink trying while Odoo is down');
      expect(odoo.store.attendances).toHaveLength(0);

      // Odoo back, slowly: the rest arrives, and the daemon is killed twice while it delivers.
      odoo.setFaults({ down: false, latencyMs: 60, dropAfterWrite: 2 });
      add(punches.slice(half));
      for (let kill = 0; kill < 2; kill++) {
        const before = odoo.stats.calls['hr.attendance.create'] ?? 0;
        await waitFor(
          () => (odoo.stats.calls['hr.attendance.create'] ?? 0) > before + 2,
          20_000,
          'Odoo receiving attendances',
        );
        d.child.kill('SIGKILL');
        await d.exited;
        d = spawnDaemon(stack.configPath);
      }
      odoo.setFaults({ latencyMs: 0 });
      await waitFor(
        async () => {
          const rows = await sinkPunches(stack.configPath, 'odoo');
          // The refused employee's later punches wait behind the first refused one (pending).
          return (
            rows.length === punches.length &&
            rows.every((r) => r.state === 'delivered' || r.state === 'rejected' || r.biometricCode === REFUSED)
          );
        },
        20_000,
        'every punch settled for sink odoo',
      );
      // No second record, no crossed pair: exactly the pairs of the shifts, in UTC.
      expect(records(odoo)).toEqual(expected);

      const rows = await sinkPunches(stack.configPath, 'odoo');
      outputs.push(JSON.stringify(rows));
      const refused = rows.filter((r) => r.state === 'rejected');
      expect(refused.map((r) => [r.biometricCode, r.logTime])).toEqual([[REFUSED, shifts[3]![0]]]);
      expect(refused[0]!.lastMessage).toMatch(/refuses attendances of this employee/);
      // Its later punches are held, never sent past it: Odoo would pair them without it.
      const held = rows.filter((r) => r.biometricCode === REFUSED && r.state !== 'rejected');
      expect(held.map((r) => r.state)).toEqual(['pending', 'pending']);

      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
      expect(everythingWritten(stack.tmp.path('.'), d, outputs)).not.toContain(API_KEY);
    } finally {
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await odoo.stop();
      await stack.stop();
    }
  }, 90_000);
});
