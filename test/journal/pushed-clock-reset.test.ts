import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import type { Punch } from '../../src/punch.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * A push terminal's clock cannot be read; its punches are the evidence. Its battery dies or an
 * admin sets it back: it goes on pushing, punches dated 2000-01-01 00:00:05 and on, or a week back.
 * Those are not the times the people punched: held (quarantined, said as a clock behind) and not
 * delivered. An outage's backlog, a clock that ran a zone ahead and was set right, and its log sent
 * again are not held.
 */
describe('a push terminal whose clock was reset or set back', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let j: Journal;

  const wall = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
  const push = (code: string, logTime: string, device = 'CQZ7224460246'): ReturnType<Journal['ingest']> =>
    j.ingest([{ terminal: 'lobby', device, biometricCode: code, logTime } satisfies Punch], {
      timezone: 'UTC',
      pushed: true,
    });
  /** A punch pushed now, recorded `agoMs` before the box's clock by a right clock. */
  const live = (code: string, agoMs = 5000) => push(code, wall(clock.now() - agoMs));

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 30, 9, 0, 0));
    j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', clock, mode: 'owner' });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('reset to 2000: every punch it pushes after that is held, said as a clock behind; the right clock again delivers', () => {
    expect(live('1001').added).toBe(1);
    clock.advance(HOUR_MS);
    // The battery died at the hour; the clock starts at 2000-01-01 00:00:00 and runs on.
    const resetAt = clock.now();
    const sinceReset = (ms: number) => wall(Date.UTC(2000, 0, 1) + ms);
    for (let k = 1; k <= 5; k++) {
      clock.advance(10 * 60_000);
      expect(push(`20${k}`, sinceReset(clock.now() - resetAt))).toMatchObject({ added: 0, quarantined: 1 });
    }
    const held = j.queries.list({ state: 'quarantined' });
    expect(held).toHaveLength(5);
    expect(held[0]!.lastMessage).toMatch(
      /^quarantined: recorded while the terminal clock was behind: dated 9830 days before the newest punch it sent before \(2026-11-30 08:59\): its clock was reset or set back$/,
    );
    // The clock set right again: its punches go in.
    clock.advance(HOUR_MS);
    expect(live('1002').added).toBe(1);
    expect(j.counts()).toMatchObject({ pending: 2, quarantined: 5 });
  });

  it('set back a week: held; the same punches as an outage backlog (dated after the newest) go in', () => {
    live('1001');
    clock.advance(HOUR_MS);
    // Set back by a week: a punch recorded now is dated a week ago.
    expect(push('1002', wall(clock.now() - 7 * DAY_MS))).toMatchObject({ quarantined: 1 });
    // Its network was down for three days (its clock right): the backlog is dated after the newest punch.
    clock.advance(3 * DAY_MS);
    const backlog = [2, 1.5, 1, 0.5].map((d, i) => ({
      terminal: 'lobby',
      device: 'CQZ7224460246',
      biometricCode: `30${i}`,
      logTime: wall(clock.now() - d * DAY_MS),
    }));
    expect(j.ingest(backlog, { timezone: 'UTC', pushed: true })).toMatchObject({ added: 4, quarantined: 0 });
  });

  it('not held: a terminal new to the journal, its log sent again, a clock that ran 26 h ahead set right, another terminal', () => {
    // A terminal's first push: its old log, a year back, is genuine.
    expect(push('1001', wall(clock.now() - 365 * DAY_MS)).added).toBe(1);
    expect(live('1002').added).toBe(1);
    // Its log sent again (an admin's "upload again"): duplicates, not held.
    expect(push('1001', wall(clock.now() - 365 * DAY_MS))).toMatchObject({ added: 0, duplicates: 1, quarantined: 0 });
    // 26 h ahead (a zone never set, its offset taken as its clock's), then set right.
    const ahead = Date.UTC(2026, 10, 30, 9, 0, 0) + 26 * HOUR_MS;
    for (let k = 0; k < 3; k++) {
      clock.advance(60_000);
      push(`40${k}`, wall(clock.now() - Date.UTC(2026, 10, 30, 9, 0, 0) + ahead));
    }
    expect(j.counts().quarantined).toBe(0);
    clock.advance(60_000);
    expect(live('1003')).toMatchObject({ added: 1, quarantined: 0 });
    // Another terminal's punches are judged by its own newest, not this one's.
    expect(push('5001', wall(clock.now() - 30 * DAY_MS), 'OTHER0001')).toMatchObject({ added: 1 });
  });

  it('the newest punch is one it sent, not one held as in the future', () => {
    live('1001');
    // A wild punch a year ahead: held as in the future; it is not the floor for the next ones.
    expect(push('1002', wall(clock.now() + 365 * DAY_MS))).toMatchObject({ quarantined: 1 });
    clock.advance(HOUR_MS);
    expect(live('1003')).toMatchObject({ added: 1, quarantined: 0 });
  });

  it('finds the newest punch through the device index, whatever the journal holds', () => {
    const plan = j.db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT log_time FROM punches WHERE device = ? AND device <> '' AND state <> 'quarantined' ORDER BY log_time DESC LIMIT 1`,
      )
      .all('X') as { detail: string }[];
    expect(plan.map((r) => r.detail).join('; ')).toMatch(/USING INDEX punches_by_device/);
  });
});
