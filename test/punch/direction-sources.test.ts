import { afterEach, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/index.js';
import { directionResolver, directionShower } from '../../src/punch/direction.js';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import type { HikvisionSim } from '../../src/sim/hikvision/index.js';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { http, startReceiver, terminal } from '../adms/harness.js';
import { hikConfig, journalFixture, passwordEnv, startSim } from '../hikvision/helpers.js';
import { waitFor } from '../helpers/wait.js';

/**
 * What each kind of terminal records reaches the journal as a state the one resolver reads right:
 * the real sources against the simulators (and the captured rows of real firmware), then
 * `directionResolver` on the journalled punches with each terminal's default setting.
 */
const directionsOf = (journal: Journal, terminals: Parameters<typeof directionResolver>[0]) => {
  const of = directionResolver(terminals);
  return new Map(
    journal.queries
      .list()
      .map((p) => [`${p.terminal}/${p.biometricCode}@${p.logTime}`, [p.punchState, of(p) ?? null] as const]),
  );
};

describe('direction from what each kind of terminal records', () => {
  let sim: HikvisionSim | undefined;
  let fx: ReturnType<typeof journalFixture> | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  const pushSims: PushTerminalSim[] = [];
  afterEach(async () => {
    await Promise.all(pushSims.splice(0).map((s) => s.stop()));
    await receiver?.stop();
    await sim?.stop();
    fx?.cleanup();
    sim = fx = receiver = undefined;
  });

  it('Hikvision: each attendanceStatus (checkIn ... overtimeOut, undefined, none) polled from the simulator', async () => {
    sim = await startSim(0);
    fx = journalFixture();
    const statuses = [
      'checkIn',
      'checkOut',
      'breakOut',
      'breakIn',
      'overtimeIn',
      'overtimeOut',
      'undefined',
      undefined,
    ];
    sim.addEvents(
      statuses.map((attendanceStatus, i) => ({
        major: 5,
        minor: 75,
        employeeNoString: `E${i}`,
        time: `2026-11-02T08:0${i}:00+05:30`,
        ...(attendanceStatus ? { attendanceStatus } : {}),
      })),
    );
    const cfg = hikConfig(sim, { directionStates: { breakOut: 'none' } });
    const poller = new HikvisionPoller(cfg, fx.deps, undefined, passwordEnv());
    try {
      expect((await poller.poll()).ok).toBe(true);
    } finally {
      await poller.close();
    }
    const got = directionsOf(fx.journal, [cfg]);
    expect(statuses.map((_, i) => got.get(`reception/E${i}@2026-11-02 08:0${i}:00`))).toEqual([
      [0, 'in'],
      [1, 'out'],
      [2, null], // breakOut: none on this terminal
      [3, 'in'],
      [4, 'in'],
      [5, 'out'],
      [null, null],
      [null, null],
    ]);
    expect(directionShower([cfg])(fx.journal.queries.list()[1]!)).toMatchObject({ stateName: 'check-out' });
  });

  it('push ATTLOG (10- and 8-field firmware) and Security PUSH rtlog from the simulated terminals: the status each sent', async () => {
    const attendance = terminal('f22', 'CQZ7233461467');
    const old = terminal('mb10', 'MB10VL00001');
    const security = terminal('gate', 'SECPUSH0001');
    receiver = await startReceiver({ terminals: [attendance, old, security] });
    const common = { server: receiver.url, punches: 0, timeMode: 'sequence' as const, delayMs: 50, errorDelayMs: 50 };
    const sims = [
      startPushTerminalSim({ ...common, serial: attendance.serial }),
      startPushTerminalSim({ ...common, serial: old.serial, variant: { attlogFields: 8 } }),
      startPushTerminalSim({ ...common, serial: security.serial, protocol: 'security' }),
    ];
    pushSims.push(...sims);
    for (const s of sims) s.addPunches(20);
    await waitFor(() => sims.every((s) => s.backlog() === 0), 30_000, 'every terminal uploaded');
    const got = directionsOf(receiver.journal, [attendance, old, security]);
    const [f22, mb10, gate] = sims as [PushTerminalSim, PushTerminalSim, PushTerminalSim];
    const wanted = (name: string, s: PushTerminalSim, status: (sent: number) => number) =>
      s.passes().map((r) => {
        const state = status(r.status);
        return [`${name}/${r.pin}@${r.logTime}`, [state, state === 0 ? 'in' : state === 1 ? 'out' : null]];
      });
    const sent = [
      ...wanted('f22', f22, (st) => st),
      ...wanted('mb10', mb10, () => 255), // 8-field firmware sends status 255 (no state)
      ...wanted('gate', gate, (st) => st), // inoutstatus 0 entry, 1 exit
    ];
    // Both directions were really sent.
    expect(new Set(f22.passes().map((r) => r.status))).toEqual(new Set([0, 1]));
    expect(new Set(gate.passes().map((r) => r.status))).toEqual(new Set([0, 1]));
    expect(got.size).toBe(60);
    expect([...got.entries()].sort()).toEqual(sent.sort());
  });

  it('Security PUSH inoutstatus 2 (no passage direction) is kept as no state, never as break-out', async () => {
    const gate = terminal('gate', 'CRJP230860129');
    receiver = await startReceiver({ terminals: [gate] });
    // Captured SpeedFace-V5L rows (adms-security-push.md), with the passage direction varied.
    const row = (pin: number, second: number, inout: number) =>
      `time=2026-09-15 15:32:${String(second).padStart(2, '0')}\tpin=${pin}\tcardno=0\teventaddr=1\tevent=3\tinoutstatus=${inout}\tverifytype=15\tindex=${114 + pin}\tsitecode=0\tlinkid=0\tmaskflag=255\ttemperature=255\tconvtemperature=255`;
    const body = [row(1, 1, 0), row(2, 2, 1), row(3, 3, 2)].join('\n');
    expect(await http(receiver.url, 'POST', `/iclock/cdata?SN=${gate.serial}&table=rtlog`, body)).toEqual({
      status: 200,
      body: 'OK',
    });
    const got = directionsOf(receiver.journal, [gate]);
    expect([...got.values()]).toEqual([
      [0, 'in'],
      [1, 'out'],
      [255, null],
    ]);
    // A site whose doors report something else names it: 255 is the state to map.
    const mapped = directionsOf(receiver.journal, [{ ...gate, directionStates: { 255: 'in' } }]);
    expect(mapped.get('gate/3@2026-09-15 15:32:03')).toEqual([255, 'in']);
  });
});
