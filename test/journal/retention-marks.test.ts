import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import type { Punch } from '../../src/punch.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const DAY_MS = 86_400_000;

/**
 * A terminal keeps its log (ZK: until cleared, off by default; 100,000 records are years at a small
 * site) and each download hands all of it in. The retention deletes delivered punches after
 * journal.retentionDays: read again afterwards, they must not be journalled as new and delivered
 * a second time.
 */
describe('punches the retention deleted, read again from the terminal', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;

  const wall = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  /** A log of `days` days, one punch a day per person, ending `endAgoDays` before the clock. */
  const log = (terminal: string, device: string | undefined, days: number, endAgoDays = 0): Punch[] => {
    const out: Punch[] = [];
    for (let d = days - 1; d >= 0; d--)
      for (const code of ['1001', '1002'])
        out.push({ terminal, device, biometricCode: code, logTime: wall(clock.now() - (d + endAgoDays) * DAY_MS) });
    return out;
  };
  const deliverAll = () => {
    for (let c = j.claim(1000, { ignoreBackoff: true }); c.length > 0; c = j.claim(1000, { ignoreBackoff: true }))
      j.settle(c.map((p) => ({ id: p.id, kind: 'delivered' as const })));
  };

  /** 30 days of punches of `device`, delivered; 420 days later one more day; the retention deletes the 30. */
  const pruneFirstMonth = (device: string) => {
    j.ingest(log('gate-1', device, 30));
    deliverAll();
    clock.advance(420 * DAY_MS);
    j.ingest(log('gate-1', device, 1));
    deliverAll();
    expect(j.prune()).toBe(60);
  };

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 0, 10, 12, 0, 0));
    j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', clock, mode: 'owner', retentionDays: 400 });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it.each([
    ['a device with a serial (ZK, push)', 'CKJ2201'],
    ['a terminal without one (a serial line, an import)', undefined],
  ])('%s: the old log read after the retention adds nothing, the new punches go in', (_, device) => {
    // 30 days of punches, read and delivered.
    expect(j.ingest(log('gate-1', device, 30)).added).toBe(60);
    deliverAll();
    // 420 days later the terminal still holds them, and 420 more days of punches, all delivered.
    clock.advance(420 * DAY_MS);
    const later = log('gate-1', device, 420);
    expect(j.ingest([...log('gate-1', device, 30, 420), ...later]).added).toBe(840);
    deliverAll();
    // The retention deletes the first 30 days (delivered over 400 days ago, and dated so).
    expect(j.prune()).toBe(60);
    const before = j.counts();
    // The next download hands the whole log in again: the 60 forgotten ones are duplicates.
    const again = j.ingest([...log('gate-1', device, 30, 420), ...later]);
    expect(again).toMatchObject({ added: 0, duplicates: 900, quarantined: 0, forgotten: 60 });
    expect(j.counts()).toEqual(before);
    expect(j.claim(1000, { ignoreBackoff: true })).toHaveLength(0);
    // Clearing the terminal's log (clearAfterDays) counts them as delivered: they were.
    expect(j.queries.deliveredAmong('gate-1', device ?? '', log('gate-1', device, 30, 420))).toBe(60);
    // A punch recorded now still goes in.
    expect(j.ingest(log('gate-1', device, 1)).added).toBe(0); // today's were in `later`
    clock.advance(DAY_MS);
    expect(j.ingest(log('gate-1', device, 1)).added).toBe(2);
  });

  it('keeps the marks apart: another device, and an old log of a terminal never pruned, go in', () => {
    j.ingest(log('gate-1', 'SERIAL-A', 10));
    deliverAll();
    clock.advance(410 * DAY_MS);
    j.ingest(log('gate-1', 'SERIAL-A', 1));
    deliverAll();
    expect(j.prune()).toBe(20);
    // The same dates from another device (a second terminal, first read): genuine, journalled.
    expect(j.ingest(log('gate-2', 'SERIAL-B', 10, 410)).added).toBe(20);
    // And the mark survives a restart (it is in the journal, not in memory).
    j.close();
    j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', clock, mode: 'owner', retentionDays: 400 });
    expect(j.ingest(log('gate-1', 'SERIAL-A', 10, 410))).toMatchObject({ added: 0, forgotten: 20 });
  });

  it('a punch still waiting is never pruned, and one dated after the mark goes in', () => {
    j.ingest(log('gate-1', 'S1', 5, 2)); // days -6 .. -2
    deliverAll();
    clock.advance(405 * DAY_MS);
    j.ingest(log('gate-1', 'S1', 1));
    deliverAll();
    expect(j.prune()).toBe(10);
    // A punch dated after the pruned ones but long ago (the terminal's day -1, never read before): in.
    const dayMinus1 = wall(clock.now() - 406 * DAY_MS);
    expect(j.ingest([{ terminal: 'gate-1', device: 'S1', biometricCode: '1001', logTime: dayMinus1 }]).added).toBe(1);
  });

  it('a clock reset after a prune (a flat RTC battery: 2000-01-01): its new punches are quarantined, never taken as known', () => {
    pruneFirstMonth('S1');
    // The battery goes flat: the terminal records today's punches from 2000-01-01 on. Every one
    // of them is dated before the mark (the deleted punches of 2026), and none was ever journalled.
    const reset = ['2000-01-01 00:04:10', '2000-01-01 08:02:00', '2000-01-03 17:30:00'].map((logTime) => ({
      terminal: 'gate-1',
      device: 'S1',
      biometricCode: '1001',
      logTime,
    }));
    // Without any evidence of the clock (an import), they go in as they are.
    expect(j.ingest([reset[0]!], {})).toEqual({ added: 1, duplicates: 0, quarantined: 0 });
    // A ZK download: its clock read 26 years behind, its log read up to yesterday before that.
    const r = j.ingest([...log('gate-1', 'S1', 30, 420), ...reset], {
      clockSkewSeconds: -26 * 365 * 86_400,
      readUpTo: wall(clock.now() - DAY_MS),
    });
    expect(r).toMatchObject({ added: 0, quarantined: 2, forgotten: 60 });
    expect(j.counts().quarantined).toBe(2);
    // The old log between the earliest and the latest deleted punch is still known.
    expect(j.queries.deliveredAmong('gate-1', 'S1', reset)).toBe(0);
    expect(j.queries.deliveredAmong('gate-1', 'S1', log('gate-1', 'S1', 30, 420))).toBe(60);
  });

  it('a mark made before the span was kept (down_from NULL) keeps the old rule: everything up to it is known', () => {
    pruneFirstMonth('S1');
    j.db.prepare('UPDATE retention_marks SET down_from = NULL').run();
    const older = [
      { terminal: 'gate-1', device: 'S1', biometricCode: '1001', logTime: wall(clock.now() - 500 * DAY_MS) },
    ];
    expect(j.ingest(older)).toMatchObject({ added: 0, quarantined: 0, forgotten: 1 });
    // A later prune does not make it look known: the span stays open below.
    expect(j.ingest(log('gate-1', 'S1', 5, 405)).added).toBe(10);
    deliverAll();
    clock.advance(401 * DAY_MS);
    expect(j.prune()).toBeGreaterThan(0);
    expect(j.db.prepare('SELECT down_from FROM retention_marks').pluck().all()).toEqual([null]);
  });
});
