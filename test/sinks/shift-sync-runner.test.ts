import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import type { FrappeSinkConfig } from '../../src/config/sinks.js';
import { ShiftSyncRunner } from '../../src/daemon/shift-sync-runner.js';
import { Journal } from '../../src/journal/index.js';
import { startFrappeSim, type FrappeSim } from '../../src/sim/frappe/index.js';
import type { Logger } from '../../src/util/logger.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const MIN = 60_000;

/** One Frappe sink's shift sync runner against a real Frappe simulator and journal, on a fake clock. */
describe('shift sync runner', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;
  let sim: FrappeSim;
  let token = 'k:wrong';
  const warns: string[] = [];
  const infos: string[] = [];
  const logger = {
    warn: (_o: unknown, m: string) => warns.push(m),
    info: (_o: unknown, m: string) => infos.push(m),
    debug: () => {},
  } as unknown as Logger;

  beforeEach(async () => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 10, 0, 0));
    j = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
    j.useSinks({ defaultSink: 'erp', others: [] });
    sim = await startFrappeSim({ keys: [{ key: 'k', secret: 's' }], shiftTypes: [{ name: 'Day' }] });
    warns.length = 0;
    infos.length = 0;
    token = 'k:wrong';
  });
  afterEach(async () => {
    j.close();
    await sim.stop();
    tmp.cleanup();
  });

  const sink = () =>
    parseConfigText(
      `site: plant-a\njournal:\n  path: ${tmp.path('j.db')}\nsinks:\n  - name: erp\n    kind: frappe\n` +
        `    baseUrl: ${sim.url}\n    apiKeyFile: /k\n    apiSecretFile: /s\n` +
        `    shiftSync:\n      - shiftType: Day\n        terminals: [gate]\n` +
        `terminals:\n  - name: gate\n    kind: zk\n    host: 10.0.0.9\n    timezone: UTC\n`,
      tmp.path('p.yaml'),
      tmp.path(''),
    ).sinks[0] as FrappeSinkConfig;

  const runner = () => {
    const s = sink();
    return new ShiftSyncRunner({
      sink: { ...s, shiftSync: s.shiftSync! },
      isDefault: true,
      journal: j,
      terminals: [{ name: 'gate', timezone: 'UTC' }] as never,
      tokens: { get: () => token },
      logger,
      clock,
      onFatal: (e) => {
        throw e;
      },
    });
  };
  it('a refused key: logged once, again only after 10 minutes, an end said; the value set once it works', async () => {
    j.terminals.update('gate', { readUpTo: '2026-11-22 09:58:00' });
    j.ingest([{ terminal: 'gate', biometricCode: '7', logTime: '2026-11-22 09:30:00' }]);
    const r = runner();
    for (let i = 0; i < 5; i++) {
      await r.kick();
      clock.advance(MIN);
    }
    expect(warns).toHaveLength(1);
    expect(warns[0]).toContain('shift sync of sink erp failed');
    expect(r.facts().failingSince).toBe(Date.UTC(2026, 10, 22, 10, 0, 0));
    expect(r.facts().lastError).toMatch(/HTTP 401/);
    clock.advance(6 * MIN);
    await r.kick();
    expect(warns).toHaveLength(2);
    expect(sim.shiftTypes()[0]!.last_sync_of_checkin).toBeNull();
    // The right key: set, and the log says it works again.
    token = 'k:s';
    await r.kick();
    // The punch is not delivered: Day stops at it.
    expect(sim.shiftTypes()[0]!.last_sync_of_checkin).toBe('2026-11-22 09:30:00');
    expect(r.facts()).toMatchObject({
      failingSince: null,
      lastError: null,
      lastSet: { Day: '2026-11-22 09:30:00' },
    });
    expect(infos).toEqual(['shift sync of sink erp works again']);
    // Delivered: up to the read time.
    j.settle(j.claim(10).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    await r.kick();
    expect(sim.shiftTypes()[0]!.last_sync_of_checkin).toBe('2026-11-22 09:58:00');
    await r.stop();
  });

  it('failing since no later than now after a step back of the box clock (its alert comes after the usual minutes)', async () => {
    j.terminals.update('gate', { readUpTo: '2026-11-22 09:58:00' });
    const r = runner();
    await r.kick();
    clock.advance(MIN);
    clock.step(-60 * MIN);
    await r.kick();
    expect(r.facts().failingSince).toBe(Date.UTC(2026, 10, 22, 9, 1, 0));
  });

  it('a punch Frappe refused holds the shift type: logged once, kept with since when, gone once it is delivered', async () => {
    token = 'k:s';
    j.terminals.update('gate', { readUpTo: '2026-11-22 09:58:00' });
    j.ingest([
      { terminal: 'gate', biometricCode: '7', logTime: '2026-11-22 09:30:00' },
      { terminal: 'gate', biometricCode: '8', logTime: '2026-11-22 09:40:00' },
    ]);
    const claimed = j.claim(10);
    const refused = claimed.find((p) => p.biometricCode === '7')!;
    j.settle([{ id: refused.id, kind: 'rejected', message: 'No Employee found for 7' }]);
    j.settle(claimed.filter((p) => p !== refused).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    const r = runner();
    const since = clock.now();
    for (let i = 0; i < 3; i++) {
      await r.kick();
      clock.advance(MIN);
    }
    expect(sim.shiftTypes()[0]!.last_sync_of_checkin).toBe('2026-11-22 09:30:00');
    expect(r.facts().held).toEqual({ Day: { terminal: 'gate', logTime: '2026-11-22 09:30:00', since } });
    expect(warns).toEqual([
      'shift sync of sink erp: Shift Type Day waits at 2026-11-22 09:30:00, where a punch of gate was refused by Frappe; Auto Attendance of that shift waits until it is delivered',
    ]);
    // A pending punch holding it is no hold: only refused ones are.
    clock.advance(86_400_000);
    j.settle(j.claim(10, { ignoreBackoff: true }).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    await r.kick();
    expect(r.facts().held).toEqual({});
    expect(sim.shiftTypes()[0]!.last_sync_of_checkin).toBe('2026-11-22 09:58:00');
    j.ingest([{ terminal: 'gate', biometricCode: '9', logTime: '2026-11-22 09:50:00' }]);
    await r.kick();
    expect(r.facts().held).toEqual({});
    expect(warns).toHaveLength(1);
    await r.stop();
  });
});
