import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import type { Punch } from '../../src/punch.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const punch = (code: string, logTime: string, terminal = 'gate-1'): Punch => ({
  terminal,
  biometricCode: code,
  logTime,
});

/**
 * "In the future" is judged against the clock of the terminal that recorded the punch (one judge,
 * journal/future-judge.ts): a read clock (ZK, Hikvision), a steady push offset, else the box's.
 * The box's clock here: 2026-11-22 12:00:00 UTC, tolerance 10 min.
 */
describe('the future judge', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    j = Journal.open({
      path: tmp.path('journal.db'),
      site: 'plant-a',
      clock,
      mode: 'owner',
      futureToleranceMinutes: 10,
    });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('a terminal whose clock reads 2 h ahead: its punches up to its own clock are journalled as recorded', () => {
    const r = j.ingest([punch('1', '2026-11-22 13:59:00'), punch('2', '2026-11-22 14:05:00')], {
      timezone: 'UTC',
      currentSkewSeconds: 7200,
    });
    expect(r).toEqual({ added: 2, duplicates: 0, quarantined: 0 });
    expect(j.claim(10).map((p) => p.logTime)).toEqual(['2026-11-22 13:59:00', '2026-11-22 14:05:00']);
  });

  it('a single punch past the terminal clock (a year off while the rest are fine) is quarantined, its offset said', () => {
    const r = j.ingest([punch('1', '2026-11-22 11:59:00'), punch('2', '2027-11-22 12:00:00')], {
      timezone: 'UTC',
      currentSkewSeconds: 3,
    });
    expect(r).toEqual({ added: 1, duplicates: 0, quarantined: 1 });
    const held = j.queries.list({ state: 'quarantined' });
    expect(held[0]!.lastMessage).toMatch(
      /^quarantined: in the future: \+31536000 s \(8760 h 0 min\) after it was received/,
    );
    // A clock a year ahead is not a zone: its punches are quarantined as before.
    const far = j.ingest([punch('5', '2027-11-22 12:00:00')], { timezone: 'UTC', currentSkewSeconds: 365 * 86_400 });
    expect(far.quarantined).toBe(1);
    // Without a clock reading (serial, import) the box's clock judges, as before.
    expect(j.ingest([punch('3', '2026-11-22 13:00:00')], { timezone: 'UTC' }).quarantined).toBe(1);
    // A terminal 1 h behind: nothing in the future, nothing held.
    expect(j.ingest([punch('4', '2026-11-22 11:00:00')], { timezone: 'UTC', currentSkewSeconds: -3600 }).added).toBe(1);
  });

  it('a push terminal 2 h ahead: held until three of its punches agree, then those and all later ones go, a stray one stays', () => {
    const at = (min: number) => `2026-11-22 14:${String(min).padStart(2, '0')}:00`;
    const push = (p: Punch) => j.ingest([p], { timezone: 'UTC', pushed: true });
    expect(push(punch('1', at(0)))).toMatchObject({ quarantined: 1 });
    clock.advance(60_000);
    expect(push(punch('2', at(1)))).toMatchObject({ quarantined: 1 });
    clock.advance(60_000);
    // A stray punch a year off does not agree with them.
    expect(push(punch('x', '2027-11-22 12:02:00'))).toMatchObject({ quarantined: 1 });
    // The third at the same offset: taken as the terminal's clock; the two held go too.
    expect(push(punch('3', at(2)))).toEqual({ added: 1, duplicates: 0, quarantined: 0, released: 2 });
    expect(j.terminals.get('gate-1')?.skewSeconds).toBe(7200);
    clock.advance(60_000);
    expect(push(punch('4', at(3)))).toEqual({ added: 1, duplicates: 0, quarantined: 0 });
    expect(j.claim(10).map((p) => p.biometricCode)).toEqual(['1', '2', '3', '4']);
    expect(j.queries.list({ state: 'quarantined' }).map((p) => p.biometricCode)).toEqual(['x']);
    // Even three punches a year ahead that agree are no clock: they stay held.
    for (const code of ['y1', 'y2', 'y3'])
      expect(push(punch(code, '2027-11-22 12:05:00'))).toMatchObject({ quarantined: 1 });
    // Another terminal is not affected by it.
    expect(push(punch('9', at(4), 'gate-2'))).toMatchObject({ quarantined: 1 });
    // Its clock set right: a punch dated now settles it, and the offset no longer lets punches through.
    expect(push(punch('5', '2026-11-22 12:03:00'))).toMatchObject({ added: 1 });
    expect(j.terminals.get('gate-1')?.skewSeconds).toBeNull();
    expect(push(punch('6', at(30)))).toMatchObject({ quarantined: 1 });
  });

  it('a push terminal 2 h ahead uploading what it recorded in an outage keeps its offset: only its last punch dated now is a clock set right', () => {
    j.terminals.update('gate-1', { skewSeconds: 7200 });
    // Recorded over the last two hours on a clock 2 h ahead: the first dated about now, the last 2 h ahead.
    const backlog = Array.from({ length: 13 }, (_, k) =>
      punch(
        `b${k}`,
        `2026-11-22 ${String(12 + Math.floor(k / 6)).padStart(2, '0')}:${String((k % 6) * 10).padStart(2, '0')}:00`,
      ),
    );
    expect(j.ingest(backlog, { timezone: 'UTC', pushed: true })).toEqual({ added: 13, duplicates: 0, quarantined: 0 });
    expect(j.terminals.get('gate-1')?.skewSeconds).toBe(7200);
    // A live punch 2 h ahead still goes.
    expect(j.ingest([punch('live', '2026-11-22 14:01:00')], { timezone: 'UTC', pushed: true }).added).toBe(1);
    // Its clock set right: an upload whose last punch is dated now settles it.
    expect(
      j.ingest([punch('old', '2026-11-22 13:50:00'), punch('now', '2026-11-22 12:01:00')], {
        timezone: 'UTC',
        pushed: true,
      }),
    ).toMatchObject({ added: 2, quarantined: 0 });
    expect(j.terminals.get('gate-1')?.skewSeconds).toBeNull();
  });

  it('a push terminal whose offset was recognised before a restart keeps it', () => {
    j.terminals.update('gate-1', { skewSeconds: 7200 });
    expect(j.ingest([punch('1', '2026-11-22 14:00:00')], { timezone: 'UTC', pushed: true }).added).toBe(1);
  });

  it('the hour the clocks fall back: punches of the hour before the change are not in the future', () => {
    // Europe/Berlin, 2026-10-25: 03:00 summer time (01:00 UTC) becomes 02:00 winter time.
    const berlin = { timezone: 'Europe/Berlin' };
    clock.set(Date.UTC(2026, 9, 25, 0, 55, 0)); // 02:55 summer time
    // Read at once, with a right clock: the limit is 03:05 summer time, which the wall clock shows as 02:05.
    expect(j.ingest([punch('1', '2026-10-25 02:55:00')], { ...berlin, currentSkewSeconds: 0 })).toMatchObject({
      added: 1,
      quarantined: 0,
    });
    clock.advance(10 * 60_000); // 02:05 winter time
    // Recorded before the change, read after it: a pushed upload, a serial line, an import.
    expect(j.ingest([punch('2', '2026-10-25 02:58:00')], { ...berlin, pushed: true })).toMatchObject({
      added: 1,
      quarantined: 0,
    });
    expect(j.ingest([punch('3', '2026-10-25 02:59:59')], berlin)).toMatchObject({ added: 1, quarantined: 0 });
    // Past the latest wall clock there was (02:59:59 summer time) plus the tolerance: still the future.
    expect(j.ingest([punch('4', '2026-10-25 03:20:00')], berlin)).toMatchObject({ added: 0, quarantined: 1 });
    expect(j.queries.list({ state: 'quarantined' }).map((p) => p.biometricCode)).toEqual(['4']);
  });
});
