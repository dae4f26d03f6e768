import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import type { Punch } from '../../src/punch.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

const DAY = 86_400_000;
const punch = (code: string, logTime: string): Punch => ({ terminal: 'gate-1', biometricCode: code, logTime });

/**
 * Found by a trial of box clock steps under faketime: `punchgate run` started with the box clock 3
 * days ahead (a wrong RTC at boot, a VM restored) and `journal.retentionDays: 2` deleted at once
 * the 145 punches delivered in the minute before. The retention went by the box's clock alone
 * unless that ran more than 30 days ahead of the newest punch.
 */
describe('the retention with the box clock a few days ahead', () => {
  let tmp: ReturnType<typeof tempDir>;
  let j: Journal;
  const clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));

  beforeEach(() => {
    tmp = tempDir();
    clock.set(Date.UTC(2026, 10, 22, 12, 0, 0));
    j = Journal.open({ path: tmp.path('journal.db'), site: 's', clock, mode: 'owner', retentionDays: 2 });
  });
  afterEach(() => {
    j.close();
    tmp.cleanup();
  });

  it('deletes no punch delivered minutes ago, and a late punch of the terminal is journalled after the clock is set right', () => {
    j.ingest([punch('1', '2026-11-22 11:50:00'), punch('2', '2026-11-22 11:55:00'), punch('3', '2026-11-22 11:58:00')]);
    for (const p of j.claim(10)) j.settle([{ id: p.id, kind: 'delivered' }]);
    clock.advance(3 * DAY); // a start on a box clock 3 days ahead: the retention runs at once
    expect(j.prune()).toBe(0);
    expect(j.counts().delivered).toBe(3);
    clock.set(Date.UTC(2026, 10, 22, 12, 1, 0)); // NTP sets it right
    // A punch the real-time events missed, read by the next poll of the terminal's log: had the
    // retention deleted the two punches around it, it was taken as one of them and never sent.
    expect(j.ingest([punch('4', '2026-11-22 11:52:00')]).added).toBe(1);
    expect(j.counts().pending).toBe(1);
  });

  it('deletes them once the terminals too are a retention past them (a quiet spell only delays that)', () => {
    j.ingest([punch('1', '2026-11-22 11:50:00'), punch('2', '2026-11-22 11:55:00')]);
    for (const p of j.claim(10)) j.settle([{ id: p.id, kind: 'delivered' }]);
    clock.advance(10 * DAY); // ten quiet days (a holiday): nothing newer from the terminals
    expect(j.prune()).toBe(0);
    j.ingest([punch('3', '2026-12-02 12:00:00')]);
    for (const p of j.claim(10)) j.settle([{ id: p.id, kind: 'delivered' }]);
    expect(j.prune()).toBe(2);
  });
});
