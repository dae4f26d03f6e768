import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HrmsHttp } from '../../src/hrms/http.js';
import { startFrappeSim, type FrappeSim } from '../../src/sim/frappe/index.js';
import {
  FrappeShiftSync,
  progressInZone,
  setLastSync,
  shiftSyncTargets,
  type TerminalProgress,
} from '../../src/sinks/frappe/shift-sync.js';

const rules = [
  { shiftType: 'Day', terminals: ['gate', 'yard'] },
  { shiftType: 'Night', terminals: ['yard'] },
];
const progress = (o: Record<string, TerminalProgress>) => new Map(Object.entries(o));

describe('shiftSyncTargets', () => {
  it('the earliest time read over the terminals when everything is delivered', () => {
    const t = shiftSyncTargets(
      rules,
      progress({ gate: { readUpTo: '2026-11-02 18:00:00' }, yard: { readUpTo: '2026-11-02 17:55:10' } }),
      new Map(),
    );
    expect(t).toEqual([
      { shiftType: 'Day', lastSync: '2026-11-02 17:55:10' },
      { shiftType: 'Night', lastSync: '2026-11-02 17:55:10' },
    ]);
  });

  it('never ahead of an undelivered punch of any of its terminals', () => {
    const t = shiftSyncTargets(
      rules,
      progress({
        gate: { readUpTo: '2026-11-02 18:00:00', oldestUndelivered: '2026-11-02 08:01:00' },
        yard: { readUpTo: '2026-11-02 17:55:10' },
      }),
      new Map(),
    );
    expect(t).toEqual([
      { shiftType: 'Day', lastSync: '2026-11-02 08:01:00' },
      { shiftType: 'Night', lastSync: '2026-11-02 17:55:10' },
    ]);
  });

  it('a terminal never read holds its shift types back', () => {
    const t = shiftSyncTargets(rules, progress({ gate: { readUpTo: '2026-11-02 18:00:00' } }), new Map());
    expect(t).toEqual([]);
  });

  it('never backwards, never the same value again', () => {
    const p = progress({
      gate: { readUpTo: '2026-11-02 18:00:00', oldestUndelivered: '2026-11-02 07:00:00' },
      yard: { readUpTo: '2026-11-02 19:00:00' },
    });
    const last = new Map([
      ['Day', '2026-11-02 12:00:00'],
      ['Night', '2026-11-02 19:00:00'],
    ]);
    expect(shiftSyncTargets(rules, p, last)).toEqual([]);
  });
});

describe("progressInZone (a sink with the site's timezone)", () => {
  it("a terminal in another zone is judged on the site's wall clock: the shift type set in the site's time", () => {
    const zones: Record<string, string> = { gate: 'Europe/Berlin', yard: 'Asia/Kolkata' };
    const p = progressInZone(
      progress({
        // 18:00 in Berlin (summer) is 21:30 in Kolkata; its owed punch 08:01 Berlin is 11:31 there.
        gate: { readUpTo: '2026-07-02 18:00:00', oldestUndelivered: '2026-07-02 08:01:00', oldestRefused: true },
        yard: { readUpTo: '2026-07-02 19:00:00' },
      }),
      (t) => zones[t]!,
      'Asia/Kolkata',
    );
    expect(Object.fromEntries(p)).toEqual({
      gate: { readUpTo: '2026-07-02 21:30:00', oldestUndelivered: '2026-07-02 11:31:00', oldestRefused: true },
      yard: { readUpTo: '2026-07-02 19:00:00' },
    });
    // Day stands at gate's owed punch as Frappe will store it (11:31 site time), not at 08:01.
    expect(shiftSyncTargets(rules, p, new Map())).toEqual([
      { shiftType: 'Day', lastSync: '2026-07-02 11:31:00' },
      { shiftType: 'Night', lastSync: '2026-07-02 19:00:00' },
    ]);
  });
});

describe('setLastSync against the Frappe simulator', () => {
  let sim: FrappeSim;
  let http: HrmsHttp;
  const token = 'k3y-abcdef1234:s3cret-abcdef5678';
  beforeAll(async () => {
    sim = await startFrappeSim({
      keys: [{ key: 'k3y-abcdef1234', secret: 's3cret-abcdef5678' }],
      shiftTypes: [{ name: 'Day Shift' }],
    });
    http = new HrmsHttp({ baseUrl: sim.url, timeoutMs: 20_000, connectTimeoutMs: 5000 }, { env: {} });
  });
  afterAll(async () => {
    await http.close();
    await sim.stop();
  });

  it('PUTs last_sync_of_checkin on the Shift Type (a name with a space)', async () => {
    const a = await setLastSync(http, sim.url, { shiftType: 'Day Shift', lastSync: '2026-11-02 17:55:10' }, { token });
    expect(a).toEqual({ kind: 'set', shiftType: 'Day Shift', lastSync: '2026-11-02 17:55:10' });
    expect(sim.shiftTypes()[0]!.last_sync_of_checkin).toBe('2026-11-02 17:55:10');
  });

  it("an unknown Shift Type is refused with Frappe's words; a refused key never shows the secret", async () => {
    const a = await setLastSync(http, sim.url, { shiftType: 'Nope', lastSync: '2026-11-02 17:55:10' }, { token });
    expect(a).toMatchObject({ kind: 'refused', httpStatus: 404 });
    expect(a.kind === 'refused' && a.message).toMatch(/Shift Type Nope not found/);
    const b = await setLastSync(
      http,
      sim.url,
      { shiftType: 'Day Shift', lastSync: '2026-11-02 18:00:00' },
      { token: 'k3y-abcdef1234:wrong-secret-99' },
    );
    expect(b).toMatchObject({ kind: 'auth', httpStatus: 401 });
    expect(JSON.stringify(b)).not.toContain('wrong-secret-99');
    expect(sim.shiftTypes()[0]!.last_sync_of_checkin).toBe('2026-11-02 17:55:10');
  });

  it('FrappeShiftSync: sets what moved forward, once, and follows the undelivered punch', async () => {
    sim.addShiftType({ name: 'Late' });
    const sync = new FrappeShiftSync(http, sim.url, [{ shiftType: 'Late', terminals: ['a', 'b'] }]);
    expect(sync.terminals()).toEqual(['a', 'b']);
    const p1 = progress({
      a: { readUpTo: '2026-11-03 18:00:00', oldestUndelivered: '2026-11-03 09:00:00' },
      b: { readUpTo: '2026-11-03 17:00:00' },
    });
    expect(await sync.round(p1, { token })).toEqual([
      { kind: 'set', shiftType: 'Late', lastSync: '2026-11-03 09:00:00' },
    ]);
    expect(await sync.round(p1, { token })).toEqual([]);
    const late = () => sim.shiftTypes().find((s) => s.name === 'Late')!.last_sync_of_checkin;
    expect(late()).toBe('2026-11-03 09:00:00');
    // The punch is delivered: the shift moves up to what both terminals were read to.
    await sync.round(progress({ a: { readUpTo: '2026-11-03 18:00:00' }, b: { readUpTo: '2026-11-03 17:00:00' } }), {
      token,
    });
    expect(late()).toBe('2026-11-03 17:00:00');
  });
});
