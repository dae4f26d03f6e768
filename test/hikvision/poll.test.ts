import { afterEach, describe, expect, it } from 'vitest';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import { DEFAULT_HIK_SERIAL, type HikvisionSim } from '../../src/sim/hikvision/index.js';
import { activeNotes } from '../../src/sources/hikvision/notes.js';
import { fakeClock } from '../helpers/tmp.js';
import { expectedPunches, hikConfig, journalFixture, journalKeys, passwordEnv, searches, startSim } from './helpers.js';

let sim: HikvisionSim | undefined;
let fx: ReturnType<typeof journalFixture> | undefined;
const pollers: HikvisionPoller[] = [];
afterEach(async () => {
  for (const p of pollers.splice(0)) await p.close();
  await sim?.stop();
  fx?.cleanup();
  sim = fx = undefined;
});

function poller(s: HikvisionSim, extra: Parameters<typeof hikConfig>[1] = {}, env: NodeJS.ProcessEnv = passwordEnv()) {
  const p = new HikvisionPoller(hikConfig(s, extra), fx!.deps, undefined, env);
  pollers.push(p);
  return p;
}

describe('Hikvision poll', () => {
  it('journals exactly the authentication passes, with the device wall clock, and none of the noise', async () => {
    sim = await startSim(400);
    fx = journalFixture();
    const r = await poller(sim).poll();
    expect(r).toMatchObject({ ok: true, mode: 'serial', added: 400, quarantined: 0 });
    expect(r.rows).toBe(sim.events().filter((e) => e.major === 5).length);
    expect(r.rows).toBeGreaterThan(900); // door events and failures were read and left out
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
    // +05:30 on the device: the time is its wall clock, not converted to UTC.
    const e = sim.events().find((x) => x.minor === 75)!;
    const stored = fx.journal.queries.list().find((p) => p.logTime === e.time.slice(0, 19).replace('T', ' '));
    expect(stored).toMatchObject({ biometricCode: e.employeeNoString, verifyType: 75, device: DEFAULT_HIK_SERIAL });
    const ledger = fx.journal.terminals.get('reception')!;
    expect(ledger).toMatchObject({ online: true, serial: expect.stringMatching(/^DS-K1T/), lastError: null });
  });

  it('maps the minor to the verify type and attendanceStatus to the punch state', async () => {
    sim = await startSim(0);
    fx = journalFixture();
    sim.addEvents([
      { major: 5, minor: 38, employeeNoString: 'E1', attendanceStatus: 'checkOut', time: '2026-11-02T07:58:01+05:30' },
      { major: 5, minor: 1, employeeNoString: 'E2', attendanceStatus: 'undefined', time: '2026-11-02T07:59:01+05:30' },
      { major: 5, minor: 1, cardNo: '0004521236', time: '2026-11-02T08:00:00+05:30' },
      { major: 5, minor: 75, time: '2026-11-02T08:01:00+05:30' },
      { major: 5, minor: 75, employeeNoString: 'E3', time: 'garbage' },
      { major: 5, minor: 39, employeeNoString: 'E4', time: '2026-11-02T08:02:00+05:30' },
    ]);
    const r = await poller(sim).poll();
    expect(r.ok).toBe(true);
    const rows = fx.journal.queries
      .list()
      .map((p) => [p.biometricCode, p.logTime, p.verifyType, p.punchState, p.state]);
    expect(rows).toEqual([
      ['E1', '2026-11-02 07:58:01', 38, 1, 'pending'],
      ['E2', '2026-11-02 07:59:01', 1, null, 'pending'],
      ['card:0004521236', '2026-11-02 08:00:00', 1, null, 'pending'],
      // A time the device wrote wrongly is kept and quarantined, never dropped.
      ['E3', 'garbage', 75, null, 'quarantined'],
    ]);
  });

  it('resumes from the journalled serial number, also after a restart (a new poller)', async () => {
    sim = await startSim(100);
    fx = journalFixture();
    await poller(sim).poll();
    const last = sim.events().at(-1)!.serialNo;
    sim.addEvents([
      { major: 5, minor: 75, employeeNoString: 'NEW1' },
      { major: 5, minor: 21, doorNo: 1 },
    ]);
    sim.clearRequests();
    const r = await poller(sim).poll();
    expect(r).toMatchObject({ ok: true, added: 1, rows: 2 });
    // From the last event read, asked for again: its time says the numbering did not start again.
    expect(searches(sim).map((c) => [c.beginSerialNo, c.endSerialNo, c.searchResultPosition])).toEqual([
      [last, 3_000_000_000, 0],
    ]);
    sim.clearRequests();
    await poller(sim).poll();
    expect(searches(sim)[0]!.beginSerialNo).toBe(last + 2);
  });

  it('the cursor moves past door events too (committed without a punch)', async () => {
    sim = await startSim(0);
    fx = journalFixture();
    sim.addEvents([
      { major: 5, minor: 21 },
      { major: 5, minor: 22 },
    ]);
    await poller(sim).poll();
    expect(JSON.parse(fx.journal.sourceState.get('reception', `events:${DEFAULT_HIK_SERIAL}`)!)).toMatchObject({
      serialNo: 2,
    });
    expect(fx.journal.queries.list()).toEqual([]);
  });

  it('a journal write failing mid-read skips nothing: the cursor is only where the punches are', async () => {
    sim = await startSim(900);
    fx = journalFixture();
    const real = fx.deps.sink;
    let commits = 0;
    const failing = {
      ...fx.deps,
      sink: {
        ingest: (...a: Parameters<typeof real.ingest>) => {
          if (++commits === 2) throw new Error('SQLITE_BUSY: database is locked');
          return real.ingest(...a);
        },
      },
    };
    const p = new HikvisionPoller(hikConfig(sim), failing, undefined, passwordEnv(), { commitRows: 500 });
    pollers.push(p);
    const r1 = await p.poll();
    expect(r1).toMatchObject({ ok: false, error: expect.stringMatching(/SQLITE_BUSY: database is locked$/) });
    const afterFirst = fx.journal.queries.list().length;
    expect(afterFirst).toBeGreaterThan(0);
    expect(afterFirst).toBeLessThan(900);
    const r2 = await p.poll();
    expect(r2.ok).toBe(true);
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
    expect(r2.duplicates).toBe(0); // resumed exactly after the committed batch
  });

  it('reads firmware that ignores serial filters by time window, still exactly once per punch', async () => {
    sim = await startSim(200, { firmware: { serialFilters: 'ignore' } });
    fx = journalFixture();
    const p = poller(sim);
    const first = await p.poll();
    expect(first).toMatchObject({ ok: true, added: 200 });
    sim.addEvents([
      { major: 5, minor: 38, employeeNoString: 'LATE' },
      { major: 5, minor: 39 },
    ]);
    sim.clearRequests();
    const second = await p.poll();
    expect(second).toMatchObject({ ok: true, mode: 'time', added: 1 });
    const conds = searches(sim);
    expect(conds[0]!.beginSerialNo).toBeDefined(); // tried by serial, got the whole log back
    expect(conds.at(-1)!.startTime).toMatch(/\+05:30$/);
    expect(conds.at(-1)!.beginSerialNo).toBeUndefined();
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
    // A third poll reads only the overlap window, adds nothing.
    sim.clearRequests();
    const third = await p.poll();
    expect(third).toMatchObject({ ok: true, mode: 'time', added: 0 });
    expect(third.rows).toBeLessThan(20);
  });

  it('reads firmware that refuses serial filters by time window', async () => {
    sim = await startSim(100, { firmware: { serialFilters: 'refuse' } });
    fx = journalFixture();
    const r = await poller(sim).poll();
    expect(r).toMatchObject({ ok: true, mode: 'time', added: 100 });
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
  });

  it('keeps the punches of a swapped device apart, reading the new one from its start', async () => {
    sim = await startSim(20, { serialNumber: 'DEV-A' });
    fx = journalFixture();
    await poller(sim).poll();
    sim.setSerialNumber('DEV-B');
    sim.clearRequests();
    const r = await poller(sim).poll();
    expect(searches(sim)[0]!.beginSerialNo).toBe(1);
    expect(r).toMatchObject({ ok: true, serial: 'DEV-B', added: 20 });
    expect(fx.journal.terminals.get('reception')).toMatchObject({ serial: 'DEV-B', previousSerial: 'DEV-A' });
    expect(new Set(fx.journal.queries.list().map((p) => p.device))).toEqual(new Set(['DEV-A', 'DEV-B']));
  });

  it('notices a log cleared at the device (serial numbers from 1 again)', async () => {
    sim = await startSim(30);
    fx = journalFixture();
    const p = poller(sim);
    await p.poll();
    sim.clearLog();
    sim.addEvents([{ major: 5, minor: 75, employeeNoString: 'AFTER-RESET' }]);
    const r = await p.poll();
    expect(r.ok).toBe(true);
    expect(journalKeys(fx.journal).some((k) => k.startsWith('AFTER-RESET@'))).toBe(true);
  });

  it('reads the clock, shows the skew and sets it with syncClock', async () => {
    sim = await startSim(0, { clockOffsetSeconds: -600 });
    fx = journalFixture();
    const r = await poller(sim).poll();
    // 600 s behind, give or take what a loaded CI box may hold this process between the answer and
    // its reading (a hiccup of seconds); a wrong sign or zone would be hours or 1200 s off.
    expect(r.skewSeconds).toBeGreaterThan(-620);
    expect(r.skewSeconds).toBeLessThan(-580);
    expect(fx.journal.terminals.get('reception')!.skewSeconds).toBe(r.skewSeconds);
    const synced = await poller(sim, { syncClock: true }).poll();
    expect(synced.ok).toBe(true);
    const again = await poller(sim).poll();
    expect(Math.abs(again.skewSeconds!)).toBeLessThan(20); // set: not 600 s off (20: room for a loaded box)
  });

  it('syncClock across a time zone difference: a clock set from 2 whole hours off is said in the status', async () => {
    sim = await startSim(0, { clockOffsetSeconds: 7200 });
    fx = journalFixture();
    expect((await poller(sim, { syncClock: true }).poll()).ok).toBe(true);
    expect(Math.abs((await poller(sim).poll()).skewSeconds!)).toBeLessThan(20);
    const [note, ...more] = activeNotes(fx.journal.sourceState, 'reception', Date.now());
    expect(more).toEqual([]);
    expect(note).toMatchObject({
      topic: 'clock',
      cause: expect.stringMatching(/^its clock was 2 h ahead of the box's time in .*, a time zone's difference/),
      fix: expect.stringMatching(/set timezone for reception in the config to the zone it runs in/),
    });
  });

  it('a wrong password backs off for minutes and never locks the account; a fixed password file is tried at once', async () => {
    const clock = fakeClock(Date.now());
    // A device's default: 5 wrong passwords within 30 minutes lock the account.
    sim = await startSim(5, { lockoutAfter: 5, lockoutWindowMs: 30 * 60_000, now: () => clock.now() });
    fx = journalFixture(clock.now);
    const { writeFileSync, utimesSync } = await import('node:fs');
    writeFileSync(fx.passwordFile, 'wrong\n');
    utimesSync(fx.passwordFile, new Date(clock.now() - 60_000), new Date(clock.now() - 60_000));
    const p = poller(sim, { passwordFile: fx.passwordFile }, {});
    // A day of minute-by-minute polls with the wrong password.
    let tries = 0;
    for (let minute = 0; minute < 24 * 60; minute++) {
      const r = await p.poll();
      if (!r.waiting) tries++;
      expect(r.ok).toBe(false);
      clock.advance(60_000);
    }
    expect(sim.auth().lockouts).toBe(0);
    expect(sim.auth().failures).toBe(tries);
    expect(tries).toBeLessThanOrEqual(28); // 5, 10, 20, 40 min, then hourly
    const ledger = fx.journal.terminals.get('reception')!;
    // The cause and the fix, as check says them (the ledger keeps them apart).
    expect(`${ledger.lastError}: ${ledger.lastErrorFix}`).toMatch(
      /^reception refuses the password: .*next try at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d,/,
    );
    expect(ledger.lastError).not.toContain('wrong');
    // The admin fixes the file: the next poll tries it at once.
    writeFileSync(fx.passwordFile, 'Right-passw0rd\n');
    utimesSync(fx.passwordFile, new Date(clock.now()), new Date(clock.now()));
    const fixed = await p.poll();
    expect(fixed).toMatchObject({ ok: true, added: 5 });
    expect(fx.journal.terminals.get('reception')!.lastError).toBeNull();
  });

  it('a refusal is remembered across restarts: a new poller waits too', async () => {
    sim = await startSim(0, { lockoutAfter: 2 });
    const clock = fakeClock(Date.now());
    fx = journalFixture(clock.now);
    for (let restart = 0; restart < 10; restart++) {
      const r = await poller(sim, {}, passwordEnv('wrong')).poll();
      expect(r.ok).toBe(false);
      clock.advance(10_000);
    }
    expect(sim.auth()).toMatchObject({ failures: 1, lockouts: 0 });
  });

  it('withClient (for one-shot work such as the roster sync) keeps to the same password rule', async () => {
    sim = await startSim(0);
    const clock = fakeClock(Date.now());
    fx = journalFixture(clock.now);
    const ok = poller(sim);
    await ok.withClient((c) => c.users.setUp({ employeeNo: '1042', name: 'Jane Doe' }));
    expect(sim.users().map((u) => u.employeeNo)).toEqual(['1042']);
    const wrong = poller(sim, {}, passwordEnv('wrong'));
    await expect(wrong.withClient((c) => c.users.list())).rejects.toThrow(/^reception refuses the password/);
    // The wait applies at once, to every user of the terminal: nothing is sent.
    sim.clearRequests();
    await expect(poller(sim).withClient((c) => c.users.list())).rejects.toThrow(/next try at/);
    expect(sim.requests()).toEqual([]);
    expect(sim.auth().failures).toBe(1);
  });
});
