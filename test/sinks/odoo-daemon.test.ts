import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startOdooSim, type OdooSim } from '../../src/sim/odoo/index.js';
import { everythingWritten, keys, spawnDaemon, startStack } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';

const API_KEY = 'odoo-key-9b27f5e1';
const CODES = ['4001', '4002', '4003', '4004'];
const REFUSED = '4005';

interface SinkRow {
  biometricCode: string;
  logTime: string;
  state: string;
  lastMessage?: string | null;
}

const sinkPunches = (configPath: string, sink: string): SinkRow[] => {
  const r = spawnSync(
    process.execPath,
    ['dist/punchgate.js', '--config', configPath, 'punches', '--sink', sink, '--json', '--limit', '1000'],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`punches --sink ${sink}: ${r.status} ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as SinkRow);
};

const p2 = (n: number) => String(n).padStart(2, '0');
/** Berlin wall time of a November day (CET, UTC+1), and the same instant in UTC as Odoo keeps it. */
const berlin = (day: number, h: number, m: number) => `2026-11-${p2(day)} ${p2(h)}:${p2(m)}:00`;
const utcOf = (local: string) => {
  const d = new Date(Date.parse(`${local.replace(' ', 'T')}Z`) - 3600_000);
  return d.toISOString().slice(0, 19).replace('T', ' ');
};

/** Odoo's records as "code check_in -> check_out" (UTC). */
const records = (sim: OdooSim) => {
  const codeOf = new Map(sim.store.employees.map((e) => [e.id, e.barcode]));
  return sim.store.attendances.map((a) => `${codeOf.get(a.employee_id)} ${a.check_in} -> ${a.check_out || 'open'}`).sort();
};

/**
 * A `kind: odoo` sink behind a real `punchgate run` (issue 32), counted at the Odoo simulator: a
 * terminal in Europe/Berlin with IN and OUT punches (day shifts and an overnight one), Odoo down
 * while they arrive, one employee's attendances refused by Odoo, the daemon SIGKILLed twice
 * mid-delivery: Odoo ends with exactly the expected check-in/check-out pairs in UTC, none twice,
 * none crossed; the refused punches are `rejected` with Odoo's message; the API key is in nothing
 * the daemon wrote.
 */
describe('Odoo sink through the daemon', () => {
  it('the expected UTC pairs, once each, through an outage, a refusal and kills', async () => {
    const stack = await startStack({ delivery: { batchSize: 10, probeIntervalMs: 200 } });
    const odoo = await startOdooSim({
      apiKeys: [API_KEY],
      employees: [...CODES, REFUSED].map((c) => ({ name: `E${c}`, barcode: c })),
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
            timeoutMs: 2000,
            longestShiftHours: 12,
          },
        ],
      });
      Object.assign(c.terminals[0]!, { timezone: 'Europe/Berlin' });
    });
    const t = stack.terminals[0]!;
    // Shifts per employee in Berlin time: [day, in h, in m, out day, out h, out m]; the last one overnight.
    const shifts: Array<[number, number, number, number, number, number]> = [
      [23, 8, 0, 23, 16, 30],
      [24, 7, 45, 24, 12, 0],
      [24, 12, 30, 24, 17, 10],
      [25, 22, 0, 26, 6, 5],
      [26, 9, 0, 26, 15, 0],
      [26, 15, 30, 26, 19, 45],
    ];
    const punches: Array<{ code: string; local: string; state: number }> = [];
    CODES.forEach((code, e) => {
      for (const [d, h, m, od, oh, om] of shifts) {
        punches.push({ code, local: berlin(d, h, m + e), state: 0 });
        punches.push({ code, local: berlin(od, oh, om + e), state: 1 });
      }
    });
    for (const [d, h, m] of shifts.slice(0, 3)) punches.push({ code: REFUSED, local: berlin(d, h, m), state: 0 });
    punches.sort((a, b) => a.local.localeCompare(b.local));
    const expected = CODES.flatMap((code, e) =>
      shifts.map(
        ([d, h, m, od, oh, om]) =>
          `${code} ${utcOf(berlin(d, h, m + e))} -> ${utcOf(berlin(od, oh, om + e))}`,
      ),
    ).sort();
    const half = Math.floor(punches.length / 2);
    const add = (ps: typeof punches) => ps.forEach((p) => t.addPunch({ userId: p.code, logTime: p.local, state: p.state }));

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
      odoo.setFaults({ down: false, latencyMs: 60 });
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
        () => {
          const rows = sinkPunches(stack.configPath, 'odoo');
          return rows.length === punches.length && rows.every((r) => r.state === 'delivered' || r.state === 'rejected');
        },
        20_000,
        'every punch settled for sink odoo',
      );
      // No second record, no crossed pair: exactly the pairs of the shifts, in UTC.
      expect(records(odoo)).toEqual(expected);

      const rows = sinkPunches(stack.configPath, 'odoo');
      outputs.push(JSON.stringify(rows));
      const refused = rows.filter((r) => r.state === 'rejected');
      expect(refused.map((r) => r.biometricCode)).toEqual([REFUSED, REFUSED, REFUSED]);
      for (const r of refused) expect(r.lastMessage).toMatch(/refuses attendances of this employee/);

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
