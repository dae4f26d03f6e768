import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { freePort } from '../../bench/lib/ports.js';
import { wallClockAt } from '../../src/punch.js';
import { startDahuaSim } from '../../src/sim/dahua/index.js';
import { startHikvisionSim, type HikvisionSim } from '../../src/sim/hikvision/index.js';
import { startHrmsSim } from '../../src/sim/hrms/index.js';
import { startPushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { startTerminalSim, type TerminalSim } from '../../src/sim/terminal/index.js';
import type { StatusReport } from '../../src/status/types.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { keys, spawnDaemon, statusUrl, TOKEN } from './stack.js';

const HOUR = 3_600_000;
const PASSWORD = 'Right-passw0rd';

/**
 * Terminals whose clocks are wrong (a zone never set, DST not applied) deliver every punch with
 * the time they recorded, and the status says so once per terminal: a ZK terminal and a Hikvision
 * terminal 2 h ahead and each 1 h behind (their clocks read by punchgate), a Hikvision terminal set to
 * +08:00 in a +07:00 site (its time strings carry the offset), a Dahua terminal 2 h ahead, and a push terminal 2 h
 * ahead (no clock to read: its first punches are held, the alert names the offset seen; once
 * several agree, the offset is taken as its clock's and all of them go). The real daemon
 * (dist/punchgate.js), counted at the HRMS simulator.
 */
describe('terminal clocks on the wrong time', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('ZK and Hikvision 2 h ahead and 1 h behind, a push terminal 2 h ahead: every punch delivered as recorded, one clock alert each, no quarantine', async () => {
    const tmp = tempDir('punchgate-clocks-');
    cleanups.push(() => tmp.cleanup());
    const hrms = await startHrmsSim({ tokens: [TOKEN] });
    cleanups.push(() => hrms.stop());
    const at = (offsetMs: number, agoS: number) => wallClockAt(Date.now() + offsetMs - agoS * 1000);

    const zk = async (serial: string, offsetMs: number, code: string): Promise<TerminalSim> => {
      const t = await startTerminalSim({
        serialNumber: serial,
        users: [{ uid: 1, userId: code, name: 'A' }],
        // Its log: punches at its own clock, the last one just now.
        punches: [30, 20, 10].map((ago, i) => ({ userId: `${code}${i}`, logTime: at(offsetMs, ago) })),
        clock: () => wallClockAt(Date.now() + offsetMs),
      });
      cleanups.push(() => t.stop());
      return t;
    };
    const zkAhead = await zk('ZK-AHEAD', 2 * HOUR, '41');
    const zkBehind = await zk('ZK-BEHIND', -HOUR, '42');

    const hik = async (serial: string, offsetS: number, code: string, utcOffset = '+00:00'): Promise<HikvisionSim> => {
      const h = await startHikvisionSim({
        password: PASSWORD,
        utcOffset,
        serialNumber: serial,
        clockOffsetSeconds: offsetS,
      });
      cleanups.push(() => h.stop());
      // Events get the device's clock as their time.
      h.addEvents([1, 2, 3].map((i) => ({ major: 5, minor: 75, employeeNoString: `${code}${i}` })));
      return h;
    };
    const hikAhead = await hik('HIK-AHEAD', 7200, '51');
    const hikBehind = await hik('HIK-BEHIND', -3600, '52');
    // Right in UTC but set to +08:00 in a +07:00 site: its time strings say +08:00, its wall clock
    // (the time it records) runs 1 h ahead of the site's.
    const hikZone = await hik('HIK-ZONE', 0, '53', '+08:00');

    // A Dahua terminal 2 h ahead: its records get its clock's time.
    const dahua = await startDahuaSim({ password: PASSWORD, utcOffsetMinutes: 0, serial: 'DAHUA-AHEAD' });
    cleanups.push(() => dahua.stop());
    dahua.faults({ clockOffsetSeconds: 7200 });
    dahua.addRecords(['611', '612', '613'].map((UserID) => ({ UserID })));

    const admsPort = await freePort();
    writeFileSync(tmp.path('token'), `${TOKEN}\n`);
    writeFileSync(tmp.path('hik.pass'), `${PASSWORD}\n`);
    const zkEntry = (name: string, t: TerminalSim) => ({
      name,
      kind: 'zk',
      host: '127.0.0.1',
      port: t.port,
      transport: 'tcp',
      schedule: '* * * * * *',
      realtime: true,
      timeoutMs: 5000,
      timezone: 'UTC',
    });
    const hikEntry = (name: string, h: HikvisionSim, timezone = 'UTC') => ({
      name,
      kind: 'hikvision',
      url: h.url,
      username: 'admin',
      passwordFile: 'hik.pass',
      schedule: '* * * * * *',
      timezone,
      timeoutMs: 5000,
    });
    const configPath = tmp.path('punchgate.yaml');
    writeFileSync(
      configPath,
      stringify({
        site: 'plant-c',
        journal: { path: tmp.path('journal.db') },
        hrms: { baseUrl: hrms.url, tokenFile: tmp.path('token'), timeoutMs: 20_000, connectTimeoutMs: 5000 },
        delivery: { batchSize: 100, pollIntervalMs: 100, retry: { baseMs: 50, maxMs: 500 } },
        status: { intervalMs: 300, listen: '127.0.0.1:0' },
        adms: { listen: `127.0.0.1:${admsPort}`, delay: 1, errorDelay: 1 },
        terminals: [
          zkEntry('zk-ahead', zkAhead),
          zkEntry('zk-behind', zkBehind),
          hikEntry('hik-ahead', hikAhead),
          hikEntry('hik-behind', hikBehind),
          hikEntry('hik-zone', hikZone, 'Asia/Bangkok'),
          {
            name: 'dahua-ahead',
            kind: 'dahua',
            host: '127.0.0.1',
            port: dahua.port,
            username: 'admin',
            passwordFile: 'hik.pass',
            schedule: '* * * * * *',
            timezone: 'UTC',
            timeoutMs: 5000,
          },
          { name: 'lobby', kind: 'adms', serial: 'LOBBY0001', timezone: 'UTC' },
        ],
      }),
    );
    const d = spawnDaemon(configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const url = await statusUrl(d);
    const status = async () => (await (await fetch(`${url}status.json`)).json()) as StatusReport;
    await waitFor(() => (d.output().match(/real-time events subscribed/g) ?? []).length >= 2, 20_000, 'ZK live');

    // Live punches too: a ZK real-time event and Hikvision events at their clocks.
    zkAhead.addPunch({ userId: '4199', logTime: at(2 * HOUR, 0) });
    zkBehind.addPunch({ userId: '4299', logTime: at(-HOUR, 0) });
    hikAhead.addEvents([{ major: 5, minor: 38, employeeNoString: '5199' }]);
    hikBehind.addEvents([{ major: 5, minor: 38, employeeNoString: '5299' }]);
    hikZone.addEvents([{ major: 5, minor: 38, employeeNoString: '5399' }]);
    dahua.addRecords([{ UserID: '619' }]);

    // The push terminal, 2 h ahead, pushes one punch: held, and the alert names the offset.
    const lobby = startPushTerminalSim({
      server: `http://127.0.0.1:${admsPort}`,
      serial: 'LOBBY0001',
      timezone: 'UTC',
      clockOffsetSeconds: 7200,
      delayMs: 100,
      errorDelayMs: 100,
    });
    cleanups.push(() => lobby.stop());
    lobby.punch('6101');
    await waitFor(
      async () => (await status()).alertItems.some((a) => a.kind === 'quarantined-future'),
      20_000,
      'the push quarantine alert',
    );
    const held = (await status()).alertItems.find((a) => a.kind === 'quarantined-future')!;
    expect(held.cause).toMatch(
      /^terminal lobby: 1 punch quarantined as in the future, .* the newest \+7[12]\d\d s \(2 h\) after it arrived \(punch time minus receive time\)/,
    );
    expect(held.fix).toMatch(/timezone for lobby/);
    expect(held.fix).toMatch(/journal\.futureToleranceMinutes: 13\d/);

    // Two more at the same offset: its clock; all three go, and later ones straight away.
    for (const pin of ['6102', '6103', '6104']) {
      lobby.punch(pin);
      await waitFor(() => lobby.pending() === 0, 10_000, `punch ${pin} pushed`);
    }

    const zkPunches = [...zkAhead.punches(), ...zkBehind.punches()];
    const hikPunches = [...hikAhead.events(), ...hikBehind.events(), ...hikZone.events()].map((e) => ({
      userId: e.employeeNoString,
      logTime: e.time.slice(0, 19).replace('T', ' '),
    }));
    const pushPunches = lobby.records().map((r) => ({ userId: r.pin, logTime: r.logTime }));
    const dahuaPunches = dahua.records().map((r) => ({
      userId: r.UserID,
      logTime: new Date((r.CreateTime as number) * 1000).toISOString().slice(0, 19).replace('T', ' '),
    }));
    const expected = keys([...zkPunches, ...hikPunches, ...pushPunches, ...dahuaPunches]);
    expect(expected).toHaveLength(8 + 12 + 4 + 4);
    await waitFor(() => keys(hrms.attendance()).length === expected.length, 30_000, 'every punch delivered');
    // Each with the time its terminal recorded: 2 h ahead, 1 h behind.
    expect(keys(hrms.attendance())).toEqual(expected);
    expect(
      expected.filter((k) => k.startsWith('41')).every((k) => k.split('@')[1]! > wallClockAt(Date.now() + HOUR)),
    ).toBe(true);

    await waitFor(
      async () => (await status()).alertItems.filter((a) => a.kind === 'clock-skew').length === 7,
      20_000,
      'a clock alert for each terminal',
    );
    const st = await status();
    expect(st.punches.quarantined).toBe(0);
    expect(st.alertItems.some((a) => a.kind === 'quarantined-future' || a.kind === 'quarantined')).toBe(false);
    const skew = st.alertItems.filter((a) => a.kind === 'clock-skew');
    for (const name of ['zk-ahead', 'zk-behind', 'hik-ahead', 'hik-behind', 'hik-zone', 'dahua-ahead', 'lobby'])
      expect(skew.filter((a) => a.cause.startsWith(`terminal ${name}:`))).toHaveLength(1);
    const of = (name: string) => skew.find((a) => a.cause.startsWith(`terminal ${name}:`))!;
    expect(of('zk-ahead').cause).toMatch(
      /its clock is 2 h ahead of the box \(\+7\d\d\d s\); likely 2 whole hours: its time zone or daylight saving time/,
    );
    expect(of('zk-ahead').cause).toMatch(/delivered with the times it recorded/);
    expect(of('zk-ahead').fix).toMatch(/syncClock: true for zk-ahead/);
    expect(of('hik-behind').cause).toMatch(/1 h behind the box \(-3\d\d\d s\); likely 1 whole hour/);
    expect(of('dahua-ahead').cause).toMatch(/its clock is 2 h ahead of the box \(\+7\d\d\d s\)/);
    expect(of('hik-zone').cause).toMatch(/1 h ahead of the box \(\+3\d\d\d s\); likely 1 whole hour/);
    // Its punches keep the +08:00 wall clock it recorded: an hour after the site's.
    expect(
      expected
        .filter((k) => k.startsWith('53'))
        .every((k) => k.split('@')[1]! > wallClockAt(Date.now(), 'Asia/Bangkok')),
    ).toBe(true);
    expect(of('lobby').cause).toMatch(/its punches arrive dated 2 h ahead of the box/);
    expect(d.output()).toMatch(/terminal lobby pushes punches dated \+7\d{3} s/);

    d.child.kill('SIGTERM');
    // 0, not 70: stopping while a Dahua poll goes on throws nothing (src/sources/dahua/http.ts).
    expect((await d.exited).code).toBe(0);
  }, 120_000);
});
