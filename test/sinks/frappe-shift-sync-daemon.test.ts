import { Database } from '../../src/journal/sqlite-driver.js';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startFrappeSim } from '../../src/sim/frappe/index.js';
import { punchTimes, spawnDaemon, startStack } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';

const KEY = 'shift-key-3a1f';
const SECRET = 'shift-secret-9e4d';
const REFUSED = '2003';

/**
 * The Frappe shift sync through a real `punchgate run` (issue 32): two ZK terminal simulators
 * (gate, yard), the seed HRMS as the default sink and a Frappe simulator as sink erp, whose
 * Shift Type Day covers both terminals and Yard the yard only. Frappe refuses the punches of one
 * code for a while: Day's last_sync_of_checkin never passes the oldest of them, Yard moves on;
 * once they are in, Day moves up to the time the terminals were read. Sampled all along, no value
 * ever goes backwards. A shift type Frappe does not have fails every round, logged once, and
 * holds no other back.
 */
describe('frappe shift sync in the daemon', () => {
  it('never ahead of an undelivered punch, then up to the read time, never backwards', async () => {
    const stack = await startStack({
      terminals: 2,
      names: ['gate', 'yard'],
      delivery: { rejectedRetry: { baseMs: 300, maxMs: 600 }, deadAfterAttempts: 1000 },
    });
    const codes = [...Array(7).keys()].map((i) => String(2000 + i));
    const frappe = await startFrappeSim({
      keys: [{ key: KEY, secret: SECRET }],
      employees: codes.map((c) => ({ fields: { attendance_device_id: c } })),
      shiftTypes: [{ name: 'Day' }, { name: 'Yard' }],
      faults: { refuseCodes: [REFUSED] },
    });
    writeFileSync(stack.tmp.path('key'), `${KEY}\n`);
    writeFileSync(stack.tmp.path('secret'), `${SECRET}\n`);
    stack.writeConfig(undefined, (c) => {
      Object.assign(c, {
        sinks: [
          {
            name: 'erp',
            kind: 'frappe',
            baseUrl: frappe.url,
            apiKeyFile: stack.tmp.path('key'),
            apiSecretFile: stack.tmp.path('secret'),
            timeoutMs: 20_000,
            shiftSyncIntervalSeconds: 1,
            shiftSync: [
              { shiftType: 'Day', terminals: ['gate', 'yard'] },
              { shiftType: 'Yard', terminals: ['yard'] },
              { shiftType: 'Ghost', terminals: ['gate'] },
            ],
          },
        ],
      });
    });
    const [gate, yard] = stack.terminals as [(typeof stack.terminals)[0], (typeof stack.terminals)[0]];
    const time = punchTimes('2026-11-20', 8);
    for (let i = 0; i < 14; i++) gate.addPunch({ userId: codes[i % 7]!, logTime: time() });
    for (let i = 0; i < 6; i++) yard.addPunch({ userId: codes[(i % 3) * 2]!, logTime: time() });
    const refusedTimes = gate
      .punches()
      .filter((p) => p.userId === REFUSED)
      .map((p) => p.logTime)
      .sort();
    const oldestRefused = refusedTimes[0]!;
    const total = gate.punches().length + yard.punches().length;

    const seen: Record<string, string[]> = { Day: [], Yard: [] };
    const ahead: string[] = [];
    const lastSync = (name: string) => frappe.shiftTypes().find((s) => s.name === name)?.last_sync_of_checkin ?? null;
    const sample = () => {
      for (const name of ['Day', 'Yard']) {
        const v = lastSync(name);
        if (v !== null && seen[name]!.at(-1) !== v) seen[name]!.push(v);
        // Never past an undelivered punch of the shift's terminals.
        const owed = frappe.checkins().length < total;
        if (name === 'Day' && owed && v !== null && v > oldestRefused) ahead.push(v);
      }
    };
    const sampler = setInterval(sample, 50);
    const d = spawnDaemon(stack.configPath);
    try {
      await waitFor(
        () => frappe.checkins().length === total - refusedTimes.length,
        30_000,
        'every punch but the refused ones at Frappe',
      );
      // Yard's terminal owes nothing: it moves to its read time; Day stops at the oldest refused punch.
      await waitFor(() => lastSync('Day') === oldestRefused, 20_000, 'Day set to the oldest refused punch');
      await waitFor(() => (lastSync('Yard') ?? '') > oldestRefused, 20_000, 'Yard past it');
      // A few more rounds while the punches are still refused: Day stays.
      const rounds = frappe.stats().requests;
      await waitFor(() => frappe.stats().requests >= rounds + 6, 20_000, 'more rounds');
      sample();
      expect(lastSync('Day')).toBe(oldestRefused);

      frappe.setFaults({ refuseCodes: [] });
      await waitFor(() => frappe.checkins().length === total, 30_000, 'every punch at Frappe');
      const db = new Database(stack.tmp.path('journal.db'), { readonly: true, fileMustExist: true });
      const readUpTo = () =>
        (
          db.prepare(`SELECT min(read_up_to) AS t FROM terminals WHERE name IN ('gate', 'yard')`).get() as {
            t: string | null;
          }
        ).t;
      try {
        await waitFor(
          () => lastSync('Day') !== null && lastSync('Day')! > oldestRefused && lastSync('Day') === readUpTo(),
          20_000,
          "Day up to the terminals' read time",
        );
      } finally {
        db.close();
      }
      sample();
      const lastPunch = [...gate.punches(), ...yard.punches()]
        .map((p) => p.logTime)
        .sort()
        .at(-1)!;
      expect(lastSync('Day')! > lastPunch).toBe(true);
      expect(ahead).toEqual([]);
      // Never backwards, each shift type.
      for (const name of ['Day', 'Yard']) expect(seen[name]).toEqual([...seen[name]!].sort());
      expect(seen.Day!.length).toBeGreaterThanOrEqual(2);
      // Ghost is not a Shift Type in Frappe: each round fails, the log says so once (bounded rate).
      const failures = d.output().match(/shift sync of sink erp failed/g) ?? [];
      expect(failures).toHaveLength(1);
      expect(d.output()).toContain('Ghost');
      expect(d.output()).not.toContain(SECRET);
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      clearInterval(sampler);
      if (d.child.exitCode === null) d.child.kill('SIGKILL');
      await frappe.stop();
      await stack.stop();
    }
  }, 120_000);
});
