import { afterEach, describe, expect, it } from 'vitest';
import { generateRecords, HOSTILE_RECORDS, startDahuaSim, type DahuaSim } from '../../src/sim/dahua/index.js';
import { DahuaPoller } from '../../src/sources/dahua/index.js';
import { dahuaConfig, expectedPunches, journalFixture, journalKeys, OFFSET_MIN, PASSWORD } from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  n: number,
  simOpts: Parameters<typeof startDahuaSim>[0] = {},
  config: Partial<Parameters<typeof dahuaConfig>[1]> = {},
  boxNow?: () => number,
) {
  const f = journalFixture(boxNow);
  cleanups.push(f.cleanup);
  const now = Math.floor(Date.now() / 1000) + OFFSET_MIN * 60;
  const sim = await startDahuaSim({
    password: PASSWORD,
    utcOffsetMinutes: OFFSET_MIN,
    records: generateRecords(n, now - 120),
    ...simOpts,
  });
  cleanups.push(() => sim.stop());
  const poller = new DahuaPoller(dahuaConfig(sim, { passwordFile: f.passwordFile, ...config }), f.deps);
  cleanups.push(() => poller.destroy());
  return { ...f, sim, poller };
}

const passes = (sim: DahuaSim) => expectedPunches(sim.records());

describe('Dahua poll against the simulator', () => {
  it('reads every accepted record once, by pages from the RecNo/CreateTime cursor, with the wall clock, state and serial', async () => {
    const s = await setup(1234, { pageCap: 100 });
    const r = await s.poller.poll();
    expect(r).toMatchObject({ ok: true, serial: s.sim.serial, reached: true });
    expect(journalKeys(s.journal)).toEqual(passes(s.sim));
    expect(passes(s.sim).length).toBeGreaterThan(1000);
    // Direction: AttendanceState 1 sign in -> 0, 4 sign out -> 1; none chosen -> Type Entry 0 / Exit 1.
    const p = s.journal.queries.list();
    expect(new Set(p.map((x) => x.device))).toEqual(new Set([s.sim.serial]));
    // Nothing new: a second poll asks one page and adds nothing.
    const finds = s.sim.counts().finds;
    const again = await s.poller.poll();
    expect(again).toMatchObject({ ok: true, added: 0 });
    expect(s.sim.counts().finds - finds).toBe(1);
    // New records are read from the cursor on.
    s.sim.addRecords([{ UserID: 'N1' }, { UserID: 'N2', Status: 0 }, { UserID: 'N3' }]);
    const third = await s.poller.poll();
    expect(third.added).toBe(2);
    expect(journalKeys(s.journal)).toEqual(passes(s.sim));
    expect(s.sim.auth()).toMatchObject({ failures: 0, lastAlgorithm: 'SHA-256' });
  });

  it('speaks MD5 to firmware that offers only MD5, and condition.StartTime to firmware that wants it', async () => {
    const s = await setup(300, { digest: 'md5', timeCondition: 'condition', pageCap: 64 });
    const r = await s.poller.poll();
    expect(r.ok).toBe(true);
    expect(journalKeys(s.journal)).toEqual(passes(s.sim));
    expect(s.sim.auth().lastAlgorithm).toBe('MD5');
  });

  it('a restart that numbers from 1 again, and a cleared log, lose nothing and double nothing', async () => {
    const s = await setup(200, { pageCap: 50 });
    await s.poller.poll();
    s.sim.restart();
    s.sim.addRecords([{ UserID: 'R1' }, { UserID: 'R2' }]);
    await s.poller.poll();
    expect(journalKeys(s.journal)).toEqual(passes(s.sim));
    const before = passes(s.sim);
    s.sim.clear();
    // The clock set back with it: records dated before the cursor.
    const back = s.sim.nowSeconds() - 86_400;
    s.sim.addRecords([
      { UserID: 'C1', CreateTime: back },
      { UserID: 'C2', CreateTime: back + 5 },
    ]);
    const r = await s.poller.poll();
    expect(r.ok).toBe(true);
    expect(journalKeys(s.journal)).toEqual([...before, ...passes(s.sim)].sort());
    expect(s.journal.queries.list().length).toBe(before.length + 2);
  });

  it('a device clock set back behind the newest record read: its new records are still read', async () => {
    const s = await setup(100);
    await s.poller.poll();
    s.sim.faults({ clockOffsetSeconds: -2 * 3600 });
    s.sim.addRecords([{ UserID: 'BEHIND-1' }, { UserID: 'BEHIND-2' }]);
    const r = await s.poller.poll();
    expect(r.added).toBe(2);
    expect(journalKeys(s.journal)).toEqual(passes(s.sim));
  });

  it('a clock set back, then a poll more than 10 minutes later: every record stored meanwhile is read (found by an adversarial trial)', async () => {
    let boxAhead = 0;
    const s = await setup(5, {}, {}, () => Date.now() + boxAhead);
    await s.poller.poll();
    // Set back an hour; a record then; 20 minutes later (box and device alike) another, then a poll.
    s.sim.faults({ clockOffsetSeconds: -3600 });
    s.sim.addRecords([{ UserID: 'SET-BACK-1' }]);
    boxAhead += 20 * 60_000;
    s.sim.faults({ clockOffsetSeconds: -3600 + 20 * 60 });
    s.sim.addRecords([{ UserID: 'SET-BACK-2' }]);
    expect((await s.poller.poll()).added).toBe(2);
    // Once the clock is past the cursor again, the log goes on from there.
    boxAhead += 45 * 60_000;
    s.sim.faults({ clockOffsetSeconds: 300 });
    s.sim.addRecords([{ UserID: 'AHEAD-AGAIN' }]);
    expect((await s.poller.poll()).added).toBe(1);
    expect(journalKeys(s.journal)).toEqual(passes(s.sim));
  });

  it('hostile texts and a record dated 2037 neither crash nor blind the cursor', async () => {
    const s = await setup(50);
    s.sim.addRecords(HOSTILE_RECORDS);
    const r = await s.poller.poll();
    expect(r.reached).toBe(true);
    expect(r.implausible).toBeGreaterThan(0);
    s.sim.addRecords([{ UserID: 'AFTER' }]);
    await s.poller.poll();
    expect(journalKeys(s.journal).some((k) => k.startsWith('AFTER@'))).toBe(true);
  });

  it('a CreateTime beyond any date (15 digits) with recordClock utc is quarantined, not a failed poll (found by an adversarial trial)', async () => {
    // A device on UTC, so its records' seconds are real UTC; a named zone (the formatter that threw).
    const s = await setup(5, { utcOffsetMinutes: 0 }, { recordClock: 'utc', timezone: 'UTC' });
    // Sent as text so the simulator serves it whatever the search window; the source reads it as seconds.
    s.sim.addRecords([{ UserID: 'FAR', CreateTime: '999999999999999' }, { UserID: 'NEAR' }]);
    const r = await s.poller.poll();
    expect(r.ok).toBe(true);
    expect(r.implausible).toBeGreaterThan(0);
    const state = (code: string) => s.journal.queries.list().find((p) => p.biometricCode === code)?.state;
    expect(state('NEAR')).toBe('pending');
    // Kept, visibly, as a punch whose time is no time: never sent, never dropped.
    expect(state('FAR')).toBe('quarantined');
  });

  it('a huge or endless answer is cut at its bound: the poll fails in words, the next one goes on', async () => {
    // The answer deadline is three timeouts: 2 s here (6 s), not the helper's 5 s (15 s).
    const s = await setup(20, {}, { timeoutMs: 2000 });
    s.sim.faults({ search: 'huge', hugeMb: 20 });
    const huge = await s.poller.poll();
    expect(huge.ok).toBe(false);
    expect(huge.error).toMatch(/more than 4096 kB/);
    s.sim.faults({ search: 'endless' });
    const endless = await s.poller.poll();
    expect(endless.ok).toBe(false);
    expect(endless.error).toMatch(/did not finish its answer within 6 s/);
    s.sim.faults({ search: null });
    expect((await s.poller.poll()).ok).toBe(true);
    expect(journalKeys(s.journal)).toEqual(passes(s.sim));
  }, 30_000);

  it('a wrong password is tried once, then waits', async () => {
    const s = await setup(5, { password: 'other' });
    const r = await s.poller.poll();
    expect(r).toMatchObject({ ok: false, authRefused: true });
    const again = await s.poller.poll();
    expect(again).toMatchObject({ waiting: true });
    expect(s.sim.auth().failures).toBe(1);
    expect(JSON.stringify(s.journal.terminals.get('front-door'))).not.toContain(PASSWORD);
  });
});
