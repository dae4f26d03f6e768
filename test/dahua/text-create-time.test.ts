import { afterEach, describe, expect, it } from 'vitest';
import { startDahuaSim, type NewRecord } from '../../src/sim/dahua/index.js';
import { DahuaPoller } from '../../src/sources/dahua/index.js';
import { dahuaConfig, journalFixture, journalKeys, OFFSET_MIN, PASSWORD } from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * Firmware that writes CreateTime as its wall clock in text, `records[0].CreateTime=2026-05-15
 * 10:14:27`: an Intelbras (Dahua-made) terminal's answer in a public client's test fixture, and
 * the form two other public Dahua clients parse (rebuilt here, not copied). Read as no time, every
 * record was "dated implausibly" and never moved the cursor: a log longer than a page stopped at
 * "a full page that does not move on" at every poll, and the records past it were never read.
 */
describe('Dahua records whose CreateTime is wall-clock text', () => {
  it('reads every record once, with its wall clock, moving the cursor; the next poll adds nothing', async () => {
    const f = journalFixture();
    cleanups.push(f.cleanup);
    const wall = (i: number) =>
      `2026-11-30 ${String(8 + Math.floor(i / 3600)).padStart(2, '0')}:${String(Math.floor((i % 3600) / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
    const records: NewRecord[] = Array.from({ length: 1500 }, (_, i) => ({ UserID: `T${i}`, CreateTime: wall(i) }));
    const sim = await startDahuaSim({ password: PASSWORD, utcOffsetMinutes: OFFSET_MIN, records });
    cleanups.push(() => sim.stop());
    const poller = new DahuaPoller(dahuaConfig(sim, { passwordFile: f.passwordFile }), f.deps);
    cleanups.push(() => poller.destroy());
    const r = await poller.poll();
    expect(r).toMatchObject({ ok: true, added: 1500, implausible: 0 });
    expect(journalKeys(f.journal)).toEqual(records.map((x, i) => `${x.UserID}@${wall(i)}`).sort());
    expect(await poller.poll()).toMatchObject({ ok: true, added: 0 });
    sim.addRecords([{ UserID: 'LATER', CreateTime: '2026-11-30 09:00:00' }]);
    expect(await poller.poll()).toMatchObject({ ok: true, added: 1 });
  });
});

/**
 * The same firmware on a site that set `recordClock: utc` (its seconds, where it writes any, are
 * real UTC): the text is still the terminal's wall clock, now turned into real seconds in the
 * terminal's `timezone` for the read position, as the seconds form's wall clock is turned from
 * them. Left unread, no record moved the read position: a log longer than a page stopped at "a
 * full page that does not move on" at every poll, and what came after was never read.
 */
describe('Dahua wall-clock text CreateTime with recordClock utc', () => {
  it('reads every record once, with its wall clock, moving the cursor; the next poll adds nothing', async () => {
    const f = journalFixture();
    cleanups.push(f.cleanup);
    const wall = (i: number) =>
      `2026-11-30 ${String(8 + Math.floor(i / 3600)).padStart(2, '0')}:${String(Math.floor((i % 3600) / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
    const records: NewRecord[] = Array.from({ length: 1500 }, (_, i) => ({ UserID: `U${i}`, CreateTime: wall(i) }));
    // A device on UTC: the search window it reads (real UTC seconds) is its wall clock's.
    const sim = await startDahuaSim({ password: PASSWORD, utcOffsetMinutes: 0, records });
    cleanups.push(() => sim.stop());
    const cfg = dahuaConfig(sim, { passwordFile: f.passwordFile, recordClock: 'utc', timezone: 'UTC' });
    const poller = new DahuaPoller(cfg, f.deps);
    cleanups.push(() => poller.destroy());
    const r = await poller.poll();
    expect(r).toMatchObject({ ok: true, added: 1500, implausible: 0 });
    expect(journalKeys(f.journal)).toEqual(records.map((x, i) => `${x.UserID}@${wall(i)}`).sort());
    expect(await poller.poll()).toMatchObject({ ok: true, added: 0 });
    sim.addRecords([{ UserID: 'LATER', CreateTime: '2026-11-30 09:00:00' }]);
    expect(await poller.poll()).toMatchObject({ ok: true, added: 1 });
  });
});
