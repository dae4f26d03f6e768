import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateRecords, HOSTILE_RECORDS, startDahuaSim, type SimRecord } from '../../src/sim/dahua/index.js';
import { keys, spawnDaemon } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { dahuaDaemonStack } from './daemon-stack.js';
import { expectedPunches, OFFSET_MIN, PASSWORD } from './helpers.js';

const deviceNow = () => Math.floor(Date.now() / 1000) + OFFSET_MIN * 60;

describe('punchgate run with a Dahua terminal', () => {
  it('every accepted record reaches the HRMS once through SIGKILLs, a device restart (RecNo from 1), a cleared log with its clock set back, and hostile texts', async () => {
    const sim = await startDahuaSim({
      password: PASSWORD,
      utcOffsetMinutes: OFFSET_MIN,
      pageCap: 100,
      records: generateRecords(3000, deviceNow() - 3600, 1),
    });
    const s = await dahuaDaemonStack(sim.port);
    const cleared: SimRecord[] = [];
    let n = 0;
    const add = () => {
      n++;
      sim.addRecords([
        { UserID: `L${n}`, AttendanceState: n % 2 ? 1 : 4 },
        ...(n % 5 === 0 ? [{ UserID: `F${n}`, Status: 0 as const }] : []),
      ]);
    };
    let adder = setInterval(add, 25);
    try {
      const cursors: (number | undefined)[] = [];
      for (let kill = 0; kill < 6; kill++) {
        const before = s.cursor(sim.serial)?.time;
        cursors.push(before);
        const finds = sim.counts().finds;
        const d = spawnDaemon(s.configPath);
        await waitFor(() => sim.counts().finds > finds || d.child.exitCode !== null, 20_000, 'the first record search');
        if (kill % 2 === 1)
          await waitFor(
            () => (s.cursor(sim.serial)?.time ?? 0) > (before ?? 0),
            30_000,
            'this run to commit some records',
          );
        await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 600)));
        d.child.kill('SIGKILL');
        await d.exited;
        if (kill === 2) sim.restart(); // the device restarts: records numbered from 1 again
        if (kill === 4) {
          // The log cleared, the clock set back a day with it, and hostile records among the new ones.
          // What is cleared before anyone read it is gone from the device: first a daemon reads it all.
          clearInterval(adder);
          const before = expectedPunches(sim.records());
          const reader = spawnDaemon(s.configPath);
          await waitFor(
            () => keys(s.hrms.attendance()).length >= before.length,
            60_000,
            'the log read before the clear',
          );
          reader.child.kill('SIGKILL');
          await reader.exited;
          cleared.push(...sim.records());
          sim.clear();
          adder = setInterval(add, 25);
          sim.addRecords([{ UserID: 'BACK-1', CreateTime: deviceNow() - 86_400 }, ...HOSTILE_RECORDS]);
        }
      }
      clearInterval(adder);
      expect(cursors.filter((c) => c !== undefined).length).toBeGreaterThanOrEqual(3);

      const d = spawnDaemon(s.configPath);
      // Every record the device ever held (before the clear too) that the door accepted, with a
      // code the journal takes (not the control characters, not 5,000 characters) and a plausible time.
      const latest = deviceNow() + 3600;
      const want = expectedPunches(
        [...cleared, ...sim.records()].filter(
          (r) =>
            r.UserID.length <= 64 &&
            ![...r.UserID].some((ch) => ch.charCodeAt(0) < 0x20) &&
            Number(r.CreateTime) < latest,
        ),
      );
      expect(want).toContain(expectedPunches(sim.records().filter((r) => r.UserID === 'BACK-1'))[0]);
      await waitFor(() => keys(s.hrms.attendance()).length >= want.length, 90_000, 'every record delivered').catch(
        (e: Error) => {
          throw new Error(
            `${e.message}: ${keys(s.hrms.attendance()).length} of ${want.length}; missing ${want
              .filter((k) => !keys(s.hrms.attendance()).includes(k))
              .slice(0, 40)
              .join(' ')}\n${d.output().slice(-3000)}`,
          );
        },
      );
      await waitFor(() => d.output().includes('punchgate running'), 10_000, 'the last daemon running');
      expect(keys(s.hrms.attendance())).toEqual(want);
      expect(s.hrms.attendance().length).toBe(want.length);
      expect(sim.auth()).toMatchObject({ failures: 0, lockouts: 0 });
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      clearInterval(adder);
      await sim.stop();
      await s.stop();
    }
  }, 240_000);
});

describe('punchgate run with a Dahua terminal and its event stream', () => {
  it('reads a record the moment the stream tells of it; real time and poll together never make two punches of one', async () => {
    const sim = await startDahuaSim({
      password: PASSWORD,
      utcOffsetMinutes: OFFSET_MIN,
      records: generateRecords(40, deviceNow() - 600, 3),
    });
    // Polled every second as well: both paths run at once.
    const s = await dahuaDaemonStack(sim.port, { realtime: true });
    try {
      const d = spawnDaemon(s.configPath);
      await waitFor(() => sim.counts().streams > 0, 20_000, 'the event stream attached');
      for (let i = 1; i <= 60; i++) {
        sim.addRecords([{ UserID: `RT${i}`, AttendanceState: 1 }]);
        await new Promise((r) => setTimeout(r, 20 + (i % 7) * 15));
      }
      const want = expectedPunches(sim.records());
      await waitFor(() => keys(s.hrms.attendance()).length >= want.length, 30_000, 'every record delivered');
      // One more poll tick after the last: nothing doubles.
      await new Promise((r) => setTimeout(r, 1500));
      expect(keys(s.hrms.attendance())).toEqual(want);
      expect(s.hrms.attendance().length).toBe(want.length);
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      await sim.stop();
      await s.stop();
    }
  }, 90_000);

  it('with the schedule far away, the stream alone brings each punch within seconds', async () => {
    const sim = await startDahuaSim({ password: PASSWORD, utcOffsetMinutes: OFFSET_MIN });
    const s = await dahuaDaemonStack(sim.port, { realtime: true, schedule: '0 0 1 1 *' });
    try {
      const d = spawnDaemon(s.configPath);
      await waitFor(() => sim.counts().streams > 0, 20_000, 'the event stream attached');
      for (let i = 1; i <= 5; i++) {
        sim.addRecords([{ UserID: `EV${i}` }]);
        await waitFor(() => keys(s.hrms.attendance()).length >= i, 10_000, `record ${i} delivered by the stream`);
      }
      expect(keys(s.hrms.attendance())).toEqual(expectedPunches(sim.records()));
      // A status page names no trouble.
      const status = s.tmp.path('status.txt');
      await waitFor(() => existsSync(status), 20_000, 'the status file');
      expect(readFileSync(status, 'utf8')).not.toMatch(/front-door.*(refuses|cannot|error)/i);
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      await sim.stop();
      await s.stop();
    }
  }, 90_000);

  it('an endless or huge record answer is cut at its bound, named in the status, and the log read once it ends', async () => {
    const sim = await startDahuaSim({
      password: PASSWORD,
      utcOffsetMinutes: OFFSET_MIN,
      records: generateRecords(30, deviceNow() - 600, 3),
    });
    sim.faults({ search: 'huge', hugeMb: 16 });
    const s = await dahuaDaemonStack(sim.port, { timeoutMs: 1000 });
    try {
      const d = spawnDaemon(s.configPath);
      const status = s.tmp.path('status.txt');
      await waitFor(
        () => existsSync(status) && /more than 4096 kB/.test(readFileSync(status, 'utf8')),
        30_000,
        'the status naming the huge answer',
      );
      sim.faults({ search: 'endless' });
      await waitFor(
        () => existsSync(status) && /did not finish its answer/.test(readFileSync(status, 'utf8')),
        30_000,
        'the status naming the endless answer',
      );
      expect(d.child.exitCode).toBeNull();
      sim.faults({ search: null });
      const want = expectedPunches(sim.records());
      await waitFor(() => keys(s.hrms.attendance()).length >= want.length, 30_000, 'every record delivered');
      expect(keys(s.hrms.attendance())).toEqual(want);
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      await sim.stop();
      await s.stop();
    }
  }, 120_000);
});

describe('punchgate run with a Dahua terminal and a wrong password', () => {
  it('tries it once (neither the polls every second nor the stream try again), says so with the fix, and reads at once when the file is corrected', async () => {
    const sim = await startDahuaSim({
      password: PASSWORD,
      utcOffsetMinutes: OFFSET_MIN,
      records: generateRecords(20, deviceNow() - 600, 3),
    });
    const s = await dahuaDaemonStack(sim.port, { realtime: true });
    writeFileSync(s.tmp.path('front-door.pass'), 'Wrong-one-1\n');
    try {
      const d = spawnDaemon(s.configPath);
      const status = s.tmp.path('status.txt');
      await waitFor(
        () => existsSync(status) && /front-door refuses the password/.test(readFileSync(status, 'utf8')),
        20_000,
        'the status naming the refused password',
      );
      await new Promise((r) => setTimeout(r, 3000)); // three more poll ticks
      expect(sim.auth().failures).toBe(1);
      expect(sim.counts().attaches).toBe(0);
      expect(readFileSync(status, 'utf8')).toMatch(/put the right password in .*front-door\.pass/);
      expect(readFileSync(status, 'utf8') + d.output()).not.toContain(PASSWORD);
      writeFileSync(s.tmp.path('front-door.pass'), PASSWORD + '\n');
      const want = expectedPunches(sim.records());
      await waitFor(() => keys(s.hrms.attendance()).length >= want.length, 20_000, 'the records read after the fix');
      expect(keys(s.hrms.attendance())).toEqual(want);
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      await sim.stop();
      await s.stop();
    }
  }, 90_000);
});
